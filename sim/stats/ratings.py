"""Ratings and head-to-head statistics of strategies from the games they played together.

Every function here takes plain arrays of played games: ``seat_strategy[g, p]`` (which strategy
sat in seat p of game g), ``deal_of_game[g]``, ``scores[g, p]`` and ``wins[g, p]``; the deal is
the cluster. The tournament, the ladder, the league and the batch report's skill section
(``sim.stats.skill``) all rate with them.

- score and win rate: means of a strategy's seats, 95% CIs from the per-deal means (t on deals
  - 1 degrees of freedom);
- head to head: for strategies a != b, over every game and every pair of seats (a in one, b in
  the other), 1 when a's score is higher, 1/2 on a tie, 0 otherwise; 95% CI from per-deal means;
- rating: Bradley-Terry strengths fitted by Hunter's MM algorithm on those pairwise outcomes
  (ties count half a win each), shown on the Elo scale: 400 log10(strength), mean 0, with a 95%
  percentile interval from ``BOOTSTRAP_RESAMPLES`` resamples of the deals (the seed is fixed, so
  the interval is reproducible).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.stats.clustered import t_critical

BOOTSTRAP_RESAMPLES = 1000
_BOOTSTRAP_SEED = 20261201


@dataclass
class StrategyRow:
    """One strategy's line of the tournament table."""

    label: str
    seat_games: int
    score_mean: float
    score_ci: float  # half-width of the 95% CI
    win_rate: float
    win_ci: float
    rating: float  # Bradley-Terry on the Elo scale, mean 0
    rating_low: float = math.nan  # 95% deal-bootstrap interval
    rating_high: float = math.nan


def bradley_terry(wins: np.ndarray, comparisons: np.ndarray, iterations: int = 10000,
                  tolerance: float = 1e-12) -> np.ndarray:
    """Bradley-Terry strengths by Hunter's MM algorithm: ``wins[a, b]`` is how often a beat b
    (ties half), ``comparisons[a, b]`` how often they were compared. Normalised to geometric
    mean 1. A strategy that never lost (or never won) gets a large finite strength.

    ``wins`` and ``comparisons`` may carry leading dimensions (one fit per leading index, e.g.
    bootstrap resamples), fitted together."""
    s = wins.shape[-1]
    off_diagonal = 1 - np.eye(s)
    # A tiny prior (one half-tie against every other) keeps unbeaten strategies finite.
    wins = wins + 0.5 * off_diagonal * 1e-3
    comparisons = comparisons + off_diagonal * 1e-3
    strength = np.ones(wins.shape[:-1])
    total_wins = wins.sum(axis=-1)
    for _ in range(iterations):
        denominator = (comparisons / (strength[..., :, None] + strength[..., None, :])).sum(
            axis=-1)
        updated = total_wins / denominator
        updated /= np.exp(np.mean(np.log(updated), axis=-1, keepdims=True))
        if np.max(np.abs(updated - strength)) < tolerance:
            strength = updated
            break
        strength = updated
    return strength


def elo_ratings(strength: np.ndarray) -> np.ndarray:
    """Bradley-Terry strengths on the Elo scale (400 log10 strength), mean 0 over strategies."""
    ratings = 400.0 * np.log10(strength)
    return ratings - ratings.mean(axis=-1, keepdims=True)


def rating_intervals(pair_sum: np.ndarray, pair_count: np.ndarray,
                     confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals of the Elo ratings over deals resampled with replacement.

    ``pair_sum`` and ``pair_count`` are per deal (deals, S, S); a resample weighs each deal by
    how often it was drawn, so its win and comparison matrices are weighted sums."""
    deals = pair_sum.shape[0]
    generator = np.random.default_rng(_BOOTSTRAP_SEED)
    weights = generator.multinomial(deals, np.full(deals, 1.0 / deals),
                                    size=BOOTSTRAP_RESAMPLES).astype(float)
    flat_sum = pair_sum.reshape(deals, -1)
    flat_count = pair_count.reshape(deals, -1)
    s = pair_sum.shape[1]
    ratings = elo_ratings(bradley_terry((weights @ flat_sum).reshape(-1, s, s),
                                        (weights @ flat_count).reshape(-1, s, s),
                                        tolerance=1e-9))
    alpha = 1.0 - confidence
    return (np.quantile(ratings, alpha / 2.0, axis=0),
            np.quantile(ratings, 1.0 - alpha / 2.0, axis=0))


def _mean_ci(per_deal: np.ndarray) -> tuple[float, float]:
    values = per_deal[~np.isnan(per_deal)]
    if values.size == 0:
        return math.nan, math.nan
    if values.size == 1:
        return float(values[0]), math.nan
    return (float(values.mean()),
            float(t_critical(values.size) * values.std(ddof=1) / math.sqrt(values.size)))


def pair_outcomes(strategies: int, seat_strategy: np.ndarray, deal_of_game: np.ndarray,
                  scores: np.ndarray, deals: int) -> tuple[np.ndarray, np.ndarray]:
    """Per deal, the pairwise outcomes of every two seats of different strategies in a game:
    ``pair_sum[d, a, b]`` sums 1 (a outscored b), 1/2 (tie) or 0, ``pair_count[d, a, b]``
    counts the comparisons; both (deals, S, S), zero on the diagonal."""
    outcome = np.where(scores[:, :, None] > scores[:, None, :], 1.0,
                       np.where(scores[:, :, None] == scores[:, None, :], 0.5, 0.0))
    return seat_pair_sums(strategies, seat_strategy, deal_of_game, outcome, deals)


def seat_pair_sums(strategies: int, seat_strategy: np.ndarray, deal_of_game: np.ndarray,
                   outcome: np.ndarray, deals: int) -> tuple[np.ndarray, np.ndarray]:
    """Per deal, ``outcome[g, i, j]`` (seat i against seat j of game g) summed over every two
    seats of different strategies, and the comparisons counted: (deals, S, S) each, zero on the
    diagonal (a strategy against itself)."""
    pair_sum = np.zeros((deals, strategies, strategies))
    pair_count = np.zeros((deals, strategies, strategies))
    players = seat_strategy.shape[1]
    for i in range(players):
        for j in range(players):
            if i == j:
                continue
            index = (deal_of_game, seat_strategy[:, i], seat_strategy[:, j])
            np.add.at(pair_sum, index, outcome[:, i, j])
            np.add.at(pair_count, index, 1.0)
    diagonal = np.arange(strategies)
    pair_sum[:, diagonal, diagonal] = 0.0
    pair_count[:, diagonal, diagonal] = 0.0
    return pair_sum, pair_count


def analyse(labels: list[str], seat_strategy: np.ndarray, deal_of_game: np.ndarray,
            scores: np.ndarray, wins: np.ndarray, deals: int):
    """Per-strategy rows and head-to-head matrices from the played games (see module doc)."""
    s = len(labels)
    rows = []
    players = seat_strategy.shape[1]
    pair_sum, pair_count = pair_outcomes(s, seat_strategy, deal_of_game, scores, deals)
    ratings = elo_ratings(bradley_terry(pair_sum.sum(axis=0), pair_count.sum(axis=0)))
    if deals >= 2:
        rating_low, rating_high = rating_intervals(pair_sum, pair_count)
    else:
        rating_low = rating_high = np.full(s, math.nan)
    for a, label in enumerate(labels):
        mask = seat_strategy == a
        seat_games = int(mask.sum())
        score_sum = np.zeros(deals)
        win_sum = np.zeros(deals)
        count = np.zeros(deals)
        for p in range(players):
            np.add.at(score_sum, deal_of_game, np.where(mask[:, p], scores[:, p], 0))
            np.add.at(win_sum, deal_of_game, np.where(mask[:, p], wins[:, p], 0.0))
            np.add.at(count, deal_of_game, mask[:, p].astype(float))
        with np.errstate(invalid="ignore", divide="ignore"):
            score_mean, score_ci = _mean_ci(score_sum / count)
            win_mean, win_ci = _mean_ci(win_sum / count)
        rows.append(StrategyRow(label, seat_games, score_mean, score_ci, win_mean, win_ci,
                                float(ratings[a]), float(rating_low[a]), float(rating_high[a])))
    head = np.full((s, s), math.nan)
    head_ci = np.full((s, s), math.nan)
    for a in range(s):
        for b in range(s):
            if a == b or pair_count[:, a, b].sum() == 0:
                continue
            with np.errstate(invalid="ignore", divide="ignore"):
                per_deal = pair_sum[:, a, b] / pair_count[:, a, b]
            head[a, b], head_ci[a, b] = _mean_ci(per_deal)
    return rows, head, head_ci
