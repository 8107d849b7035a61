"""Issue 40's waits, seat numbers and tune-strategy problems, each fixed: seats counted from 1 by
`sim play` as by `sim score`, the compile line naming which kernels, the ladder's compile line
before its bar and its games/s without the compile, --workers defaulting to all cores, tuned
values rounded to 4 significant digits (short labels, a numbered matrix header), the progress
plot's "best so far" on top with whole-number ticks, and help wrapped to the terminal."""

import json
import re
from types import SimpleNamespace

import pytest
import typer.main
from typer.testing import CliRunner

import sim.compiling
from sim.cli import app
from sim.cli.options import resolve_lineup
from sim.compiling import kernels_named
from sim.games.registry import get_game
from sim.tune_strategy import SIGNIFICANT_DIGITS, progress_curve, rounded_value

runner = CliRunner()


def test_play_counts_seats_from_1_and_score_agrees_on_the_same_file(tmp_path):
    out = tmp_path / "game.json"
    played = runner.invoke(app, ["play", "--players", "2", "--seed", "3", "--json", str(out)])
    assert played.exit_code == 0, played.output
    assert "seat 1" in played.output and "seat 2" in played.output
    assert not re.search(r"\bseat 0\b", played.output)
    points = re.search(r"^seat 2 \(.*?\): (\d+) points", played.output, flags=re.M)
    scored = runner.invoke(app, ["score", str(out), "--player", "2"])
    assert scored.exit_code == 0, scored.output
    assert "seat 2:" in scored.output
    assert scored.output.strip().endswith(f"total: {points[1]}")
    # The JSON, for machines, keeps the games' own numbering.
    assert json.loads(out.read_text())["scores"][1] == int(points[1])


def test_the_games_write_seats_from_1_in_every_line_of_the_turn_log():
    """The games number seats from 1 themselves (no rewriting of their text afterwards), even
    where a line names several (the tree phase's token holder and takers); the JSON keeps
    0-based seats."""
    forests = get_game("legendary-forests")
    played = forests.play_one(forests.load_data(None), 2, forests.default_rules(),
                              resolve_lineup(forests, ["greedy"], 2), 3)
    assert "trees (token with seat 1): seat 1 " in played.text
    assert "trees (token with seat 2): seat 2 " in played.text
    assert not re.search(r"\bseat 0\b", played.text)
    seats = {tree["seat"] for turn in played.document["turns"] for tree in turn["trees"]}
    assert seats == {0, 1}


def test_the_compile_line_says_which_kernels_when_one_game_and_batches_differ():
    """`sim play` then `sim bench` of Harmonies compile different kernels: their two lines no
    longer read as one compile announced twice."""
    harmonies = get_game("harmonies")
    assert kernels_named(harmonies, ["play_one"]) == "the Harmonies one-game kernels"
    assert kernels_named(harmonies, ["play_shard", "final_drawings"]) == \
        "the Harmonies batch kernels"
    # One kernel for everything: no qualifier.
    assert kernels_named(get_game("legendary-forests"), ["play_one"]) == \
        "the Legendary Forests kernels"


def test_ladder_says_it_compiles_before_its_bar_and_leaves_the_compile_out_of_games_per_s(
        tmp_path, monkeypatch):
    notices = []

    def cold_cache(game, methods, strategies=()):
        notices.append(list(methods))
        return f"compiling the {game.title} kernels (first run only)..."

    monkeypatch.setattr(sim.compiling, "compile_notice", cold_cache)
    result = runner.invoke(app, ["ladder", "--game", "pick-two", "--players", "2",
                                 "--strategies", "random,greedy", "--games", "40", "-j", "1",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("compiling the Pick Two kernels (first run only)...\n")
    assert notices == [["play_shard"]]  # once
    assert re.search(r"games/s; compiling or loading the kernels first took \d+\.\d s, not "
                     r"counted\)", result.stdout)


@pytest.mark.parametrize("command", ["ladder", "tune-strategy", "tournament"])
def test_workers_default_to_all_cores_like_run_and_sweep(command):
    text = " ".join(runner.invoke(app, [command, "--help"]).output.split())
    assert "Worker processes (0 = all cores, the default)" in text
    assert re.search(r"--workers <int> .*?\[default: 0\]", text)
    refused = runner.invoke(app, [command, "--workers", "-1", *(["greedy"] if command ==
                                                                "tune-strategy" else [])])
    assert refused.exit_code == 2
    assert refused.output == "error: --workers: must be 0 (all cores) or more, got -1\n"


def test_tuned_values_have_4_significant_digits_and_the_tournament_shows_them_whole(tmp_path):
    folder = tmp_path / "tune"
    result = runner.invoke(app, ["tune-strategy", "greedy:patience=0.8", "--game", "pick-two",
                                 "--players", "2", "--games", "60", "--trials", "4",
                                 "--reevaluate", "1", "--reevaluate-games", "60",
                                 "--final-games", "60", "--objective", "head-to-head",
                                 "--seed", "4", "--workers", "1", "--quiet", "--out",
                                 str(folder)])
    assert result.exit_code == 0, result.output
    import optuna

    study = optuna.load_study(study_name="tune-strategy",
                              storage=f"sqlite:///{folder / 'study.sqlite3'}")
    played = [trial.user_attrs["values"]["patience"] for trial in study.trials]
    assert played[0] == 0.8  # trial 0 is the start, as given
    assert all(float(f"{value:.{SIGNIFICANT_DIGITS}g}") == value for value in played)
    assert any(value != trial.params["patience"] for value, trial in
               zip(played, study.trials, strict=True))  # the sampler's own values were longer
    kept = next(folder / name for name in ("tuned.toml", "candidate.toml")
                if (folder / name).exists())
    value = re.search(r"^patience = (.*)$", kept.read_text(), flags=re.M)[1]
    assert float(value) in played and len(value) <= SIGNIFICANT_DIGITS + 2
    table = runner.invoke(app, ["tournament", "--game", "pick-two", "--players", "2",
                                "--strategies", f"greedy@{kept},random", "--games", "20",
                                "--workers", "1"])
    assert table.exit_code == 0, table.output
    label = f"greedy:patience={value}"
    # The label is longer than a matrix cell: numbered columns, each row its number and label.
    assert f"[1] {label}  " in table.output and re.search(r"^\s+\[1\]\s+\[2\]$",
                                                          table.output, flags=re.M)
    assert "greedy:patien " not in table.output


def test_rounding_keeps_a_value_inside_its_search_range():
    assert rounded_value(0.123456789, 0.0, 1.0) == 0.1235
    assert rounded_value(0.99996, 0.0, 0.99995) == 0.99995
    assert rounded_value(123456.0, 0.0, 1e6) == 123500.0


def test_the_progress_plot_draws_best_so_far_above_the_start_with_whole_trial_ticks(
        monkeypatch):
    import sim.report.plots

    figures = []
    monkeypatch.setattr(sim.report.plots, "png_bytes",
                        lambda figure: figures.append(figure) or b"")
    records = [SimpleNamespace(number=n, value=v, low=v - 0.1, high=v + 0.1)
               for n, v in enumerate([0.5, 0.4, 0.5, 0.45, 0.5])]
    settings = SimpleNamespace(objective="wins", guard="", strategy="greedy")
    progress_curve(SimpleNamespace(trials=records, settings=settings))
    (axis,) = figures[0].axes
    lines = {line.get_label(): line for line in axis.get_lines()}
    best, start = lines["best so far"], lines["start (trial 0)"]
    assert best.get_zorder() > start.get_zorder()
    assert best.get_linestyle() != start.get_linestyle()
    assert best.get_linewidth() > start.get_linewidth()
    figures[0].canvas.draw()
    ticks = [tick for tick in axis.get_xticks() if 0 <= tick <= 4]
    assert ticks and all(float(tick).is_integer() for tick in ticks)


def test_tune_trees_help_at_80_columns_shows_every_option_in_full():
    result = runner.invoke(app, ["tune-trees", "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines and max(len(line) for line in lines) <= 80
    assert "…" not in result.output and "..." not in result.output
    command = typer.main.get_command(app).commands["tune-trees"]
    for parameter in command.params:
        for name in [*parameter.opts, *parameter.secondary_opts]:
            assert re.search(rf"(^|[\s,/(]){re.escape(name)}($|[\s,)])", result.output,
                             flags=re.M), name
    # Lines break at spaces only, never inside a hyphenated name (tune-trees.parquet).
    assert not re.search(r"\w-$", result.output, flags=re.M)
    assert "tune-trees.parquet" in result.output
