"""``sim tune-strategy`` and ``sim ladder`` on the toy game (tiny runs): the files they write,
determinism (same command, same trials and result), resuming, and one-line errors."""


import json
import math

import optuna
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy

runner = CliRunner()
TUNE = ["tune-strategy", "greedy:patience=0.8", "--game", "pick-two", "--players", "2",
        "--games", "120", "--reevaluate", "2", "--reevaluate-games", "120", "--final-games",
        "120", "--seed", "4", "--objective", "head-to-head", "--quiet"]


def study_of(folder):
    return optuna.load_study(study_name="tune-strategy",
                             storage=f"sqlite:///{folder / 'study.sqlite3'}")


def trials_of(folder):
    return [(t.number, t.params, t.value) for t in study_of(folder).trials]


def tune_into(folder, arguments):
    """Run ``sim tune-strategy`` with ``arguments`` into ``folder``; (folder, its output)."""
    result = runner.invoke(app, [*arguments, "--out", str(folder)])
    assert result.exit_code == 0, result.output
    return folder, result.output


def parameters_of(folder):
    name = "tuned.toml" if (folder / "tuned.toml").exists() else "candidate.toml"
    return [line for line in (folder / name).read_text().splitlines()
            if not line.startswith(("command", "# Use"))]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    return tune_into(tmp_path_factory.mktemp("tune") / "whole", [*TUNE, "--trials", "6"])


def test_tuning_writes_a_parameters_file_every_command_reads_and_a_report(tuned):
    folder, output = tuned
    for name in ("tuned.toml", "report.md", "progress.png", "progress.svg", "study.sqlite3",
                 "settings.json"):
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
    assert (tmp_path / "ladder.svg").read_bytes().lstrip().startswith(b"<?xml")
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
    # self-play: the candidate alone in every seat, so every seat's score counts.
    alone = RotationGames(np.zeros((4, 2), dtype=np.int64), np.array([0, 0, 1, 1]), scores,
                          np.zeros((4, 2)), 2, 0.0, [])
    values, counts = objective_sums("self-play", alone, 2)
    assert values.tolist() == [36.0, 21.0] and counts.tolist() == [4.0, 4.0]


GUARDED = [*TUNE, "--objective", "self-play", "--guard", "random", "--guard-share", "0.7"]


def trial_attributes(folder):
    return [(t.number, t.params, t.value, t.user_attrs) for t in study_of(folder).trials]


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    return tune_into(tmp_path_factory.mktemp("guarded") / "whole", [*GUARDED, "--trials", "5"])


def test_self_play_objective_is_the_mean_score_with_the_candidate_in_every_seat(guarded):
    import numpy as np

    from sim.tournament import play_rotations

    folder, output = guarded
    game = get_game("pick-two")
    start = parse_strategy("greedy:patience=0.8", game.strategies(), "test")
    # From scratch: the start alone at the table, on the tuning's deals (seed 4, 120 games).
    rules = json.loads((folder / "settings.json").read_text())["rules"]
    played = play_rotations(game, game.load_data(None), 2, rules, [start], 120, 4)
    assert (played.seat_strategy == 0).all()
    trial_zero = trial_attributes(folder)[0][3]
    assert trial_zero["objective_value"] == pytest.approx(float(np.mean(played.scores)))
    assert "against random on fresh deals" in output


def test_a_guarded_trial_loses_the_penalty_for_each_point_below_the_minimum(guarded):
    folder, _ = guarded
    trials = trial_attributes(folder)
    assert len(trials) == 5
    for _, _, value, attributes in trials:
        shortfall = max(0.0, 0.7 - attributes["guard_share"])
        assert value == pytest.approx(attributes["objective_value"] - 100.0 * shortfall)
        assert attributes["guard_low"] <= attributes["guard_share"] <= attributes["guard_high"]
    rows = json.loads((folder / "reevaluation.json").read_text())["rows"]
    chosen = next(row for row in rows if row["chosen"])
    # new runs judge a fresh share by the lower end of its 95% interval
    for row in rows:
        assert row["meets_guard"] == (row["guard_low"] >= 0.7)
    # the chosen values: the best of the start and the trials meeting the guard
    eligible = [row for row in rows if row["trial"] is None or row["meets_guard"]]
    assert chosen["value"] == max(row["value"] for row in eligible)
    assert chosen["trial"] is None or chosen["meets_guard"]
    report = (folder / "report.md").read_text()
    assert "- Guard: head to head against `random` of at least 70%" in report
    assert "against `random` (95% CI)" in report
    assert "judged by the lower end of its 95% interval" in report
    # the best trial gains in self-play but its share against the rival is not shown to reach
    # 70%, so the start stands: no gain shown, the trial's values kept in candidate.toml
    best = max((row for row in rows if row["trial"] is not None), key=lambda row: row["value"])
    assert chosen["trial"] is None and best["gain_low"] > 0 and not best["meets_guard"]
    assert not (folder / "tuned.toml").exists()
    tuning = (folder / "candidate.toml").read_text()
    assert tuning.startswith("# no gain shown on fresh deals: ")
    assert "against random does not meet the 70% minimum" in tuning.splitlines()[0]
    assert 'guard = "random"' in tuning and "fresh_guard_share" in tuning
    assert 'guard_by = "lower-bound"' in tuning and "meets_guard = false" in tuning
    final = json.loads((folder / "final.json").read_text())["final"]
    if final is not None:
        assert final["document"]["strategies"][-1] == "random"
        table_rows = [line.split()[0] for line in final["table"].splitlines() if line.strip()]
        assert {"tuned", "start", "random"} <= set(table_rows)
        assert 0.0 <= final["guard"]["tuned"] <= 1.0


def test_a_guarded_self_play_run_resumes_to_the_same_trials(guarded, tmp_path):
    folder, _ = guarded
    short = tmp_path / "resumed"
    result = runner.invoke(app, [*GUARDED, "--trials", "2", "--out", str(short)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["tune-strategy", "--resume", str(short), "--trials", "5",
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    assert trial_attributes(short) == trial_attributes(folder)
    assert parameters_of(short) == parameters_of(folder)


def test_guard_and_self_play_refuse_bad_input_in_one_line(tmp_path):
    for arguments, reason in [
        ([*TUNE, "--objective", "self-play", "--field", "random"], "the field is 'self'"),
        ([*TUNE, "--guard-share", "0.6"], "--guard-share: needs --guard"),
        ([*TUNE, "--guard", "random", "--guard-share", "1.5"], "must be between 0 and 1"),
        ([*TUNE, "--guard", "random", "--guard-penalty", "0"], "must be a positive number"),
        ([*TUNE, "--guard", "nosuch"], "--guard"),
        ([*TUNE, "--guard-by", "estimate"], "--guard-by: needs --guard"),
        ([*TUNE, "--guard", "random", "--guard-by", "median"], "--guard-by: 'median' is not"),
    ]:
        result = runner.invoke(app, [*arguments, "--out", str(tmp_path / "never")])
        assert result.exit_code == 2, result.output
        assert reason in result.output and result.output.count("\n") == 1
        assert not (tmp_path / "never").exists()


def toy_settings(**overrides):
    """Tuning settings of the toy game's greedy strategy, with ``overrides``."""
    from sim.tune_strategy import TuneSettings

    return TuneSettings(**{"game": "pick-two", "strategy": "greedy",
                           "start": {"patience": 0.8}, "tuned": ("patience",), "field": (),
                           "players": 2, "rules": {}, "data_file": None, "games": 10,
                           "trials": 1, "seed": 1, **overrides})


def test_the_chosen_candidate_meets_the_guard_when_one_does():
    import math

    import numpy as np

    from sim.tune_strategy import Evaluation, chosen_index, guard_penalty

    settings = toy_settings(objective="self-play", guard="random", guard_share=0.65,
                            guard_penalty=2.0)
    assert guard_penalty(settings, 0.60) == pytest.approx(10.0)  # 5 points below, 2 per point
    assert guard_penalty(settings, 0.70) == 0.0

    def candidate(value, share):
        return Evaluation(value, 1.0, value - 2, value + 2, 10, 20, np.zeros(10), np.ones(10),
                          penalty=guard_penalty(settings, share), guard_share=share)

    # The best objective (index 1) is below the minimum; of those meeting it, index 2 is best.
    assert chosen_index(settings, [candidate(90, 0.66), candidate(94, 0.60),
                                   candidate(91, 0.65)]) == 2
    # None meets it: the start stands.
    assert chosen_index(settings, [candidate(93, 0.64), candidate(94, 0.60)]) == 0
    # The start falls short and a trial meets it with less: still the start (a trial is never
    # taken for its share alone).
    assert chosen_index(settings, [candidate(93, 0.62), candidate(92, 0.70)]) == 0
    assert math.isnan(Evaluation(1.0, 0, 0, 2, 1, 1, np.zeros(1), np.ones(1)).guard_share)


def test_a_lower_bound_guard_keeps_only_shares_shown_to_meet_the_minimum():
    import numpy as np

    from sim.tune_strategy import (
        Evaluation,
        chosen_index,
        guard_penalty,
        judged_share,
        meets_guard,
    )

    def settings_by(judgement):
        return toy_settings(objective="self-play", guard="random", guard_share=0.66,
                            guard_penalty=2.0, guard_by=judgement)

    lower, estimate = settings_by("lower-bound"), settings_by("estimate")

    def candidate(value, share, low, settings):
        evaluation = Evaluation(value, 1.0, value - 2, value + 2, 10, 20, np.zeros(10),
                                np.ones(10), guard_share=share, guard_low=low,
                                guard_high=2 * share - low)
        evaluation.penalty = guard_penalty(settings, judged_share(settings, evaluation, True))
        return evaluation

    def field(settings):
        # the start shows 68% (66 to 70); the better candidate 66.6% (65.3 to 68.0)
        return [candidate(89.0, 0.68, 0.66, settings), candidate(91.4, 0.666, 0.653, settings)]

    # by the estimate both meet 66% and the better objective wins; by the lower bound only the
    # start's interval is clear of 66%
    assert chosen_index(estimate, field(estimate)) == 1
    assert chosen_index(lower, field(lower)) == 0
    assert meets_guard(lower, field(lower)[0]) and not meets_guard(lower, field(lower)[1])
    # while searching, the penalty is always on the estimate
    assert judged_share(lower, field(lower)[1], fresh=False) == 0.666
    # none clear: the start stands, and a fresh penalty is taken on the lower bound
    low_start = [candidate(89.0, 0.66, 0.63, lower), candidate(91.4, 0.666, 0.638, lower)]
    assert chosen_index(lower, low_start) == 0
    assert low_start[1].tuning_value == pytest.approx(91.4 - 2.0 * 2.2)


def test_runs_stored_before_the_guard_judgement_existed_judge_the_estimate():
    from sim.tune_strategy import TuneSettings

    document = toy_settings().to_json()
    document.pop("guard_by")
    assert TuneSettings.from_json(document).guard_by == "estimate"


def test_a_gain_shown_on_fresh_deals_writes_tuned_toml(tuned):
    folder, output = tuned
    rows = json.loads((folder / "reevaluation.json").read_text())["rows"]
    chosen = next(row for row in rows if row["chosen"])
    assert chosen["trial"] is not None and chosen["gain_low"] > 0
    assert "gain shown on fresh deals: " in output and "no gain shown" not in output
    assert not (folder / "candidate.toml").exists()
    tuning = (folder / "tuned.toml").read_text()
    assert "gain_shown = true" in tuning and f"fresh_gain_low = {chosen['gain_low']!r}" in tuning
    assert "**Gain shown** on fresh deals" in (folder / "report.md").read_text()


# From the start 0.3 the best trial gains +0.029 (-0.010 to +0.068) on fresh deals.
NO_GAIN = ["tune-strategy", "greedy:patience=0.3", "--game", "pick-two", "--players", "2",
           "--games", "120", "--reevaluate", "2", "--reevaluate-games", "120", "--final-games",
           "120", "--seed", "4", "--trials", "4", "--objective", "head-to-head", "--quiet"]


def test_no_gain_shown_writes_no_tuned_toml_and_says_so_in_one_line(tmp_path):
    folder, output = tune_into(tmp_path / "run", NO_GAIN)
    rows = json.loads((folder / "reevaluation.json").read_text())["rows"]
    chosen = next(row for row in rows if row["chosen"])
    assert chosen["trial"] is not None and chosen["gain_low"] <= 0 < chosen["gain_high"]
    assert not any(path.name == "tuned.toml" for path in folder.rglob("*"))
    message = (f"no gain shown on fresh deals: {chosen['gain']:+.4g} ({chosen['gain_low']:+.4g} "
               f"to {chosen['gain_high']:+.4g}, simultaneous 95% CI) in head-to-head; "
               f"tuned.toml not written")
    assert message in output.splitlines()
    # the best trial's values are kept, marked on the first line, and still read as a file
    candidate = (folder / "candidate.toml").read_text()
    assert candidate.splitlines()[0] == f"# {message}."
    assert "gain_shown = false" in candidate
    spec = parse_strategy(f"greedy@{folder / 'candidate.toml'}",
                          get_game("pick-two").strategies(), "test")
    assert spec.parameters["patience"] == pytest.approx(chosen["values"]["patience"])
    report = (folder / "report.md").read_text()
    assert "**No gain shown** on fresh deals: trial" in report
    assert "`tuned.toml` was not written" in report and "Use them with" not in report


def test_a_gain_is_shown_only_above_zero_and_with_the_guard_met():
    from sim.tune_strategy import candidate_row, gain_shown

    plain, guarded = toy_settings(), toy_settings(guard="random", guard_share=0.6)

    def row(trial, gain_low, meets=True, value=1.0, chosen=False):
        return {"trial": trial, "gain_low": gain_low, "meets_guard": meets, "value": value,
                "chosen": chosen}

    assert gain_shown(plain, row(3, 0.001))
    assert not gain_shown(plain, row(3, 0.0)) and not gain_shown(plain, row(3, -0.01))
    assert not gain_shown(plain, row(None, float("nan")))  # the start itself
    assert not gain_shown(plain, row(3, float("nan")))
    assert gain_shown(guarded, row(3, 0.01)) and not gain_shown(guarded, row(3, 0.01, False))
    # with the start chosen, the candidate kept is the best trial on fresh deals
    rows = [row(None, float("nan"), chosen=True), row(2, -0.1, value=0.4),
            row(5, -0.01, value=0.49), row(7, -0.02, value=0.49)]
    assert candidate_row(rows)["trial"] == 5
    assert candidate_row(rows[:1]) is None
    rows[3]["chosen"], rows[0]["chosen"] = True, False
    assert candidate_row(rows)["trial"] == 7


# ---- objectives by winning, a growing field (--league), the evidence in the file ----------


def rotation_games(seat_strategy, wins, deals):
    """Hand-built games: ``seat_strategy`` and ``wins`` per game, the games of each deal
    consecutive and as many in every deal."""
    import numpy as np

    from sim.tournament import RotationGames

    seat_strategy = np.asarray(seat_strategy, dtype=np.int64)
    games = seat_strategy.shape[0]
    return RotationGames(seat_strategy, np.repeat(np.arange(deals), games // deals),
                         np.zeros(seat_strategy.shape, dtype=np.int64),
                         np.asarray(wins, dtype=float), deals, 0.0, [])


def test_wins_are_the_games_own_win_shares_of_the_candidates_seats_by_member():
    import numpy as np

    from sim.tune_strategy import objective_sums, wins_evaluation

    # Member A, 2 players, 2 deals of 2 rotations: won in seat 0, lost in seat 1, a shared
    # win (half each), won in seat 1: 2.5 of 4.
    two = rotation_games([[0, 1], [1, 0], [0, 1], [1, 0]],
                         [[1, 0], [1, 0], [0.5, 0.5], [0, 1]], 2)
    # Member B, 4 players 2v2 (seats 0 and 2 against 1 and 3): a win in seat 2; a win shared
    # by the member's seat 0 and the candidate's seat 1 (half); a loss; a loss: 1.5 of 4.
    four = rotation_games([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]],
                          [[0, 0, 1, 0], [0.5, 0.5, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]], 2)
    sums_a, counts_a = objective_sums("wins", two, 2)
    sums_b, counts_b = objective_sums("wins", four, 4)
    assert sums_a.tolist() == [1.0, 1.5] and counts_a.tolist() == [2.0, 2.0]
    assert sums_b.tolist() == [1.5, 0.0] and counts_b.tolist() == [2.0, 2.0]
    sums, counts = np.stack([sums_a, sums_b], axis=1), np.stack([counts_a, counts_b], axis=1)
    mean = wins_evaluation("wins", sums, counts, ["A", "B"])
    assert mean.value == pytest.approx((0.625 + 0.375) / 2)
    assert [(m["label"], m["share"], m["games"]) for m in mean.members] == [
        ("A", 0.625, 4), ("B", 0.375, 4)]
    # the members' sums are averaged within a deal before the cluster variance
    assert mean.per_deal_values.tolist() == [1.25, 0.75]
    # per deal 0.625 and 0.375: CR1 variance 2/1 x ((0.625 - 0.5)/2)^2 x 2 deals
    assert mean.standard_error == pytest.approx(0.125)
    smallest = wins_evaluation("wins-min", sums, counts, ["A", "B"])
    assert smallest.value == 0.375 and smallest.per_deal_values.tolist() == [1.5, 0.0]
    assert 0.0 <= mean.low <= mean.value <= mean.high <= 1.0
    # two deals estimate no simultaneous family over two members: no interval, not a wrong one
    assert math.isnan(smallest.low) and math.isnan(smallest.high)


def correlated_wins(rng, deals, truths, rotations=2):
    """Synthetic games against each member with known win shares ``truths``: in each deal the
    candidate wins every game against member m when one uniform draw of the deal is below
    truths[m], so the games of a deal (and the members) are perfectly correlated."""
    import numpy as np

    from sim.tune_strategy import objective_sums

    draw = rng.random(deals)
    sums, counts = [], []
    for truth in truths:
        won = np.repeat(draw < truth, rotations).astype(float)
        seats = np.tile([[0, 1], [1, 0]], (deals * rotations // 2, 1))
        wins = np.where(seats == 0, won[:, None], 1.0 - won[:, None])
        played = rotation_games(seats, wins, deals)
        member_sums, member_counts = objective_sums("wins", played, 2)
        sums.append(member_sums)
        counts.append(member_counts)
    return np.stack(sums, axis=1), np.stack(counts, axis=1)


def test_the_win_shares_standard_error_is_clustered_by_deal():
    import numpy as np

    from sim.tune_strategy import wins_evaluation

    rng = np.random.default_rng(37)
    values, errors = [], []
    for _ in range(300):
        sums, counts = correlated_wins(rng, 80, [0.7, 0.5])
        evaluation = wins_evaluation("wins", sums, counts, ["a", "b"])
        values.append(evaluation.value)
        errors.append(evaluation.standard_error)
    spread = float(np.std(values, ddof=1))
    # games as if independent: p(1-p)/n over 2 members x 80 deals x 2 rotations
    naive = math.sqrt(0.6 * 0.4 / (2 * 80 * 2))
    # a deal's mean share is 1 (draw < 0.5), 0.5 or 0: variance 0.55 - 0.36 = 0.19
    truth = math.sqrt(0.19 / 80)
    assert spread == pytest.approx(truth, rel=0.1)
    assert naive < 0.75 * truth  # the naive error is far too small
    assert float(np.mean(errors)) == pytest.approx(truth, rel=0.1)


def test_the_wins_interval_covers_a_known_share_95_percent_of_the_time():
    import numpy as np

    from sim.tune_strategy import wins_evaluation

    rng = np.random.default_rng(2024)
    covered = covered_min = 0
    replications = 400
    for _ in range(replications):
        sums, counts = correlated_wins(rng, 60, [0.7, 0.5])
        evaluation = wins_evaluation("wins", sums, counts, ["a", "b"])
        covered += evaluation.low <= 0.6 <= evaluation.high
        smallest = wins_evaluation("wins-min", sums, counts, ["a", "b"])
        covered_min += smallest.low <= 0.5 <= smallest.high
    assert 0.925 <= covered / replications <= 0.975
    # the smallest share's interval is simultaneous: at least 95% (conservative)
    assert covered_min / replications >= 0.925

WINS = ["tune-strategy", "greedy:patience=0.95", "--game", "pick-two", "--players", "2",
        "--field", "random", "--games", "200", "--trials", "4", "--reevaluate", "2",
        "--reevaluate-games", "200", "--final-games", "120", "--seed", "4", "--quiet"]


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    # round 1 gains (+0.048, +0.003 to +0.092), round 2 does not: the league stops there
    return tune_into(tmp_path_factory.mktemp("league") / "whole",
                     [*WINS, "--league", "--rounds", "3"])


def test_a_league_grows_its_field_and_stops_at_the_first_round_without_a_gain(league):
    from sim.tune_strategy import TuneSettings

    folder, output = league
    assert (folder / "round-2" / "settings.json").is_file()
    assert not (folder / "round-3").exists()
    first = json.loads((folder / "reevaluation.json").read_text())["rows"]
    chosen = next(row for row in first if row["chosen"])
    assert chosen["gain_low"] > 0
    second = TuneSettings.from_json(json.loads((folder / "round-2" / "settings.json")
                                               .read_text()))
    accepted = f"greedy:patience={chosen['values']['patience']!r}"
    assert second.field == ("random", accepted) and second.start == chosen["values"]
    assert second.league_round == 2 and not second.league
    assert not (folder / "round-2" / "tuned.toml").exists()
    # the top-level file is the last accepted round's (round 1)
    tuned = (folder / "tuned.toml").read_text()
    assert f"patience = {chosen['values']['patience']!r}" in tuned
    assert "league_round = 1" in tuned
    report = (folder / "report.md").read_text()
    assert "## League rounds" in report and "| 2 | `round-2` |" in report
    assert "`tuned.toml` holds round 1's values" in report
    assert "round 2 (" in output and "league: tuned.toml holds round 1's values" in output


def test_the_tuned_file_names_objective_field_and_evidence(league):
    folder, _ = league
    tuned = (folder / "tuned.toml").read_text()
    final = json.loads((folder / "final.json").read_text())["final"]
    for expected in ('objective = "wins"', 'field = "random"', "players = 2", "seed = 4",
                     "command = ", "fresh_gain_low = ", "fresh_gain_interval = \"simultaneous",
                     "final_win_share_vs_start = ", "final_win_share_vs_start_low = ",
                     "final_games_vs_start = ", "final_mean_score_start = ",
                     "games_played = "):
        assert expected in tuned, expected
    # the final: tuned against the start and every member, two-strategy games, fresh deals
    assert [row["label"] for row in final["members"]] == ["start", "random"]
    assert 'final_win_shares = "start: ' in tuned and "; random: " in tuned
    for row in final["members"]:
        assert 0.0 <= row["low"] <= row["share"] <= row["high"] <= 1.0
    report = (folder / "report.md").read_text()
    assert "| opponent | tuned's win share (95% CI) | games |" in report
    assert "Win shares against each member on these fresh deals" in report


def test_an_interrupted_league_resumes_to_the_same_result(league, tmp_path, monkeypatch):
    import sim.tune_strategy as tuning

    folder, _ = league
    short = tmp_path / "interrupted"
    played = {"calls": 0}
    real = tuning.play_rotations

    def interrupting(*arguments, **keywords):
        # round 1 plays 4 trials + 3 re-evaluated + 2 final matches; stop inside round 2
        played["calls"] += 1
        if played["calls"] == 12:
            raise KeyboardInterrupt
        return real(*arguments, **keywords)

    monkeypatch.setattr(tuning, "play_rotations", interrupting)
    result = runner.invoke(app, [*WINS, "--league", "--rounds", "3", "--out", str(short)])
    assert result.exit_code == 130, result.output
    assert (short / "round-2" / "study.sqlite3").is_file()
    monkeypatch.setattr(tuning, "play_rotations", real)
    result = runner.invoke(app, ["tune-strategy", "--resume", str(short), "--quiet"])
    assert result.exit_code == 0, result.output
    for sub in (".", "round-2"):
        assert trials_of(short / sub) == trials_of(folder / sub)
    assert parameters_of(short) == parameters_of(folder)
    assert parameters_of(short / "round-2") == parameters_of(folder / "round-2")


def test_settings_stored_before_wins_and_leagues_load_and_resume_as_before(tmp_path):
    from sim.tune_strategy import DEFAULT_ROUNDS, TuneSettings

    document = toy_settings().to_json()
    for name in ("league", "rounds", "league_round"):
        document.pop(name)
    old = TuneSettings.from_json(document)
    assert (old.league, old.rounds, old.league_round) == (False, DEFAULT_ROUNDS, 0)
    assert old.objective == "head-to-head" and not old.by_wins
    # a run whose settings.json lacks the new fields goes on as a single head-to-head run
    short, _ = tune_into(tmp_path / "old", [*TUNE, "--trials", "2"])
    stored = json.loads((short / "settings.json").read_text())
    for name in ("league", "rounds", "league_round"):
        stored.pop(name)
    (short / "settings.json").write_text(json.dumps(stored, indent=1) + "\n")
    result = runner.invoke(app, ["tune-strategy", "--resume", str(short), "--trials", "3",
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    whole, _ = tune_into(tmp_path / "whole", [*TUNE, "--trials", "3"])
    assert trials_of(short) == trials_of(whole)
    assert parameters_of(short) == parameters_of(whole)
    assert not (short / "round-2").exists()


def test_wins_is_the_default_objective_and_bad_league_input_fails_in_one_line(tmp_path):
    help_text = runner.invoke(app, ["tune-strategy", "--help"]).output
    assert "wins (the default" in " ".join(help_text.split())
    for arguments, reason in [
        ([*WINS, "--objective", "most"], "--objective: 'most' is not one of wins, wins-min"),
        ([*WINS, "--objective", "self-play", "--field", "self", "--league"],
         "--league: the self-play objective has no field to grow"),
        ([*WINS, "--league", "--rounds", "0"], "--rounds: must be at least 1, got 0"),
        ([*WINS, "--rounds", "2"], "--rounds: needs --league"),
    ]:
        result = runner.invoke(app, [*arguments, "--out", str(tmp_path / "never")])
        assert result.exit_code == 2, result.output
        assert reason in result.output and result.output.count("\n") == 1
        assert not (tmp_path / "never").exists()


def test_a_legendary_forests_wins_run_records_objective_field_and_evidence(tmp_path):
    folder, output = tune_into(tmp_path / "forests", [
        "tune-strategy", "closer", "--game", "legendary-forests", "--players", "4", "--field",
        "greedy", "--objective", "wins", "--games", "100", "--trials", "3", "--reevaluate", "2",
        "--final-games", "100", "--seed", "3", "--quiet"])
    name = "tuned.toml" if (folder / "tuned.toml").exists() else "candidate.toml"
    tuning = (folder / name).read_text().split("[tuning]")[1]
    for expected in ('objective = "wins"', 'field = "greedy"', "players = 4", "seed = 3",
                     "fresh_gain = ", "fresh_gain_interval = ", "games_played = ", "command = "):
        assert expected in tuning, expected
    rows = json.loads((folder / "reevaluation.json").read_text())["rows"]
    assert all([m["label"] for m in row["members"]] == ["greedy"] for row in rows)
    if json.loads((folder / "final.json").read_text())["final"] is not None:
        assert "final_win_shares = " in tuning and "vs start" in output
