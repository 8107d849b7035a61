"""The project's own random generator for compiled code: splitmix64 seeding a xoshiro256**.

Games never touch numba's or numpy's global generators, so a game's outcome depends only on its
seeds and this file, not on library versions. A generator state is a ``uint64[4]`` array; every
function mutates it in place. All arithmetic stays in uint64 (numba would promote a mix of signed
and unsigned 64-bit integers to float64).
"""

from __future__ import annotations

import numpy as np

from sim.jit import compiled, inlined

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S17 = np.uint64(17)
_S45 = np.uint64(45)
_S7 = np.uint64(7)
_S11 = np.uint64(11)
_FIVE = np.uint64(5)
_NINE = np.uint64(9)
_TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0


@inlined
def splitmix64(value):
    """One splitmix64 step: a well-mixed 64-bit value from any 64-bit input."""
    z = np.uint64(value) + _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@inlined
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@compiled
def seed_state(state, seed, stream):
    """Seed ``state`` (uint64[4]) from a 64-bit ``seed`` and a ``stream`` number.

    Different streams of one seed are independent generators (e.g. one per seat)."""
    z = splitmix64(np.uint64(seed) ^ splitmix64(np.uint64(stream) + np.uint64(1)))
    for i in range(4):
        z = splitmix64(z + np.uint64(i))
        state[i] = z
    if state[0] == 0 and state[1] == 0 and state[2] == 0 and state[3] == 0:
        state[0] = _GOLDEN


@inlined
def next_u64(state):
    """Next 64-bit output of xoshiro256** (advances ``state``)."""
    result = _rotl(state[1] * _FIVE, 7) * _NINE
    t = state[1] << _S17
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


@inlined
def next_below(state, bound):
    """A uniform integer in [0, bound) for 1 <= bound < 2**32 (Lemire's multiply-shift on the
    high 32 bits; the bias is below 2**-32 and does not depend on the platform)."""
    high = next_u64(state) >> np.uint64(32)
    return np.int64((high * np.uint64(bound)) >> np.uint64(32))


@inlined
def next_float(state):
    """A uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> _S11) * _TWO_POW_MINUS_53


@compiled
def shuffle_in_place(state, values):
    """Fisher-Yates shuffle of a 1-D array with this generator."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = next_below(state, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp
