"""Seeds for games, derived with numpy's SeedSequence.

Every game has two 64-bit seeds: the *deal seed* (the shuffle: which tiles are removed and the
draw order) and the *strategy seed* (the players' own random choices). They come from separate
spawn keys, so different lineups, rules settings or replicates can be played on the same deals
(common random numbers) and a comparison measures the arm, not the luck.

- deal ``d`` of master seed ``m``: ``SeedSequence(m, spawn_key=(0, d))``
- replicate ``r`` of deal ``d``: ``SeedSequence(m, spawn_key=(1, d, r))``
"""

from __future__ import annotations

import numpy as np

DEAL_STREAM = 0
STRATEGY_STREAM = 1


def _seed_of(master_seed: int, spawn_key: tuple[int, ...]) -> np.uint64:
    sequence = np.random.SeedSequence(master_seed, spawn_key=spawn_key)
    return sequence.generate_state(1, dtype=np.uint64)[0]


def deal_seeds(master_seed: int, deal_ids: np.ndarray) -> np.ndarray:
    """Deal seeds (uint64) for the given deal ids."""
    return np.array([_seed_of(master_seed, (DEAL_STREAM, int(d))) for d in deal_ids],
                    dtype=np.uint64)


def strategy_seeds(master_seed: int, deal_ids: np.ndarray, replicates: np.ndarray) -> np.ndarray:
    """Strategy seeds (uint64) for the given (deal id, replicate) pairs."""
    return np.array(
        [_seed_of(master_seed, (STRATEGY_STREAM, int(d), int(r)))
         for d, r in zip(deal_ids, replicates, strict=True)],
        dtype=np.uint64,
    )


def single_game_seeds(seed: int) -> tuple[np.uint64, np.uint64]:
    """The (deal seed, strategy seed) of the game that ``sim play --seed SEED`` plays: deal 0,
    replicate 0 of master seed ``seed`` (the first game of a batch with that master seed)."""
    return _seed_of(seed, (DEAL_STREAM, 0)), _seed_of(seed, (STRATEGY_STREAM, 0, 0))
