"""Seeds for games, derived with numpy's SeedSequence.

Every game has two 64-bit seeds: the *deal seed* (the shuffle: which tiles are removed and the
draw order) and the *strategy seed* (the players' own random choices). They come from separate
spawn keys, so different lineups, rules settings or replicates can be played on the same deals
(common random numbers) and a comparison measures the arm, not the luck.

- deal ``d`` of master seed ``m``: ``SeedSequence(m, spawn_key=(0, d)).generate_state(1, uint64)``
- replicate ``r`` of deal ``d``: ``SeedSequence(m, spawn_key=(1, d, r)).generate_state(...)``

Creating a SeedSequence object costs about 9 microseconds, which would be a tenth of a fast
game; ``_spawned_state`` below is the same algorithm (numpy's ``bit_generator.pyx``) compiled,
for millions of keys at once. Tests pin it to numpy's own output.
"""

from __future__ import annotations

import numpy as np
from numba import njit

DEAL_STREAM = 0
STRATEGY_STREAM = 1
POOL_SIZE = 4

_INIT_A = np.uint32(0x43B0D7E5)
_MULT_A = np.uint32(0x931E8875)
_INIT_B = np.uint32(0x8B51F9DD)
_MULT_B = np.uint32(0x58F38DED)
_MIX_MULT_L = np.uint32(0xCA01F9DD)
_MIX_MULT_R = np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)


def entropy_words(master_seed: int) -> np.ndarray:
    """The master seed as SeedSequence's run entropy: little-endian uint32 words, padded with
    zeros to the pool size (as numpy does whenever a spawn key is present)."""
    if not isinstance(master_seed, int) or master_seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {master_seed!r}")
    words = []
    value = master_seed
    while True:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
        if value == 0:
            break
    words += [0] * max(0, POOL_SIZE - len(words))
    return np.array(words, dtype=np.uint32)


@njit(cache=True)
def _hashmix(value, hash_const):
    value = np.uint32(value ^ hash_const[0])
    hash_const[0] = np.uint32(hash_const[0] * _MULT_A)
    value = np.uint32(value * hash_const[0])
    return np.uint32(value ^ (value >> _XSHIFT))


@njit(cache=True)
def _mix(x, y):
    result = np.uint32(np.uint32(_MIX_MULT_L * x) - np.uint32(_MIX_MULT_R * y))
    return np.uint32(result ^ (result >> _XSHIFT))


@njit(cache=True)
def _spawned_state(run_entropy, key, key_length, pool, hash_const):
    """``SeedSequence(entropy, spawn_key=key[:key_length]).generate_state(1, uint64)[0]``."""
    words = run_entropy.shape[0] + key_length
    hash_const[0] = _INIT_A
    for i in range(POOL_SIZE):
        if i < words:
            word = run_entropy[i] if i < run_entropy.shape[0] else key[i - run_entropy.shape[0]]
        else:
            word = np.uint32(0)
        pool[i] = _hashmix(word, hash_const)
    for i_src in range(POOL_SIZE):
        for i_dst in range(POOL_SIZE):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hash_const))
    for i_src in range(POOL_SIZE, words):
        if i_src < run_entropy.shape[0]:
            word = run_entropy[i_src]
        else:
            word = key[i_src - run_entropy.shape[0]]
        for i_dst in range(POOL_SIZE):
            pool[i_dst] = _mix(pool[i_dst], _hashmix(word, hash_const))
    # generate_state: two 32-bit words, little-endian, make one uint64.
    out_hash = _INIT_B
    halves = np.zeros(2, dtype=np.uint32)
    for i_dst in range(2):
        value = np.uint32(pool[i_dst % POOL_SIZE] ^ out_hash)
        out_hash = np.uint32(out_hash * _MULT_B)
        value = np.uint32(value * out_hash)
        halves[i_dst] = np.uint32(value ^ (value >> _XSHIFT))
    return np.uint64(halves[0]) | (np.uint64(halves[1]) << np.uint64(32))


@njit(cache=True)
def _spawned_states(run_entropy, stream, deal_ids, replicates, with_replicate):
    count = deal_ids.shape[0]
    out = np.zeros(count, dtype=np.uint64)
    key = np.zeros(6, dtype=np.uint32)
    pool = np.zeros(POOL_SIZE, dtype=np.uint32)
    hash_const = np.zeros(1, dtype=np.uint32)
    for index in range(count):
        # Each key element becomes its uint32 words (one word below 2**32, as 0 -> [0]).
        length = 0
        key[length] = np.uint32(stream)
        length += 1
        for value in (deal_ids[index], replicates[index]):
            if length == 3 or (length == 2 and not with_replicate):
                break
            value = np.uint64(value)
            key[length] = np.uint32(value & np.uint64(0xFFFFFFFF))
            length += 1
            if value >> np.uint64(32):
                key[length] = np.uint32(value >> np.uint64(32))
                length += 1
        out[index] = _spawned_state(run_entropy, key, length, pool, hash_const)
    return out


def _as_ids(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.int64)
    if values.size and (values.min() < 0 or values.max() >= 2**32):
        raise ValueError("deal ids and replicates must be in 0..2**32-1")
    return values


def deal_seeds(master_seed: int, deal_ids: np.ndarray) -> np.ndarray:
    """Deal seeds (uint64) for the given deal ids."""
    ids = _as_ids(deal_ids)
    return _spawned_states(entropy_words(master_seed), DEAL_STREAM, ids, ids, False)


def strategy_seeds(master_seed: int, deal_ids: np.ndarray, replicates: np.ndarray) -> np.ndarray:
    """Strategy seeds (uint64) for the given (deal id, replicate) pairs."""
    ids = _as_ids(deal_ids)
    reps = _as_ids(replicates)
    if ids.shape != reps.shape:
        raise ValueError("deal_ids and replicates must have the same length")
    return _spawned_states(entropy_words(master_seed), STRATEGY_STREAM, ids, reps, True)


def single_game_seeds(seed: int) -> tuple[np.uint64, np.uint64]:
    """The (deal seed, strategy seed) of the game that ``sim play --seed SEED`` plays: deal 0,
    replicate 0 of master seed ``seed`` (the first game of a batch with that master seed)."""
    zero = np.zeros(1, dtype=np.int64)
    return deal_seeds(seed, zero)[0], strategy_seeds(seed, zero, zero)[0]
