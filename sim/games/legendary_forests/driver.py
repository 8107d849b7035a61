"""The Python game driver: plays lineups that include pure-Python strategies.

``play_game`` mirrors the compiled kernel's ``play_game`` step for step, calling the same
compiled rule functions in the same order with the same generators, so a lineup of built-in (or
compiled user) strategies gives exactly the kernel's games; only the Python seats differ in
being asked through ``Strategy.choose_placement(observation, placements)`` and
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
from sim.games.legendary_forests.kernel import (
    COUNTER_SIZE,
    COUNTER_TREE_PHASES_WITHOUT_TREE,
    COUNTER_TREE_PICKS_CONSTRAINED,
    NO_TREE_PHASE,
    NO_TREE_TAKEN,
    _colour_gone_with_zone,
    new_log,
    new_shard_results,
    new_work,
    record_game,
)
from sim.games.legendary_forests.observation import (
    PHASE_PLACEMENT,
    PHASE_TREES,
    Observation,
    Placement,
    TreeChoice,
    table_copy,
)
from sim.games.legendary_forests.rules import (
    PREVIEW_SIZE,
    STATUS_LIGHT_DRAWN,
    STATUS_PLAYERS,
    STATUS_TURN,
    apply_tree,
    deal,
    find_zone,
    legal_placements,
    legal_tree_choices,
    new_table,
    pass_construction_token,
    place_tile,
    preview_placement,
    reset_table,
    tree_phase_seat,
    zone_points,
)
from sim.games.legendary_forests.tiles import COLOUR_NAMES
from sim.rng import seed_state
from strategies.legendary_forests.base import KIND_BUILTIN, KIND_COMPILED, KIND_PYTHON, Strategy
from strategies.legendary_forests.builtin import choose_placement, choose_tree


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
        return SeatPlayer(kind, params, policy_id=int(cls.policy_id))
    if kind == KIND_COMPILED:
        return SeatPlayer(kind, params, compiled_placement=cls.compiled_placement,
                          compiled_tree=cls.compiled_tree)
    return SeatPlayer(KIND_PYTHON, params, strategy=cls(**values))


def _checked_pick(pick, count: int, seat: SeatPlayer, what: str) -> int:
    if isinstance(pick, bool) or not isinstance(pick, Integral | np.integer):
        raise IllegalMoveError(f"strategy '{seat.label()}' returned {pick!r} as its {what}; "
                               f"expected an index into the {count} legal options")
    if not 0 <= int(pick) < count:
        raise IllegalMoveError(f"strategy '{seat.label()}' returned {int(pick)} as its {what}; "
                               f"only {count} legal options (0..{count - 1})")
    return int(pick)


def _placements(tileset, tiles, table, player, tile, work, count) -> list[Placement]:
    previews = np.zeros((count, PREVIEW_SIZE), dtype=np.int32)
    preview_placements(tiles, table, player, tile, work.move_cells, work.move_rotations, count,
                       previews)
    options = []
    for index in range(count):
        cell = int(work.move_cells[index])
        x, y = cell_to_xy(table, cell)
        options.append(Placement(x=x, y=y, rotation=int(work.move_rotations[index]), cell=cell,
                                 score_change=int(previews[index, 0]),
                                 full_runes_created=int(previews[index, 1]),
                                 zones_closed=int(previews[index, 2]),
                                 treed_zones_closed=int(previews[index, 3])))
    return options


def _tree_choices(table, player, work, count) -> list[TreeChoice]:
    facts = np.zeros((count, 5), dtype=np.int32)
    describe_tree_choices(table, player, work.choice_zones, count, facts)
    options = []
    for index in range(count):
        cell, side, full_runes, open_half_runes, trees = (int(v) for v in facts[index])
        x, y = cell_to_xy(table, cell)
        colour = int(work.choice_colours[index])
        now = int(zone_points(full_runes, open_half_runes, trees))
        options.append(TreeChoice(
            colour=colour, colour_name=COLOUR_NAMES[colour],
            zone=int(work.choice_zones[index]), x=x, y=y, side=side, full_runes=full_runes,
            open_half_runes=open_half_runes, trees=trees, closed=open_half_runes == 0,
            points_now=now,
            points_gain=int(zone_points(full_runes, open_half_runes, trees + 1)) - now))
    return options


def play_game(tileset, tiles, table, work, log, removed_tiles, trees_per_colour_per_player,
              deal_seed, strategy_seed, seats: list[SeatPlayer]) -> None:
    """Play one full game on ``table`` and record it in ``log``, exactly as the compiled
    ``kernel.play_game`` does, with ``seats[p]`` deciding for seat ``p``."""
    players = int(table.status[STATUS_PLAYERS])
    tile_count = tiles.light.shape[0]
    turns = tile_count - 1 - removed_tiles
    reset_table(tiles, table, trees_per_colour_per_player)
    seed_state(work.deal_rng, np.uint64(deal_seed), 0)
    deal(work.deal_rng, tile_count, removed_tiles, log.draw_order, log.removed)
    for player in range(players):
        seed_state(work.seat_rng[player], np.uint64(strategy_seed), player + 1)
        for counter in range(COUNTER_SIZE):
            log.seat_counters[player, counter] = 0
        if seats[player].strategy is not None:
            sequence = np.random.SeedSequence([int(strategy_seed), player])
            seats[player].strategy.new_game(player, np.random.default_rng(sequence))
    for turn in range(turns):
        tile = int(log.draw_order[turn])
        light = bool(tiles.light[tile])
        table.tile_drawn[tile] = True
        for player in range(players):
            count = legal_placements(tiles, table, player, tile, work.move_cells,
                                     work.move_rotations)
            if count == 0:
                table.discards[player] += 1
                log.placement_cell[turn, player] = -1
                log.placement_rotation[turn, player] = 0
                continue
            seat = seats[player]
            if seat.kind == KIND_BUILTIN:
                pick = choose_placement(seat.policy_id, seat.params, tiles, table, player, tile,
                                        work.move_cells, work.move_rotations, count,
                                        work.seat_rng[player], work.scratch, work.preview)
            elif seat.kind == KIND_COMPILED:
                pick = seat.compiled_placement(seat.params, tiles, table, player, tile,
                                               work.move_cells, work.move_rotations, count,
                                               work.seat_rng[player], work.scratch,
                                               work.preview)
            else:
                observation = Observation(seat=player, phase=PHASE_PLACEMENT, tile=tile + 1,
                                          tile_light=light, tileset=tileset,
                                          table=table_copy(table))
                options = _placements(tileset, tiles, table, player, tile, work, count)
                pick = seat.strategy.choose_placement(observation, options)
            pick = _checked_pick(pick, count, seat, "placement")
            cell = work.move_cells[pick]
            rotation = work.move_rotations[pick]
            place_tile(tiles, table, player, tile, cell, rotation)
            log.placement_cell[turn, player] = cell
            log.placement_rotation[turn, player] = rotation
        for player in range(players):
            log.tree_colour[turn, player] = NO_TREE_PHASE
        if light:
            table.status[STATUS_LIGHT_DRAWN] += 1
            for position in range(players):
                player = int(tree_phase_seat(table, position))
                if _colour_gone_with_zone(table, player):
                    log.seat_counters[player, COUNTER_TREE_PICKS_CONSTRAINED] += 1
                count = legal_tree_choices(table, player, work.choice_colours, work.choice_zones)
                if count == 0:
                    log.seat_counters[player, COUNTER_TREE_PHASES_WITHOUT_TREE] += 1
                    log.tree_colour[turn, player] = NO_TREE_TAKEN
                    continue
                seat = seats[player]
                if seat.kind == KIND_BUILTIN:
                    pick = choose_tree(seat.policy_id, seat.params, tiles, table, player,
                                       work.choice_colours, work.choice_zones, count,
                                       work.seat_rng[player])
                elif seat.kind == KIND_COMPILED:
                    pick = seat.compiled_tree(seat.params, tiles, table, player,
                                              work.choice_colours, work.choice_zones, count,
                                              work.seat_rng[player])
                else:
                    observation = Observation(seat=player, phase=PHASE_TREES, tile=tile + 1,
                                              tile_light=light, tileset=tileset,
                                              table=table_copy(table))
                    options = _tree_choices(table, player, work, count)
                    pick = seat.strategy.choose_tree(observation, options)
                pick = _checked_pick(pick, count, seat, "tree choice")
                colour = work.choice_colours[pick]
                apply_tree(table, player, colour, work.choice_zones[pick])
                log.tree_colour[turn, player] = colour
            pass_construction_token(table)
        table.status[STATUS_TURN] = turn + 1


def new_game_state(tile_count: int, players: int, removed_tiles: int):
    """(table, work, log) for ``play_game``."""
    return (new_table(tile_count, players, removed_tiles),
            new_work(tile_count, players, removed_tiles),
            new_log(tile_count, players, removed_tiles))


def run_shard(tileset, tiles, players, removed_tiles, trees_per_colour_per_player, deal_seeds,
              strategy_seeds, lineup_players, game_seat_strategy):
    """Play a shard in Python and return the kernel's ``ShardResults``.

    ``lineup_players[i]`` is a function ``seat -> SeatPlayer`` for lineup entry ``i`` (so every
    seat gets its own Python strategy instance); ``game_seat_strategy[g, p]`` indexes it."""
    tile_count = tiles.light.shape[0]
    games = len(deal_seeds)
    table, work, log = new_game_state(tile_count, players, removed_tiles)
    results = new_shard_results(games, players, tile_count - 1 - removed_tiles)
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
