"""The Python game driver: plays lineups that include pure-Python strategies.

``play_game`` is not a copy of the compiled loop: it runs the very code of
``loop.play_game`` (its ``py_func``, the way ``loop.compiled_variant`` re-binds it) with the two
decision points, ``choose_placement`` and ``choose_tree``, re-bound to Python dispatchers. Every
rule function it calls is the same compiled function, in the same order, with the same
generators, so a lineup of built-in (or compiled user) strategies gives exactly the loop's games
(a test checks this); only the Python seats differ in being asked through
``Strategy.choose_placement(observation, placements)`` and
``Strategy.choose_tree(observation, choices)``. The deal lives in the game log, which no strategy
receives; a Python strategy gets an ``Observation`` built from public state and the legal options.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from numba import njit

from sim.errors import InputError
from sim.games.legendary_forests.convert import cell_to_xy
from sim.games.legendary_forests.data import COLOUR_NAMES
from sim.games.legendary_forests.observation import (
    PHASE_PLACEMENT,
    PHASE_TREES,
    Observation,
    Placement,
    TreeChoice,
    table_copy,
)
from sim.games.legendary_forests.results import new_log, new_shard_results, record_game
from sim.games.legendary_forests.rules import (
    PREVIEW_SIZE,
    STATUS_PLAYERS,
    STATUS_TURN,
    find_zone,
    new_table,
    preview_placement,
    zone_points,
)
from sim.games.strategy import KIND_BUILTIN, KIND_COMPILED, KIND_PYTHON, Strategy
from sim.jit import rebind
from sim.loops.legendary_forests import loop
from sim.loops.legendary_forests.dispatch import (
    POLICY_IDS,
    choose_placement,
    choose_tree,
    strategy_table,
)
from sim.signals import stop_signals_held


class IllegalMoveError(InputError):
    """A Python strategy returned something that is not the index of a legal option."""


@njit(cache=True)
def preview_placements(tiles, table, player, tile, cells, rotations, count, out):
    """``rules.preview_placement`` of the first ``count`` legal placements, into ``out``
    (int32[>= count, PREVIEW_SIZE])."""
    scratch = np.zeros(64, dtype=np.int32)
    preview = np.zeros(PREVIEW_SIZE, dtype=np.int32)
    for index in range(count):
        preview_placement(tiles, table, player, tile, cells[index], rotations[index], scratch,
                          preview)
        for column in range(PREVIEW_SIZE):
            out[index, column] = preview[column]


@njit(cache=True)
def describe_tree_choices(table, player, zones, count, out):
    """Per legal tree choice: zone cell, side, full runes, open half-runes, trees, into ``out``
    (int32[>= count, 5])."""
    for index in range(count):
        root = find_zone(table, player, zones[index])
        out[index, 0] = table.node_cell[player, root]
        out[index, 1] = table.node_side[player, root]
        out[index, 2] = table.zone_full_runes[player, root]
        out[index, 3] = table.zone_open_half_runes[player, root]
        out[index, 4] = table.zone_trees[player, root]


@dataclass
class SeatPlayer:
    """How one seat plays in the driver: a built-in id, compiled user functions, or a Python
    strategy instance, with its float parameter row."""

    kind: str
    params: np.ndarray
    policy_id: int = 0
    strategy: Strategy | None = None
    compiled_placement: object = None
    compiled_tree: object = None

    def label(self) -> str:
        """Name for error messages."""
        return self.strategy.name if self.strategy is not None else f"policy {self.policy_id}"


def seat_player(cls: type[Strategy], values: dict[str, float], slots: int) -> SeatPlayer:
    """A ``SeatPlayer`` for strategy class ``cls`` with parameter ``values``."""
    kind = cls.kind()
    params = cls.parameter_row(values, slots)
    if kind == KIND_BUILTIN:
        return SeatPlayer(kind, params, policy_id=POLICY_IDS[cls.name])
    if kind == KIND_COMPILED:
        placement, tree = cls.compiled()
        return SeatPlayer(kind, params, compiled_placement=placement, compiled_tree=tree)
    return SeatPlayer(KIND_PYTHON, params, strategy=cls(**values))


def _checked_pick(pick, count: int, seat: SeatPlayer, what: str) -> int:
    if isinstance(pick, bool) or not isinstance(pick, Integral | np.integer):
        raise IllegalMoveError(f"strategy '{seat.label()}' returned {pick!r} as its {what}; "
                               f"expected an index into the {count} legal options")
    if not 0 <= int(pick) < count:
        raise IllegalMoveError(f"strategy '{seat.label()}' returned {int(pick)} as its {what}; "
                               f"only {count} legal options (0..{count - 1})")
    return int(pick)


def _placements(tiles, table, player, tile, move_cells, move_rotations,
                count) -> list[Placement]:
    previews = np.zeros((count, PREVIEW_SIZE), dtype=np.int32)
    preview_placements(tiles, table, player, tile, move_cells, move_rotations, count, previews)
    options = []
    for index in range(count):
        cell = int(move_cells[index])
        x, y = cell_to_xy(table, cell)
        options.append(Placement(x=x, y=y, rotation=int(move_rotations[index]), cell=cell,
                                 score_change=int(previews[index, 0]),
                                 full_runes_created=int(previews[index, 1]),
                                 zones_closed=int(previews[index, 2]),
                                 treed_zones_closed=int(previews[index, 3])))
    return options


def _tree_choices(table, player, choice_colours, choice_zones, count) -> list[TreeChoice]:
    facts = np.zeros((count, 5), dtype=np.int32)
    describe_tree_choices(table, player, choice_zones, count, facts)
    options = []
    for index in range(count):
        cell, side, full_runes, open_half_runes, trees = (int(v) for v in facts[index])
        x, y = cell_to_xy(table, cell)
        colour = int(choice_colours[index])
        now = int(zone_points(full_runes, open_half_runes, trees))
        options.append(TreeChoice(
            colour=colour, colour_name=COLOUR_NAMES[colour],
            zone=int(choice_zones[index]), x=x, y=y, side=side, full_runes=full_runes,
            open_half_runes=open_half_runes, trees=trees, closed=open_half_runes == 0,
            points_now=now,
            points_gain=int(zone_points(full_runes, open_half_runes, trees + 1)) - now))
    return options


def _python_dispatchers(tileset, log, seats: list[SeatPlayer]):
    """``choose_placement`` and ``choose_tree`` for the Python run of the loop's code: built-in
    seats go to the compiled dispatch, compiled user seats to their functions, Python seats get
    an observation and the legal options; every answer is checked to be a legal index."""

    def placement(policy, strategies, params, tiles, table, player, tile, move_cells,
                  move_rotations, move_count, rng, scratch, preview):
        seat = seats[player]
        if seat.kind == KIND_BUILTIN:
            with stop_signals_held():  # the table is unboxed by calls into Python
                pick = choose_placement(policy, strategies, params, tiles, table, player, tile,
                                        move_cells, move_rotations, move_count, rng, scratch,
                                        preview)
        elif seat.kind == KIND_COMPILED:
            pick = seat.compiled_placement(params, tiles, table, player, tile, move_cells,
                                           move_rotations, move_count, rng, scratch, preview)
        else:
            observation = Observation(seat=player, phase=PHASE_PLACEMENT, tile=int(tile) + 1,
                                      tile_light=bool(tiles.light[tile]), tileset=tileset,
                                      table=table_copy(table))
            options = _placements(tiles, table, player, tile, move_cells, move_rotations,
                                  move_count)
            pick = seat.strategy.choose_placement(observation, options)
        return _checked_pick(pick, move_count, seat, "placement")

    def tree(policy, strategies, params, tiles, table, player, choice_colours, choice_zones,
             choice_count, rng):
        seat = seats[player]
        if seat.kind == KIND_BUILTIN:
            with stop_signals_held():
                pick = choose_tree(policy, strategies, params, tiles, table, player,
                                   choice_colours, choice_zones, choice_count, rng)
        elif seat.kind == KIND_COMPILED:
            pick = seat.compiled_tree(params, tiles, table, player, choice_colours, choice_zones,
                                      choice_count, rng)
        else:
            # A tree phase follows the light tile of the turn in progress (the public tile;
            # the log's draw order is read here, never handed to the strategy).
            tile = int(log.draw_order[int(table.status[STATUS_TURN])])
            observation = Observation(seat=player, phase=PHASE_TREES, tile=tile + 1,
                                      tile_light=True, tileset=tileset, table=table_copy(table))
            options = _tree_choices(table, player, choice_colours, choice_zones, choice_count)
            pick = seat.strategy.choose_tree(observation, options)
        return _checked_pick(pick, choice_count, seat, "tree choice")

    return placement, tree


def play_game(tileset, tiles, table, work, log, removed_tiles, trees_per_colour_per_player,
              deal_seed, strategy_seed, seats: list[SeatPlayer]) -> None:
    """Play one full game on ``table`` and record it in ``log`` with the compiled loop's own
    code, ``seats[p]`` deciding for seat ``p``."""
    players = int(table.status[STATUS_PLAYERS])
    for player in range(players):
        if seats[player].strategy is not None:
            sequence = np.random.SeedSequence([int(strategy_seed), player])
            seats[player].strategy.new_game(player, np.random.default_rng(sequence))
    placement, tree = _python_dispatchers(tileset, log, seats)
    game = rebind(loop.play_game.py_func, "play_game",
                       {"choose_placement": placement, "choose_tree": tree})
    policies = np.array([seat.policy_id for seat in seats], dtype=np.int8)
    params = np.array([seat.params for seat in seats], dtype=np.float64)
    game(tiles, table, work, log, removed_tiles, trees_per_colour_per_player,
         np.uint64(deal_seed), np.uint64(strategy_seed), policies, params,
         strategy_table(policies, tiles, table, work))


def new_game_state(tile_count: int, players: int, removed_tiles: int, trace: bool = False):
    """(table, work, log) for ``play_game`` (``trace``: the log keeps the score trace)."""
    return (new_table(tile_count, players, removed_tiles),
            loop.new_work(tile_count, players, removed_tiles),
            new_log(tile_count, players, removed_tiles, trace))


def run_shard(tileset, tiles, players, removed_tiles, trees_per_colour_per_player, deal_seeds,
              strategy_seeds, lineup_players, game_seat_strategy, trace: bool = False):
    """Play a shard in Python and return the kernel's ``ShardResults`` (``trace``: with the
    per-turn score trace).

    ``lineup_players[i]`` is a function ``seat -> SeatPlayer`` for lineup entry ``i`` (so every
    seat gets its own Python strategy instance); ``game_seat_strategy[g, p]`` indexes it."""
    tile_count = tiles.light.shape[0]
    games = len(deal_seeds)
    table, work, log = new_game_state(tile_count, players, removed_tiles, trace)
    results = new_shard_results(games, players, tile_count - 1 - removed_tiles, trace)
    scores = np.zeros(players, dtype=np.int64)
    instances: dict[tuple[int, int], SeatPlayer] = {}
    for game in range(games):
        seats = []
        for player in range(players):
            entry = int(game_seat_strategy[game, player])
            if (entry, player) not in instances:
                instances[(entry, player)] = lineup_players[entry](player)
            seats.append(instances[(entry, player)])
        play_game(tileset, tiles, table, work, log, removed_tiles, trees_per_colour_per_player,
                  deal_seeds[game], strategy_seeds[game], seats)
        record_game(table, work, log, removed_tiles, game, scores, results)
    return results
