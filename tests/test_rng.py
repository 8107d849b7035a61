"""The project's own generator: fixed outputs (so results never drift), streams, uniformity."""

import numpy as np

from sim.rng import next_below, next_float, next_u64, seed_state, shuffle_in_place


def test_known_outputs_never_change():
    state = np.zeros(4, np.uint64)
    seed_state(state, np.uint64(42), 0)
    # Pinned values: a change here changes every game ever recorded.
    assert [int(next_u64(state)) for _ in range(3)] == [
        12535874978260525285, 14198715659946713696, 16677926962206194698]


def test_streams_of_one_seed_differ_and_repeat():
    first, second, again = (np.zeros(4, np.uint64) for _ in range(3))
    seed_state(first, np.uint64(7), 1)
    seed_state(second, np.uint64(7), 2)
    seed_state(again, np.uint64(7), 1)
    a = [int(next_u64(first)) for _ in range(5)]
    assert a != [int(next_u64(second)) for _ in range(5)]
    assert a == [int(next_u64(again)) for _ in range(5)]


def test_bounded_integers_and_floats_are_uniform():
    state = np.zeros(4, np.uint64)
    seed_state(state, np.uint64(1), 0)
    counts = np.zeros(7, np.int64)
    for _ in range(70000):
        counts[next_below(state, 7)] += 1
    expected = 10000
    chi_square = ((counts - expected) ** 2 / expected).sum()
    assert chi_square < 22.5  # 99.9th percentile of chi-square with 6 degrees of freedom
    floats = np.array([next_float(state) for _ in range(20000)])
    assert floats.min() >= 0 and floats.max() < 1 and abs(floats.mean() - 0.5) < 0.01


def test_shuffle_is_a_permutation():
    state = np.zeros(4, np.uint64)
    seed_state(state, np.uint64(3), 0)
    values = np.arange(24)
    shuffle_in_place(state, values)
    assert sorted(values) == list(range(24)) and list(values) != list(range(24))
