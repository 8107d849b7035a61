"""``sim tune-strategy`` and ``sim ladder`` on the toy game (tiny runs): the files they write,
determinism (same command, same trials and result), resuming, and one-line errors."""


import optuna
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy

runner = CliRunner()
TUNE = ["tune-strategy", "greedy:patience=0.8", "--game", "pick-two", "--players", "2",
        "--games", "120", "--reevaluate", "2", "--reevaluate-games", "120", "--final-games",
        "120", "--seed", "4", "--quiet"]


def trials_of(folder):
    study = optuna.load_study(study_name="tune-strategy",
                              storage=f"sqlite:///{folder / 'study.sqlite3'}")
    return [(t.number, t.params, t.value) for t in study.trials]


def parameters_of(folder):
    return [line for line in (folder / "tuned.toml").read_text().splitlines()
            if not line.startswith(("command", "# Use"))]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tune") / "whole"
    result = runner.invoke(app, [*TUNE, "--trials", "6", "--out", str(folder)])
    assert result.exit_code == 0, result.output
    return folder, result.output


def test_tuning_writes_a_parameters_file_every_command_reads_and_a_report(tuned):
    folder, output = tuned
    for name in ("tuned.toml", "report.md", "progress.png", "study.sqlite3", "settings.json"):
        assert (folder / name).is_file(), name
    spec = parse_strategy(f"greedy@{folder / 'tuned.toml'}", get_game("pick-two").strategies(),
                          "test")
    assert 0.0 <= spec.parameters["patience"] <= 1.0
    trials = trials_of(folder)
    assert len(trials) == 6 and trials[0][1] == {"patience": 0.8}  # trial 0 is the start
    report = (folder / "report.md").read_text()
    assert "Re-evaluation on fresh deals" in report and "Final head-to-head" in report
    assert "patience" in output and "wrote" in output
    result = runner.invoke(app, ["tournament", "--game", "pick-two", "--players", "2",
                                 "--strategies", f"greedy@{folder / 'tuned.toml'},random",
                                 "--games", "20", "--workers", "1"])
    assert result.exit_code == 0, result.output


def test_same_command_same_trials_and_an_interrupted_run_resumes_to_the_same(tuned, tmp_path):
    folder, _ = tuned
    short = tmp_path / "resumed"
    result = runner.invoke(app, [*TUNE, "--trials", "3", "--out", str(short)])
    assert result.exit_code == 0, result.output
    assert trials_of(short) == trials_of(folder)[:3]
    result = runner.invoke(app, ["tune-strategy", "--resume", str(short), "--trials", "6",
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    assert trials_of(short) == trials_of(folder)
    assert parameters_of(short) == parameters_of(folder)


def test_tuning_refuses_bad_input_in_one_line(tuned, tmp_path):
    folder, _ = tuned
    for arguments, reason in [
        ([*TUNE, "--out", str(folder)], "is not empty"),
        ([*TUNE, "--field", "self,random", "--out", str(tmp_path / "a")], "'self' stands alone"),
        ([*TUNE, "--parameters", "speed", "--out", str(tmp_path / "b")], "no parameter 'speed'"),
        (["tune-strategy", "--resume", str(tmp_path)], "not a tune-strategy folder"),
    ]:
        result = runner.invoke(app, arguments)
        assert result.exit_code == 2, result.output
        assert reason in result.output and result.output.count("\n") == 1


def test_ladder_orders_weakest_first_with_a_slow_strategy_on_the_same_scale(tmp_path):
    result = runner.invoke(app, ["ladder", "--game", "pick-two", "--players", "2",
                                 "--strategies", "random,greedy,greedy:patience=0.5",
                                 "--slow", "greedy:patience=0.5", "--slow-games", "60",
                                 "--games", "200", "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    rungs = [line.split()[1] for line in result.output.splitlines()
             if line[:4].strip().isdigit()]
    assert rungs[0] == "random" and rungs[-1] == "greedy"
    assert "slow strategies (greedy:patience=0.5)" in result.output
    assert "casual field: random" in result.output
    assert (tmp_path / "ladder.png").is_file()
    assert "skill ladder" in (tmp_path / "ladder.md").read_text()
    bad = runner.invoke(app, ["ladder", "--game", "pick-two", "--players", "2",
                              "--exclude", "planner"])
    assert bad.exit_code == 2 and "--exclude: 'planner' is not in the ladder" in bad.output


def test_objectives_are_the_candidates_results_against_the_field_per_deal():
    import numpy as np

    from sim.tournament import RotationGames
    from sim.tune_strategy import objective_sums

    # Two deals, two games each; entry 0 is the candidate.
    seat_strategy = np.array([[0, 1], [1, 0], [0, 1], [1, 0]])
    scores = np.array([[10, 8], [8, 10], [5, 5], [7, 4]])
    played = RotationGames(seat_strategy, np.array([0, 0, 1, 1]), scores,
                           np.zeros((4, 2)), 2, 0.0, [])
    values, counts = objective_sums("head-to-head", played, 2)
    assert values.tolist() == [2.0, 0.5] and counts.tolist() == [2.0, 2.0]
    values, counts = objective_sums("margin", played, 2)
    assert values.tolist() == [4.0, -3.0] and counts.tolist() == [2.0, 2.0]
    values, counts = objective_sums("score", played, 2)
    assert values.tolist() == [20.0, 9.0] and counts.tolist() == [2.0, 2.0]
