"""`sim compare RUN_A RUN_B` and the sweep report's "Against the baseline": two batches on the
same deals compared metric by metric (B minus A, paired), written as compare.md, compare.html
and compare.parquet; batches that cannot be compared are one-line errors with exit code 2."""

from __future__ import annotations

import os

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.stats.compare import FRAME_SCHEMA, HIGHER, LOWER, MEAN_SCORE_KEY

runner = CliRunner()

BATCH = """
game = "legendary-forests"
players = 2
strategies = ["greedy"]
deals = 200
replicates_per_deal = 1
seed = 5
shard_size = 100
"""

SWEEP = """
name = "trees"
game = "legendary-forests"
players = 2
strategies = ["greedy"]
deals = 100
replicates_per_deal = 2
seed = 5
shard_size = 100

[sweep]
trees_per_colour_per_player = [1, 3]
baseline = {trees_per_colour_per_player = 1}
"""


def _invoke(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def batches(tmp_path_factory):
    """Batches of 2 players (about 2 s in all): ``a`` greedy on 200 deals of seed 5, ``random``
    on the first 100 of them, ``seed7`` greedy on seed 7's deals, ``three`` at 3 players,
    ``summary`` into the summary store, ``toy`` of the toy game."""
    folder = tmp_path_factory.mktemp("batches")
    config, toy = folder / "batch.toml", folder / "toy.toml"
    config.write_text(BATCH)
    toy.write_text(BATCH.replace("legendary-forests", "pick-two"))
    runs = {"a": [], "random": ["--strategy", "random", "--deals", "100"],
            "seed7": ["--seed", "7"], "three": ["--players", "3", "--deals", "100"],
            "summary": ["--store", "summary", "--deals", "100"]}
    for name, options in runs.items():
        result = _invoke("run", str(config), "--out", str(folder / name), "--workers", "1", "-q",
                         *options)
        assert result.exit_code == 0, result.output
    result = _invoke("run", str(toy), "--out", str(folder / "toy"), "--workers", "1", "-q",
                     "--deals", "100")
    assert result.exit_code == 0, result.output
    return folder


def test_two_batches_on_common_deals_are_compared(batches, tmp_path):
    out = tmp_path / "cmp"
    result = _invoke("compare", str(batches / "a"), str(batches / "random"), "--out", str(out))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "B (random) − A (a) on 100 common deals:"
    # random scores far less than greedy on the same deals.
    assert lines[1].startswith("  Mean score per player: A ") and lines[1].endswith(": B lower")
    assert (f"  Compared on the 100 deals both played ({batches / 'a'} played 200, "
            f"{batches / 'random'} 100); the other deals are left out.") in lines
    assert lines[-1] == (f"written: {out / 'compare.html'}, {out / 'compare.md'}, "
                         f"{out / 'compare.parquet'}")
    frame = pl.read_parquet(out / "compare.parquet")
    assert frame.schema == pl.Schema(FRAME_SCHEMA)
    mean = frame.filter(pl.col("key") == MEAN_SCORE_KEY).row(0, named=True)
    assert (mean["baseline"], mean["variant"], mean["deals"]) == ("a", "random", 100)
    assert mean["verdict"] == LOWER and mean["difference_high"] < 0
    markdown = (out / "compare.md").read_text()
    assert markdown.startswith("# Compare: random against a\n")
    assert "| Headline | Metric | A: a (95% CI) | B: random (95% CI) | B − A (95% CI) | Verdict |" \
        in markdown
    html = (out / "compare.html").read_text()
    assert "<table>" in html and "B against A" in html
    # Nothing but the three files, none left half-written.
    assert sorted(p.name for p in out.iterdir()) == ["compare.html", "compare.md",
                                                     "compare.parquet"]


def test_the_default_folder_is_named_after_both(batches, tmp_path):
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = _invoke("compare", str(batches / "a"), str(batches / "random"))
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "reports" / "compare-a-vs-random" / "compare.md").is_file()


def test_batches_that_cannot_be_compared_are_one_line_errors(batches, tmp_path):
    a = batches / "a"
    cases = [
        (batches / "seed7", f"{batches / 'seed7'}: not played on {a}'s deals (master seed 5 vs "
                            f"7)"),
        (batches / "three", f"{batches / 'three'}: 3 players, {a} 2; compare batches of one "
                            f"player count"),
        (a, f"{a}: the same batch as {a}; compare two batches"),
        (batches / "toy", f"{batches / 'toy'}: a pick-two batch, {a} a legendary-forests one; "
                          f"compare batches of one game"),
        (batches / "summary", f"{batches / 'summary'}: played into the summary store, which "
                              f"keeps no per-deal rows to pair; play it again with store = "
                              f"\"rows\""),
    ]
    for other, message in cases:
        result = _invoke("compare", str(a), str(other), "--out", str(tmp_path / "x"))
        assert result.exit_code == 2, result.output
        assert result.output == f"error: {message}\n"
    assert not (tmp_path / "x").exists()


def test_the_sweep_report_compares_every_point_with_the_baseline(tmp_path):
    sweep_file = tmp_path / "trees.toml"
    sweep_file.write_text(SWEEP)
    sweep_dir, report_dir = tmp_path / "sweep", tmp_path / "report"
    result = _invoke("sweep", str(sweep_file), "--out", str(sweep_dir), "--workers", "1", "-q")
    assert result.exit_code == 0, result.output
    result = _invoke("report", str(sweep_dir), "--out", str(report_dir), "--no-point-reports")
    assert result.exit_code == 0, result.output
    # The command's own output leads with the comparison, as summary.md does.
    assert "Against the baseline:\n  " in result.output
    markdown = (report_dir / "report.md").read_text()
    section = markdown.split("## Against the baseline\n", 1)[1].split("\n## ", 1)[0]
    assert "The baseline is trees_per_colour_per_player=1" in section
    assert ("### trees_per_colour_per_player=3 against trees_per_colour_per_player=1"
            in section)
    assert "| Mean score | mean score per player (points) |" in section
    # After the fields' blocks (none here) and before the table of every grid point.
    assert markdown.index("## Against the baseline") < markdown.index("## Every grid point")
    frame = pl.read_parquet(report_dir / "against-baseline.parquet")
    assert frame.schema == pl.Schema(FRAME_SCHEMA)
    assert set(frame["variant_point"].to_list()) == {1} and \
        set(frame["baseline_point"].to_list()) == {0}
    mean = frame.filter(pl.col("key") == MEAN_SCORE_KEY).row(0, named=True)
    assert mean["verdict"] == HIGHER and mean["difference_low"] > 0
    # The sweep file written beside the report names the same baseline.
    assert "baseline = {trees_per_colour_per_player = 1}" in \
        (report_dir / "sweep.toml").read_text().splitlines()

    # Two points of the sweep folder are batches too; the sweep folder itself is not.
    points = sweep_dir / "points"
    result = _invoke("compare", str(points / "trees_per_colour_per_player=1"),
                     str(points / "trees_per_colour_per_player=3"), "--out",
                     str(tmp_path / "points"))
    assert result.exit_code == 0, result.output
    compared = pl.read_parquet(tmp_path / "points" / "compare.parquet")
    assert compared.drop("setting", "baseline_point", "variant_point").equals(
        frame.drop("setting", "baseline_point", "variant_point"))
    result = _invoke("compare", str(sweep_dir), str(points / "trees_per_colour_per_player=3"))
    assert result.exit_code == 2 and result.output.startswith(
        f"error: {sweep_dir}: a sweep folder, not a batch; compare two of its points")
