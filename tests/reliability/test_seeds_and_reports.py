"""Seeds 0 and 2**64 - 1 work in every command that takes a seed (`sim bench` takes none); a
report of the same batch is byte-identical twice; a summary-store batch of one shard gets a
report; a report reads only the shards its manifest records."""

from __future__ import annotations

import shutil

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from tests.reliability.helpers import TINY_CONFIG, write_config

runner = CliRunner()
EDGE_SEEDS = [0, 2**64 - 1]


@pytest.mark.parametrize("seed", EDGE_SEEDS)
def test_play_takes_the_edge_seeds(seed):
    result = runner.invoke(app, ["play", "-p", "2", "--seed", str(seed)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("seed", EDGE_SEEDS)
def test_run_takes_the_edge_seeds(tmp_path, seed):
    config = write_config(tmp_path)
    result = runner.invoke(app, ["run", str(config), "--seed", str(seed), "--games", "6",
                                 "--out", str(tmp_path / "batch"), "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("seed", EDGE_SEEDS)
def test_tournament_takes_the_edge_seeds(seed):
    result = runner.invoke(app, ["tournament", "-p", "2", "--games", "4", "--seed", str(seed),
                                 "--workers", "1"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("seed", EDGE_SEEDS)
def test_sweep_takes_the_edge_seeds(tmp_path, seed):
    config = write_config(tmp_path, TINY_CONFIG.replace("games = 40", "games = 4")
                          .replace('["greedy", "random"]', '["greedy"]') +
                          "\n[sweep]\nplayers = [2, 3]\n", "sweep.toml")
    result = runner.invoke(app, ["sweep", str(config), "--seed", str(seed), "--out",
                                 str(tmp_path / "sweep"), "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output


def test_two_reports_of_a_batch_are_byte_identical(tmp_path):
    config = write_config(tmp_path)
    result = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "batch"),
                                 "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    summaries = []
    for name in ("first", "second"):
        result = runner.invoke(app, ["report", str(tmp_path / "batch"), "--out",
                                     str(tmp_path / name), "--quiet"])
        assert result.exit_code == 0, result.output
        summaries.append((tmp_path / name / "summary.parquet").read_bytes())
    assert summaries[0] == summaries[1]


def test_a_summary_batch_of_one_shard_gets_a_report(tmp_path):
    config = write_config(tmp_path, TINY_CONFIG.replace('store = "rows"', 'store = "summary"'))
    result = runner.invoke(app, ["run", str(config), "--shard-size", "40", "--out",
                                 str(tmp_path / "batch"), "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["report", str(tmp_path / "batch"), "--out",
                                 str(tmp_path / "report"), "--quiet"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert (tmp_path / "report" / "summary.parquet").exists()


@pytest.mark.parametrize("seed", EDGE_SEEDS)
def test_harmonies_play_takes_the_edge_seeds(seed):
    result = runner.invoke(app, ["play", "--game", "harmonies", "-p", "2", "--seed", str(seed),
                                 "--strategy", "random"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("seed", EDGE_SEEDS)
def test_tune_trees_takes_the_edge_seeds(tmp_path, seed):
    result = runner.invoke(app, ["tune-trees", "--players", "2", "--supply", "1", "--games", "10",
                                 "--shard-size", "10", "--seed", str(seed), "--out",
                                 str(tmp_path / "sweep"), "--report-dir", str(tmp_path / "report"),
                                 "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output


def test_a_report_counts_only_the_shards_the_manifest_records(tmp_path):
    """A stray shard copied in and a damaged shard are left out of the report, and one line on
    stderr says which files were ignored and why."""
    config = write_config(tmp_path)
    result = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "batch"),
                                 "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    shards = tmp_path / "batch" / "shards"
    shutil.copy(shards / "shard-000000.parquet", shards / "shard-000004.parquet")
    damaged = shards / "shard-000002.parquet"
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    result = runner.invoke(app, ["report", str(tmp_path / "batch"), "--out",
                                 str(tmp_path / "report"), "--quiet"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("warning: ")
    assert "shards/shard-000004.parquet (not recorded in manifest.json)" in result.stderr
    assert "shards/shard-000002.parquet (content differs from manifest.json" in result.stderr
    summary = pl.read_parquet(tmp_path / "report" / "summary.parquet")
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "30 games reported" in markdown  # 3 of the 4 shards of 10 games
    assert "Files left out of this report" in markdown
    assert summary.height > 0
