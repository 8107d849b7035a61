"""Tree supply tuning: how many trees of each colour per player should the box give?

A preset of ``sim sweep`` over (players x ``trees_per_colour_per_player``) with a pool of two
strategies (the strongest candidate and ``greedy``) rotating through the seats, played on common
deals. Per grid point it measures:

- seat advantage: the spread between the best and the worst seat's win rate, with a simultaneous
  (Bonferroni) 95% CI, and a chi-square test that all seats win equally often;
- colour starvation: the share of tree phases in which a colour the player had a zone of was
  already gone from the supply (``tree_picks_constrained``), and the share in which the player
  could place no tree at all (``tree_phases_without_tree``);
- score mean and SD, and the tie rate (share of games whose win is shared);
- skill expression: how often the strongest strategy finishes ahead of ``greedy`` at the same
  table (ties count half), with a 95% CI over games.

Recommendation rule, per player count (2 or more): the smallest supply that is *fair enough*
(no significant seat advantage: the spread's CI reaches 0), *starves little* (constrained tree
phases below ``max_starvation``, 10% by default) and *keeps skill* (the strongest strategy's edge
over greedy within ``skill_tolerance``, 2 percentage points, of the best supply's); the smallest,
because every extra tree is a component in the box. When no supply qualifies, the one with the
lowest seat spread + constrained share among those that keep skill. Seat spread and skill need
two or more players, so 1 player gets metrics but no pick.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.errors import InputError
from sim.files import write_bytes_atomic, write_text_atomic
from sim.stats.intervals import bonferroni_z, equal_shares_test, multinomial_difference_se

SUPPLY = "trees_per_colour_per_player"
BASELINE = "greedy"
Z95 = 1.959963984540054

METRICS = {
    "seat_spread": "seat advantage: best minus worst seat win rate (percentage points)",
    "starvation_constrained": "tree phases with a colour of one's zones already gone (%)",
    "starvation_no_tree": "tree phases with no tree possible (%)",
    "score_mean": "mean score (points)",
    "score_sd": "score standard deviation (points)",
    "tie_rate": "games whose win is shared (%)",
    "skill": "strongest strategy finishes ahead of greedy (%)",
}


def parse_range(text: str, option: str, low: int, high: int) -> list[int]:
    """``"1-5"``, ``"2,3,4"`` or ``"3"`` as a sorted list of integers in low..high."""
    values: set[int] = set()
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                first, last = (int(v) for v in part.split("-", 1))
                values.update(range(first, last + 1))
            elif part:
                values.add(int(part))
    except ValueError:
        raise InputError(f"{option}: expected a range like 1-5 or a list like 2,3,4, "
                         f"got '{text}'") from None
    if not values or min(values) < low or max(values) > high:
        raise InputError(f"{option}: values must lie in {low}..{high}, got '{text}'")
    return sorted(values)


def tune_trees_document(players: list[int], supplies: list[int], strongest: str, games: int,
                        seed: int, shard_size: int, output: str,
                        half_width: float | None) -> dict[str, Any]:
    """The sweep document of the preset (what ``configs/tune-trees.toml`` spells out)."""
    document: dict[str, Any] = {
        "name": "tune-trees",
        "game": "legendary-forests",
        "pool": [strongest, BASELINE],
        "games": games,
        "seed": seed,
        "shard_size": shard_size,
        "output": output,
        "sweep": {"players": players, SUPPLY: supplies},
    }
    if half_width is not None:
        document["adaptive"] = {"metric": "seat_win_rate", "half_width": half_width,
                                "min_games": min(games, 5 * shard_size)}
    return document


def _skill_by_point(rows: pl.LazyFrame, strongest: str) -> pl.DataFrame:
    strong = rows.filter(pl.col("strategy") == strongest).select(
        "players", SUPPLY, "game_id", strong_score="score")
    weak = rows.filter(pl.col("strategy") == BASELINE).select(
        "players", SUPPLY, "game_id", weak_score="score")
    per_game = (
        strong.join(weak, on=["players", SUPPLY, "game_id"])
        .with_columns(ahead=pl.when(pl.col("strong_score") > pl.col("weak_score")).then(1.0)
                      .when(pl.col("strong_score") == pl.col("weak_score")).then(0.5)
                      .otherwise(0.0))
        .group_by("players", SUPPLY, "game_id").agg(pl.col("ahead").mean())
    )
    return per_game.group_by("players", SUPPLY).agg(
        skill=pl.col("ahead").mean(), skill_sd=pl.col("ahead").std(),
        skill_games=pl.len()).collect()


def tree_supply_metrics(rows: pl.LazyFrame, strongest: str) -> pl.DataFrame:
    """Every metric of the module docstring per (players, supply), with CIs, from the rows of
    a tune-trees sweep (polars lazy scans; one pass per table)."""
    keys = ["players", SUPPLY]
    per_player = rows.group_by(keys).agg(
        player_games=pl.len(),
        score_mean=pl.col("score").cast(pl.Float64).mean(),
        score_sd=pl.col("score").cast(pl.Float64).std(),
        constrained=pl.col("tree_picks_constrained").cast(pl.Int64).sum(),
        no_tree=pl.col("tree_phases_without_tree").cast(pl.Int64).sum(),
        phases=pl.col("light_tiles_drawn").cast(pl.Int64).sum(),
    ).collect()
    per_game = rows.group_by([*keys, "game_id"]).agg(
        shared=((pl.col("win") > 0) & (pl.col("win") < 1)).any(),
        constrained=pl.col("tree_picks_constrained").cast(pl.Float64).sum()
        / pl.col("light_tiles_drawn").cast(pl.Float64).sum().clip(1),
    ).group_by(keys).agg(
        games=pl.len(), tie_rate=pl.col("shared").mean(),
        constrained_sd=pl.col("constrained").std(),
    ).collect()
    seats = rows.group_by([*keys, "seat"]).agg(
        wins=pl.col("win").cast(pl.Float64).sum(), count=pl.len()).collect()
    skill = _skill_by_point(rows, strongest)
    table = per_player.join(per_game, on=keys).join(skill, on=keys, how="left")
    records = []
    for row in table.sort(keys).iter_rows(named=True):
        players, supply = row["players"], row[SUPPLY]
        games = row["games"]
        seat_rows = seats.filter((pl.col("players") == players) & (pl.col(SUPPLY) == supply))
        rates = (seat_rows.sort("seat")["wins"] / seat_rows.sort("seat")["count"]).to_numpy()
        record: dict[str, Any] = {"players": players, SUPPLY: supply, "games": games}
        if players >= 2:
            best, worst = int(np.argmax(rates)), int(np.argmin(rates))
            spread = float(rates[best] - rates[worst])
            z = bonferroni_z(players * (players - 1) // 2)
            se = float(multinomial_difference_se(rates[best], rates[worst], games))
            test = equal_shares_test(seat_rows.sort("seat")["wins"].to_numpy())
            record.update(seat_spread=spread, seat_spread_low=spread - z * se,
                          seat_spread_high=spread + z * se, seat_best=best, seat_worst=worst,
                          seat_equal_p=test.p_value)
        else:
            record.update(seat_spread=math.nan, seat_spread_low=math.nan,
                          seat_spread_high=math.nan, seat_best=-1, seat_worst=-1,
                          seat_equal_p=math.nan)
        phases = max(row["phases"], 1)
        constrained = row["constrained"] / phases
        constrained_half = Z95 * (row["constrained_sd"] or 0.0) / math.sqrt(games)
        record.update(
            starvation_constrained=constrained,
            starvation_constrained_low=constrained - constrained_half,
            starvation_constrained_high=constrained + constrained_half,
            starvation_no_tree=row["no_tree"] / phases,
            score_mean=row["score_mean"], score_sd=row["score_sd"], tie_rate=row["tie_rate"],
        )
        skill_games = row["skill_games"] or 0
        if players >= 2 and skill_games > 1:
            half = Z95 * row["skill_sd"] / math.sqrt(skill_games)
            record.update(skill=row["skill"], skill_low=row["skill"] - half,
                          skill_high=row["skill"] + half)
        else:
            record.update(skill=math.nan, skill_low=math.nan, skill_high=math.nan)
        records.append(record)
    return pl.DataFrame(records)


@dataclass(frozen=True)
class Recommendation:
    """The supply picked for one player count and why."""

    players: int
    supply: int
    sentence: str


def recommend(metrics: pl.DataFrame, max_starvation: float = 0.10,
              skill_tolerance: float = 0.02) -> list[Recommendation]:
    """Apply the recommendation rule of the module docstring to each player count >= 2."""
    picks = []
    for players in sorted(set(metrics["players"].to_list())):
        if players < 2:
            continue
        options = metrics.filter(pl.col("players") == players).sort(SUPPLY)
        best_skill = options["skill"].max()
        keeps_skill = options.filter(pl.col("skill_high") >= best_skill - skill_tolerance) \
            if best_skill is not None and not math.isnan(best_skill) else options
        if keeps_skill.height == 0:
            keeps_skill = options
        sufficient = keeps_skill.filter((pl.col("seat_spread_low") <= 0)
                                        & (pl.col("starvation_constrained") < max_starvation))
        if sufficient.height:
            chosen = sufficient.sort(SUPPLY).row(0, named=True)
        else:
            chosen = keeps_skill.with_columns(
                cost=pl.col("seat_spread") + pl.col("starvation_constrained")
            ).sort(["cost", SUPPLY]).row(0, named=True)
        picks.append(Recommendation(players, int(chosen[SUPPLY]),
                                    _trade_off_sentence(players, chosen, options,
                                                        bool(sufficient.height))))
    return picks


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _trade_off_sentence(players: int, chosen: dict, options: pl.DataFrame,
                        sufficient: bool) -> str:
    supply = int(chosen[SUPPLY])
    text = (f"{players} players: {supply} trees per colour per player "
            f"(seat spread {_percent(chosen['seat_spread'])}, colour starvation "
            f"{_percent(chosen['starvation_constrained'])} of tree phases, strongest strategy "
            f"ahead of greedy {_percent(chosen['skill'])})")
    smaller = options.filter(pl.col(SUPPLY) < supply)
    if not sufficient:
        text += "; no supply is both fair and unstarved here, this one is the best compromise"
    elif smaller.height:
        below = smaller.sort(SUPPLY).row(-1, named=True)
        text += (f"; {int(below[SUPPLY])} would reward skill "
                 f"{'more' if below['skill'] > chosen['skill'] else 'no more'} "
                 f"({_percent(below['skill'])}) but give a seat spread of "
                 f"{_percent(below['seat_spread'])} and starve "
                 f"{_percent(below['starvation_constrained'])} of tree phases")
    else:
        text += "; it is the smallest supply tried and already fair and unstarved"
    return text + "."


def heatmaps(metrics: pl.DataFrame, out_dir: Path) -> dict[str, Path]:
    """One heatmap (player count x supply) per metric, PNG, with the values written in."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    players = sorted(set(metrics["players"].to_list()))
    supplies = sorted(set(metrics[SUPPLY].to_list()))
    paths = {}
    percent = {"seat_spread", "starvation_constrained", "starvation_no_tree", "tie_rate", "skill"}
    for metric, title in METRICS.items():
        grid = np.full((len(players), len(supplies)), np.nan)
        for row in metrics.iter_rows(named=True):
            grid[players.index(row["players"]), supplies.index(row[SUPPLY])] = row[metric]
        shown = grid * 100 if metric in percent else grid
        figure, axes = plt.subplots(figsize=(7.5, 5.0), dpi=120)
        image = axes.imshow(shown, cmap="viridis", aspect="auto", origin="lower")
        axes.set_xticks(range(len(supplies)), [str(s) for s in supplies])
        axes.set_yticks(range(len(players)), [str(p) for p in players])
        axes.set_xlabel("trees per colour per player (supply)", fontsize=12)
        axes.set_ylabel("players", fontsize=12)
        axes.set_title(title, fontsize=13)
        figure.colorbar(image, ax=axes)
        finite = shown[np.isfinite(shown)]
        middle = float(np.median(finite)) if finite.size else 0.0
        for i in range(len(players)):
            for j in range(len(supplies)):
                if np.isfinite(shown[i, j]):
                    axes.text(j, i, f"{shown[i, j]:.1f}", ha="center", va="center", fontsize=11,
                              color="white" if shown[i, j] < middle else "black")
        figure.tight_layout()
        import io

        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        plt.close(figure)
        path = out_dir / f"heatmap-{metric}.png"
        write_bytes_atomic(path, buffer.getvalue())
        paths[metric] = path
    return paths


def write_tuning_report(metrics: pl.DataFrame, picks: list[Recommendation], strongest: str,
                        out_dir: Path, games_note: str) -> Path:
    """``tune-trees.md`` with the recommendation table, every metric per point and the
    heatmaps, plus ``tune-trees.parquet`` with the metrics."""
    out_dir.mkdir(parents=True, exist_ok=True)
    maps = heatmaps(metrics, out_dir)
    import io

    buffer = io.BytesIO()
    metrics.write_parquet(buffer)
    write_bytes_atomic(out_dir / "tune-trees.parquet", buffer.getvalue())
    lines = ["# Tree supply tuning", "",
             f"Pool: `{strongest}` and `{BASELINE}` rotating through the seats, every grid point "
             f"on the same deals. {games_note}", "", "## Recommendation", "",
             "| players | trees per colour per player | why |", "| --- | --- | --- |"]
    for pick in picks:
        lines.append(f"| {pick.players} | {pick.supply} | {pick.sentence} |")
    lines += ["", "Rule: per player count, the smallest supply with no significant seat "
              "advantage (the spread's 95% CI reaches 0), constrained tree phases below 10% and "
              "the strongest strategy's edge over greedy within 2 points of the best supply's; "
              "failing that, the lowest seat spread + constrained share.", "",
              "## Every grid point", "",
              "| players | supply | games | seat spread (95% CI) | equal seats p | constrained "
              "picks | no tree | score mean | score SD | ties | skill (95% CI) |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in metrics.sort(["players", SUPPLY]).iter_rows(named=True):
        def pct(value):
            return "—" if value is None or math.isnan(value) else f"{100 * value:.1f}%"

        spread = "—" if math.isnan(row["seat_spread"]) else (
            f"{pct(row['seat_spread'])} ({pct(row['seat_spread_low'])} to "
            f"{pct(row['seat_spread_high'])})")
        skill = "—" if math.isnan(row["skill"]) else (
            f"{pct(row['skill'])} ({pct(row['skill_low'])} to {pct(row['skill_high'])})")
        equal = "—" if math.isnan(row["seat_equal_p"]) else f"{row['seat_equal_p']:.2g}"
        lines.append(f"| {row['players']} | {row[SUPPLY]} | {row['games']:,} | {spread} | {equal} "
                     f"| {pct(row['starvation_constrained'])} | {pct(row['starvation_no_tree'])} "
                     f"| {row['score_mean']:.2f} | {row['score_sd']:.2f} | {pct(row['tie_rate'])} "
                     f"| {skill} |")
    lines += ["", "## Heatmaps", ""]
    for metric, path in maps.items():
        lines += [f"![{METRICS[metric]}]({path.name})", ""]
    report = out_dir / "tune-trees.md"
    write_text_atomic(report, "\n".join(lines) + "\n")
    return report
