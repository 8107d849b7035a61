"""The Python driver plays exactly the compiled loop's games, and its tree phases run in token
order."""

import numpy as np
import pytest

from sim.games.legendary_forests.observation import PHASE_TREES
from sim.games.legendary_forests.rules import tile_arrays
from sim.loops.legendary_forests import driver
from sim.loops.legendary_forests.dispatch import PARAMETER_SLOTS, POLICY_IDS
from sim.loops.legendary_forests.loop import run_shard
from strategies.legendary_forests import REGISTRY
from strategies.legendary_forests.base import Strategy

FAST = {"rollout": {"rollouts": 2, "candidates": 2}, "search": {"playouts": 4}}
NAMES = sorted(POLICY_IDS)


@pytest.mark.parametrize("players", [1, 3, 4, 5])
def test_driver_with_builtins_equals_kernel(tileset, rules, players):
    games = 6 if players < 5 else 3
    rng = np.random.default_rng(players)
    lineups = rng.integers(len(NAMES), size=(games, players))
    classes = [REGISTRY.strategy_class(name) for name in NAMES]
    params = np.array([cls.parameter_row(FAST.get(cls.name, {}), PARAMETER_SLOTS)
                       for cls in classes])
    policies = np.array([POLICY_IDS[cls.name] for cls in classes], np.int8)
    deals = np.arange(games, dtype=np.uint64) + np.uint64(1000 * players)
    seeds = deals * np.uint64(7) + np.uint64(3)
    removed = rules["removed_tiles"]
    supply = rules["trees_per_colour_per_player"]
    tiles = tile_arrays(tileset)
    expected = run_shard(tiles, players, removed, supply, deals, seeds, policies[lineups],
                         params[lineups])
    factories = [lambda seat, cls=cls: driver.seat_player(cls, FAST.get(cls.name, {}),
                                                          PARAMETER_SLOTS) for cls in classes]
    actual = driver.run_shard(tileset, tiles, players, removed, supply, deals, seeds, factories,
                              lineups)
    for name in expected._fields:
        np.testing.assert_array_equal(getattr(actual, name), getattr(expected, name),
                                      err_msg=name)


class WantsOneColour(Strategy):
    """Places at the first option; in tree phases takes ``colour`` when it can, and records the
    order in which the seats are asked and what they got."""

    name = "wants-one-colour"
    parameters = ()
    calls: list = []

    def choose_placement(self, observation, placements):
        return 0

    def choose_tree(self, observation, choices):
        assert observation.phase == PHASE_TREES
        wanted = [i for i, c in enumerate(choices) if c.colour == 1]
        pick = wanted[0] if wanted else 0
        type(self).calls.append((observation.turn, observation.seat, observation.token_holder,
                                 observation.supply, choices[pick].colour))
        return pick


def test_tree_phases_run_from_the_token_holder_and_the_token_passes(tileset):
    players = 3
    tiles = tile_arrays(tileset)
    removed = 5
    for seed in range(4):
        WantsOneColour.calls = []
        table, work, log = driver.new_game_state(tileset.size, players, removed)
        seats = [driver.seat_player(WantsOneColour, {}, PARAMETER_SLOTS) for _ in range(players)]
        # 3 trees per colour per player: 9 pink trees for 3 seats that all want pink, and
        # enough trees (27) for every pick of the at most 8 tree phases.
        driver.play_game(tileset, tiles, table, work, log, removed, 3, seed, seed + 1, seats)
        turns = sorted({call[0] for call in WantsOneColour.calls})
        light_turns = [t for t in range(log.draw_order.shape[0])
                       if tileset.light[log.draw_order[t]]]
        assert turns == light_turns and len(turns) >= 2
        pink_left = 9
        for phase, turn in enumerate(turns):
            calls = [c for c in WantsOneColour.calls if c[0] == turn]
            holder = phase % players
            assert [c[1] for c in calls] == [(holder + k) % players for k in range(players)]
            assert all(c[2] == holder for c in calls)
            for call in calls:
                # The scarce colour goes to the seats earliest in token order.
                assert call[3][0] == pink_left
                assert (call[4] == 1) == (pink_left > 0)
                pink_left = max(0, pink_left - 1)
        assert pink_left == 0
