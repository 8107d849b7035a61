"""The batch runner: identical results whatever the workers, shard size or backend; resuming
after SIGKILL; storage layout."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from sim.config import load_config
from sim.runner import run_batch
from sim.store import read_manifest

CONFIG = """
game = "legendary-forests"
players = 4
pool = ["greedy", "random"]
games = 600
seed = 77
shard_size = 100
store = "rows"
[rules]
removed_tiles = 5
trees_per_colour_per_player = 2
"""


def write_config(folder: Path, text: str = CONFIG, name: str = "batch.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def all_rows(run_dir: Path) -> pl.DataFrame:
    return pl.read_parquet(str(run_dir / "shards" / "*.parquet")).sort(["game_id", "seat"])


def test_results_do_not_depend_on_workers_shard_size_or_backend(tmp_path):
    config_path = write_config(tmp_path)
    frames = {}
    for label, overrides, workers, backend in (
        ("one-worker", {"shard_size": 100}, 1, "local"),
        ("two-workers", {"shard_size": 100}, 2, "local"),
        ("other-shards", {"shard_size": 75}, 2, "local"),
        ("dask", {"shard_size": 150}, 2, "dask"),
    ):
        config = load_config(config_path, {**overrides, "output": str(tmp_path / label)})
        summary = run_batch(config, workers=workers, backend=backend)
        assert summary.complete and summary.games_played == 600
        frames[label] = all_rows(tmp_path / label)
    reference = frames["one-worker"]
    assert reference.height == 600 * 4
    assert reference["game_id"].n_unique() == 600
    for label, frame in frames.items():
        assert frame.equals(reference), label
    # Same shard size: the Parquet files are byte-identical, not just equal in content.
    for index in range(6):
        name = f"shard-{index:06d}.parquet"
        assert (tmp_path / "one-worker" / "shards" / name).read_bytes() == \
            (tmp_path / "two-workers" / "shards" / name).read_bytes()


def test_pool_rotates_every_strategy_through_every_seat(tmp_path):
    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run")})
    run_batch(config, workers=1)
    counts = all_rows(tmp_path / "run").group_by(["seat", "strategy"]).len()
    assert counts.height == 8 and set(counts["len"].to_list()) == {300}


def test_a_pool_larger_than_the_table_seats_every_pair_in_both_orders():
    """Three strategies at two seats: over 6 deals every ordered pair sits once each way (the
    cyclic rotations alone always put 0 before 1, 1 before 2 and 2 before 0)."""
    from types import SimpleNamespace

    from sim.runner import game_design

    config = SimpleNamespace(replicates_per_deal=1, players=2, rotate=True,
                             lineup=("a", "b", "c"))
    _, _, _, seat_lineup = game_design(config, 0, 6)
    assert sorted(map(tuple, seat_lineup.tolist())) == [(0, 1), (0, 2), (1, 0), (1, 2),
                                                        (2, 0), (2, 1)]
    for seat in range(2):
        assert sorted(seat_lineup[:, seat].tolist()) == [0, 0, 1, 1, 2, 2]


def test_nested_design_shares_deals_across_replicates(tmp_path):
    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run"), "games": None,
                                                  "deals": 50, "replicates_per_deal": 4})
    assert config.games == 200
    run_batch(config, workers=1)
    rows = all_rows(tmp_path / "run")
    per_deal = rows.group_by("deal_id").agg(
        pl.col("deal_seed").n_unique().alias("deal_seeds"),
        pl.col("strategy_seed").n_unique().alias("strategy_seeds"),
        pl.col("draw_order").first(), pl.col("replicate").n_unique().alias("replicates"))
    assert per_deal.height == 50
    assert set(per_deal["deal_seeds"]) == {1} and set(per_deal["strategy_seeds"]) == {4}
    assert set(per_deal["replicates"]) == {4}
    same_deal = rows.filter(pl.col("deal_id") == 3)["draw_order"].to_list()
    assert all(order == same_deal[0] for order in same_deal)


def test_summary_store_merges_to_the_rows_totals(tmp_path):
    config_path = write_config(tmp_path)
    rows_config = load_config(config_path, {"output": str(tmp_path / "rows")})
    summary_config = load_config(config_path, {"output": str(tmp_path / "summary"),
                                               "store": "summary"})
    run_batch(rows_config, workers=1)
    run_batch(summary_config, workers=1)
    rows = all_rows(tmp_path / "rows")
    summary = pl.read_parquet(str(tmp_path / "summary" / "summary" / "*.parquet"))
    assert summary["count"].sum() == rows.height
    merged = summary.group_by("seat").agg(
        (pl.col("score") * pl.col("count")).sum().alias("score_sum"),
        pl.col("win_sum").sum()).sort("seat")
    direct = rows.group_by("seat").agg(pl.col("score").cast(pl.Int64).sum().alias("score_sum"),
                                       pl.col("win").cast(pl.Float64).sum().alias("win_sum")
                                       ).sort("seat")
    assert merged["score_sum"].to_list() == direct["score_sum"].to_list()
    assert merged["win_sum"].to_list() == pytest.approx(direct["win_sum"].to_list())


def test_a_finished_folder_is_not_overwritten_and_resume_needs_the_same_config(tmp_path):
    config_path = write_config(tmp_path)
    config = load_config(config_path, {"output": str(tmp_path / "run")})
    run_batch(config, workers=1)
    before = {p.name: p.read_bytes() for p in (tmp_path / "run" / "shards").iterdir()}
    with pytest.raises(Exception, match="already here; add --resume"):
        run_batch(config, workers=1)
    other = load_config(config_path, {"output": str(tmp_path / "run"), "seed": 78})
    with pytest.raises(Exception, match="another config .differs in: seed"):
        run_batch(other, workers=1, resume=True)
    after = {p.name: p.read_bytes() for p in (tmp_path / "run" / "shards").iterdir()}
    assert before == after


def test_sigkill_mid_run_then_resume_equals_an_uninterrupted_run(tmp_path):
    config_path = write_config(tmp_path, CONFIG.replace("games = 600", "games = 3000")
                               .replace("shard_size = 100", "shard_size = 50"))
    reference = load_config(config_path, {"output": str(tmp_path / "reference")})
    run_batch(reference, workers=1)
    killed_dir = tmp_path / "killed"
    command = [sys.executable, "-m", "sim", "run", str(config_path), "--out", str(killed_dir),
               "--workers", "1", "--quiet"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shards = killed_dir / "shards"
    deadline = time.time() + 120
    while time.time() < deadline:
        if shards.is_dir() and len(list(shards.glob("shard-*.parquet"))) >= 5:
            break
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    written = sorted(shards.glob("shard-*.parquet"))
    assert 5 <= len(written) < 60, "the run must be killed part-way"
    # Every file under a final name is a whole Parquet file.
    for path in written:
        pl.read_parquet(path)
    manifest = read_manifest(killed_dir)
    assert manifest["status"] == "running"
    result = subprocess.run([sys.executable, "-m", "sim", "run", "--resume", str(killed_dir),
                             "--workers", "2", "--quiet"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert read_manifest(killed_dir)["status"] == "complete"
    assert not list(killed_dir.rglob("*.tmp"))
    for path in sorted((tmp_path / "reference" / "shards").iterdir()):
        assert (shards / path.name).read_bytes() == path.read_bytes(), path.name


def test_runs_lists_batches(tmp_path):
    from typer.testing import CliRunner

    from sim.cli import app

    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "runs" / "a")})
    run_batch(config, workers=1, stop_after_shards=2)
    result = CliRunner().invoke(app, ["runs", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    line = [row for row in result.output.splitlines() if "runs/a" in row][0]
    assert "200/600" in line and "2/6" in line and "partial" in line
    manifest = json.loads((tmp_path / "runs" / "a" / "manifest.json").read_text())
    assert manifest["shards_done"] == [0, 1]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_keeps_finished_shards_and_resume_completes(tmp_path, workers):
    # Big enough that the engine cannot finish it between the 4th shard and the signal.
    config_path = write_config(tmp_path, CONFIG.replace("games = 600", "games = 20000")
                               .replace("shard_size = 100", "shard_size = 50"))
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "sim", "run", str(config_path), "--out", str(run_dir),
               "--workers", workers, "--quiet"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    shards = run_dir / "shards"
    deadline = time.time() + 120
    while time.time() < deadline:
        if shards.is_dir() and len(list(shards.glob("shard-*.parquet"))) >= 4:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "--resume" in stderr
    manifest = read_manifest(run_dir)
    assert manifest["status"] == "interrupted"
    kept = {int(p.stem.split("-")[1]) for p in shards.glob("shard-*.parquet")}
    done = set(manifest["shards_done"])
    # The parent writes one shard at a time: at most the one it was writing when stopped is on
    # disk without being recorded (it does not count, and the resume plays it again).
    assert len(kept) >= 4 and done <= kept and len(kept - done) <= 1
    result = subprocess.run([sys.executable, "-m", "sim", "run", "--resume", str(run_dir),
                             "--quiet"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert all_rows(run_dir)["game_id"].n_unique() == 20000


def test_notable_games_are_replayed_from_their_seeds(tmp_path):
    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run")})
    run_batch(config, workers=1)
    notable = pl.read_parquet(str(tmp_path / "run" / "notable" / "*.parquet"))
    rows = all_rows(tmp_path / "run")
    assert set(notable["kind"]) == {"highest", "lowest"}
    assert notable.height == 6 * 2 * 4  # per shard: two games, four seats
    joined = notable.join(rows, on=["game_id", "seat"], suffix="_row")
    assert joined.height == notable.height
    assert (joined["score"] == joined["score_row"]).all()
    assert (joined["strategy"] == joined["strategy_row"]).all()
    # The drawing shows the planet: tile 1 is always there.
    assert all("01" in drawing for drawing in notable["drawing"])
    per_shard_best = rows.with_columns(shard=pl.col("game_id") // 100).group_by(
        "shard").agg(pl.col("score").max())
    highest = notable.filter(pl.col("kind") == "highest").group_by(
        pl.col("game_id") // 100).agg(pl.col("score").max())
    assert sorted(highest["score"]) == sorted(per_shard_best["score"])
    token = rows.filter(pl.col("seat") == 0)
    assert (token["tree_phases_as_token_holder"]
            == (token["light_tiles_drawn"].cast(pl.Int16) + 3) // 4).all()


TRACED_HARMONIES = """
game = "harmonies"
players = 3
pool = ["greedy", "random"]
deals = 20
replicates_per_deal = 2
seed = 14
shard_size = 10
trace = true
[rules]
spirits = true
"""


def test_traced_harmonies_cards_do_not_depend_on_workers_shard_size_or_backend(tmp_path):
    config_path = write_config(tmp_path, TRACED_HARMONIES)
    frames = {}
    for label, overrides, workers, backend in (
        ("one-worker", {"shard_size": 10}, 1, "local"),
        ("two-workers", {"shard_size": 15}, 2, "local"),
        ("dask", {"shard_size": 40}, 2, "dask"),
    ):
        config = load_config(config_path, {**overrides, "output": str(tmp_path / label)})
        assert run_batch(config, workers=workers, backend=backend).complete
        frames[label] = all_rows(tmp_path / label)
    reference = frames["one-worker"]
    for column in ("cards_taken", "card_offers", "spirits_dealt", "spirit_kept",
                   "score_trace"):
        assert column in reference.columns, column
    assert (reference["score_trace"].list.last() == reference["score"]).all()
    assert (reference["spirit_kept"] > 0).all()
    for label, frame in frames.items():
        assert frame.equals(reference), label
