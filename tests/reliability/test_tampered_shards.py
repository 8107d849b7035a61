"""Reports check what a batch's shards hold, not only their hashes (issue 42): a shard tampered
with and its manifest entry updated to match (a duplicate of another, a column of the wrong
type, a seat out of range, a players column that contradicts the batch, an empty shard, game
ids copied from another shard) is refused in one line naming the shard and the fix; a shard
the manifest lists but that is damaged makes the report say, in its header, that it is
partial."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from sim.errors import InputError
from sim.stats.batch import open_batch
from tests.reliability.helpers import assert_one_error_line, replace_shard, run_sim, tiny_batch


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The tiny batch, untouched: each test tampers with a copy."""
    return tiny_batch(tmp_path_factory.mktemp("tampered"))


def shard(run_dir: Path, index: int) -> pl.DataFrame:
    return pl.read_parquet(run_dir / "shards" / f"shard-{index:06d}.parquet")


# Each: how shard 2 is rewritten (from the batch), and words the one line must hold.
TAMPERINGS = {
    "a duplicate of another shard": (lambda run: shard(run, 1), "those of"),
    "a column of the wrong type": (
        lambda run: shard(run, 2).with_columns(pl.col("score").cast(pl.String)),
        "column 'score'"),
    "a seat out of range": (
        lambda run: shard(run, 2).with_columns(
            pl.when(pl.int_range(pl.len()) == 3).then(7).otherwise(pl.col("seat"))
            .cast(pl.Int8).alias("seat")), "column 'seat' holds 0 to 7"),
    "players contradicting the batch": (
        lambda run: shard(run, 2).with_columns(pl.lit(3, pl.Int8).alias("players")),
        "column 'players' holds 3"),
    "an empty shard": (lambda run: shard(run, 2).head(0), "empty shard"),
    "game ids copied from another shard": (
        lambda run: shard(run, 2).with_columns(shard(run, 1)["game_id"]), "those of"),
    "a game repeated in place of another": (
        lambda run: shard(run, 2).with_columns(
            pl.when(pl.col("game_id") == 21).then(22).otherwise(pl.col("game_id"))
            .alias("game_id")), "repeated or missing"),
}


@pytest.mark.parametrize("case", TAMPERINGS)
def test_a_tampered_shard_with_a_matching_manifest_is_refused(tmp_path, reference, case):
    run_dir = tmp_path / "batch"
    shutil.copytree(reference, run_dir)
    tamper, words = TAMPERINGS[case]
    path = replace_shard(run_dir, 2, tamper(run_dir))
    with pytest.raises(InputError) as refused:
        open_batch(run_dir)
    line = str(refused.value)
    assert "\n" not in line
    assert line.startswith(f"{path}: "), line
    assert words in line, line
    assert f"sim run --resume {run_dir}" in line, line


def test_sim_report_refuses_a_duplicated_shard_in_one_line(tmp_path, reference):
    run_dir = tmp_path / "batch"
    shutil.copytree(reference, run_dir)
    replace_shard(run_dir, 3, shard(run_dir, 0))
    result = run_sim("report", str(run_dir), "--out", str(tmp_path / "report"), "-q")
    line = assert_one_error_line(result)
    assert "shard-000003.parquet" in line and "sim run --resume" in line
    assert not (tmp_path / "report").exists()


def test_the_untampered_batch_still_opens(reference):
    batch = open_batch(reference)
    assert len(batch.shard_files) == 4 and batch.partial_note is None


def test_a_damaged_listed_shard_makes_the_report_partial_and_say_so(tmp_path, reference):
    from sim.report import build_report

    run_dir = tmp_path / "batch"
    shutil.copytree(reference, run_dir)
    # Damaged after it was recorded (the manifest not updated): left out, as before.
    path = run_dir / "shards" / "shard-000001.parquet"
    path.write_bytes(path.read_bytes()[:-10])
    batch = open_batch(run_dir)
    assert len(batch.shard_files) == 3 and batch.damaged_shards == (1,)
    assert batch.partial_note.startswith("PARTIAL: 1 of the 4 shards")
    assert f"sim run --resume {run_dir}" in batch.partial_note
    result = build_report(run_dir, tmp_path / "report")
    assert result.partial_note == batch.partial_note
    for page in ("report.md", "report.html"):
        text = (tmp_path / "report" / page).read_text(encoding="utf-8")
        assert "PARTIAL REPORT" in text and "shard 1)" in text, page
