"""Strategies see public information only: the draw order and the removed tiles are nowhere in
what they receive, and a strategy that tries to read them fails loudly."""

import dataclasses

import numpy as np
import pytest
from numba.core.errors import TypingError

from sim.games.legendary_forests.observation import Observation
from sim.games.legendary_forests.rules import Table, tile_arrays
from sim.loops.legendary_forests import driver
from sim.loops.legendary_forests.dispatch import PARAMETER_SLOTS
from strategies.legendary_forests.base import Strategy

PUBLIC_FIELDS = {"seat", "phase", "tile", "tile_light", "tileset", "table"}


class PeekAtDrawOrder(Strategy):
    """Cheats: reads the draw order from the observation."""

    name = "peek-draw-order"

    def choose_placement(self, observation, placements):
        return int(observation.draw_order[observation.turn + 1]) % len(placements)

    def choose_tree(self, observation, choices):
        return 0


class PeekAtRemovedTiles(Strategy):
    """Cheats: looks for the removed tiles on the observation's table."""

    name = "peek-removed"

    def choose_placement(self, observation, placements):
        return len(observation.table.removed) % len(placements)

    def choose_tree(self, observation, choices):
        return 0


class Spy(Strategy):
    """Plays the first option and keeps every observation it is given."""

    name = "spy"
    seen: list = []

    def choose_placement(self, observation, placements):
        type(self).seen.append(observation)
        return 0

    def choose_tree(self, observation, choices):
        type(self).seen.append(observation)
        return 0


def play(tileset, rules, cls, players=3, seed=5):
    tiles = tile_arrays(tileset)
    removed = rules["removed_tiles"]
    table, work, log = driver.new_game_state(tileset.size, players, removed)
    seats = [driver.seat_player(cls, {}, PARAMETER_SLOTS) for _ in range(players)]
    driver.play_game(tileset, tiles, table, work, log, removed,
                     rules["trees_per_colour_per_player"], seed, seed + 1, seats)
    return log


@pytest.mark.parametrize("cheat", [PeekAtDrawOrder, PeekAtRemovedTiles])
def test_a_strategy_that_reads_the_deal_fails_loudly(game, tileset, rules, cheat):
    with pytest.raises(AttributeError):
        play(tileset, rules, cheat)


def test_observation_is_frozen_and_holds_no_deal_fields():
    names = {f.name for f in dataclasses.fields(Observation)}
    assert names == PUBLIC_FIELDS
    for name in ("draw_order", "removed", "removed_tiles", "deal", "pile"):
        assert not hasattr(Observation, name)
        assert name not in Table._fields


def contains_run(array: np.ndarray, run: list[int]) -> bool:
    """True when ``run`` appears as consecutive values along the last axis of ``array``."""
    flat = np.asarray(array).reshape(-1, np.asarray(array).shape[-1]) if np.ndim(array) else \
        np.asarray([[array]])
    length = len(run)
    for row in flat:
        for start in range(row.shape[0] - length + 1):
            if all(int(row[start + k]) == run[k] for k in range(length)):
                return True
    return False


def test_no_array_handed_over_holds_the_coming_draws_or_tells_removed_tiles_apart(tileset,
                                                                                  rules):
    Spy.seen = []
    log = play(tileset, rules, Spy, players=2, seed=11)
    draw_order = [int(t) for t in log.draw_order]
    removed = {int(t) + 1 for t in log.removed[:rules["removed_tiles"]]}
    assert Spy.seen
    for observation in Spy.seen:
        with pytest.raises(dataclasses.FrozenInstanceError):
            observation.seat = 1
        coming = draw_order[observation.turn + 1:]
        # Unseen tiles: the coming draws and the removed tiles together, in number order.
        assert observation.unseen_tiles == tuple(sorted({t + 1 for t in coming} | removed))
        assert removed <= set(observation.unseen_tiles)
        if len(coming) >= 4:
            for values in ([t for t in coming[:4]], [t + 1 for t in coming[:4]]):
                for array in observation.table:
                    assert not contains_run(array, values)


def test_compiled_strategy_reading_the_deal_does_not_compile(game, tileset, rules, tmp_path,
                                                             monkeypatch):
    (tmp_path / "cheating_bot.py").write_text(
        "from numba import njit\n"
        "from strategies.legendary_forests.base import Strategy\n"
        "@njit\n"
        "def place(params, tiles, table, player, tile, cells, rotations, count, rng, scratch,"
        " preview):\n"
        "    return table.draw_order[0] % count\n"
        "@njit\n"
        "def tree(params, tiles, table, player, colours, zones, count, rng):\n"
        "    return 0\n"
        "class Cheat(Strategy):\n"
        "    name = 'cheat'\n"
        "    compiled_placement = place\n"
        "    compiled_tree = tree\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from sim.strategy_spec import parse_strategy

    spec = parse_strategy("cheating_bot:Cheat", game.strategies(), "test")
    with pytest.raises(TypingError, match="draw_order"):
        game.play_shard(tileset, 2, rules, [spec], np.zeros((1, 2), np.int64),
                        np.zeros(1, np.uint64), np.ones(1, np.uint64))


def test_expert_decides_the_same_whatever_the_unseen_tiles_hold(game, tileset, rules):
    """``expert`` counts the unseen tiles (pile and removed together): its first turns' choices
    are the same when the removed tiles trade places with later draws and the later draws are
    re-ordered, i.e. it uses neither which tiles are removed nor the draw order."""
    from sim.games.base import StrategySpec
    from sim.games.legendary_forests.rules import deal, new_table
    from sim.jit import rebind
    from sim.loops.legendary_forests.dispatch import strategy_table
    from sim.loops.legendary_forests.game import LegendaryForests
    from sim.loops.legendary_forests.loop import new_work, play_game
    from sim.seeding import single_game_seeds

    assert isinstance(game, LegendaryForests)
    players, turns, removed_count = 3, 6, rules["removed_tiles"]
    tiles = tile_arrays(tileset)
    policies, params, _ = game._seat_arrays([StrategySpec("expert")] * players)

    def decisions(swap: int | None):
        def dealt(rng, tile_count, removed_tiles, draw_order, removed):
            deal(rng, tile_count, removed_tiles, draw_order, removed)
            if swap is not None:
                later = np.random.default_rng(swap).permutation(
                    np.concatenate([draw_order[turns:], removed[:removed_tiles]]))
                draw_order[turns:] = later[:draw_order.shape[0] - turns]
                removed[:removed_tiles] = later[draw_order.shape[0] - turns:]
        from sim.games.legendary_forests.results import new_log

        table = new_table(tileset.size, players, removed_count)
        work = new_work(tileset.size, players, removed_count)
        log = new_log(tileset.size, players, removed_count)
        play = rebind(play_game.py_func, "play_game", {"deal": dealt})
        deal_seed, strategy_seed = single_game_seeds(9)
        play(tiles, table, work, log, removed_count, rules["trees_per_colour_per_player"],
             np.uint64(deal_seed), np.uint64(strategy_seed), policies, params[[0] * players],
             strategy_table(policies, tiles, table, work))
        return ([log.placement_cell[:turns].tolist(), log.placement_rotation[:turns].tolist(),
                 log.tree_colour[:turns].tolist()], sorted(log.removed[:removed_count].tolist()))

    dealt_decisions, dealt_removed = decisions(None)
    for swap in (1, 2, 3):
        swapped_decisions, swapped_removed = decisions(swap)
        assert swapped_removed != dealt_removed  # the probe did change the hidden split
        assert swapped_decisions == dealt_decisions
