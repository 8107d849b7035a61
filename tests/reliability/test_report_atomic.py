"""Reports are written all or nothing (issue 42): built in a staging folder beside ``--out``
and swapped in whole, so a report that fails or is interrupted while writing leaves the
previous report as it was; a report folder holding files the report did not write (the
user's) is refused, never emptied."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sim.errors import InputError
from sim.files import host_tag, replace_folder_whole
from tests.reliability.helpers import fingerprint, tiny_batch


@pytest.fixture(scope="module")
def reported(tmp_path_factory) -> tuple[Path, Path]:
    """The tiny batch and its report."""
    from sim.report import build_report

    folder = tmp_path_factory.mktemp("atomic")
    run_dir = tiny_batch(folder)
    build_report(run_dir, folder / "report")
    return run_dir, folder / "report"


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}."))


def test_a_report_failing_mid_write_leaves_the_old_report_intact(tmp_path, reported,
                                                                 monkeypatch):
    from sim.report import build, build_report

    run_dir, report = reported
    out = tmp_path / "report"
    shutil.copytree(report, out)
    before = fingerprint(out)
    written = []

    def fail_after_two(folder, name, image):
        written.append(name)
        if len(written) > 2:
            raise KeyboardInterrupt  # as Ctrl-C while the figures are written
        return original(folder, name, image)

    original = build.plots.write_figure_files
    monkeypatch.setattr(build.plots, "write_figure_files", fail_after_two)
    with pytest.raises(KeyboardInterrupt):
        build_report(run_dir, out)
    assert fingerprint(out) == before
    assert leftovers(out) == []


def test_a_report_replaces_the_old_one_whole(tmp_path, reported):
    run_dir, report = reported
    out = tmp_path / "report"
    shutil.copytree(report, out)
    (out / "figures" / "gone.png").write_bytes(b"a figure an older report drew")
    with replace_folder_whole(out, lambda relative: True, "report") as staging:
        (staging / "report.html").write_text("new")
    assert [p.name for p in out.iterdir()] == ["report.html"]
    assert leftovers(out) == []


def test_a_report_folder_with_the_users_files_is_refused_and_kept(tmp_path, reported):
    from sim.report import build_report

    run_dir, report = reported
    out = tmp_path / "report"
    shutil.copytree(report, out)
    (out / "notes.txt").write_text("my notes")
    before = fingerprint(out)
    with pytest.raises(InputError, match=r"holds files the report did not write \(notes.txt\)"):
        build_report(run_dir, out)
    assert fingerprint(out) == before


def test_a_staging_folder_of_a_dead_report_is_cleaned_and_a_swap_put_back(tmp_path):
    out = tmp_path / "report"
    dead = 2 ** 22 + 12345  # above the usual pid_max of 4194304: no such process
    staging = tmp_path / f".report.{dead}-{host_tag()}.abc123.tmp"
    aside = tmp_path / f".report.{dead}-{host_tag()}.old.tmp"
    staging.mkdir()
    aside.mkdir()
    (aside / "report.html").write_text("old")  # killed between its two renames
    with replace_folder_whole(out, lambda relative: True, "report") as new:
        assert not staging.exists()
        assert (out / "report.html").read_text() == "old"
        (new / "report.html").write_text("new")
    assert (out / "report.html").read_text() == "new"
    assert leftovers(out) == []
