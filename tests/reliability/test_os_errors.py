"""Every operating-system error is one line: a full disk (ENOSPC), a file-size limit (EFBIG), a
read-only folder (EROFS, or EACCES for a folder without write permission), an --out through a
regular file (ENOTDIR), a path too long (ENAMETOOLONG). Each gives exit code 2, one line naming
the path and what to do, no traceback, no process left, nothing written outside the batch, and
the batch's finished shards untouched: a later resume ends byte-identical to a batch written
alone. A finished batch on a read-only medium resumes as "complete"."""

from __future__ import annotations

import errno
import os
import resource
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sim.store
from sim.cli import app
from sim.config import load_config
from sim.runner import run_batch
from tests.reliability.helpers import (
    TINY_CONFIG,
    assert_one_error_line,
    fingerprint,
    result_files,
    run_sim,
    write_config,
)

ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The tiny batch written alone."""
    folder = tmp_path_factory.mktemp("os-reference")
    config = load_config(write_config(folder, TINY_CONFIG), {"output": str(folder / "batch")})
    run_batch(config, workers=1)
    return folder / "batch"


def outside(tmp_path: Path, batch: Path) -> dict[str, str]:
    """Fingerprints of everything under ``tmp_path`` but the batch folder."""
    return {name: digest for name, digest in fingerprint(tmp_path).items()
            if not (tmp_path / name).is_relative_to(batch)}


def resume_matches(run_dir: Path, reference: Path) -> None:
    """Resume the batch (in this process) and compare its results with the reference."""
    result = CliRunner().invoke(app, ["run", "--resume", str(run_dir), "--workers", "1",
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    assert result_files(run_dir) == result_files(reference)


def test_a_file_size_limit_is_one_line_and_the_batch_resumes(tmp_path, reference):
    # Below the largest file of the batch: some write must hit the limit. Python ignores
    # SIGXFSZ, so the write fails with EFBIG instead of killing the process.
    limit = max(path.stat().st_size for path in reference.rglob("*.parquet")) - 1

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    run_dir = tmp_path / "batch"
    config_path = write_config(tmp_path, TINY_CONFIG)
    before = outside(tmp_path, run_dir)
    result = run_sim("run", str(config_path), "--out", str(run_dir), "--workers", "1",
                     "--quiet", preexec_fn=limit_file_size)
    line = assert_one_error_line(result)
    assert f"{run_dir}/" in line and "file too large" in line and "ulimit -f" in line, line
    assert f"finish with `sim run --resume {run_dir}`" in line, line
    assert outside(tmp_path, run_dir) == before
    assert not list(run_dir.rglob("*.tmp"))
    resume_matches(run_dir, reference)


@pytest.mark.parametrize("written_before", [4, 2])
def test_a_disk_full_is_one_line_and_the_batch_resumes(tmp_path, reference, monkeypatch,
                                                       written_before):
    """ENOSPC from the writer in this process (a full tmpfs needs root: see the next test)."""
    run_dir = tmp_path / "batch"
    config_path = write_config(tmp_path, TINY_CONFIG)
    real_write = sim.store.write_bytes_atomic
    writes = []

    def fills_up(path, data):
        writes.append(path)
        if len(writes) > written_before:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real_write(path, data)

    monkeypatch.setattr(sim.store, "write_bytes_atomic", fills_up)
    result = CliRunner().invoke(app, ["run", str(config_path), "--out", str(run_dir),
                                      "--workers", "1", "--quiet"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert "no space left on the device" in lines[0] and str(run_dir) in lines[0], lines[0]
    monkeypatch.undo()
    resume_matches(run_dir, reference)


@contextmanager
def mounted(*arguments: str, target: Path):
    """``mount ARGUMENTS TARGET`` for the block (the test is skipped where mounting is not
    allowed); unmounted after."""
    target.mkdir(exist_ok=True)
    done = subprocess.run(["mount", *arguments, str(target)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("mounting a file system is not allowed here")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], check=False)


@pytest.mark.skipif(not ROOT or shutil.which("mount") is None, reason="mounting needs root")
def test_a_full_tmpfs_is_one_line_and_the_batch_resumes_elsewhere(tmp_path, reference):
    with mounted("-t", "tmpfs", "-o", "size=24k", "tmpfs", target=tmp_path / "small") as disk:
        run_dir = disk / "batch"
        result = run_sim("run", str(write_config(tmp_path, TINY_CONFIG)), "--out",
                         str(run_dir), "--workers", "1", "--quiet")
        line = assert_one_error_line(result)
        assert "no space left on the device" in line, line
        assert not list(run_dir.rglob("*.tmp"))
        copy = tmp_path / "copy"
        shutil.copytree(run_dir, copy)
    resume_matches(copy, reference)


@contextmanager
def read_only(folder: Path):
    """``folder`` read-only for the block: a read-only bind mount as root (chmod does not stop
    root), its write permissions taken away otherwise."""
    if ROOT:
        with mounted("--bind", str(folder), target=folder):
            done = subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)],
                                  capture_output=True)
            if done.returncode != 0:
                pytest.skip("remounting read-only is not allowed here")
            yield
        return
    modes = {path: path.stat().st_mode for path in [folder, *folder.rglob("*")]
             if path.is_dir()}
    for path in modes:
        path.chmod(0o555)
    try:
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def test_a_read_only_batch_is_one_line_and_a_finished_one_is_complete(tmp_path, reference):
    config = load_config(write_config(tmp_path, TINY_CONFIG), {"output": str(tmp_path / "b")})
    run_dir = tmp_path / "b"
    run_batch(config, workers=1, stop_after_shards=2)
    finished = tmp_path / "finished"
    shutil.copytree(reference, finished)
    before = fingerprint(tmp_path)
    with read_only(run_dir), read_only(finished):
        result = run_sim("run", "--resume", str(run_dir), "--workers", "1", "--quiet")
        line = assert_one_error_line(result)
        assert str(run_dir) in line and ("read-only" in line or "permission" in line), line
        assert "the batch has 2 of 4 shards" in line, line
        done = CliRunner().invoke(app, ["run", "--resume", str(finished), "--workers", "1",
                                        "--quiet"])
        assert done.exit_code == 0, done.output
        assert done.output.splitlines() == [str(finished)]
        done = CliRunner().invoke(app, ["run", "--resume", str(finished), "--workers", "1"])
        assert "nothing to play; batch complete: 4/4 shards" in done.output, done.output
        # A fresh run into a read-only folder: one line too.
        fresh = CliRunner().invoke(app, ["run", str(tmp_path / "tiny.toml"), "--out",
                                         str(finished / "new"), "--workers", "1", "--quiet"])
        assert fresh.exit_code == 2 and len(fresh.output.strip().splitlines()) == 1, \
            fresh.output
        assert "read-only" in fresh.output or "permission" in fresh.output, fresh.output
    assert fingerprint(tmp_path) == before
    resume_matches(run_dir, reference)


def test_an_out_through_a_regular_file_is_one_line(tmp_path):
    config_path = write_config(tmp_path, TINY_CONFIG)
    (tmp_path / "notes.txt").write_text("the user's")
    before = fingerprint(tmp_path)
    result = CliRunner().invoke(app, ["run", str(config_path), "--out",
                                      str(tmp_path / "notes.txt" / "batch"), "--workers", "1",
                                      "--quiet"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    (line,) = result.output.strip().splitlines()
    assert "notes.txt" in line and "a part of this path is a file, not a folder" in line, line
    assert fingerprint(tmp_path) == before


def test_a_path_too_long_for_the_system_is_one_line(tmp_path):
    """Every component a legal name, the whole path longer than the system takes (4096
    bytes): the operating system refuses it."""
    config_path = write_config(tmp_path, TINY_CONFIG)
    out = tmp_path.joinpath(*["d" * 200] * 21)
    before = fingerprint(tmp_path)
    result = CliRunner().invoke(app, ["run", str(config_path), "--out", str(out),
                                      "--workers", "1", "--quiet"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert "name too long" in lines[0], lines[0]
    assert fingerprint(tmp_path) == before
