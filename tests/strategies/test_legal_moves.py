"""Every built-in strategy returns a legal option index on random positions, and full games
with every built-in in the seats stay legal on random tile sets."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.base import StrategySpec
from sim.games.legendary_forests.convert import planet_of
from sim.games.legendary_forests.position import score_planet, validate_planet
from sim.games.legendary_forests.rules import (
    PREVIEW_SIZE,
    STATUS_PLAYERS,
    legal_placements,
    legal_tree_choices,
    tile_arrays,
)
from sim.loops.legendary_forests import driver
from sim.loops.legendary_forests.dispatch import (
    PARAMETER_SLOTS,
    POLICY_IDS,
    choose_placement,
    choose_tree,
    strategy_table,
)
from sim.loops.legendary_forests.loop import new_work, run_shard
from strategies.legendary_forests import REGISTRY
from strategies.legendary_forests.base import Strategy
from tests.legendary_forests.test_engine_properties import tile_sets

# Small rollouts keep the test fast; every other strategy plays with its defaults.
FAST = {"rollout": {"rollouts": 2, "candidates": 3}, "search": {"playouts": 4}}


def policy_rows():
    """(name, policy id, parameter row) of every built-in."""
    rows = []
    for name, policy in POLICY_IDS.items():
        cls = REGISTRY.strategy_class(name)
        rows.append((name, policy, cls.parameter_row(FAST.get(name, {}), PARAMETER_SLOTS)))
    return rows


def all_strategies(tiles, table):
    """The loop's table of compiled strategies with every built-in in it."""
    policies = np.array(sorted(POLICY_IDS.values()), np.int8)
    players = int(table.status[STATUS_PLAYERS])
    return strategy_table(policies, tiles, table, new_work(tiles.light.shape[0], players, 0))


class ProbeEveryBuiltin(Strategy):
    """Plays uniformly at random, and at every decision asks every built-in what it would do
    on a copy of the position, recording any answer that is not a legal option index."""

    name = "probe"
    problems: list = []
    decisions = 0

    def choose_placement(self, observation, placements):
        tiles = tile_arrays(observation.tileset)
        table = observation.table
        cells = np.zeros(4096, np.int16)
        rotations = np.zeros(4096, np.int8)
        tile = observation.tile - 1
        count = legal_placements(tiles, table, self.seat, tile, cells, rotations)
        assert count == len(placements)
        for name, policy, params in policy_rows():
            rng = np.array([1, 2, 3, 4 + observation.turn], np.uint64)
            pick = choose_placement(policy, all_strategies(tiles, table), params, tiles, table,
                                    self.seat, tile, cells, rotations, count, rng,
                                    np.zeros(64, np.int32), np.zeros(PREVIEW_SIZE, np.int32))
            if not 0 <= pick < count:
                type(self).problems.append((name, "placement", pick, count))
        type(self).decisions += 1
        return int(self.rng.integers(len(placements)))

    def choose_tree(self, observation, choices):
        tiles = tile_arrays(observation.tileset)
        table = observation.table
        colours = np.zeros(512, np.int8)
        zones = np.zeros(512, np.int16)
        count = legal_tree_choices(table, self.seat, colours, zones)
        assert count == len(choices)
        for name, policy, params in policy_rows():
            rng = np.array([5, 6, 7, 8 + observation.turn], np.uint64)
            pick = choose_tree(policy, all_strategies(tiles, table), params, tiles, table,
                               self.seat, colours, zones, count, rng)
            if not 0 <= pick < count:
                type(self).problems.append((name, "tree", pick, count))
            else:
                # The choice must be a legal tree: its colour in supply, its zone of that colour.
                colour = colours[pick]
                assert table.supply[colour - 1] > 0
                assert table.node_colour[self.seat, zones[pick]] == colour
        type(self).decisions += 1
        return int(self.rng.integers(len(choices)))


@settings(max_examples=12, deadline=None)
@given(tileset=tile_sets(), players=st.integers(1, 5), removed_share=st.floats(0, 0.4),
       trees_per_colour=st.integers(0, 2), seed=st.integers(0, 2**32))
def test_builtins_pick_legal_options_on_random_positions(tileset, players, removed_share,
                                                         trees_per_colour, seed):
    removed = int(removed_share * (tileset.size - 1))
    ProbeEveryBuiltin.problems = []
    ProbeEveryBuiltin.decisions = 0
    tiles = tile_arrays(tileset)
    table, work, log = driver.new_game_state(tileset.size, players, removed)
    seats = [driver.seat_player(ProbeEveryBuiltin, {}, PARAMETER_SLOTS) for _ in range(players)]
    driver.play_game(tileset, tiles, table, work, log, removed, trees_per_colour, seed,
                     seed + 1, seats)
    assert ProbeEveryBuiltin.problems == []
    for player in range(players):
        validate_planet(planet_of(tileset, table, player), tileset, "probe")


def test_builtins_pick_legal_options_on_the_shipped_tiles(game, tileset, rules):
    ProbeEveryBuiltin.problems = []
    ProbeEveryBuiltin.decisions = 0
    tiles = tile_arrays(tileset)
    for players, seed in ((4, 3), (2, 9)):
        table, work, log = driver.new_game_state(tileset.size, players, rules["removed_tiles"])
        seats = [driver.seat_player(ProbeEveryBuiltin, {}, PARAMETER_SLOTS)
                 for _ in range(players)]
        driver.play_game(tileset, tiles, table, work, log, rules["removed_tiles"],
                         rules["trees_per_colour_per_player"], seed, seed + 1, seats)
    assert ProbeEveryBuiltin.decisions > 40
    assert ProbeEveryBuiltin.problems == []


@settings(max_examples=15, deadline=None)
@given(tileset=tile_sets(), players=st.integers(1, 5), removed_share=st.floats(0, 0.4),
       trees_per_colour=st.integers(0, 3), seed=st.integers(0, 2**32),
       lineup=st.lists(st.sampled_from(sorted(POLICY_IDS)), min_size=5, max_size=5))
def test_full_games_of_every_builtin_stay_legal(tileset, players, removed_share,
                                                trees_per_colour, seed, lineup):
    removed = int(removed_share * (tileset.size - 1))
    policies = np.array([[POLICY_IDS[name] for name in lineup[:players]]], np.int8)
    params = np.array([[REGISTRY.strategy_class(name).parameter_row(FAST.get(name, {}),
                                                                   PARAMETER_SLOTS)
                        for name in lineup[:players]]])
    results = run_shard(tile_arrays(tileset), players, removed, trees_per_colour,
                        np.array([seed], np.uint64), np.array([seed + 7], np.uint64),
                        policies, params)
    # Replay through the driver to get the planets and check them against the reference rules.
    table, work, log = driver.new_game_state(tileset.size, players, removed)
    seats = [driver.seat_player(REGISTRY.strategy_class(name), FAST.get(name, {}),
                                PARAMETER_SLOTS) for name in lineup[:players]]
    driver.play_game(tileset, tile_arrays(tileset), table, work, log, removed, trees_per_colour,
                     seed, seed + 7, seats)
    for player in range(players):
        planet = planet_of(tileset, table, player)
        validate_planet(planet, tileset, "engine")
        assert score_planet(planet, tileset).total == results.score[0, player]


def test_builtins_play_differently_on_the_same_deals(game, tileset, rules):
    games = 30
    deals = np.arange(games, dtype=np.uint64)
    logs = {}
    for name in POLICY_IDS:
        spec = StrategySpec(name, FAST.get(name, {}))
        columns = game.play_shard(tileset, 4, rules, [spec], np.zeros((games, 4), np.int64),
                                  deals, deals + np.uint64(100))
        logs[name] = (columns["score"], columns["closed_zones"], columns["full_runes"])
    names = sorted(logs)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            assert not np.array_equal(logs[first][0], logs[second][0]), (first, second)
