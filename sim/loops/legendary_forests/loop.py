"""The compiled Legendary Forests game loop: one game (``play_game``) and a shard of many games
(``play_games``) in one call, with the built-in strategies dispatched by id (``dispatch``).

This layer sits above the rules (``sim.games.legendary_forests``) and the strategies
(``strategies.legendary_forests``): numba must see the dispatcher when it compiles the loop, so
that one on-disk cached kernel serves every lineup of built-ins.

A game is a pure function of (tile set, rules parameters, lineup, deal seed, strategy seed): the
deal generator shuffles the tiles; each seat has its own generator for its strategy's choices.
"""

from __future__ import annotations

import time
from collections import namedtuple

import numpy as np
from numba import njit

from sim.games.legendary_forests.results import (
    COUNTER_SIZE,
    COUNTER_TREE_PHASES_WITHOUT_TREE,
    COUNTER_TREE_PICKS_CONSTRAINED,
    NO_TREE_PHASE,
    NO_TREE_TAKEN,
    ShardResults,
    colour_gone_with_zone,
    new_log,
    new_shard_results,
    record_game,
)
from sim.games.legendary_forests.rules import (
    PREVIEW_SIZE,
    STATUS_LIGHT_DRAWN,
    STATUS_PLAYERS,
    STATUS_TURN,
    apply_tree,
    deal,
    legal_placements,
    legal_tree_choices,
    new_table,
    pass_construction_token,
    place_tile,
    planet_score,
    reset_table,
    tree_phase_seat,
)
from sim.jit import entry, inlined, rebind
from sim.loops.legendary_forests.dispatch import (
    PARAMETER_SLOTS,
    USER_POLICY_BASE,
    choose_placement,
    choose_tree,
    scratch_size,
    strategy_table,
)
from sim.loops.profiling import Phase, PhaseTimes, Profiler
from sim.rng import seed_state
from sim.signals import stop_signals_held

# Scratch arrays of the loop and of the built-in strategies (one set per shard, not per game).
Work = namedtuple(
    "Work",
    ["move_cells", "move_rotations", "choice_colours", "choice_zones", "scratch", "preview",
     "deal_rng", "seat_rng", "zone_counts", "scores"],
)


def new_work(tile_count: int, players: int, removed_tiles: int) -> Work:
    """Scratch arrays for the kernel (allocated once per shard, not per game)."""
    planet_tiles = tile_count - removed_tiles
    moves = 16 * planet_tiles
    return Work(
        move_cells=np.zeros(moves, dtype=np.int16),
        move_rotations=np.zeros(moves, dtype=np.int8),
        choice_colours=np.zeros(4 * planet_tiles, dtype=np.int8),
        choice_zones=np.zeros(4 * planet_tiles, dtype=np.int16),
        scratch=np.zeros(scratch_size(tile_count, players, removed_tiles, moves),
                         dtype=np.int32),
        preview=np.zeros(PREVIEW_SIZE, dtype=np.int32),
        deal_rng=np.zeros(4, dtype=np.uint64),
        seat_rng=np.zeros((players, 4), dtype=np.uint64),
        zone_counts=np.zeros(4, dtype=np.int64),
        scores=np.zeros(players, dtype=np.int64),
    )



@inlined
def play_game(tiles, table, work, log, removed_tiles, trees_per_colour_per_player, deal_seed,
              strategy_seed, seat_policy, seat_params, strategies):
    """Play one full game on ``table`` (reset first) and record it in ``log``.

    ``seat_policy[p]`` is the built-in strategy id of seat ``p`` and ``seat_params[p]`` its
    parameters; ``strategies`` is the table of compiled strategies
    (``dispatch.strategy_table``). Turn order follows RULES.md: reveal, every player places or
    discards, and on a light tile a tree phase from the construction-token holder, after which
    the token passes.
    """
    players = table.status[STATUS_PLAYERS]
    tile_count = tiles.light.shape[0]
    turns = tile_count - 1 - removed_tiles
    reset_table(tiles, table, trees_per_colour_per_player)
    seed_state(work.deal_rng, deal_seed, 0)
    deal(work.deal_rng, tile_count, removed_tiles, log.draw_order, log.removed)
    for player in range(players):
        seed_state(work.seat_rng[player], strategy_seed, player + 1)
        for counter in range(COUNTER_SIZE):
            log.seat_counters[player, counter] = 0
    for turn in range(turns):
        tile = log.draw_order[turn]
        table.tile_drawn[tile] = True
        for player in range(players):
            count = legal_placements(tiles, table, player, tile, work.move_cells,
                                     work.move_rotations)
            if count == 0:
                table.discards[player] += 1
                log.placement_cell[turn, player] = -1
                log.placement_rotation[turn, player] = 0
                continue
            pick = choose_placement(seat_policy[player], strategies, seat_params[player], tiles,
                                    table, player, tile, work.move_cells, work.move_rotations,
                                    count, work.seat_rng[player], work.scratch, work.preview)
            cell = work.move_cells[pick]
            rotation = work.move_rotations[pick]
            place_tile(tiles, table, player, tile, cell, rotation)
            log.placement_cell[turn, player] = cell
            log.placement_rotation[turn, player] = rotation
        for player in range(players):
            log.tree_colour[turn, player] = NO_TREE_PHASE
        if tiles.light[tile]:
            table.status[STATUS_LIGHT_DRAWN] += 1
            for position in range(players):
                player = tree_phase_seat(table, position)
                if colour_gone_with_zone(table, player):
                    log.seat_counters[player, COUNTER_TREE_PICKS_CONSTRAINED] += 1
                count = legal_tree_choices(table, player, work.choice_colours, work.choice_zones)
                if count == 0:
                    log.seat_counters[player, COUNTER_TREE_PHASES_WITHOUT_TREE] += 1
                    log.tree_colour[turn, player] = NO_TREE_TAKEN
                    continue
                pick = choose_tree(seat_policy[player], strategies, seat_params[player], tiles,
                                   table, player, work.choice_colours, work.choice_zones, count,
                                   work.seat_rng[player])
                colour = work.choice_colours[pick]
                apply_tree(table, player, colour, work.choice_zones[pick])
                log.tree_colour[turn, player] = colour
            pass_construction_token(table)
        table.status[STATUS_TURN] = turn + 1
        if log.score_trace.shape[0] > 0:
            for player in range(players):
                log.score_trace[turn, player] = planet_score(table, player)


@entry
def play_games(tiles, table, work, log, removed_tiles, trees_per_colour_per_player, deal_seeds,
               strategy_seeds, game_seat_policy, game_seat_params, results, strategies):
    """Play ``len(deal_seeds)`` games and fill ``results`` (see ``ShardResults``); the table
    and the log are left as the last game ended. ``play_game`` is pasted in (``inlined``), so
    the whole shard is one compiled function."""
    games = deal_seeds.shape[0]
    for game in range(games):
        play_game(tiles, table, work, log, removed_tiles, trees_per_colour_per_player,
                  deal_seeds[game], strategy_seeds[game], game_seat_policy[game],
                  game_seat_params[game], strategies)
        record_game(table, work, log, removed_tiles, game, work.scores, results)


KernelVariant = namedtuple("KernelVariant",
                           ["play_game", "play_games", "placement", "tree", "compile_seconds"])
_VARIANTS: dict[tuple, KernelVariant] = {}


def variants() -> dict[tuple, KernelVariant]:
    """The loop variants compiled in this process for lineups with compiled user strategies."""
    return dict(_VARIANTS)


def _placement_dispatch(fallback, policy_id, user_placement):
    """``choose_placement`` that sends ``policy_id`` to a compiled user function."""

    @njit(inline="always")
    def dispatch(policy, strategies, params, tiles, table, player, tile, move_cells,
                 move_rotations, move_count, rng, scratch, preview):
        if policy == policy_id:
            return np.int64(user_placement(params, tiles, table, player, tile, move_cells,
                                           move_rotations, move_count, rng, scratch, preview))
        return np.int64(fallback(policy, strategies, params, tiles, table, player, tile,
                                 move_cells, move_rotations, move_count, rng, scratch, preview))

    return dispatch


def _tree_dispatch(fallback, policy_id, user_tree):
    """``choose_tree`` that sends ``policy_id`` to a compiled user function."""

    @njit(inline="always")
    def dispatch(policy, strategies, params, tiles, table, player, choice_colours, choice_zones,
                 choice_count, rng):
        if policy == policy_id:
            return np.int64(user_tree(params, tiles, table, player, choice_colours, choice_zones,
                                      choice_count, rng))
        return np.int64(fallback(policy, strategies, params, tiles, table, player,
                                 choice_colours, choice_zones, choice_count, rng))

    return dispatch


def compiled_variant(user_functions) -> KernelVariant:
    """The game kernel for a lineup with compiled user strategies.

    ``user_functions`` is a sequence of ``(compiled_placement, compiled_tree)`` pairs; pair ``k``
    plays for policy id ``USER_POLICY_BASE + k``. The variant runs exactly the code of
    ``play_game`` and ``play_games`` (the same function objects' code, re-bound to dispatchers
    that try the user ids before the built-ins), so rules and loop cannot drift apart. numba
    cannot cache it on disk (its globals are run-time functions); it is compiled once per
    process and lineup and memoised here. ``compile_seconds`` is filled in by ``run_shard``
    on first use (the compile happens at the first call).
    """
    key = tuple((id(placement), id(tree)) for placement, tree in user_functions)
    if key in _VARIANTS:
        return _VARIANTS[key]
    placement = choose_placement
    tree = choose_tree
    for index, (user_placement, user_tree) in enumerate(user_functions):
        placement = _placement_dispatch(placement, USER_POLICY_BASE + index, user_placement)
        tree = _tree_dispatch(tree, USER_POLICY_BASE + index, user_tree)
    game = njit(inline="always")(rebind(play_game.py_func, "play_game",
                                        {"choose_placement": placement, "choose_tree": tree}))
    # With reference counting: the user's functions inherit the setting of their caller, and
    # they may allocate arrays.
    games = njit(rebind(play_games.py_func, "play_games", {"play_game": game}))
    variant = KernelVariant(game, games, placement, tree, [None])
    _VARIANTS[key] = variant
    return variant


def run_shard(tileset_arrays, players, removed_tiles, trees_per_colour_per_player, deal_seeds,
              strategy_seeds, game_seat_policy, game_seat_params=None,
              variant: KernelVariant | None = None, trace: bool = False,
              instrument=None) -> ShardResults:
    """Allocate everything for one shard and play it (the Python entry point of the kernel).

    ``variant`` (from ``compiled_variant``) plays lineups with compiled user strategies; by
    default the cached kernel with the built-ins runs. A variant's first call is timed alone on
    one game, so its compile time is known (``variant.compile_seconds[0]``) and stays out of
    the per-game cost. ``trace`` also records every seat's score after each turn
    (``results.score_trace``); ``instrument`` (the profiler's) rebuilds the strategies of the
    table (``dispatch.strategy_table``)."""
    tile_count = tileset_arrays.light.shape[0]
    games = len(deal_seeds)
    table = new_table(tile_count, players, removed_tiles)
    work = new_work(tile_count, players, removed_tiles)
    log = new_log(tile_count, players, removed_tiles, trace)
    results = new_shard_results(games, players, tile_count - 1 - removed_tiles, trace)
    if game_seat_params is None:
        game_seat_params = np.zeros((games, players, PARAMETER_SLOTS), dtype=np.float64)
    arguments = (np.asarray(deal_seeds, dtype=np.uint64),
                 np.asarray(strategy_seeds, dtype=np.uint64),
                 np.ascontiguousarray(game_seat_policy, dtype=np.int8),
                 np.ascontiguousarray(game_seat_params, dtype=np.float64))
    strategies = strategy_table(arguments[2], tileset_arrays, table, work, instrument)
    kernel = play_games if variant is None else variant.play_games
    if variant is not None and variant.compile_seconds[0] is None and games > 0:
        start = time.perf_counter()
        with stop_signals_held():
            kernel(tileset_arrays, table, work, log, removed_tiles, trees_per_colour_per_player,
                   *(argument[:1] for argument in arguments), results, strategies)
        variant.compile_seconds[0] = time.perf_counter() - start
    with stop_signals_held():
        kernel(tileset_arrays, table, work, log, removed_tiles, trees_per_colour_per_player,
               *arguments, results, strategies)
    return results


def play_one(tileset_arrays, players, removed_tiles, trees_per_colour_per_player, deal_seed,
             strategy_seed, seat_policy, seat_params, variant: KernelVariant | None = None):
    """One game in the shard kernel, keeping its final state: returns (table, log)."""
    tile_count = tileset_arrays.light.shape[0]
    table = new_table(tile_count, players, removed_tiles)
    work = new_work(tile_count, players, removed_tiles)
    log = new_log(tile_count, players, removed_tiles)
    results = new_shard_results(1, players, tile_count - 1 - removed_tiles)
    kernel = play_games if variant is None else variant.play_games
    seat_policy = np.ascontiguousarray(np.asarray(seat_policy, dtype=np.int8)[None])
    strategies = strategy_table(seat_policy, tileset_arrays, table, work)
    with stop_signals_held():
        kernel(tileset_arrays, table, work, log, removed_tiles, trees_per_colour_per_player,
               np.array([deal_seed], dtype=np.uint64), np.array([strategy_seed], dtype=np.uint64),
               seat_policy, np.ascontiguousarray(np.asarray(seat_params, dtype=np.float64)[None]),
               results, strategies)
    return table, log

_RULES = "sim.games.legendary_forests.rules"
_LOOP = "sim.loops.legendary_forests.loop"
_DISPATCH = "sim.loops.legendary_forests.dispatch"
# What ``sim bench --profile`` times (see ``sim.loops.profiling``); indentation follows calls.
PROFILE_PHASES = (
    Phase("whole loop (shard)", f"{_LOOP}.play_games", None),
    Phase("reset table", f"{_RULES}.reset_table", "whole loop (shard)"),
    Phase("deal", f"{_RULES}.deal", "whole loop (shard)"),
    Phase("legal placements", f"{_RULES}.legal_placements", "whole loop (shard)"),
    Phase("placement choice", f"{_DISPATCH}.choose_placement", "whole loop (shard)"),
    Phase("game context", "strategies.legendary_forests.evaluation.game_context",
          "placement choice"),
    Phase("preview (score change)", f"{_RULES}.preview_placement", "placement choice"),
    Phase("preview (zone groups)", f"{_RULES}.placement_groups", "placement choice"),
    Phase("place tile (zone update)", f"{_RULES}.place_tile", "whole loop (shard)"),
    Phase("tree phase: constrained check",
          "sim.games.legendary_forests.results.colour_gone_with_zone", "whole loop (shard)"),
    Phase("tree phase: legal choices", f"{_RULES}.legal_tree_choices", "whole loop (shard)"),
    Phase("tree phase: choice", f"{_DISPATCH}.choose_tree", "whole loop (shard)"),
    Phase("tree phase: apply", f"{_RULES}.apply_tree", "whole loop (shard)"),
    Phase("record game (scoring)", "sim.games.legendary_forests.results.record_game",
          "whole loop (shard)"),
)
_PROFILED: dict[str, object] = {}


def profile_shard(tileset_arrays, players, removed_tiles, trees_per_colour_per_player,
                  deal_seeds, strategy_seeds, game_seat_policy,
                  game_seat_params) -> list[PhaseTimes]:
    """``run_shard`` of built-in strategies in the instrumented loop: per-phase times (the
    first game is played once before, to compile, and not counted)."""
    if not _PROFILED:
        profiler = Profiler(list(PROFILE_PHASES))
        _PROFILED["profiler"] = profiler
        _PROFILED["variant"] = KernelVariant(None, profiler.instrumented(play_games), None,
                                             None, [None])
    profiler, variant = _PROFILED["profiler"], _PROFILED["variant"]
    run_shard(tileset_arrays, players, removed_tiles, trees_per_colour_per_player,
              deal_seeds[:1], strategy_seeds[:1], game_seat_policy[:1], game_seat_params[:1],
              variant=variant, instrument=profiler.instrumented)
    profiler.reset()
    run_shard(tileset_arrays, players, removed_tiles, trees_per_colour_per_player, deal_seeds,
              strategy_seeds, game_seat_policy, game_seat_params, variant=variant,
              instrument=profiler.instrumented)
    return profiler.times()
