"""Points by scoring category: a real Harmonies batch gets the section, the figure and the
numbers in summary.parquet; the means equal the rows' own means."""

import polars as pl

from sim.config import load_config
from sim.report import build_report
from sim.runner import run_batch
from sim.stats.batch import open_batch
from sim.stats.categories import category_means


def test_harmonies_batch_reports_points_by_category(tmp_path):
    config_path = tmp_path / "h.toml"
    config_path.write_text('game = "harmonies"\nplayers = 2\npool = ["greedy", "random"]\n'
                           'games = 40\nshard_size = 20\nseed = 3\n')
    config = load_config(config_path, {"output": str(tmp_path / "run")})
    run_batch(config, workers=1)
    rows = pl.read_parquet(str(tmp_path / "run" / "shards" / "*.parquet"))
    means = category_means(open_batch(tmp_path / "run"))
    assert set(means["category"]) == {"trees", "mountains", "fields", "buildings", "water",
                                      "animals", "spirit"}
    greedy_trees = means.filter((pl.col("strategy") == "greedy")
                                & (pl.col("category") == "trees")).row(0, named=True)
    expected = rows.filter(pl.col("strategy") == "greedy")["points_trees"].cast(pl.Float64)
    assert greedy_trees["mean"] == expected.mean()
    assert greedy_trees["mean_low"] < greedy_trees["mean"] < greedy_trees["mean_high"]
    result = build_report(tmp_path / "run", tmp_path / "report")
    assert "Points by scoring category" in result.html.read_text()
    assert (tmp_path / "report" / "figures" / "categories.png").exists()
    summary = pl.read_parquet(result.summary_parquet)
    assert summary.filter(pl.col("section") == "categories").height == 2 * 7 * 3


def test_legendary_forests_batches_have_no_category_section(tmp_path):
    config_path = tmp_path / "lf.toml"
    config_path.write_text("players = 2\ngames = 40\nshard_size = 20\n")
    config = load_config(config_path, {"output": str(tmp_path / "run")})
    run_batch(config, workers=1)
    assert category_means(open_batch(tmp_path / "run")).is_empty()
    result = build_report(tmp_path / "run", tmp_path / "report")
    assert "Points by scoring category" not in result.html.read_text()
