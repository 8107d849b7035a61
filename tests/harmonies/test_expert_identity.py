"""The ``expert`` plays exactly the games it played before its speed-up (issue 39): a handful of
fixed-seed self-play games at 2 and 4 players, with and without nature spirits and in its
``space=6,fade=3`` style, through the game interface, checked against a digest of every seat's
score by category stored when the slower search was the shipped one. Any change to a move (or
to a floating-point sum that picks one) changes some score; a change on purpose to how the
expert plays must update the digests here and say why."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy

GAME = get_game("harmonies")
CATEGORY_COLUMNS = ("score", "points_trees", "points_mountains", "points_fields",
                    "points_buildings", "points_water", "points_animals", "points_spirit",
                    "cubes_placed", "turns")


def score_digest(data, strategy: str, players: int, spirits: bool, first_deal: int,
                 games: int) -> str:
    """SHA-256 (first 16 hex digits) of every seat's per-category scores in ``games``
    self-play games of ``strategy`` on consecutive deals from ``first_deal``."""
    rules = dict(GAME.default_rules(), spirits=int(spirits))
    seats = np.zeros((games, players), dtype=np.int64)
    deals = np.arange(games, dtype=np.uint64) + np.uint64(first_deal)
    lineup = [parse_strategy(strategy, GAME.strategies(), "--strategy")]
    result = GAME.play_shard(data, players, rules, lineup, seats, deals, deals + np.uint64(7))
    digest = hashlib.sha256()
    for column in CATEGORY_COLUMNS:
        digest.update(column.encode())
        digest.update(np.ascontiguousarray(result[column], dtype=np.int64).tobytes())
    return digest.hexdigest()[:16]


# (strategy, players, spirits, first deal, games) -> digest, from the expert before its speed-up.
EXPECTED = {
    ("expert", 2, False, 101, 6): "9b7cdb0dbcad7cbc",
    ("expert", 2, True, 201, 6): "44ac41c762a58923",
    ("expert", 4, False, 301, 3): "d48e01d2054ad250",
    ("expert", 4, True, 401, 3): "b5ec08eb30010d4a",
    ("expert:space=6,fade=3", 2, True, 501, 4): "0654942abd90f8d8",
    ("expert:space=6,fade=3", 4, False, 601, 2): "012593a1050f93b4",
}


@pytest.mark.parametrize("case", list(EXPECTED), ids=lambda case: "-".join(map(str, case)))
def test_expert_plays_the_same_games(data, case):
    strategy, players, spirits, first_deal, games = case
    assert score_digest(data, strategy, players, spirits, first_deal, games) == EXPECTED[case]
