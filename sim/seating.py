"""Seat schedules: which strategy of a lineup sits in which seat, game after game.

Cyclic rotations (lineup ``j`` puts strategy ``(j + p) mod S`` in seat ``p``) put every strategy
in every seat equally often. When strategies outnumber seats that is not enough: two strategies
then meet in one seat order only (of three at two seats, 0 always sits before 1, 1 before 2 and
2 before 0), and whatever the first seat is worth goes into their head to head. The mirrored
rotations (seat ``p`` plays ``(j - p) mod S``) seat every pair the other way round, on the same
seats. Tournaments, ladders and tuning seat from here (their head-to-heads compare strategies
within the same lineups, so these rotations suffice); rotating pools of ``sim run``
with more strategies than seats (a smaller pool is repeated to fill the table instead) did so
too until ``pool_lineups``: a rotating pool now plays a design balanced by construction
(``pool_design``), and ``seat_schedule`` stays only for batches started before (``"rotation"``).
"""

from __future__ import annotations

import itertools
import math

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


# How a pool with more strategies than seats is seated (``pool_design`` of a config).
POOL_DESIGNS = ("balanced", "every-order", "rotation")
# The designs a config may name (balanced by construction); "rotation" only resumes old batches.
OFFERED_POOL_DESIGNS = POOL_DESIGNS[:2]
DEFAULT_POOL_DESIGN = "balanced"
# What a manifest written before ``pool_design`` existed played (``seat_schedule``).
LEGACY_POOL_DESIGN = "rotation"


def pool_lineups(strategies: int, players: int, design: str) -> np.ndarray:
    """int64[L, P]: the lineups a pool of K = ``strategies`` plays at P = ``players`` seats
    (K > P >= 2), lineup ``j`` putting strategy ``lineups[j, p]`` in seat ``p``.

    Why not ``seat_schedule``: its rotations of the whole pool put each strategy in each seat
    equally often, but tie each seat to particular opponents (the strategy left out of a lineup
    differs by seat), so when strategies differ in strength a seat's raw win rate reflects who
    it tends to face, not the seat. The designs here are balanced by construction: with no seat
    effect every seat has the same expected result.

    - ``"balanced"``: every combination of P strategies (sorted, in ``itertools.combinations``
      order), each in its P cyclic seat rotations and, for P >= 3, its P mirrored ones (seat p
      plays ``combo[(r - p) mod P]``), so every seat sees every strategy against the same
      opponent sets and every pair meets in both seat orders: L = C(K, P) * (P if P == 2 else
      2P) lineups (P = 2: the two rotations already are both orders).
    - ``"every-order"``: all K! / (K - P)! ordered lineups, in lexicographic order.
    - ``"rotation"``: ``seat_schedule`` (batches started before the other designs existed).
    """
    if design == "rotation":
        return seat_schedule(strategies, players)
    if design == "every-order":
        lineups = list(itertools.permutations(range(strategies), players))
    elif design == "balanced":
        lineups = []
        for combo in itertools.combinations(range(strategies), players):
            lineups += [tuple(combo[(r + p) % players] for p in range(players))
                        for r in range(players)]
            if players >= 3:
                lineups += [tuple(combo[(r - p) % players] for p in range(players))
                            for r in range(players)]
    else:
        raise ValueError(f"unknown pool design {design!r} (one of {', '.join(POOL_DESIGNS)})")
    return np.array(lineups, dtype=np.int64).reshape(-1, players)


def pool_lineup_count(strategies: int, players: int, design: str) -> int:
    """L, the number of lineups of ``pool_lineups`` (without building them)."""
    if design == "rotation":
        return lineup_count(strategies, players)
    if design == "every-order":
        return math.perm(strategies, players)
    if design == "balanced":
        return math.comb(strategies, players) * (players if players == 2 else 2 * players)
    raise ValueError(f"unknown pool design {design!r} (one of {', '.join(POOL_DESIGNS)})")
