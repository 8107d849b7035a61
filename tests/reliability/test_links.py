"""Nothing is deleted or written outside a batch or report folder through a symbolic link
(issue 42): a batch whose ``shards/`` or ``input/`` is a link to a folder elsewhere is refused
by run, resume and report; a report ``--out`` that is a link (dangling or not) or an existing
file is a one-line error; the folder outside stays as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sim.errors import InputError
from sim.files import hold_writer_lock, owned_folder, write_bytes_atomic
from sim.stats.batch import open_batch
from tests.reliability.helpers import (
    assert_one_error_line,
    fingerprint,
    run_sim,
    tiny_batch,
    write_config,
)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    return tiny_batch(tmp_path_factory.mktemp("links"))


def user_folder(tmp_path: Path) -> Path:
    """A folder of the user's, outside any batch, holding a ``.tmp`` file and a shard-like
    name."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / ".shard-000000.parquet.1-abcdef01.x.tmp").write_text("my temp file")
    (folder / "shard-000000.parquet").write_text("my own file")
    (folder / "report.html").write_text("my page")
    return folder


def linked_batch(tmp_path: Path, reference: Path, name: str) -> tuple[Path, Path]:
    """A copy of the tiny batch whose folder ``name`` is a link to a folder of the user's
    (holding a copy of the batch's own files, so nothing else tells it apart)."""
    run_dir = tmp_path / "batch"
    shutil.copytree(reference, run_dir)
    outside = user_folder(tmp_path)
    for path in (run_dir / name).iterdir():
        if path.is_file():
            shutil.copy2(path, outside / path.name)
    shutil.rmtree(run_dir / name)
    (run_dir / name).symlink_to(outside, target_is_directory=True)
    return run_dir, outside


@pytest.mark.parametrize("name", ["shards", "notable"])
def test_a_report_refuses_a_batch_with_a_linked_folder(tmp_path, reference, name):
    run_dir, outside = linked_batch(tmp_path, reference, name)
    with pytest.raises(InputError, match=f"{run_dir / name}: a symbolic link"):
        open_batch(run_dir)


def test_a_resume_refuses_a_batch_whose_shards_are_a_link_and_touches_nothing(tmp_path,
                                                                              reference):
    run_dir, outside = linked_batch(tmp_path, reference, "shards")
    (run_dir / "shards" / "shard-000002.parquet").unlink()  # a shard the resume would play
    before = fingerprint(outside)
    write_config(tmp_path)
    result = run_sim("run", str(tmp_path / "tiny.toml"), "--resume", str(run_dir), "-q")
    line = assert_one_error_line(result)
    assert f"{run_dir / 'shards'}: a symbolic link" in line
    assert fingerprint(outside) == before


def test_the_writer_lock_refuses_a_link_inside_the_folder(tmp_path):
    batch = tmp_path / "batch"
    (batch / "input").mkdir(parents=True)
    outside = user_folder(tmp_path)
    (batch / "input" / "strategies").symlink_to(outside)
    with pytest.raises(InputError, match="strategies: a symbolic link"):
        hold_writer_lock(batch, "batch")
    assert not (batch / "writer.lock").exists()


def test_an_owned_folder_is_never_written_through_a_link(tmp_path):
    outside = user_folder(tmp_path)
    before = fingerprint(outside)
    owned = tmp_path / "batch"
    owned.mkdir()
    (owned / "shards").symlink_to(outside)
    with owned_folder(owned), pytest.raises(InputError, match="a symbolic link"):
        write_bytes_atomic(owned / "shards" / "shard-000000.parquet", b"x")
    assert fingerprint(outside) == before
    # Outside an owned folder a link chosen by the user is followed as before.
    write_bytes_atomic(owned / "shards" / "new.txt", b"x")
    assert (outside / "new.txt").read_bytes() == b"x"


@pytest.mark.parametrize("kind", ["link to a folder", "dangling link", "file"])
def test_a_report_out_that_is_a_link_or_a_file_is_refused(tmp_path, reference, kind):
    from sim.report import build_report

    outside = user_folder(tmp_path)
    before = fingerprint(outside)
    out = tmp_path / "out"
    if kind == "link to a folder":
        out.symlink_to(outside)
    elif kind == "dangling link":
        out.symlink_to(tmp_path / "nowhere")
    else:
        out.write_text("a file of mine")
    words = {"link to a folder": "a symbolic link", "dangling link": "a dangling symbolic link",
             "file": "an existing file"}[kind]
    with pytest.raises(InputError, match=f"{out}: {words}"):
        build_report(reference, out)
    assert fingerprint(outside) == before
    assert not (tmp_path / "nowhere").exists()
    assert out.is_symlink() or out.read_text() == "a file of mine"
