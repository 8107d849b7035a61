"""What a Harmonies game records and checks: the audit of a state's invariants (for tests),
``record_results``, which scores a finished game into the result arrays (ranks by points then
cubes, shared wins), and ``GameResults``, the per-game per-seat arrays of a batch.

No strategy is known here: the game loop (``sim.loops.harmonies.loop``) calls these.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.games.harmonies.colours import COLOUR_COUNT, STACK_CODE_COUNT, stack_code
from sim.games.harmonies.habitats import stack_code_at
from sim.games.harmonies.scoring import (
    CATEGORY_COUNT,
    animal_cards_completed,
    animal_cubes_placed,
    score_player,
)
from sim.games.harmonies.stacking import LEGAL_STACKS
from sim.games.harmonies.state import DRAW_BAG
from sim.jit import compiled

# Audit failures (see audit_state), reported by play_game/play_games(audit=True).
AUDIT_OK = 0
AUDIT_ILLEGAL_STACK = 1
AUDIT_CUBE_WITHOUT_TOKEN = 2
AUDIT_TOKEN_ON_CUBE = 3
AUDIT_TOKENS_NOT_CONSERVED = 4
AUDIT_BAG_COUNTS_WRONG = 5
AUDIT_MESSAGES = {
    AUDIT_ILLEGAL_STACK: "a stack the stacking table forbids",
    AUDIT_CUBE_WITHOUT_TOKEN: "a cube on a hex without a token",
    AUDIT_TOKEN_ON_CUBE: "a token placed on top of a cube",
    AUDIT_TOKENS_NOT_CONSERVED: "bag + boards + central board + box differs from the bag file",
    AUDIT_BAG_COUNTS_WRONG: "public bag counts differ from the bag's contents",
}


def legal_stack_code_table() -> np.ndarray:
    """int8[STACK_CODE_COUNT]: 1 for the codes of the stacks RULES.md allows (built from the
    pure-Python list in ``stacking.py``, independent of the compiled placement rule)."""
    table = np.zeros(STACK_CODE_COUNT, dtype=np.int8)
    for stack in LEGAL_STACKS:
        table[stack_code(stack)] = 1
    return table


@compiled(refcounts=True)
def audit_state(tables, public, hidden, legal_codes, counts):
    """Check the invariants of a state: legal stacks, cubes on tokens and never under a later
    token, every token of the bag file accounted for. Returns an AUDIT_* code."""
    counts[:] = 0
    for player in range(tables.players):
        for hex_index in range(tables.hex_count):
            height = public.heights[player, hex_index]
            if legal_codes[stack_code_at(public.stacks, public.heights, player, hex_index)] == 0:
                return AUDIT_ILLEGAL_STACK
            cube_height = public.cube_heights[player, hex_index]
            if cube_height > 0 and height == 0:
                return AUDIT_CUBE_WITHOUT_TOKEN
            if cube_height > 0 and cube_height != height:
                return AUDIT_TOKEN_ON_CUBE
            for level in range(height):
                counts[public.stacks[player, hex_index, level]] += 1
    for space in range(tables.central_spaces):
        for slot in range(public.central_count[space]):
            counts[public.central[space, slot]] += 1
    in_bag = np.zeros(COLOUR_COUNT, dtype=np.int32)
    for position in range(hidden.draw_positions[DRAW_BAG], hidden.bag_order.shape[0]):
        in_bag[hidden.bag_order[position]] += 1
    for colour in range(COLOUR_COUNT):
        if in_bag[colour] != public.bag_counts[colour]:
            return AUDIT_BAG_COUNTS_WRONG
        if counts[colour] + in_bag[colour] + public.box_counts[colour] != tables.bag[colour]:
            return AUDIT_TOKENS_NOT_CONSERVED
    return AUDIT_OK


@compiled
def record_results(tables, public, work, game, category_points, totals, ranks, wins, cubes,
                   completed, turns):
    """Score every player of the finished game into row ``game`` of the result arrays; ranks
    by points then animal cubes placed, equal players share the rank and the win."""
    players = tables.players
    for player in range(players):
        totals[game, player] = score_player(tables, public, player, work.scratch, work.scores)
        for category in range(CATEGORY_COUNT):
            category_points[game, player, category] = work.scores[category]
        cubes[game, player] = animal_cubes_placed(tables, public, player)
        completed[game, player] = animal_cards_completed(tables, public, player)
        turns[game, player] = public.turns_played[player]
    winners = 0
    for player in range(players):
        ahead = 0
        for other in range(players):
            if totals[game, other] > totals[game, player] or (
                totals[game, other] == totals[game, player]
                and cubes[game, other] > cubes[game, player]
            ):
                ahead += 1
        ranks[game, player] = ahead + 1
        if ahead == 0:
            winners += 1
    for player in range(players):
        wins[game, player] = 1.0 / winners if ranks[game, player] == 1 else 0.0


@dataclass(frozen=True)
class GameResults:
    """Per-game, per-seat results of :func:`play_games` (first axis: game, second: seat).

    ``category_points[g, s, c]`` follows ``scoring.CATEGORY_NAMES``; ``rank`` is 1 for the
    best (equal players share a rank); ``win`` is 1/k for each of k tied winners, else 0;
    ``cubes_placed`` counts animal cubes (the tie-break); ``cards_completed`` animal cards."""

    category_points: np.ndarray  # int16[G, P, 7]
    total: np.ndarray  # int16[G, P]
    rank: np.ndarray  # int8[G, P]
    win: np.ndarray  # float64[G, P]
    cubes_placed: np.ndarray  # int16[G, P]
    cards_completed: np.ndarray  # int16[G, P]
    turns: np.ndarray  # int16[G, P]


def raise_on_audit(codes: np.ndarray, deal_seeds: np.ndarray) -> None:
    """AssertionError naming the first game whose audit code is not AUDIT_OK."""
    bad = np.nonzero(codes)[0]
    if bad.size:
        game = int(bad[0])
        raise AssertionError(f"game {game} (deal seed {int(deal_seeds[game])}): "
                             f"{AUDIT_MESSAGES[int(codes[game])]}")
