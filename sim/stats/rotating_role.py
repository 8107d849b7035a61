"""A role that rotates through the seats (a game's ``RotatingRoleAssociation``: the holder
leads a phase, and the role passes to the next seat once per unit of a count the deal
randomises): how often each seat holds it and what holding it once more is worth. Which seats
hold it more follows from the seat order, so these are associations, the seat held fixed.

- ``role_table``: per (players, rules, count, seat) the turns held, the mean position in the
  order of play, the mean score with a cluster-robust (by deal) interval and the win rate;
- ``role_turn_effect``: the worth of one more turn in the role, the game and the seat held
  fixed (within-game regression, cluster-robust by deal).

Both read the rows in chunks of whole deals (``sim.stats.variance.summarise_whole_deals``) and
keep sums only: per cell for the table, and for the regression X'X and X'y (exact integers)
in a first pass and the per-deal score outer products, with the coefficients known, in a
second. Memory does not grow with the number of games.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl

from sim.games.base import RotatingRoleAssociation
from sim.stats.clustered import CONFIDENCE, t_critical
from sim.stats.variance import (
    chunk_panels,
    declared_for,
    exact_products,
    exact_ratio_intervals,
    exact_solve,
    integer_codes,
    run_starts,
    summarise_whole_deals,
    unique_keys,
)

PANEL = ["players", "rules"]
_CELL_SUMS = ["clusters", "player_games", "total", "first_picks", "count_squares", "cross",
              "total_squares"]


def mean_order_position(players: int, turns: int, seat: int) -> float:
    """The seat's average place in the order of play over the role's turns (0 = first).

    Turn k (k = 0 .. turns - 1) is led by seat k mod players, so seat s plays at position
    (s - k) mod players.
    """
    if turns <= 0:
        return float("nan")
    k = np.arange(turns)
    return float(((seat - k) % players).mean())


def _role_cells(chunk: pl.DataFrame, role_column: str, count_column: str
                 ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per cell (players, rules, ``count_column``, seat) in a chunk of whole deals: the deals
    (clusters), exact integer sums of player-games, scores, turns held and the squares and cross
    products of the per-deal sums; and the player-games per win share (a tie splits the win)."""
    cells, wins = [], []
    for players, rules, panel in chunk_panels(chunk):
        count_codes, low_count, counts = integer_codes(panel[count_column].to_numpy())
        seat_codes, low_seat, seats = integer_codes(panel["seat"].to_numpy())
        deals = panel["deal_id"].to_numpy()
        deal_codes = np.cumsum(np.r_[True, deals[1:] != deals[:-1]]) - 1  # deals in runs
        cell = count_codes * seats + seat_codes
        keys, index = unique_keys(deal_codes * (counts * seats) + cell)

        def summed(column: str, index=index, panel=panel) -> np.ndarray:
            # Integer sums as floats, exact below 2^53 (a deal's few rows).
            return np.bincount(index, weights=panel[column].to_numpy().astype(float))

        unit_cell = keys % (counts * seats)
        units = pl.DataFrame({
            count_column: pl.Series(unit_cell // seats + low_count, dtype=pl.Int64),
            "seat": pl.Series(unit_cell % seats + low_seat, dtype=pl.Int64),
            "n": pl.Series(np.bincount(index), dtype=pl.Int64),
            "total": pl.Series(summed("score"), dtype=pl.Int64),
            "first_picks": pl.Series(summed(role_column), dtype=pl.Int64)})
        constants = {"players": pl.lit(players, pl.Int64), "rules": pl.lit(rules, pl.String)}
        cells.append(units.group_by(count_column, "seat").agg(
            clusters=pl.len().cast(pl.Int64), player_games=pl.col("n").sum(),
            total=pl.col("total").sum(), first_picks=pl.col("first_picks").sum(),
            count_squares=(pl.col("n") ** 2).sum(), cross=(pl.col("n") * pl.col("total")).sum(),
            total_squares=(pl.col("total") ** 2).sum()).with_columns(**constants))
        win = panel["win"].cast(pl.Float64)
        shares = np.sort(win.unique().to_numpy())
        share_codes = np.searchsorted(shares, win.to_numpy())
        share_counts = np.bincount(cell * shares.size + share_codes)
        found = np.flatnonzero(share_counts)
        wins.append(pl.DataFrame({
            count_column: pl.Series(found // shares.size // seats + low_count, dtype=pl.Int64),
            "seat": pl.Series(found // shares.size % seats + low_seat, dtype=pl.Int64),
            "win": pl.Series(shares[found % shares.size], dtype=pl.Float64),
            "count": pl.Series(share_counts[found], dtype=pl.Int64)}).with_columns(**constants))
    return pl.concat(cells, how="diagonal"), pl.concat(wins, how="diagonal")


def role_table(rows: pl.LazyFrame, role_column: str | None = None,
               count_column: str | None = None) -> pl.DataFrame:
    """Per (players, rules, count, seat): the turns held (``first_picks``), the mean position
    in the order of play, mean score and win rate, the mean with a cluster-robust (by deal)
    interval (rows store).

    Every number is an exact integer or rational sum rounded once (a win share is a float the
    store holds exactly; the rate sums them as fractions), so it does not depend on how the
    rows are chunked. ``role_column``: per seat, the times the player held the rotating role;
    ``count_column``: the deal's count of the role's turns; None: those of the registered
    game's ``RotatingRoleAssociation`` the rows hold."""
    if role_column is None or count_column is None:
        role = declared_for(rows, RotatingRoleAssociation)
        role_column, count_column = role.column, role.count_column
    role_keys = [*PANEL, count_column, "seat"]
    parts = summarise_whole_deals(
        rows, [*role_keys, "deal_id", "score", "win", role_column],
        lambda chunk: _role_cells(chunk, role_column, count_column))
    if not parts:
        return pl.DataFrame()
    cells = (pl.concat([cell for cell, _ in parts]).group_by(role_keys)
             .agg(pl.col(_CELL_SUMS).sum()).sort(role_keys))
    win_counts = pl.concat([win for _, win in parts]).group_by([*role_keys, "win"]).agg(
        pl.col("count").sum())
    win_sums: dict[tuple, Fraction] = {}
    for *key, share, count in win_counts.iter_rows():
        win_sums[tuple(key)] = win_sums.get(tuple(key), Fraction(0)) + Fraction(share) * count
    sums = {name: cells[name].to_list() for name in _CELL_SUMS}
    games = sums["player_games"]
    intervals = exact_ratio_intervals(sums["clusters"], games, sums["total"],
                                      sums["count_squares"], sums["cross"],
                                      sums["total_squares"], CONFIDENCE)
    keys = list(cells.select(role_keys).iter_rows())
    return cells.select(role_keys).with_columns(
        player_games=pl.Series(games, dtype=pl.UInt32),
        first_picks=pl.Series([float(Fraction(f, n)) for f, n in
                               zip(sums["first_picks"], games, strict=True)], dtype=pl.Float64),
        mean=pl.Series(intervals["mean"], dtype=pl.Float64),
        win_rate=pl.Series([float(win_sums[key] / n) for key, n in zip(keys, games, strict=True)],
                           dtype=pl.Float64),
        mean_position=pl.Series([mean_order_position(p, turns, s) for p, _, turns, s in keys],
                                dtype=pl.Float64),
        mean_low=pl.Series(intervals["low"], dtype=pl.Float64),
        mean_high=pl.Series(intervals["high"], dtype=pl.Float64))


_ROLE_COLUMNS = ["game_id", "deal_id", *PANEL, "seat", "score", "win"]  # and the role's


def _role_panels(chunk: pl.DataFrame):
    """(players, rules, rows) of each panel of at least two players in a chunk, each game's
    rows together (the runner writes them so; other frames are sorted by deal and game). The
    games must be whole: every seat once, all in one deal."""
    for players, rules, panel in chunk_panels(chunk):
        if players < 2:
            continue
        games = panel["game_id"].to_numpy()
        if np.any(games[1:] < games[:-1]):
            panel = panel.sort(["deal_id", "game_id"], maintain_order=True)
            games = panel["game_id"].to_numpy()
        starts = run_starts(games)
        seats = panel["seat"].to_numpy()
        deals = panel["deal_id"].to_numpy()
        if (panel.height != players * starts.size
                or np.any(np.diff(np.r_[starts, panel.height]) != players)
                or np.any(np.sort(seats.reshape(-1, players), axis=1) != np.arange(players))
                or np.any(deals.reshape(-1, players) != deals[starts][:, None])):
            raise ValueError(f"role_turn_effect needs whole games: a {players}-player game "
                             "has a seat missing or repeated")
        yield players, rules, panel


def _by_game(panel: pl.DataFrame, column: str, players: int, kind: type) -> np.ndarray:
    """The ``column`` of a panel from ``_role_panels`` as (games, players)."""
    return panel[column].to_numpy().astype(kind).reshape(-1, players)


def _scaled_design(panel: pl.DataFrame, players: int, role_column: str) -> np.ndarray:
    """players x (the turns held centred within its game, then each seat 1.. indicator centred):
    integers, the design of the within regression scaled by the player count."""
    held = _by_game(panel, role_column, players, np.int64)
    centred = (players * held - held.sum(axis=1, keepdims=True)).ravel()
    seat = panel["seat"].to_numpy()
    return np.column_stack([centred, *[players * (seat == s).astype(np.int64) - 1
                                       for s in range(1, players)]]).astype(np.int64)


def _normal_equations(chunk: pl.DataFrame, role_column: str) -> dict[tuple[int, str], dict]:
    """First pass, per panel of a chunk: rows, games, deals, whether any game's seats held
    the role different numbers of times, the first game id, and exact X'X, X'score and
    X'(win = v) per win share v of the scaled design (its columns sum to 0 in every game, so the
    outcomes need no centring here)."""
    found = {}
    for players, rules, panel in _role_panels(chunk):
        design = _scaled_design(panel, players, role_column)
        win = panel["win"].cast(pl.Float64).to_numpy()
        shares = np.sort(pl.Series(win).unique().to_numpy())
        found[(players, rules)] = {
            "rows": panel.height, "games": panel.height // players,
            "clusters": run_starts(panel["deal_id"].to_numpy()).size,
            "moved": bool(np.any(design[:, 0] != 0)),
            "first_game": int(panel["game_id"].min()),
            "gram": exact_products(design, design),
            "score": [row[0] for row in exact_products(
                design, panel["score"].cast(pl.Int64).to_numpy()[:, None])],
            "win": dict(zip(shares.tolist(), zip(*exact_products(
                design, win[:, None] == shares[None, :]), strict=True), strict=True)),
        }
    return found


def _add(total: dict, part: dict) -> dict:
    """The first-pass sums of two chunks of a panel added."""
    win = dict(total["win"])
    for share, vector in part["win"].items():
        win[share] = [a + b for a, b in zip(win.get(share, [0] * len(vector)), vector,
                                            strict=True)]
    return {"rows": total["rows"] + part["rows"], "games": total["games"] + part["games"],
            "clusters": total["clusters"] + part["clusters"],
            "moved": total["moved"] or part["moved"],
            "first_game": min(total["first_game"], part["first_game"]),
            "gram": [[a + b for a, b in zip(r, s, strict=True)]
                     for r, s in zip(total["gram"], part["gram"], strict=True)],
            "score": [a + b for a, b in zip(total["score"], part["score"], strict=True)],
            "win": win}


def _cluster_scores(chunk: pl.DataFrame, betas: dict[tuple[int, str], list[np.ndarray]],
                    role_column: str) -> dict[tuple[int, str], np.ndarray]:
    """Second pass, per panel of a chunk: the sum over its deals of the outer products of each
    deal's score vector X_c' e_c (residuals from the known coefficients), score and win
    outcome stacked: (2, k, k)."""
    found = {}
    for players, rules, panel in _role_panels(chunk):
        if (players, rules) not in betas:
            continue

        def within(column: str, panel=panel, players=players) -> np.ndarray:
            values = _by_game(panel, column, players, float)
            return (values - values.sum(axis=1, keepdims=True) / players).ravel()

        seat = panel["seat"].to_numpy()
        design = np.column_stack([within(role_column),
                                  *[(seat == s).astype(float) - 1.0 / players
                                    for s in range(1, players)]])
        starts = run_starts(panel["deal_id"].to_numpy())
        products = []
        for outcome, beta in zip(("score", "win"), betas[(players, rules)], strict=True):
            residual = within(outcome) - design @ beta
            per_deal = np.add.reduceat(design * residual[:, None], starts, axis=0)
            products.append(per_deal.T @ per_deal)
        found[(players, rules)] = np.stack(products)
    return found


def role_turn_effect(rows: pl.LazyFrame, confidence: float = 0.95,
                     role_column: str | None = None) -> pl.DataFrame:
    """Per (players, rules): what one more turn in the rotating role is worth, in points and
    in win chance, holding the game and the seat fixed, with 95% intervals (an association:
    the seat order, not a randomisation, sets who holds it more).

    Model (least squares, one per outcome): outcome = game effect + seat effect + beta * turns
    held + error. The game effects are removed by centring every variable within its
    game (the within estimator), the seat effects are centred seat indicators, and the
    covariance is cluster-robust by deal (CR1 with statsmodels' small-sample factors: games of
    a deal share it); the interval uses t on deals - 1 degrees of freedom. Seat and role are
    tied together (the first seats hold the extra turns), so leaving the seat out would credit
    the role with the seat's advantage.

    Two passes over the rows in chunks of whole deals: exact X'X and X'y give the coefficients
    (rational, rounded once), then the per-deal scores X_c' e_c give the covariance's middle.
    The games must be whole (every seat once). ``role_column``: the per-seat column of turns
    held (None: the registered game's ``RotatingRoleAssociation`` the rows hold).
    """
    role_column = role_column or declared_for(rows, RotatingRoleAssociation).column
    columns = [*_ROLE_COLUMNS, role_column]
    totals: dict[tuple[int, str], dict] = {}
    for part in summarise_whole_deals(rows, columns,
                                      lambda chunk: _normal_equations(chunk, role_column)):
        for key, sums in part.items():
            totals[key] = _add(totals[key], sums) if key in totals else sums
    fits, betas = {}, {}
    for (players, rules), sums in sorted(totals.items(), key=lambda item: item[1]["first_game"]):
        if not sums["moved"]:
            continue  # every seat held the role as often in every game: nothing to estimate
        win_vector = [sum((Fraction(share) * vector[j] for share, vector in sums["win"].items()),
                          Fraction(0)) for j in range(players)]
        # Scaled design D = players * X: beta = players (D'D)^-1 D'y, (X'X)^-1 = players^2
        # (D'D)^-1.
        inverse, solutions = exact_solve(sums["gram"], [sums["score"], win_vector])
        beta = [[players * value for value in solution] for solution in solutions]
        betas[(players, rules)] = [np.array([float(v) for v in b]) for b in beta]
        bread = np.array([[float(players * players * v) for v in row] for row in inverse])
        fits[(players, rules)] = (sums, beta, bread)
    meats: dict[tuple[int, str], np.ndarray] = {}
    if betas:
        for part in summarise_whole_deals(rows, columns,
                                          lambda chunk: _cluster_scores(chunk, betas,
                                                                        role_column)):
            for key, products in part.items():
                meats[key] = meats[key] + products if key in meats else products
    results = []
    for (players, rules), (sums, beta, bread) in fits.items():
        clusters, observations = sums["clusters"], sums["rows"]
        critical = t_critical(clusters, confidence)
        correction = clusters / (clusters - 1.0) * ((observations - 1.0)
                                                    / (observations - players))
        record = {"players": players, "rules": rules, "games": int(sums["games"]),
                  "clusters": int(clusters)}
        for k, name in enumerate(("score_gap", "win_gap")):
            covariance = bread @ meats[(players, rules)][k] @ bread * correction
            estimate, se = float(beta[k][0]), float(np.sqrt(covariance[0, 0]))
            record.update({name: estimate, f"{name}_low": estimate - critical * se,
                           f"{name}_high": estimate + critical * se})
        results.append(record)
    return pl.DataFrame(results)
