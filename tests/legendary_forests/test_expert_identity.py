"""The Legendary Forests ``expert`` plays exactly the games it played before its speed-up (issue
39): fixed-seed shards through the game interface, every column of every score row, against
digests computed from the code before the change. A different digest means a different game: a
move valued with other floating-point roundings, or random draws taken in another order.
``planner`` is pinned too: its tree choices share ``opponent_colour_demand`` with the expert."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from sim.games.base import StrategySpec
from sim.games.registry import get_game

GAMES = 300

# sha256 of the columns (sorted by name: name, dtype, shape, bytes), from the code before the
# speed-up.
EXPECTED = {
    ("expert", 2): "3d15c61df44e04ba47e37fab3e78b82366262c36e909ce3e9336301fe515790c",
    ("expert", 4): "15a76f4a017f54d8cb52399710e24d1761b371ec695b5204fe3457569c780ff4",
    ("expert+planner", 4): "63413e35358b8326eb437d673e9322dda4366c431485958dcf034c129dc839bd",
    # From the code before ``opponent_colour_demand`` worked out each seat once (5 players: the
    # token holder's opponents pick twice before its next pick).
    ("planner", 2): "951021838fe6b3dfc66db317013bd9bf859534c184cba33aba0d8707ee2333f4",
    ("planner", 4): "f1ec0cdc3d6df94b6913178b044c5369f8e1a3ef12c0f70ea7cc26c3f8916452",
    ("planner", 5): "61e2938cb7c2c5783f9375b90c6c425dff2d231fae4f202488f684ec45fe278f",
}


def _rows_digest(columns: dict[str, np.ndarray]) -> str:
    """sha256 of every column of the score rows, in name order."""
    digest = hashlib.sha256()
    for name in sorted(columns):
        values = np.ascontiguousarray(columns[name])
        digest.update(f"{name}|{values.dtype.str}|{values.shape}|".encode())
        digest.update(values.tobytes())
    return digest.hexdigest()


def _shard(lineup_names: str, players: int) -> dict[str, np.ndarray]:
    """``GAMES`` games at ``players`` with the strategies of ``lineup_names`` (joined by '+')
    rotating through the seats, deal and strategy seeds fixed."""
    game = get_game("legendary-forests")
    lineup = [StrategySpec(name) for name in lineup_names.split("+")]
    seats = np.array([[(g + s) % len(lineup) for s in range(players)] for g in range(GAMES)])
    deals = np.arange(GAMES, dtype=np.uint64) + np.uint64(7_000)
    return game.play_shard(game.load_data(None), players, game.default_rules(), lineup, seats,
                           deals, deals * np.uint64(3) + np.uint64(11))


@pytest.mark.parametrize(("lineup", "players"), sorted(EXPECTED))
def test_plays_the_same_games_as_before_the_speed_up(lineup, players):
    """Every score row of the fixed-seed shard hashes to the digest of the code before."""
    assert _rows_digest(_shard(lineup, players)) == EXPECTED[(lineup, players)]
