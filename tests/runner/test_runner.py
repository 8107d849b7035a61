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
from sim.errors import InputError
from sim.runner import run_batch, set_between_shard_files
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

    for design in ("rotation", "balanced", "every-order"):
        config = SimpleNamespace(replicates_per_deal=1, players=2, rotate=True,
                                 lineup=("a", "b", "c"), pool_design=design)
        _, _, _, seat_lineup = game_design(config, 0, 6)
        assert sorted(map(tuple, seat_lineup.tolist())) == [(0, 1), (0, 2), (1, 0), (1, 2),
                                                            (2, 0), (2, 1)]
        for seat in range(2):
            assert sorted(seat_lineup[:, seat].tolist()) == [0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize("strategies, players, lineups", [(5, 4, 40), (4, 3, 24), (3, 2, 6),
                                                          (6, 4, 120)])
def test_balanced_pool_lineups_give_every_seat_the_same_opponents(strategies, players, lineups):
    """Every combination of P strategies in its seat rotations (and mirrored ones for P >= 3):
    each strategy sits in each seat equally often *against each set of opponents*, and every
    pair meets in both seat orders."""
    from collections import Counter
    from itertools import combinations

    from sim.seating import pool_lineup_count, pool_lineups

    schedule = pool_lineups(strategies, players, "balanced")
    assert schedule.shape == (lineups, players) == (pool_lineup_count(strategies, players,
                                                                      "balanced"), players)
    faced = Counter((seat, int(lineup[seat]), frozenset(lineup.tolist()) - {int(lineup[seat])})
                    for lineup in schedule for seat in range(players))
    per_seat = {(strategy, opponents) for _, strategy, opponents in faced}
    for strategy, opponents in per_seat:
        assert len({faced[(seat, strategy, opponents)] for seat in range(players)}) == 1
        assert faced[(0, strategy, opponents)] > 0
    orders = Counter((int(lineup[i]), int(lineup[j])) for lineup in schedule
                     for i, j in combinations(range(players), 2))
    for a, b in combinations(range(strategies), 2):
        assert orders[(a, b)] == orders[(b, a)] > 0
    every = pool_lineups(strategies, players, "every-order")
    assert len({tuple(row) for row in every.tolist()}) == len(every) == \
        pool_lineup_count(strategies, players, "every-order")


def test_new_pool_designs_play_lineup_game_id_mod_l_and_old_designs_are_unchanged():
    """A pool larger than the table plays lineup g mod L; a pool no larger than the table and a
    manifest without pool_design ("rotation") keep the seating they had before pool designs,
    so their batches stay byte-identical."""
    from types import SimpleNamespace

    import numpy as np

    from sim.runner import game_design
    from sim.seating import pool_lineups, seat_schedule

    balanced = SimpleNamespace(replicates_per_deal=40, players=4, rotate=True,
                               lineup=tuple("abcde"), pool_design="balanced")
    game_ids, _, _, seat_lineup = game_design(balanced, 37, 200)
    assert (seat_lineup == pool_lineups(5, 4, "balanced")[game_ids % 40]).all()
    old = SimpleNamespace(replicates_per_deal=3, players=4, rotate=True, lineup=tuple("abcde"),
                          pool_design=None)
    _, deals, replicates, seat_lineup = game_design(old, 5, 100)
    assert (seat_lineup == seat_schedule(5, 4)[(deals + replicates) % 10]).all()
    small = SimpleNamespace(replicates_per_deal=3, players=4, rotate=True, lineup=("a", "b"),
                            pool_design=None)
    _, deals, replicates, seat_lineup = game_design(small, 5, 100)
    rotation = deals[:, None] + replicates[:, None] + np.arange(4)[None, :]
    assert (seat_lineup == (rotation % 4) % 2).all()


def test_pool_design_in_config_and_manifest(tmp_path):
    """New batches of a larger pool record their design (and default replicates to L); a pool
    no larger than the table records none, so its manifest and identity are unchanged; an old
    manifest without the field resumes as "rotation"."""
    from sim.runner import config_from_manifest, new_manifest

    larger = load_config(None, {"pool": ["greedy", "random", "expert", "planner", "closer"],
                                "games": 1000, "output": str(tmp_path / "a")})
    assert (larger.pool_design, larger.replicates_per_deal, larger.deals) == ("balanced", 40, 25)
    assert larger.to_json()["pool_design"] == "balanced"
    explicit = load_config(None, {"pool": ["greedy", "random", "expert"], "players": 2,
                                  "replicates_per_deal": 4, "pool_design": "every-order",
                                  "output": str(tmp_path / "b")})
    assert (explicit.pool_design, explicit.replicates_per_deal) == ("every-order", 4)
    small = load_config(write_config(tmp_path), {"output": str(tmp_path / "c")})
    assert small.pool_design is None and "pool_design" not in small.to_json()
    manifest = new_manifest(larger)
    del manifest["config"]["pool_design"]  # as written before pool designs existed
    assert config_from_manifest(manifest).pool_design == "rotation"
    with pytest.raises(InputError, match="pool-design: applies to a rotating pool"):
        load_config(None, {"strategies": ["greedy"], "pool_design": "balanced"})
    with pytest.raises(InputError, match="every-order"):
        load_config(None, {"pool": ["greedy", "random", "expert"], "players": 2,
                           "pool_design": "shuffled"})


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


def test_summary_store_keeps_deals_as_its_clusters_and_agrees_with_the_rows_store(tmp_path):
    """Same config and seed in both stores: the summary store's per-deal sums give the same
    clusters, hence identical intervals, seat tests and games-needed estimates. Two replicates
    per deal and shards of 75 games, so one deal's games fall in two shards."""
    from sim.stats.batch import open_batch
    from sim.stats.convergence import convergence_units, games_needed, running_estimates
    from sim.stats.scores import distributions, score_histogram
    from sim.stats.seats import seat_tests
    from sim.stats.units import cluster_units

    config_path = write_config(tmp_path)
    overrides = {"shard_size": 75, "replicates_per_deal": 2, "games": 600}
    results = {}
    for store in ("rows", "summary"):
        config = load_config(config_path, {**overrides, "output": str(tmp_path / store),
                                           "store": store})
        run_batch(config, workers=1)
        batch = open_batch(tmp_path / store)
        assert batch.cluster_unit == "deal"
        units = cluster_units(batch).sort(["players", "rules", "strategy", "seat", "cluster"])
        histogram = score_histogram(batch)
        results[store] = {
            "units": units,
            "distributions": distributions(histogram, units),
            "seat_tests": seat_tests(units)[0],
            "games_needed": games_needed(running_estimates(convergence_units(batch))),
        }
    rows, summary = results["rows"], results["summary"]
    assert rows["units"]["cluster"].n_unique() == 300  # deals, not the 8 shards
    for name in ("units", "distributions", "seat_tests", "games_needed"):
        assert rows[name].equals(summary[name]), name
    manifest = read_manifest(tmp_path / "summary")
    assert all(any(r["path"].startswith("summary_deals/") for r in files)
               for files in manifest["shard_files"].values())


def test_a_summary_batch_without_deal_sums_falls_back_to_shards(tmp_path):
    """A summary batch from before per-deal sums (its manifest records none) still opens, with
    its shards as the clusters."""
    from sim.stats.batch import open_batch
    from sim.stats.units import cluster_units

    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run"),
                                                  "store": "summary"})
    run_batch(config, workers=1)
    manifest_path = tmp_path / "run" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for files in manifest["shard_files"].values():
        files[:] = [r for r in files if not r["path"].startswith("summary_deals/")]
    manifest_path.write_text(json.dumps(manifest))
    for path in (tmp_path / "run" / "summary_deals").glob("*.parquet"):
        path.unlink()
    batch = open_batch(tmp_path / "run")
    assert batch.cluster_unit == "shard" and not batch.ignored_note
    assert cluster_units(batch)["cluster"].n_unique() == 6


def test_a_damaged_deal_sums_file_leaves_its_shard_out(tmp_path):
    from sim.stats.batch import open_batch

    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run"),
                                                  "store": "summary"})
    run_batch(config, workers=1)
    damaged = tmp_path / "run" / "summary_deals" / "shard-000002.parquet"
    damaged.write_bytes(damaged.read_bytes()[:-1] + b"x")
    batch = open_batch(tmp_path / "run")
    assert len(batch.shard_files) == 5 and len(batch.deal_sum_files) == 5
    assert "summary_deals/shard-000002.parquet" in batch.ignored_note
    # Resuming plays the shard again and writes all its files.
    summary = run_batch(config, workers=1, resume=True)
    assert summary.complete
    assert len(open_batch(tmp_path / "run").deal_sum_files) == 6


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


def test_the_hook_between_a_shards_files_sees_its_result_file_alone_and_is_off_by_default(
        tmp_path):
    run_dir = tmp_path / "run"
    config = load_config(write_config(tmp_path), {"output": str(run_dir), "games": 200})
    seen = []

    def note(result_path: Path) -> None:
        seen.append((result_path.relative_to(run_dir).as_posix(),
                     (run_dir / "notable" / result_path.name).exists(),
                     read_manifest(run_dir)["shards_done"]))

    previous = set_between_shard_files(note)
    try:
        run_batch(config, workers=1)
    finally:
        assert set_between_shard_files(previous) is note
    assert previous is None
    # Called once the result file is written, before the notable file and the manifest record.
    assert seen == [("shards/shard-000000.parquet", False, []),
                    ("shards/shard-000001.parquet", False, [0])]
    run_batch(load_config(write_config(tmp_path), {"output": str(tmp_path / "again"),
                                                   "games": 200}), workers=1)
    assert len(seen) == 2
