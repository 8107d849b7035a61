"""Legendary Forests' own analyses, declared for the shared statistics and report
(``Game.analyses``): its columns and the report's words for them.

- the light tiles drawn: dealt by the shuffle, so their count's relation to the score is an
  effect of the count;
- the construction token: the first pick of trees passes seat to seat, once per light tile
  drawn, so how often a seat leads is set by the seat order (an association, estimated with
  the game and the seat held fixed);
- the tiles removed unseen before the game: set by the shuffle too.
"""

from __future__ import annotations

from sim.games.base import (
    GameAnalysis,
    RandomisedCountEffect,
    RemovedItemsEffect,
    RotatingRoleAssociation,
)

LIGHT_TILES = RandomisedCountEffect(
    column="light_tiles_drawn", noun="light tiles drawn", singular="light tile drawn",
    item="light tile", unit="tile", axis_label="Light tiles drawn (= tree phases)",
    section="light tiles")
CONSTRUCTION_TOKEN = RotatingRoleAssociation(
    column="tree_phases_as_token_holder", count_column=LIGHT_TILES.column,
    noun="construction token", turn="tree phase",
    heading="Construction token and tree-pick order",
    explanation=("Tree phase k (k = 1, 2, ...) is led by seat 1 + (k - 1) mod players, so every "
                 "seat leads in turn from seat 1 on; when the light tiles drawn are not a "
                 "multiple of the player count, the first seats lead one phase more."),
    held_header="Phases leading", position_header="Mean pick position (0 = first)",
    section="token")
REMOVED_TILES = RemovedItemsEffect(column="removed_tiles_mask", noun="tile")

ANALYSES: tuple[GameAnalysis, ...] = (CONSTRUCTION_TOKEN, LIGHT_TILES, REMOVED_TILES)
