"""Seat schedules: which strategy of a lineup sits in which seat, game after game.

Cyclic rotations (lineup ``j`` puts strategy ``(j + p) mod S`` in seat ``p``) put every strategy
in every seat equally often. When strategies outnumber seats that is not enough: two strategies
then meet in one seat order only (of three at two seats, 0 always sits before 1, 1 before 2 and
2 before 0), and whatever the first seat is worth goes into their head to head. The mirrored
rotations (seat ``p`` plays ``(j - p) mod S``) seat every pair the other way round, on the same
seats. Tournaments, ladders and tuning seat from here, and so do rotating pools of ``sim run``
with more strategies than seats (a smaller pool is repeated to fill the table instead).
"""

from __future__ import annotations

import numpy as np


def seat_schedule(strategies: int, players: int) -> np.ndarray:
    """int64[L, N]: lineup ``j`` puts strategy ``(j + p) mod S`` in seat ``p``; when S > N
    the S mirrored lineups follow, lineup ``S + j`` putting ``(j - p) mod S`` in seat ``p``
    (module docstring: every pair then meets in both seat orders)."""
    lineups = np.arange(strategies)[:, None]
    seats = np.arange(players)[None, :]
    cyclic = (lineups + seats) % strategies
    if lineup_count(strategies, players) == strategies:
        return cyclic
    return np.concatenate([cyclic, (lineups - seats) % strategies])


def lineup_count(strategies: int, players: int) -> int:
    """Lineups per deal of ``seat_schedule``: S, or 2S when S > N >= 2 (one seat has no
    order to balance)."""
    return strategies if strategies <= players or players < 2 else 2 * strategies
