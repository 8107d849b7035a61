"""The compiled SeedSequence port gives exactly numpy's seeds."""

import numpy as np
import pytest

from sim.seeding import deal_seeds, single_game_seeds, strategy_seeds


def numpy_seed(master, key):
    return np.random.SeedSequence(master, spawn_key=key).generate_state(1, dtype=np.uint64)[0]


@pytest.mark.parametrize("master", [0, 1, 42, 2**32 - 1, 2**32, 2**40 + 5, 2**64 - 1,
                                    2**96 + 12345, 2**140 + 99])
def test_deal_and_strategy_seeds_equal_numpy_seedsequence(master):
    ids = np.array([0, 1, 2, 17, 65535, 2**31, 2**32 - 1], dtype=np.int64)
    replicates = np.array([0, 3, 1, 0, 7, 2**20, 5], dtype=np.int64)
    assert list(deal_seeds(master, ids)) == [numpy_seed(master, (0, int(d))) for d in ids]
    assert list(strategy_seeds(master, ids, replicates)) == [
        numpy_seed(master, (1, int(d), int(r))) for d, r in zip(ids, replicates, strict=True)]


def test_single_game_seed_is_game_zero_of_a_batch():
    deal, strategy = single_game_seeds(5)
    assert deal == numpy_seed(5, (0, 0)) and strategy == numpy_seed(5, (1, 0, 0))
    assert deal != strategy


def test_bad_ids_are_refused():
    with pytest.raises(ValueError):
        deal_seeds(1, np.array([-1]))
    with pytest.raises(ValueError):
        deal_seeds(-3, np.array([1]))
