"""Names and worker counts: a batch, sweep or field name and every --out component is a safe
file-name component or it is refused in one line; control characters are never printed raw
(errors, `sim runs`); --workers above 4 per core is one line before any process starts."""

from __future__ import annotations

import os
import shutil

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config import MAX_NAME_CHARACTERS, load_config
from sim.pool import worker_limit
from sim.runner import run_batch
from tests.reliability.helpers import (
    TINY_CONFIG,
    assert_one_error_line,
    fingerprint,
    run_sim,
    write_config,
)

ESCAPE = "\x1b[2J\x1b[H"  # clears the screen when printed raw
HOSTILE = ["new\nline", f"clear{ESCAPE}screen", "bell\x07", "right\u202eleft", "x" * 300]


def one_line(result) -> str:
    """The single line of a refused in-process command (exit code 2, no traceback, nothing
    raw that a terminal would act on)."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\u202e" not in result.output
    return lines[0]


def invoke(*arguments: str):
    return CliRunner().invoke(app, list(arguments))


@pytest.mark.parametrize("name", HOSTILE, ids=["newline", "escape", "bell", "bidi", "300"])
def test_a_hostile_batch_name_is_refused_in_one_line(tmp_path, name):
    config = write_config(tmp_path, f"name = {name!r}\n".replace("'", '"').replace(
        "\\x1b", "\\u001b").replace("\\x07", "\\u0007") + TINY_CONFIG)
    before = fingerprint(tmp_path)
    line = one_line(invoke("run", str(config), "--out", str(tmp_path / "b"), "--workers",
                           "1", "--quiet"))
    assert "field 'name'" in line, line
    assert fingerprint(tmp_path) == before


def test_name_length_limit(tmp_path):
    fits = "n" * MAX_NAME_CHARACTERS
    config = load_config(write_config(tmp_path, f'name = "{fits}"\n' + TINY_CONFIG))
    assert config.name == fits
    line = one_line(invoke("run", str(write_config(tmp_path, f'name = "{fits}m"\n'
                                                   + TINY_CONFIG)), "--quiet"))
    assert f"longer than {MAX_NAME_CHARACTERS} characters" in line, line


@pytest.mark.parametrize("component", HOSTILE, ids=["newline", "escape", "bell", "bidi",
                                                    "300"])
def test_a_hostile_out_component_is_refused_in_one_line(tmp_path, component):
    config = write_config(tmp_path, TINY_CONFIG)
    grid = write_config(tmp_path, TINY_CONFIG + "[sweep]\nseed = [1, 2]\n", "grid.toml")
    before = fingerprint(tmp_path)
    for command in (["run", str(config)], ["sweep", str(grid)]):
        line = one_line(invoke(*command, "--out", str(tmp_path / component / "b"),
                               "--workers", "1", "--quiet"))
        assert line.startswith("error: --out: folder name "), line
    assert fingerprint(tmp_path) == before


@pytest.mark.parametrize("field", ["new\nline=greedy", f"esc{ESCAPE}=greedy", "f" * 300 +
                                   "=greedy"], ids=["newline", "escape", "300"])
def test_a_hostile_field_name_is_refused_in_one_line(tmp_path, field):
    config = write_config(tmp_path, TINY_CONFIG.replace('strategies = ["greedy", "random"]\n',
                                                        ""))
    line = one_line(invoke("run", str(config), "--field", field, "--field", "b=random",
                           "--out", str(tmp_path / "f"), "--quiet"))
    assert "--field[0]: field name" in line, line
    assert not (tmp_path / "f").exists()


def test_a_hostile_sweep_name_is_refused_in_one_line(tmp_path):
    sweep = write_config(tmp_path, 'name = "a\\nb"\n' + TINY_CONFIG + "[sweep]\nseed = [1, 2]\n",
                         "grid.toml")
    line = one_line(invoke("sweep", str(sweep), "--out", str(tmp_path / "s"), "--quiet"))
    assert "field 'name'" in line and "\\n" in line, line


def test_control_characters_in_paths_are_printed_escaped(tmp_path):
    """A folder may be named anything (by another program, or an older sim): `sim runs` and
    every error show its control characters escaped, each batch on one line."""
    config = load_config(write_config(tmp_path, TINY_CONFIG),
                         {"output": str(tmp_path / "runs" / "b"), "games": 10})
    run_batch(config, workers=1)
    hostile = tmp_path / "runs" / f"x{ESCAPE}y\nz"
    shutil.move(tmp_path / "runs" / "b", hostile)
    listed = invoke("runs", str(tmp_path / "runs"))
    assert listed.exit_code == 0, listed.output
    assert "\x1b" not in listed.output
    lines = listed.output.strip().splitlines()
    assert len(lines) == 2 and "x\\x1b[2J\\x1b[Hy\\nz" in lines[1], listed.output
    line = one_line(invoke("run", "--resume", str(hostile / "missing"), "--quiet"))
    assert "x\\x1b[2J\\x1b[Hy\\nz" in line, line


def test_too_many_workers_is_one_line_before_any_process_starts(tmp_path):
    config = write_config(tmp_path, TINY_CONFIG)
    grid = write_config(tmp_path, TINY_CONFIG + "[sweep]\nseed = [1]\n", "grid.toml")
    before = fingerprint(tmp_path)
    # The real command (its pool would start before the command line is read): no process is
    # left, and nothing is written.
    result = run_sim("run", str(config), "--out", str(tmp_path / "b"), "--workers", "10000",
                     "--quiet")
    line = assert_one_error_line(result)
    assert line == f"error: --workers: at most {worker_limit()} (4 per core of this machine), " \
                   f"got 10000", line
    for command in (["sweep", str(grid)], ["tournament"], ["ladder"], ["league"],
                    ["tune-strategy"], ["tune-trees", "--out", str(tmp_path / "t"),
                                        "--backend", "dask"]):
        line = one_line(invoke(*command, "--workers", "10000"))
        assert "--workers: at most" in line, (command, line)
    assert fingerprint(tmp_path) == before
    assert worker_limit() == 4 * (os.cpu_count() or 1)
    # At the limit it is accepted (the check, not a run).
    from sim.runner import check_workers

    assert check_workers(worker_limit()) == worker_limit()
