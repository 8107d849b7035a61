"""Batches that lose nothing: a shard is finished only when every file of it is written and
recorded in the manifest (path, size, SHA-256); `--resume` checks every recorded file and plays
again what is missing or damaged; a stray file never counts; a batch folder can move; a batch
deletes only its own temporary files; a config cannot make `sim run` write outside."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sim.config import load_config
from sim.errors import InputError
from sim.runner import run_batch
from sim.store import finished_shards, read_manifest
from tests.reliability.helpers import TINY_CONFIG, result_files, run_sim, write_config


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """An uninterrupted tiny batch: the bytes every repaired batch must end with."""
    folder = tmp_path_factory.mktemp("reference")
    config = load_config(write_config(folder), {"output": str(folder / "batch")})
    run_batch(config, workers=1)
    return folder / "batch"


def fresh_batch(tmp_path: Path, **run) -> Path:
    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "batch")})
    run_batch(config, workers=1, **run)
    return tmp_path / "batch"


def resume(run_dir: Path):
    config = load_config(write_config(run_dir.parent), {"output": str(run_dir)})
    return run_batch(config, workers=1, resume=True)


def test_manifest_records_every_file_of_every_shard_relative_to_the_folder(reference):
    manifest = read_manifest(reference)
    assert manifest["config"]["output"] == "."
    assert sorted(manifest["shard_files"]) == ["0", "1", "2", "3"]
    for index, files in manifest["shard_files"].items():
        paths = [record["path"] for record in files]
        assert paths == [f"shards/shard-{int(index):06d}.parquet",
                         f"notable/shard-{int(index):06d}.parquet"]
        for record in files:
            data = (reference / record["path"]).read_bytes()
            assert record["bytes"] == len(data)
            assert len(record["sha256"]) == 64


@pytest.mark.parametrize("damage", ["missing-notable", "missing-result", "truncated",
                                    "flipped-byte", "unrecorded"])
def test_resume_replays_shards_whose_files_are_missing_or_damaged(tmp_path, reference, damage):
    run_dir = fresh_batch(tmp_path)
    notable = run_dir / "notable" / "shard-000002.parquet"
    result = run_dir / "shards" / "shard-000001.parquet"
    if damage == "missing-notable":
        notable.unlink()
    elif damage == "missing-result":
        result.unlink()
    elif damage == "truncated":
        result.write_bytes(result.read_bytes()[:-7])
    elif damage == "flipped-byte":
        data = bytearray(result.read_bytes())
        data[len(data) // 2] ^= 0xFF
        result.write_bytes(bytes(data))
    else:  # files present but the manifest never recorded the shard (killed before noting it)
        manifest = json.loads((run_dir / "manifest.json").read_text())
        del manifest["shard_files"]["3"]
        (run_dir / "manifest.json").write_text(json.dumps(manifest))
    assert len(finished_shards(run_dir, "rows")) in (3, 4)
    summary = resume(run_dir)
    assert summary.complete and summary.games_played == 10
    assert result_files(run_dir) == result_files(reference)


def test_a_stray_shard_file_never_counts(tmp_path, reference):
    run_dir = fresh_batch(tmp_path, stop_after_shards=2)
    stray = run_dir / "shards" / "shard-000009.parquet"
    shutil.copy(run_dir / "shards" / "shard-000000.parquet", stray)
    shutil.copy(run_dir / "shards" / "shard-000000.parquet", run_dir / "shards" /
                "shard-000003.parquet")
    assert finished_shards(run_dir, "rows") == {0, 1}
    summary = resume(run_dir)
    assert summary.complete and summary.shards_done == 4 and summary.games_played == 20
    manifest = read_manifest(run_dir)
    assert manifest["shards_done"] == [0, 1, 2, 3]
    assert "9" not in manifest["shard_files"]
    files = result_files(run_dir)
    del files["shards/shard-000009.parquet"]
    assert files == result_files(reference)


def test_a_moved_batch_resumes_in_its_new_folder(tmp_path, reference):
    (tmp_path / "first").mkdir()
    run_dir = fresh_batch(tmp_path / "first", stop_after_shards=1)
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(str(run_dir), moved)
    result = run_sim("run", "--resume", str(moved), "--workers", "1", "--quiet",
                     cwd=tmp_path / "elsewhere")
    assert result.returncode == 0, result.stderr
    assert not run_dir.exists(), "nothing may be written where the batch used to be"
    assert result_files(moved) == result_files(reference)


def test_a_copied_batch_resumes_into_the_copy_only(tmp_path, reference):
    (tmp_path / "first").mkdir()
    run_dir = fresh_batch(tmp_path / "first", stop_after_shards=2)
    before = result_files(run_dir)
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    result = run_sim("run", "--resume", str(copy), "--workers", "1", "--quiet")
    assert result.returncode == 0, result.stderr
    assert result_files(run_dir) == before
    assert result_files(copy) == result_files(reference)


def test_resume_with_a_relative_folder_from_another_working_directory(tmp_path, reference):
    (tmp_path / "work").mkdir()
    run_dir = fresh_batch(tmp_path / "work", stop_after_shards=1)
    (tmp_path / "other").mkdir()
    result = run_sim("run", "--resume", "../work/batch", "--workers", "1", "--quiet",
                     cwd=tmp_path / "other")
    assert result.returncode == 0, result.stderr
    assert result_files(run_dir) == result_files(reference)


def test_a_batch_with_its_own_data_file_is_self_contained(tmp_path):
    from sim.games.legendary_forests.data import DEFAULT_TILES_PATH

    (tmp_path / "first").mkdir()
    tiles = tmp_path / "first" / "my-tiles.toml"
    tiles.write_bytes(Path(DEFAULT_TILES_PATH).read_bytes())
    config_path = write_config(tmp_path / "first", TINY_CONFIG_WITH_TILES)
    config = load_config(config_path, {"output": str(tmp_path / "first" / "batch")})
    run_batch(config, workers=1, stop_after_shards=1)
    manifest = read_manifest(tmp_path / "first" / "batch")
    assert manifest["config"]["data_file"] == "input/my-tiles.toml"
    moved = tmp_path / "moved"
    shutil.move(str(tmp_path / "first" / "batch"), moved)
    shutil.rmtree(tmp_path / "first")
    summary = run_batch(load_config_from(moved), workers=1, resume=True)
    assert summary.complete


TINY_CONFIG_WITH_TILES = 'tiles = "my-tiles.toml"\n' + TINY_CONFIG


def load_config_from(run_dir: Path):
    from sim.runner import config_from_manifest

    return config_from_manifest(read_manifest(run_dir), run_dir)


def test_only_the_batchs_own_temporary_files_are_deleted(tmp_path):
    out = tmp_path / "mine"
    (out / "deep").mkdir(parents=True)
    users = [out / ".notes.tmp", out / "deep" / ".draft.tmp", out / ".x.tmp"]
    for path in users:
        path.write_text("the user's")
    config = load_config(write_config(tmp_path), {"output": str(out)})
    run_batch(config, workers=1, stop_after_shards=1)
    leftover = out / "shards" / ".shard-000003.parquet.abc123.tmp"
    leftover.write_bytes(b"half a shard")
    run_batch(config, workers=1, resume=True)
    assert all(path.read_text() == "the user's" for path in users)
    assert not leftover.exists()


@pytest.mark.parametrize("line, reason", [
    ('name = "../../escaped"', "cannot name a folder"),
    ('name = "a/b"', "cannot name a folder"),
    ('name = ".."', "cannot name a folder"),
    ('name = "/tmp/abs"', "cannot name a folder"),
    ('output = "../outside"', "must be a relative folder"),
    ('output = "/tmp/outside"', "must be a relative folder"),
    ('output = "runs/../../outside"', "must be a relative folder"),
])
def test_a_config_cannot_write_outside_the_output_root(tmp_path, line, reason):
    config_path = write_config(tmp_path, line + "\n" + TINY_CONFIG)
    with pytest.raises(InputError, match=reason):
        load_config(config_path)
