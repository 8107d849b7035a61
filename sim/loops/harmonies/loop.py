"""Whole games, compiled: :func:`play_game` (one game, keeping its final state) and
:func:`play_games` (a batch in one compiled call, returning per-player result arrays).

A game is a pure function of the tables (data + rules options), the lineup (policy id per seat),
the deal seed (bag order, deck order, spirits dealt) and the strategy seed (seat ``s`` draws from
stream ``s`` of it). Seat 0 starts; a round is one turn per seat; when an end trigger fires the
round is finished so every seat plays the same number of turns.

This layer sits above the rules (``sim.games.harmonies``) and the strategies
(``strategies.harmonies``): numba must see the dispatcher (``dispatch``) when it compiles the
loop, so that one on-disk cached kernel serves every lineup of built-ins.
"""

from __future__ import annotations

import time
from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from sim.errors import InputError
from sim.games.harmonies.colours import COLOUR_COUNT
from sim.games.harmonies.results import (
    AUDIT_OK,
    GameResults,
    audit_state,
    legal_stack_code_table,
    new_game_results,
    new_recording,
    raise_on_audit,
    record_cards,
    record_deal,
    record_results,
    record_round,
    record_turn_end,
    record_turn_start,
)
from sim.games.harmonies.state import (
    PROGRESS_END_TRIGGERED,
    PROGRESS_ROUND,
    PROGRESS_SEAT,
    HiddenState,
    PublicState,
    deal,
    full_space_count,
    new_state,
)
from sim.games.harmonies.tables import EngineTables
from sim.games.harmonies.turn import (
    keep_spirit,
    refill_after_turn,
    solo_discard_from_row,
)
from sim.jit import entry, inlined, rebind
from sim.loops.harmonies.dispatch import (
    PARAMETER_SLOTS,
    POLICY_IDS,
    USER_POLICY_BASE,
    choose_solo_discard,
    choose_spirit,
    default_parameter_table,
    play_policy_turn,
    strategy_table,
)
from sim.loops.profiling import Phase, PhaseTimes, Profiler
from sim.rng import seed_state
from sim.signals import stop_signals_held
from strategies.harmonies.common import Workspace, new_workspace


@inlined
def play_turn(tables, public, hidden, work, lineup, player, strategies):
    """One full turn of ``player``: spirit choice on the first turn (variant), the policy's
    turn, the end-of-turn refills and triggers, and the solo discard. Returns the central
    space taken (-1 when the central board was empty). ``strategies``: the table of compiled
    strategies (``dispatch.strategy_table``)."""
    policy = lineup[player]
    generator = work.generators[player]
    if tables.spirits_enabled and public.turns_played[player] == 0:
        keep_spirit(hidden, public, player,
                    choose_spirit(policy, strategies, tables, hidden.spirit_offers[player],
                                  generator))
    if full_space_count(public) == 0:
        # Only with a bag too small to fill the central board: nothing to take, the game ends.
        public.progress[PROGRESS_END_TRIGGERED] = 1
        public.turns_played[player] += 1
        return -1
    space, took_card = play_policy_turn(policy, strategies, tables, public, player, generator,
                                        work)
    refill_after_turn(tables, public, hidden, player, space)
    if tables.solo_rules and not took_card:
        position = choose_solo_discard(policy, public, generator)
        if position >= 0:
            solo_discard_from_row(public, hidden, position)
    return space


@entry
def play_games_kernel(tables, public, hidden, work, lineups, seat_parameters, deal_seeds,
                      strategy_seeds, audit, legal_codes, counts, category_points, totals, ranks,
                      wins, cubes, completed, turns, audit_codes, recording, strategies):
    """Play ``len(deal_seeds)`` games one after the other, reusing the state arrays.

    Game ``g``: deal with ``deal_seeds[g]``; seat ``s`` plays policy ``lineups[g, s]`` with
    ``seat_parameters[g, s]`` and draws from stream ``s`` of ``strategy_seeds[g]``; rounds of
    one turn per seat until a round ends with the end triggered. ``audit_codes[g]`` is AUDIT_OK
    unless ``audit`` is set and an invariant broke (the game stops at the first broken one;
    ``counts`` is int32[COLOUR_COUNT] scratch for it).
    ``recording`` (``results.Recording``) gets the spirits dealt, each card taken (round, face-up
    row), the cards and cubes at the end and, when traced, the scores after each round.
    ``strategies`` is the table of compiled strategies (``dispatch.strategy_table``).
    One game is not a function of its own, and ``play_turn`` is pasted in (``inlined``): each
    compiled level re-optimizes everything it calls, so a shallower call chain compiles much
    faster."""
    for game in range(deal_seeds.shape[0]):
        lineup = lineups[game]
        deal(tables, public, hidden, deal_seeds[game])
        record_deal(hidden, game, recording)
        for seat in range(tables.players):
            for slot in range(work.parameters.shape[1]):
                work.parameters[seat, slot] = seat_parameters[game, seat, slot]
        for seat in range(tables.players):
            seed_state(work.generators[seat], strategy_seeds[game], seat)
        code = AUDIT_OK
        while code == AUDIT_OK:
            for seat in range(tables.players):
                public.progress[PROGRESS_SEAT] = seat
                record_turn_start(public, seat, recording)
                play_turn(tables, public, hidden, work, lineup, seat, strategies)
                record_turn_end(public, game, seat, recording)
                if audit:
                    code = audit_state(tables, public, hidden, legal_codes, counts)
                    if code != AUDIT_OK:
                        break
            if code != AUDIT_OK:
                break
            record_round(tables, public, game, recording)
            public.progress[PROGRESS_ROUND] += 1
            if public.progress[PROGRESS_END_TRIGGERED]:
                break
        audit_codes[game] = code
        record_results(tables, public, work, game, category_points, totals, ranks, wins, cubes,
                       completed, turns)
        record_cards(public, game, recording)


def policy_lineup(lineup: Sequence[int | str], players: int, user_ids=()) -> np.ndarray:
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
        elif int(policy) in POLICY_IDS.values() or int(policy) in user_ids:
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


def game_lineups(lineup, players: int, games: int, user_ids=()) -> np.ndarray:
    """int8[games, players] policy ids: ``lineup`` is one name or id per seat (the same for
    every game) or an integer array [games, players] of ids (a lineup per game; ``user_ids``
    are the ids a compiled variant adds)."""
    array = np.asarray(lineup)
    if array.ndim == 2:
        if array.shape != (games, players) or not np.issubdtype(array.dtype, np.integer):
            raise InputError(f"option 'lineup': expected {games} x {players} policy ids, got "
                             f"an array of shape {array.shape}")
        known = np.array(sorted(POLICY_IDS.values()) + list(user_ids))
        if not np.isin(array, known).all():
            raise InputError("option 'lineup': unknown policy id in the per-game lineups")
        return np.array(array, dtype=np.int8, order="C")
    row = policy_lineup(lineup, players, user_ids)
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


def _run(tables, lineup_ids, deal_array, strategy_array, audit, parameters=None, variant=None,
         trace=False, instrument=None):
    """Play the games in one compiled call; ``lineup_ids`` is int8[games, players]; ``variant``
    (from :func:`compiled_variant`) plays lineups with compiled user strategies; ``trace``
    records every seat's score after each round; ``instrument`` (the profiler's) rebuilds the
    strategies of the table (``dispatch.strategy_table``)."""
    games = deal_array.shape[0]
    seat_parameters = seat_parameter_array(lineup_ids, parameters)
    public, hidden = new_state(tables)
    work = new_workspace(tables)
    results = new_game_results(tables, games, trace)
    audit_codes = np.zeros(games, dtype=np.int8)
    kernel = play_games_kernel if variant is None else variant.play_games_kernel
    strategies = strategy_table(lineup_ids, tables, public, work, hidden, instrument)
    with stop_signals_held():
        kernel(tables, public, hidden, work, lineup_ids, seat_parameters, deal_array,
               strategy_array, bool(audit), legal_stack_code_table(),
               np.zeros(COLOUR_COUNT, dtype=np.int32), results.category_points, results.total,
               results.rank, results.win, results.cubes_placed, results.cards_completed,
               results.turns, audit_codes, new_recording(results, tables),
               strategies)
    raise_on_audit(audit_codes, deal_array)
    return results, public, hidden, work


def play_games(tables: EngineTables, lineup: Sequence[int | str] | np.ndarray, deal_seeds,
               strategy_seeds, audit: bool = False, parameters=None,
               variant: KernelVariant | None = None, trace: bool = False) -> GameResults:
    """Play one game per pair (``deal_seeds[g]``, ``strategy_seeds[g]``) with the policies of
    ``lineup`` (one name or id per seat, or an id array [games, players]: see
    :func:`game_lineups`) in one compiled call, on one core.

    ``parameters``: float[games, players, PARAMETER_SLOTS] strategy parameters per seat
    (default: each policy's defaults). With ``audit=True`` every state is checked after every
    turn and a broken invariant raises AssertionError (for tests; slower). ``variant`` (from
    :func:`compiled_variant`) plays lineups with compiled user strategies. ``trace`` fills
    ``score_trace`` with every seat's score after each round."""
    deal_array = _seed_array(deal_seeds, "deal_seeds")
    strategy_array = _seed_array(strategy_seeds, "strategy_seeds")
    if deal_array.shape != strategy_array.shape:
        raise InputError("option 'strategy_seeds': must have as many seeds as 'deal_seeds'")
    user_ids = variant.user_ids if variant is not None else ()
    lineup_ids = game_lineups(lineup, tables.players, deal_array.shape[0], user_ids)
    if variant is not None and variant.compile_seconds[0] is None:
        start = time.perf_counter()
        _run(tables, lineup_ids[:1], deal_array[:1], strategy_array[:1], audit,
             None if parameters is None else np.asarray(parameters)[:1], variant)
        variant.compile_seconds[0] = time.perf_counter() - start
    results, _, _, _ = _run(tables, lineup_ids, deal_array, strategy_array, audit, parameters,
                            variant, trace)
    return results


@dataclass(frozen=True)
class FinishedGame:
    """One game played by :func:`play_game`: its results (a batch of one) and final state."""

    results: GameResults
    public: PublicState
    hidden: HiddenState
    workspace: Workspace


def play_game(tables: EngineTables, lineup: Sequence[int | str], deal_seed: int,
              strategy_seed: int, audit: bool = False, parameters=None,
              variant: KernelVariant | None = None) -> FinishedGame:
    """Play one game and keep its final state (for tests, exports and debugging);
    ``parameters``: float[players, PARAMETER_SLOTS] or None for the defaults."""
    lineup_ids = game_lineups(lineup, tables.players, 1,
                              variant.user_ids if variant is not None else ())
    deal_array = _seed_array([deal_seed], "deal_seed")
    strategy_array = _seed_array([strategy_seed], "strategy_seed")
    if parameters is not None:
        parameters = np.asarray(parameters, dtype=np.float64)[None]
    results, public, hidden, work = _run(tables, lineup_ids, deal_array, strategy_array, audit,
                                         parameters, variant)
    return FinishedGame(results=results, public=public, hidden=hidden, workspace=work)


KernelVariant = namedtuple("KernelVariant",
                           ["play_turn", "play_games_kernel", "user_ids", "compile_seconds"])
_VARIANTS: dict[tuple, KernelVariant] = {}


def _turn_dispatch(fallback, policy_id, user_turn):
    """``play_policy_turn`` that sends ``policy_id`` to a compiled user turn function."""

    @njit(inline="always")
    def dispatch(policy, strategies, tables, public, player, generator, work):
        if policy == policy_id:
            return user_turn(work.parameters[player], tables, public, player, generator, work)
        return fallback(policy, strategies, tables, public, player, generator, work)

    return dispatch


def compiled_variant(user_turns) -> KernelVariant:
    """The game loop for a lineup with compiled user strategies: ``user_turns[k]`` plays for
    policy id ``USER_POLICY_BASE + k``. The variant runs exactly the code of ``play_turn`` and
    ``play_games_kernel`` re-bound to a dispatcher that tries the user ids before the built-ins,
    so rules and loop cannot drift apart. numba cannot cache it on disk (its globals are
    run-time functions); it is compiled once per process and lineup and memoised here."""
    key = tuple(id(turn) for turn in user_turns)
    if key in _VARIANTS:
        return _VARIANTS[key]
    dispatch = play_policy_turn
    for index, user_turn in enumerate(user_turns):
        dispatch = _turn_dispatch(dispatch, USER_POLICY_BASE + index, user_turn)
    turn = njit(inline="always")(rebind(play_turn.py_func, "play_turn",
                                        {"play_policy_turn": dispatch}))
    # With reference counting: the user's functions inherit the setting of their caller, and
    # they may allocate arrays.
    kernel = njit(rebind(play_games_kernel.py_func, "play_games_kernel", {"play_turn": turn}))
    user_ids = tuple(USER_POLICY_BASE + index for index in range(len(user_turns)))
    variant = KernelVariant(turn, kernel, user_ids, [None])
    _VARIANTS[key] = variant
    return variant


def variants() -> dict[tuple, KernelVariant]:
    """The loop variants compiled in this process for lineups with compiled user strategies."""
    return dict(_VARIANTS)


_ROOT = "whole loop (shard)"
_TURN = "strategy turn"
_STRATEGIES = "strategies.harmonies"
# What ``sim bench --profile`` times (see ``sim.loops.profiling``); indentation follows calls.
PROFILE_PHASES = (
    Phase(_ROOT, "sim.loops.harmonies.loop.play_games_kernel", None),
    Phase("deal", "sim.games.harmonies.state.deal", _ROOT),
    Phase(_TURN, "sim.loops.harmonies.dispatch.play_policy_turn", _ROOT),
    Phase("card choice", (f"{_STRATEGIES}.greedy.greedy_card_choice",
                          f"{_STRATEGIES}.valued.valued_card_choice",
                          f"{_STRATEGIES}.random_play.random_card_choice"), _TURN),
    Phase("supply estimate", f"{_STRATEGIES}.valued.estimate_supply", _TURN),
    Phase("card targets", f"{_STRATEGIES}.valued.choose_targets", _TURN),
    Phase("token plan (per space)", (f"{_STRATEGIES}.greedy.greedy_token_plan",
                                     f"{_STRATEGIES}.valued.valued_token_plan"), _TURN),
    Phase("gain cache refresh", "sim.games.harmonies.gains.refresh", "token plan (per space)"),
    Phase("water gains", ("sim.games.harmonies.gains.river_gain",
                          "sim.games.harmonies.gains.island_gain"), "token plan (per space)"),
    Phase("token value", f"{_STRATEGIES}.valued.token_value", "token plan (per space)"),
    Phase("board save / restore", (f"{_STRATEGIES}.common.save_board",
                                   f"{_STRATEGIES}.common.restore_board"), _TURN),
    Phase("cube phase", (f"{_STRATEGIES}.greedy.greedy_cube_phase",
                         f"{_STRATEGIES}.random_play.random_cube_phase"), _TURN),
    Phase("cube placements", "sim.games.harmonies.habitats.list_cube_placements", "cube phase"),
    Phase("play chosen space", f"{_STRATEGIES}.common.play_remembered_plan", _TURN),
    Phase("refill and end checks", "sim.games.harmonies.turn.refill_after_turn", _ROOT),
    Phase("record game (scoring)", "sim.games.harmonies.results.record_results", _ROOT),
)
_PROFILED: dict[str, object] = {}


def profile_games(tables: EngineTables, lineup_ids: np.ndarray, deal_seeds, strategy_seeds,
                  parameters) -> list[PhaseTimes]:
    """:func:`play_games` of built-in policies (``lineup_ids``: int8[games, players]) in the
    instrumented loop: per-phase times (the first game is played once before, to compile, and
    not counted)."""
    if not _PROFILED:
        profiler = Profiler(list(PROFILE_PHASES))
        _PROFILED["profiler"] = profiler
        _PROFILED["variant"] = KernelVariant(None, profiler.instrumented(play_games_kernel), (),
                                             [None])
    profiler, variant = _PROFILED["profiler"], _PROFILED["variant"]
    deal_array = _seed_array(deal_seeds, "deal_seeds")
    strategy_array = _seed_array(strategy_seeds, "strategy_seeds")
    parameters = np.asarray(parameters, dtype=np.float64)
    _run(tables, lineup_ids[:1], deal_array[:1], strategy_array[:1], False, parameters[:1],
         variant, instrument=profiler.instrumented)
    profiler.reset()
    _run(tables, lineup_ids, deal_array, strategy_array, False, parameters, variant,
         instrument=profiler.instrumented)
    return profiler.times()
