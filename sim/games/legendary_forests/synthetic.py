"""Synthetic Legendary Forests rows with known true values, for testing the shared statistics
and reports on this game's columns: ``ForestDeals``, the game's part of a synthetic batch (a
``sim.stats.synthetic.SyntheticDeals``, given as a ``SyntheticDesign``'s ``deal_model``).

It adds to the shared additive model what this game's deal and seat order set::

    score = (the shared model: base, strategy, seat, deal, game and noise terms)
            + token_points * (tree phases as token holder)
            + light_tile_points * (light tiles drawn) + light_tile_curve[light tiles drawn]
            + sum of tile_points[n] over the tiles n removed

Every deal shuffles tiles 2..``tile_count``, removes the first ``removed_tiles`` unseen and draws
the rest; tree phase k is led by seat k mod players, once per light tile drawn. The rows carry
the game's columns (``light_tiles_drawn``, ``tree_phases_as_token_holder``,
``removed_tiles_mask``, ``draw_order``, the rules parameters and stand-in counts of zones, runes
and trees). ``true_tile_effect`` gives the removed-tile effect the statistics should recover.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import polars as pl

GAME_NAME = "legendary-forests"  # the registered name (sim/loops/legendary_forests/game.py)
LIGHT_TILES = (2, 8, 10, 12, 15, 19, 22, 25)  # the shipped tile set's light tiles


class DealtTiles(NamedTuple):
    """What every deal holds (one row per deal)."""

    removed: np.ndarray  # (deals, removed_tiles): the tiles removed unseen, in shuffled order
    drawn: np.ndarray  # (deals, tiles drawn): the draw order
    mask: np.ndarray  # bit n - 1 set when tile n was removed
    light: np.ndarray  # light tiles drawn


@dataclass(frozen=True)
class ForestDeals:
    """The game's part of a synthetic batch (see the module docstring); the design's
    ``players`` and ``deals`` come from the ``SyntheticDesign`` it is part of."""

    token_points: float = 0.0
    light_tile_points: float = 0.0
    # Points every player gets when that many light tiles are drawn (a curve, on top of the line).
    light_tile_curve: dict[int, float] = field(default_factory=dict)
    tile_points: dict[int, float] = field(default_factory=dict)
    tile_count: int = 25
    removed_tiles: int = 5
    light_tiles: tuple[int, ...] = LIGHT_TILES

    game = GAME_NAME

    def draw(self, design: Any, rng: np.random.Generator) -> DealtTiles:
        """Shuffle tiles 2..``tile_count`` for every deal: the removed ones, the draw order."""
        candidates = np.arange(2, self.tile_count + 1)
        order = candidates[np.argsort(rng.random((design.deals, candidates.size)), axis=1)]
        removed, drawn = order[:, :self.removed_tiles], order[:, self.removed_tiles:]
        mask = np.zeros(design.deals, dtype=np.int64)
        for column in range(removed.shape[1]):
            mask |= np.left_shift(np.int64(1), removed[:, column] - 1)
        return DealtTiles(removed, drawn, mask, np.isin(drawn, self.light_tiles).sum(axis=1))

    def deal_points(self, drawn: DealtTiles, common: np.ndarray) -> np.ndarray:
        """The common deal effect plus the removed tiles' points and the light tiles' line and
        curve."""
        tile_points = np.zeros(self.tile_count + 1)
        for tile, points in self.tile_points.items():
            tile_points[tile] = points
        points = (common + tile_points[drawn.removed].sum(axis=1)
                  + self.light_tile_points * drawn.light)
        if self.light_tile_curve:
            curve = np.zeros(self.tile_count + 1)
            for count, value in self.light_tile_curve.items():
                curve[count] = value
            points = points + curve[drawn.light]
        return points

    @staticmethod
    def tree_phases_led(players: int, drawn: DealtTiles, deal: np.ndarray) -> np.ndarray:
        """(games, players): the tree phases each seat leads with the construction token."""
        seat = np.arange(players)
        # Tree phase k is led by seat k mod players: seat s leads the phases k = s, s + P, ...
        return np.maximum(0, (drawn.light[deal][:, None] - seat[None, :] + players - 1)
                          // players)

    def seat_points(self, design: Any, drawn: DealtTiles, deal: np.ndarray) -> np.ndarray:
        """``token_points`` per tree phase led."""
        return self.token_points * self.tree_phases_led(design.players, drawn, deal)

    def columns(self, design: Any, drawn: DealtTiles, deal: np.ndarray,
                rng: np.random.Generator, frame: pl.DataFrame) -> pl.DataFrame:
        """The game's columns, drawn after the scores."""
        players, size = design.players, frame.height
        token = self.tree_phases_led(players, drawn, deal)

        def per_game(values: np.ndarray) -> np.ndarray:
            return np.repeat(values, players)

        return frame.with_columns(
            removed_tiles=pl.lit(self.removed_tiles, dtype=pl.Int16),
            trees_per_colour_per_player=pl.lit(2, dtype=pl.Int16),
            full_runes=pl.Series(rng.poisson(6, size).astype(np.int16)),
            zones=pl.Series(rng.poisson(8, size).astype(np.int16)),
            closed_zones=pl.Series(rng.poisson(3, size).astype(np.int16)),
            zones_with_trees=pl.Series(rng.poisson(4, size).astype(np.int16)),
            trees_pink=pl.Series(rng.integers(0, 3, size).astype(np.int8)),
            trees_red=pl.Series(rng.integers(0, 3, size).astype(np.int8)),
            trees_yellow=pl.Series(rng.integers(0, 3, size).astype(np.int8)),
            tiles_discarded=pl.Series(rng.poisson(0.2, size).astype(np.int8)),
            tree_phases_without_tree=pl.Series(rng.poisson(0.5, size).astype(np.int8)),
            tree_picks_constrained=pl.Series(rng.poisson(1.0, size).astype(np.int8)),
            tree_phases_as_token_holder=pl.Series(token.ravel().astype(np.int8)),
            light_tiles_drawn=pl.Series(per_game(drawn.light[deal]).astype(np.int8)),
            removed_tiles_mask=pl.Series(per_game(drawn.mask[deal])),
            draw_order=pl.Series(np.repeat(drawn.drawn[deal].astype(np.int8), players, axis=0))
            .cast(pl.List(pl.Int8)),
        )

    def config(self) -> dict[str, Any]:
        """The model's parameters for the manifest (dict keys written as strings, as JSON
        needs)."""
        return {"token_points": self.token_points, "light_tile_points": self.light_tile_points,
                "light_tile_curve": {str(k): v for k, v in self.light_tile_curve.items()},
                "tile_points": {str(k): v for k, v in self.tile_points.items()},
                "tile_count": self.tile_count, "removed_tiles": self.removed_tiles,
                "light_tiles": list(self.light_tiles)}


def true_tile_effect(design: Any, tile: int) -> float:
    """E[mean score | tile removed] - E[mean score | tile kept] for the game's mean score, for
a ``SyntheticDesign`` whose ``deal_model`` is a ``ForestDeals``.

    With k of T candidate tiles removed at random, removing tile n makes each other tile less
    likely removed by 1 / (T - 1); a light tile removed is one light tile less drawn, which
    costs ``light_tile_points`` plus, on average over seats, ``token_points / players``.
    """
    model: ForestDeals = design.deal_model
    candidates = range(2, model.tile_count + 1)
    per_light = model.light_tile_points + model.token_points / design.players

    def removal_points(n: int) -> float:
        return model.tile_points.get(n, 0.0) - (per_light if n in model.light_tiles else 0.0)

    others = sum(removal_points(m) for m in candidates if m != tile)
    return removal_points(tile) - others / (len(candidates) - 1)
