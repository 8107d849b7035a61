"""How much skill matters, for a batch with several strategies: the ladder (each strategy's
mean score and win rate, and its Bradley-Terry rating, weakest to strongest) and how the
variance of a player's score splits between the strategy, the seat and the deal.

The ladder is the tournament's analysis (``sim.stats.ratings.analyse``) run on the batch's games:
mean score and win rate with 95% intervals from per-deal means, and Bradley-Terry strengths
(Hunter's MM) on every pair of seats of different strategies within a game, on the Elo scale
with mean 0 and a 95% interval from 1,000 resamples of the deals (clustered by deal). The
ratings compare the game's ranks (``rank``: 1 is best), so a tie on points is decided the way
the game decides it (e.g. then by cubes placed); only seats the game leaves tied (a
shared rank) count half each.

The variance split describes the field of players the batch chose (another field of bots
splits differently), and is shown beside the same split over the strongest strategy's own
player-games (``variance_split``). It fits score = strategy + seat + deal + rest by the method of
moments:
strategy and seat effects by OLS within deals (deal fixed effects by centring, so a strategy
is not credited with the deals it happened to play); their share is the variance over
player-games of the fitted effects; the deal's share is the between-deal variance component
of the remaining score (one-way ANOVA over deals, its expected mean squares with the n0 of
unequal groups); the rest (what varies between replays of the same deal: the strategies'
random choices and tie-breaks) is what is left of the total. Shares are of the total variance
of a player's score, strategy differences included, so the deal's share here is smaller than
the ICC of ``sim.stats.variance.deal_variance`` (a seat's variance with the strategy fixed),
which is the report's one deal share. 95% percentile intervals come from 1,000 resamples of the
deals (the whole computation repeated on each, each resample's shares clipped to [0, 1]).
With one game per deal the deal's share includes what the seats of a game share beyond the
deal.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.stats.ratings import analyse

PANEL = ["players", "rules"]
BOOTSTRAP_RESAMPLES = 1000
_BOOTSTRAP_SEED = 20261201
COMPONENTS = ("strategy", "seat", "deal", "rest")


def read_skill_rows(rows: pl.LazyFrame) -> pl.DataFrame:
    """The columns the ladder and the variance split need, sorted by (game, seat)."""
    return (rows.select("game_id", "deal_id", *PANEL, "strategy", "seat", "score", "rank", "win")
            .with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64))
            .sort(["game_id", "seat"]).collect())


def ladder(frame: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules) with two or more strategies: each strategy's seat-games, mean score
    and win rate (95% CIs), Bradley-Terry rating by the game's ranks (Elo scale, 95%
    deal-bootstrap interval) and its place from the weakest (1) to the strongest."""
    results = []
    for (players, rules), panel in frame.group_by(PANEL, maintain_order=True):
        labels = sorted(set(panel["strategy"].to_list()))
        if len(labels) < 2 or players < 2:
            continue
        games = panel.height // players
        index = {label: k for k, label in enumerate(labels)}
        seat_strategy = (panel["strategy"].replace_strict(index, return_dtype=pl.Int64)
                         .to_numpy().reshape(games, players))
        scores = panel["score"].to_numpy().astype(np.int64).reshape(games, players)
        # A higher "score" is a better finish: the negated rank, the game's tie-break included.
        finish = -panel["rank"].to_numpy().astype(np.int64).reshape(games, players)
        wins = panel["win"].to_numpy().astype(float).reshape(games, players)
        _, deal_of_game = np.unique(panel["deal_id"].to_numpy().reshape(games, players)[:, 0],
                                    return_inverse=True)
        deals = int(deal_of_game.max()) + 1
        # Means and win rates from the scores; the ratings from the ranks (a second pass of the
        # same analysis, whose pairwise outcomes then compare finishes, not points).
        rows, _, _ = analyse(labels, seat_strategy, deal_of_game, scores, wins, deals)
        by_rank, _, _ = analyse(labels, seat_strategy, deal_of_game, finish, wins, deals)
        rating = {row.label: row for row in by_rank}
        order = sorted(rows, key=lambda row: (rating[row.label].rating, row.label))
        for place, row in enumerate(order, 1):
            ranked = rating[row.label]
            results.append({"players": int(players), "rules": rules, "strategy": row.label,
                            "place": place, "seat_games": row.seat_games,
                            "mean": row.score_mean, "mean_low": row.score_mean - row.score_ci,
                            "mean_high": row.score_mean + row.score_ci,
                            "win_rate": row.win_rate,
                            "win_rate_low": max(row.win_rate - row.win_ci, 0.0),
                            "win_rate_high": min(row.win_rate + row.win_ci, 1.0),
                            "rating": ranked.rating, "rating_low": ranked.rating_low,
                            "rating_high": ranked.rating_high})
    return pl.DataFrame(results)


def _dummies(values: np.ndarray) -> np.ndarray:
    levels = np.unique(values)
    return (values[:, None] == levels[None, 1:]).astype(float)


def _deal_sums(score: np.ndarray, design: np.ndarray, deal: np.ndarray, deals: int) -> dict:
    """Per deal: player-games, sums of the design columns, of their products, of the design
    times the score, of the score and of its square (every later step is linear in them)."""
    columns = design.shape[1]
    products = (design[:, :, None] * design[:, None, :]).reshape(score.size, -1)
    stacked = np.column_stack([np.ones(score.size), design, products, design * score[:, None],
                               score, score ** 2])
    sums = np.zeros((deals, stacked.shape[1]))
    np.add.at(sums, deal, stacked)
    k = columns
    result = {"n": sums[:, 0], "x": sums[:, 1:1 + k],
              "xx": sums[:, 1 + k:1 + k + k * k].reshape(deals, k, k),
              "xy": sums[:, 1 + k + k * k:1 + 2 * k + k * k], "y": sums[:, -2],
              "yy": sums[:, -1]}
    n = result["n"]
    result["centred_xx"] = result["xx"] - (result["x"][:, :, None] * result["x"][:, None, :]
                                           / n[:, None, None])
    result["centred_xy"] = result["xy"] - result["x"] * (result["y"] / n)[:, None]
    return result


def _shares(sums: dict, copies: np.ndarray, strategy_columns: int) -> np.ndarray:
    """(strategy, seat, deal, rest) shares of the total variance of the score over the deals
    counted ``copies[b, d]`` times each: one row per set of counts (ones for the estimate, a
    bootstrap resample's counts otherwise). Everything is a sum over deals, so a set of counts
    costs a few matrix products."""
    n, x, xx, xy, y, yy = (sums[key] for key in ("n", "x", "xx", "xy", "y", "yy"))
    c = np.atleast_2d(copies)
    deals, k = x.shape
    # Within-deal (deal fixed effects) normal equations, one system per row of counts.
    left = (c @ sums["centred_xx"].reshape(deals, k * k)).reshape(-1, k, k)
    right = c @ sums["centred_xy"]
    coefficients = np.stack([np.linalg.lstsq(a, b, rcond=None)[0]
                             for a, b in zip(left, right, strict=True)])
    observations = c @ n
    total_x = c @ x
    total_xx = (c @ xx.reshape(deals, k * k)).reshape(-1, k, k)

    def variance(beta: np.ndarray) -> np.ndarray:
        mean = np.einsum("bk,bk->b", total_x, beta) / observations
        return np.einsum("bi,bij,bj->b", beta, total_xx, beta) / observations - mean ** 2

    strategy_beta, seat_beta = coefficients.copy(), coefficients.copy()
    strategy_beta[:, strategy_columns:] = 0.0
    seat_beta[:, :strategy_columns] = 0.0
    # One-way ANOVA over deals of the score less the fitted strategy and seat effects.
    residual_sum = y[None, :] - coefficients @ x.T  # [B, D]
    residual_squares = (c @ yy - 2.0 * np.einsum("bk,bk->b", c @ xy, coefficients)
                        + np.einsum("bi,bij,bj->b", coefficients, total_xx, coefficients))
    drawn = c.sum(axis=1)
    grand = np.einsum("bd,bd->b", c, residual_sum) / observations
    between_raw = np.einsum("bd,bd->b", c, residual_sum ** 2 / n[None, :])
    ms_between = (between_raw - observations * grand ** 2) / (drawn - 1.0)
    ms_within = (residual_squares - between_raw) / (observations - drawn)
    n0 = (observations - (c @ n ** 2) / observations) / (drawn - 1.0)
    deal_variance = np.maximum((ms_between - ms_within) / n0, 0.0)
    total = (c @ yy) / observations - ((c @ y) / observations) ** 2
    parts = np.column_stack([variance(strategy_beta), variance(seat_beta), deal_variance])
    return np.column_stack([parts, total - parts.sum(axis=1)]) / total[:, None]


FIELD = "this field"
STRONGEST = "strongest"


def _bootstrapped_shares(score: np.ndarray, design: np.ndarray, deal: np.ndarray,
                         strategy_columns: int, generator: np.random.Generator,
                         confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The (strategy, seat, deal, rest) shares and their 95% percentile intervals over deals
    resampled with replacement, each resample's shares clipped to [0, 1] (a share of variance
    is never negative), or None when the deals cannot carry the split (fewer than 3, or no
    deal with two player-games to measure the variation inside a deal)."""
    _, deal = np.unique(deal, return_inverse=True)
    deals = int(deal.max()) + 1
    if deals < 3 or score.size <= deals:
        return None
    sums = _deal_sums(score, design, deal, deals)
    estimate = np.clip(_shares(sums, np.ones(deals), strategy_columns)[0], 0.0, 1.0)
    chunk = max(1, min(BOOTSTRAP_RESAMPLES, 5_000_000 // deals))
    resampled = np.clip(np.concatenate([
        _shares(sums, generator.multinomial(deals, np.full(deals, 1.0 / deals),
                                            size=min(chunk, BOOTSTRAP_RESAMPLES - start))
                .astype(float), strategy_columns)
        for start in range(0, BOOTSTRAP_RESAMPLES, chunk)]), 0.0, 1.0)
    alpha = 1.0 - confidence
    return (estimate, np.quantile(resampled, alpha / 2.0, axis=0),
            np.quantile(resampled, 1.0 - alpha / 2.0, axis=0))


def strongest_strategy(panel: pl.DataFrame) -> str:
    """The strategy with the highest win rate (the game's win shares; ties: the first name)."""
    rates = (panel.group_by("strategy").agg(pl.col("win").mean())
             .sort(["win", "strategy"], descending=[True, False]))
    return rates["strategy"][0]


def variance_split(frame: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules) with two or more strategies: each component's share of the
    variance of a player's score (strategy, seat, deal, rest) with a 95% deal-bootstrap
    interval inside [0, 1], the total variance and the design (deals, games per deal).

    Two fields per panel (column ``field``): ``this field``, every player-game of the batch
    (the split describes the strategies chosen for it, not the game); and ``strongest``, the
    same split over the player-games of the strongest strategy (highest win rate, named in
    ``field_strategy``) alone: its seats and deals only, with the strategy fixed, so its share
    is 0 and what is left is the seat, the deal and the rest when every seat plays like the
    strongest. Its opponents are still this batch's; a field where every seat is the strongest
    needs a batch of its own."""
    results = []
    generator = np.random.default_rng(_BOOTSTRAP_SEED)
    for (players, rules), panel in frame.group_by(PANEL, maintain_order=True):
        strategies = panel["strategy"].to_numpy()
        if np.unique(strategies).size < 2:
            continue
        strongest = strongest_strategy(panel)
        own = panel.filter(pl.col("strategy") == strongest)
        for field, rows, label in ((FIELD, panel, None), (STRONGEST, own, strongest)):
            score = rows["score"].to_numpy().astype(float)
            strategy = (_dummies(rows["strategy"].to_numpy()) if field == FIELD
                        else np.zeros((rows.height, 0)))
            design = np.column_stack([strategy, _dummies(rows["seat"].to_numpy())])
            split = _bootstrapped_shares(score, design, rows["deal_id"].to_numpy(),
                                         strategy.shape[1], generator, confidence)
            if split is None:
                continue
            estimate, low, high = split
            deals = rows["deal_id"].n_unique()
            games = rows["game_id"].n_unique()
            for k, component in enumerate(COMPONENTS):
                if field == STRONGEST and component == "strategy":
                    continue
                results.append({"players": int(players), "rules": rules, "field": field,
                                "field_strategy": label, "component": component,
                                "share": float(estimate[k]), "share_low": float(low[k]),
                                "share_high": float(high[k]), "variance": float(score.var()),
                                "player_games": rows.height, "deals": deals,
                                "games_per_deal": games / deals})
    return pl.DataFrame(results)
