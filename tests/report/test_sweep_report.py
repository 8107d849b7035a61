"""Sweep results: the table `sim sweep` prints, and the sweep report of `sim report SWEEP_DIR`
(what was played, every metric per point with intervals, plots, stopping, per-point reports),
byte-reproducible, with the numbers of each point's own batch report."""

import json
import math
import os
import shutil

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.errors import InputError
from sim.report.sweep import build_sweep_report, check_sweep_report_dir, sweep_identity
from sim.report.sweep_plots import Cell, Series, metric_figure
from sim.stats.sweep import open_sweep

runner = CliRunner()
PNG = b"\x89PNG"


def test_sweep_ends_with_every_metric_per_point(sweep_run):
    _, result = sweep_run
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.startswith("players"))
    for column in ("trees_per_colour_per_player", "Games", "Stopped", "Mean score (95% CI)",
                   "Win rate greedy (95% CI)", "Win rate random (95% CI)",
                   "Largest seat gap (simultaneous 95% CI)", "Seats (±2 pp)",
                   "Won in a tie (95% CI)"):
        assert column in header
    rows = [line for line in lines if line.startswith(("2 ", "3 "))]
    assert len(rows) == 4
    for row in rows:
        assert ("precise" in row or "complete" in row) and " pp (" in row and "% (" in row
        assert any(verdict in row for verdict in ("fair", "unfair", "undecided"))
    assert "sim report out" in result.stdout


def test_sweep_report_says_what_was_played_and_links_every_point(sweep_report):
    markdown = sweep_report.markdown.read_text()
    html = sweep_report.html.read_text()
    for text in ("| Game | Legendary Forests (legendary-forests) |",
                 "players = 2, 3 × trees_per_colour_per_player = 1, 3: 4 points",
                 "| Rules: removed_tiles | 5 (default)",
                 "| Rules: trees_per_colour_per_player | an axis: 1, 3",
                 "pool greedy, random, rotating", "master seed 3",
                 "a point stops once every seat's mean score has a 95% CI half-width of at "
                 "most 0.8 points", "sim sweep sweep.toml"):
        assert text in markdown, text
    for heading in ("## Every grid point", "## Games played and stopping", "## Mean score",
                    "## Win rate by strategy", "## Seat advantage", "## Shared wins",
                    "## The game's own results", "## Per-point reports",
                    "## Notes and methods"):
        assert heading in markdown, heading
    folder = sweep_report.html.parent
    assert len(sweep_report.point_reports) == 4
    for point in sweep_report.results.sweep.points:
        target = folder / "points" / point.label / "report.html"
        assert target.is_file()
        assert f'href="points/{point.label}/report.html"' in html
        assert f"(points/{point.label}/report.md)" in markdown
    # Two axes: heatmaps, embedded in the page and beside the Markdown.
    for name in ("score-mean", "win-rate", "seat-gap", "ties"):
        assert (folder / "figures" / f"{name}.png").read_bytes().startswith(PNG)
    assert html.count("data:image/png;base64,") == 4
    assert "<script" not in html and "http" not in html.replace("http-equiv", "")


def test_sweep_summary_has_the_grid_in_columns_and_honest_intervals(sweep_report):
    summary = pl.read_parquet(sweep_report.summary_parquet)
    assert summary.schema["players"] == pl.Int64
    assert summary.schema["trees_per_colour_per_player"] == pl.Int64
    assert set(summary["point"].to_list()) == {0, 1, 2, 3}
    # the largest seat gap as observed, its two seats named, with that pair's simultaneous
    # interval: signed (it holds zero when the seats cannot be told apart), within -1 to 1
    spread = summary.filter(pl.col("metric") == "seat_gap")
    assert spread.height == 4 and (spread["value"] >= 0).all()
    assert (spread["ci_low"] <= spread["value"]).all() and (spread["value"]
                                                            <= spread["ci_high"]).all()
    assert (spread["ci_low"] >= -1).all() and (spread["ci_high"] <= 1).all()
    # (no pair is named when every seat's rate is equal)
    assert ((spread["seat"] != spread["other_seat"]) | spread["seat"].is_null()).all()
    assert set(spread["verdict"].to_list()) <= {"fair", "unfair", "undecided"}
    shares = summary.filter(pl.col("metric").is_in(["win_rate", "seat_win_rate", "won_in_tie"]))
    assert (shares["ci_low"] >= 0).all() and (shares["ci_high"] <= 1).all()
    states = summary.filter(pl.col("metric") == "state")["verdict"].to_list()
    assert set(states) <= {"complete", "precise"} and len(states) == 4
    played = summary.filter(pl.col("metric") == "games_played")["value"].to_list()
    assert all(200 <= games <= 300 for games in played)


def test_each_point_has_the_numbers_of_its_own_batch_report(sweep_report):
    summary = pl.read_parquet(sweep_report.summary_parquet)
    folder = sweep_report.html.parent
    for point in sweep_report.results.played_points():
        batch = pl.read_parquet(folder / "points" / point.label / "summary.parquet")
        for strategy in ("greedy", "random"):
            ours = summary.filter((pl.col("point") == point.index)
                                  & (pl.col("metric") == "score_mean")
                                  & (pl.col("strategy") == strategy)).row(0, named=True)
            theirs = batch.filter((pl.col("section") == "scores") & (pl.col("metric") == "mean")
                                  & (pl.col("strategy") == strategy)
                                  & pl.col("seat").is_null()).row(0, named=True)
            for key in ("value", "ci_low", "ci_high"):
                assert math.isclose(ours[key], theirs[key], rel_tol=1e-12), (point.label, key)


def test_sweep_report_is_byte_reproducible_and_refuses_another_report(sweep_run, tmp_path):
    sweep_dir, _ = sweep_run
    first = runner.invoke(app, ["report", str(sweep_dir), "--out", str(tmp_path / "one"),
                                "--no-point-reports", "-q"])
    assert first.exit_code == 0, first.output
    second = build_sweep_report(sweep_dir, tmp_path / "two", point_reports=False)
    for name in ("report.html", "report.md", "summary.parquet", "sweep.toml",
                 "figures/seat-gap.png"):
        assert (tmp_path / "one" / name).read_bytes() == (second.html.parent
                                                          / name).read_bytes(), name
    sweep = open_sweep(sweep_dir)
    other = dict(sweep_identity(sweep), digest="another")
    with pytest.raises(InputError, match="holds the report of sweep"):
        check_sweep_report_dir(tmp_path / "one", other)
    (tmp_path / "batch").mkdir()
    (tmp_path / "batch" / "batch.json").write_text("{}")
    with pytest.raises(InputError, match="holds the report of a batch"):
        check_sweep_report_dir(tmp_path / "batch", sweep_identity(sweep))


def test_the_written_sweep_file_plays_the_same_sweep(sweep_run, sweep_report, tmp_path):
    sweep_dir, _ = sweep_run
    shutil.copy(sweep_report.html.parent / "sweep.toml", tmp_path / "sweep.toml")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        again = runner.invoke(app, ["sweep", "sweep.toml", "--workers", "1", "--quiet"])
    finally:
        os.chdir(here)
    assert again.exit_code == 0, again.output
    original = json.loads((sweep_dir / "sweep.json").read_text())
    # The sweep folder keeps no path of where it was made (it may move): the written sweep file
    # plays into runs/<the sweep folder's name>.
    replayed = json.loads((tmp_path / "runs" / sweep_dir.name / "sweep.json").read_text())
    assert replayed["digest"] == original["digest"]
    assert [p["games_played"] for p in replayed["points"]] == \
        [p["games_played"] for p in original["points"]]


def _cells(keys, value=lambda key: 1.0):
    return {key: Cell(value(key), value(key) - 0.1, value(key) + 0.1) for key in keys}


@pytest.mark.parametrize("axes, drawn", [
    ({"players": [2, 3, 4]}, True),  # numeric axis: lines with bands
    ({"side": ["A", "B"]}, True),  # named values: points with interval bars
    ({"players": [2, 3], "side": ["A", "B"]}, True),  # two axes: heatmaps
    ({"players": [2, 3], "side": ["A", "B"], "spirits": [0, 1]}, True),  # small multiples
    ({"players": [2, 3], "side": ["A", "B"], "spirits": list(range(7))}, False),  # too many
    ({"players": [3]}, False),  # a single point: the tables say it all
])
def test_a_metric_is_drawn_by_how_many_axes_vary(axes, drawn):
    import itertools

    keys = list(itertools.product(*axes.values()))
    figure = metric_figure("Mean score", "points", axes,
                           [Series("a", _cells(keys)), Series("b", _cells(keys))])
    assert (figure is not None and figure.startswith(PNG)) is drawn
