"""Whole games, compiled: :func:`play_game` (one game, keeping its final state) and
:func:`play_games` (a batch in one compiled call, returning per-player result arrays).

A game is a pure function of the tables (data + rules options), the lineup (policy id per seat),
the deal seed (bag order, deck order, spirits dealt) and the strategy seed (seat ``s`` draws from
stream ``s`` of it). Seat 0 starts; a round is one turn per seat; when an end trigger fires the
round is finished so every seat plays the same number of turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from sim.errors import InputError
from sim.games.harmonies.colours import COLOUR_COUNT, STACK_CODE_COUNT, stack_code
from sim.games.harmonies.habitats import stack_code_at
from sim.games.harmonies.scoring import (
    CATEGORY_COUNT,
    animal_cards_completed,
    animal_cubes_placed,
    score_player,
)
from sim.games.harmonies.stacking import LEGAL_STACKS
from sim.games.harmonies.state import (
    DRAW_BAG,
    PROGRESS_END_TRIGGERED,
    PROGRESS_ROUND,
    PROGRESS_SEAT,
    HiddenState,
    PublicState,
    deal,
    new_state,
)
from sim.games.harmonies.tables import EngineTables
from sim.games.harmonies.turn import (
    keep_spirit,
    refill_after_turn,
    solo_discard_from_row,
)
from sim.rng import seed_state
from strategies.harmonies.common import Workspace, full_space_count, new_workspace
from strategies.harmonies.dispatch import choose_solo_discard, choose_spirit, play_policy_turn
from strategies.harmonies.ids import PARAMETER_SLOTS, POLICY_IDS, default_parameter_table

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


@njit(cache=True)
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


@njit(cache=True)
def play_turn(tables, public, hidden, work, lineup, player):
    """One full turn of ``player``: spirit choice on the first turn (variant), the policy's
    turn, the end-of-turn refills and triggers, and the solo discard. Returns the central
    space taken (-1 when the central board was empty)."""
    policy = lineup[player]
    generator = work.generators[player]
    if tables.spirits_enabled and public.turns_played[player] == 0:
        keep_spirit(hidden, public, player, choose_spirit(policy, generator))
    if full_space_count(public) == 0:
        # Only with a bag too small to fill the central board: nothing to take, the game ends.
        public.progress[PROGRESS_END_TRIGGERED] = 1
        public.turns_played[player] += 1
        return -1
    space, took_card = play_policy_turn(policy, tables, public, player, generator, work)
    refill_after_turn(tables, public, hidden, player, space)
    if tables.solo_rules and not took_card:
        position = choose_solo_discard(policy, public, generator)
        if position >= 0:
            solo_discard_from_row(public, hidden, position)
    return space


@njit(cache=True)
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


@njit(cache=True)
def play_games_kernel(tables, public, hidden, work, lineups, seat_parameters, deal_seeds,
                      strategy_seeds, audit, legal_codes, category_points, totals, ranks, wins,
                      cubes, completed, turns, audit_codes):
    """Play ``len(deal_seeds)`` games one after the other, reusing the state arrays.

    Game ``g``: deal with ``deal_seeds[g]``; seat ``s`` plays policy ``lineups[g, s]`` with
    ``seat_parameters[g, s]`` and draws from stream ``s`` of ``strategy_seeds[g]``; rounds of
    one turn per seat until a round ends with the end triggered. ``audit_codes[g]`` is AUDIT_OK
    unless ``audit`` is set and an invariant broke (the game stops at the first broken one).
    One game is not a function of its own: each compiled level re-optimizes everything it
    calls, so a shallower call chain compiles much faster."""
    counts = np.zeros(COLOUR_COUNT, dtype=np.int32)
    for game in range(deal_seeds.shape[0]):
        lineup = lineups[game]
        deal(tables, public, hidden, deal_seeds[game])
        work.parameters[:] = seat_parameters[game]
        for seat in range(tables.players):
            seed_state(work.generators[seat], strategy_seeds[game], seat)
        code = AUDIT_OK
        while code == AUDIT_OK:
            for seat in range(tables.players):
                public.progress[PROGRESS_SEAT] = seat
                play_turn(tables, public, hidden, work, lineup, seat)
                if audit:
                    code = audit_state(tables, public, hidden, legal_codes, counts)
                    if code != AUDIT_OK:
                        break
            if code != AUDIT_OK:
                break
            public.progress[PROGRESS_ROUND] += 1
            if public.progress[PROGRESS_END_TRIGGERED]:
                break
        audit_codes[game] = code
        record_results(tables, public, work, game, category_points, totals, ranks, wins, cubes,
                       completed, turns)


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


def policy_lineup(lineup: Sequence[int | str], players: int) -> np.ndarray:
    """Turn a lineup of policy names (``strategies.harmonies.ids.POLICY_IDS``) or ids into an
    int8 array, one per seat; InputError when it does not fit."""
    if len(lineup) != players:
        raise InputError(f"option 'lineup': {len(lineup)} policies for {players} players")
    ids = []
    for seat, policy in enumerate(lineup):
        if isinstance(policy, str):
            if policy not in POLICY_IDS:
                known = ", ".join(POLICY_IDS)
                raise InputError(f"option 'lineup': seat {seat}: unknown policy {policy!r} "
                                 f"(known: {known})")
            ids.append(POLICY_IDS[policy])
        elif int(policy) in POLICY_IDS.values():
            ids.append(int(policy))
        else:
            raise InputError(f"option 'lineup': seat {seat}: unknown policy id {policy!r}")
    return np.array(ids, dtype=np.int8)


def _seed_array(seeds, name: str) -> np.ndarray:
    array = np.asarray(seeds)
    if array.ndim != 1 or array.size == 0 or not np.issubdtype(array.dtype, np.integer):
        raise InputError(f"option '{name}': expected a non-empty 1-D array of integers")
    if (array < 0).any():
        raise InputError(f"option '{name}': seeds must be 0 or more")
    return array.astype(np.uint64)


def _raise_on_audit(codes: np.ndarray, deal_seeds: np.ndarray) -> None:
    bad = np.nonzero(codes)[0]
    if bad.size:
        game = int(bad[0])
        raise AssertionError(f"game {game} (deal seed {int(deal_seeds[game])}): "
                             f"{AUDIT_MESSAGES[int(codes[game])]}")


def game_lineups(lineup, players: int, games: int) -> np.ndarray:
    """int8[games, players] policy ids: ``lineup`` is one name or id per seat (the same for
    every game) or an integer array [games, players] of ids (a lineup per game)."""
    array = np.asarray(lineup)
    if array.ndim == 2:
        if array.shape != (games, players) or not np.issubdtype(array.dtype, np.integer):
            raise InputError(f"option 'lineup': expected {games} x {players} policy ids, got "
                             f"an array of shape {array.shape}")
        known = np.array(sorted(POLICY_IDS.values()))
        if not np.isin(array, known).all():
            raise InputError("option 'lineup': unknown policy id in the per-game lineups")
        return np.array(array, dtype=np.int8, order="C")
    row = policy_lineup(lineup, players)
    # A writable copy: a read-only array would be another type for the compiled kernel.
    return np.repeat(row[None, :], games, axis=0)


def seat_parameter_array(lineup_ids: np.ndarray, parameters) -> np.ndarray:
    """float64[games, players, PARAMETER_SLOTS]: ``parameters`` when given (checked), else
    every seat's policy defaults (``strategies.harmonies.ids``)."""
    shape = (*lineup_ids.shape, PARAMETER_SLOTS)
    if parameters is None:
        return default_parameter_table()[lineup_ids]
    array = np.array(parameters, dtype=np.float64, order="C")  # a writable C copy
    if array.shape != shape:
        raise InputError(f"option 'parameters': expected shape {shape}, got {array.shape}")
    return array


def _run(tables, lineup_ids, deal_array, strategy_array, audit, parameters=None):
    """Play the games in one compiled call; ``lineup_ids`` is int8[games, players]."""
    games, players = deal_array.shape[0], tables.players
    seat_parameters = seat_parameter_array(lineup_ids, parameters)
    public, hidden = new_state(tables)
    work = new_workspace(tables)
    results = GameResults(
        category_points=np.zeros((games, players, CATEGORY_COUNT), dtype=np.int16),
        total=np.zeros((games, players), dtype=np.int16),
        rank=np.zeros((games, players), dtype=np.int8),
        win=np.zeros((games, players), dtype=np.float64),
        cubes_placed=np.zeros((games, players), dtype=np.int16),
        cards_completed=np.zeros((games, players), dtype=np.int16),
        turns=np.zeros((games, players), dtype=np.int16),
    )
    audit_codes = np.zeros(games, dtype=np.int8)
    play_games_kernel(tables, public, hidden, work, lineup_ids, seat_parameters, deal_array,
                      strategy_array,
                      bool(audit), legal_stack_code_table(), results.category_points,
                      results.total, results.rank, results.win, results.cubes_placed,
                      results.cards_completed, results.turns, audit_codes)
    _raise_on_audit(audit_codes, deal_array)
    return results, public, hidden, work


def play_games(tables: EngineTables, lineup: Sequence[int | str] | np.ndarray, deal_seeds,
               strategy_seeds, audit: bool = False, parameters=None) -> GameResults:
    """Play one game per pair (``deal_seeds[g]``, ``strategy_seeds[g]``) with the policies of
    ``lineup`` (one name or id per seat, or an id array [games, players]: see
    :func:`game_lineups`) in one compiled call, on one core.

    ``parameters``: float[games, players, PARAMETER_SLOTS] strategy parameters per seat
    (default: each policy's defaults). With ``audit=True`` every state is checked after every
    turn and a broken invariant raises AssertionError (for tests; slower)."""
    deal_array = _seed_array(deal_seeds, "deal_seeds")
    strategy_array = _seed_array(strategy_seeds, "strategy_seeds")
    if deal_array.shape != strategy_array.shape:
        raise InputError("option 'strategy_seeds': must have as many seeds as 'deal_seeds'")
    lineup_ids = game_lineups(lineup, tables.players, deal_array.shape[0])
    results, _, _, _ = _run(tables, lineup_ids, deal_array, strategy_array, audit, parameters)
    return results


@dataclass(frozen=True)
class FinishedGame:
    """One game played by :func:`play_game`: its results (a batch of one) and final state."""

    results: GameResults
    public: PublicState
    hidden: HiddenState
    workspace: Workspace


def play_game(tables: EngineTables, lineup: Sequence[int | str], deal_seed: int,
              strategy_seed: int, audit: bool = False, parameters=None) -> FinishedGame:
    """Play one game and keep its final state (for tests, exports and debugging);
    ``parameters``: float[players, PARAMETER_SLOTS] or None for the defaults."""
    lineup_ids = game_lineups(lineup, tables.players, 1)
    deal_array = _seed_array([deal_seed], "deal_seed")
    strategy_array = _seed_array([strategy_seed], "strategy_seed")
    if parameters is not None:
        parameters = np.asarray(parameters, dtype=np.float64)[None]
    results, public, hidden, work = _run(tables, lineup_ids, deal_array, strategy_array, audit,
                                         parameters)
    return FinishedGame(results=results, public=public, hidden=hidden, workspace=work)
