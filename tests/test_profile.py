"""What the bots play like (``sim.profile``): means per strategy with intervals clustered by deal,
the recorded Harmonies boards, and the section in the tournament's output."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from sim.games.base import Game
from sim.games.registry import get_game
from sim.profile import (
    MeanInterval,
    format_interval,
    profile_markdown,
    reference_profile,
    strategy_profiles,
)
from sim.tournament import RotationGames, run_tournament

SECTION = "## What the bots play like"


class ProfiledGame:
    """Only what ``sim.profile`` reads of a game: two profile columns, their words, no
    reference."""

    profile_columns = ("points_trees", "cubes_placed")

    def column_docs(self):
        return {"points_trees": "points from trees", "cubes_placed": "cubes on the board"}

    def __init__(self):
        self.asked = []

    def reference_play(self, players, rules):
        self.asked.append((players, rules))
        return None


def hand_built(values_by_deal: np.ndarray) -> RotationGames:
    """Two strategies, two seats, each deal played in both seat orders: strategy 0 scores
    ``values_by_deal[d]`` in both games of deal d, strategy 1 scores 10 more; cubes are the
    score halved."""
    deals = values_by_deal.size
    seat_strategy = np.tile(np.array([[0, 1], [1, 0]]), (deals, 1))
    deal_of_game = np.repeat(np.arange(deals), 2)
    own = values_by_deal[deal_of_game]
    scores = np.where(seat_strategy == 0, own[:, None], own[:, None] + 10).astype(np.int64)
    profile = {"points_trees": scores.astype(np.int16), "cubes_placed": (scores // 2)}
    return RotationGames(seat_strategy, deal_of_game, scores, np.full((2 * deals, 2), 0.5), deals,
                         0.0, [], profile, 2, {})


def t_interval(per_deal: np.ndarray) -> tuple[float, float, float]:
    mean = per_deal.mean()
    half = stats.t.ppf(0.975, per_deal.size - 1) * per_deal.std(ddof=1) / math.sqrt(per_deal.size)
    return mean, mean - half, mean + half


def test_means_and_intervals_match_a_hand_computation_clustered_by_deal():
    per_deal = np.array([20.0, 31.0, 24.0, 40.0, 28.0])
    played = hand_built(per_deal)
    rows = strategy_profiles(ProfiledGame(), ["a", "b"], played)
    assert [row.label for row in rows] == ["a", "b"]
    assert [row.player_games for row in rows] == [10, 10]
    assert [row.clusters for row in rows] == [5, 5]
    mean, low, high = t_interval(per_deal)
    for column in ("points_trees", "score"):
        got = rows[0].values[column]
        assert got.mean == pytest.approx(mean)
        assert got.low == pytest.approx(low) and got.high == pytest.approx(high)
        other = rows[1].values[column]
        assert other.mean == pytest.approx(mean + 10)
        assert other.high - other.low == pytest.approx(high - low)
    cubes = rows[0].values["cubes_placed"]
    assert cubes.mean == pytest.approx(np.mean(per_deal // 2))
    # Clustered by deal: both games of a deal score the same, so the 10 seat-games carry the
    # information of 5 deals. The naive interval over seat-games is far too narrow.
    seats = np.repeat(per_deal, 2)
    naive = stats.t.ppf(0.975, seats.size - 1) * seats.std(ddof=1) / math.sqrt(seats.size)
    assert (high - low) / 2 > 1.5 * naive


def test_a_lower_bound_below_zero_is_cut_at_zero_and_shown_as_bounds():
    played = hand_built(np.array([0.0, 0.0, 0.0, 9.0]))  # t interval of a: 2.25 ± 7.2
    a = strategy_profiles(ProfiledGame(), ["a", "b"], played)[0].values["score"]
    assert a.low == 0.0 and a.high > 2 * a.mean
    assert format_interval(a) == f"2.2 (0.0–{a.high:.1f})"
    assert format_interval(MeanInterval(3.0, 2.5, 3.5)) == "3.0 ± 0.5"
    assert format_interval(MeanInterval(math.nan, math.nan, math.nan)) == "—"


def test_profile_markdown_reads_players_and_rules_from_played():
    played = hand_built(np.array([20.0, 31.0, 24.0]))
    played.rules = {"side": 1}
    game = ProfiledGame()
    text = profile_markdown(game, ["a", "b"], played)
    assert game.asked == [(2, {"side": 1})]
    assert text.startswith(SECTION)
    assert "| a | 6 |" in text and "recorded human games (" not in text
    assert "No recorded human games" in text
    profile_markdown(game, ["a", "b"], played, players=3, rules={"side": 0})
    assert game.asked[-1] == (3, {"side": 0})


def test_harmonies_reference_is_ten_boards_whose_categories_sum_to_the_score():
    game = get_game("harmonies")
    reference = game.reference_play(2, {"side": 0, "spirits": 1})
    assert reference is not None and reference.description and reference.source
    frame = reference.frame
    assert frame.height == 10 and frame["game"].n_unique() == 5
    categories = [name for name in game.profile_columns if name.startswith("points_")]
    assert len(categories) == 7 and set(categories) <= set(frame.columns)
    assert {"cubes_placed", "cards_completed", "score", "game"} <= set(frame.columns)
    assert "turns" not in frame.columns
    sums = frame.select(categories).to_numpy().sum(axis=1)
    assert sums.tolist() == frame["score"].to_list()
    assert frame["score"].mean() == pytest.approx(93.7)
    assert game.reference_play(3, {"side": 0, "spirits": 1}) is None
    assert game.reference_play(2, {"side": 0, "spirits": 0}) is None
    assert game.reference_play(2, {"side": 1, "spirits": 1}) is None
    assert game.reference_play(2, {}) is None  # spirits are off by default


def test_reference_row_is_clustered_by_recorded_game():
    game = get_game("harmonies")
    reference = game.reference_play(2, {"side": 0, "spirits": 1})
    row = reference_profile(reference, ["points_buildings", "turns", "score"])
    assert row.label == "recorded human games (10 boards)" and row.clusters == 5
    import polars as pl

    per_game = (reference.frame.group_by("game").agg(pl.col("score").mean())
                .sort("game")["score"].to_numpy().astype(float))
    mean, low, high = t_interval(per_game)
    assert row.values["score"].mean == pytest.approx(mean)
    assert row.values["score"].low == pytest.approx(low)
    assert row.values["score"].high == pytest.approx(high)
    assert math.isnan(row.values["turns"].mean)


def _tournament(name: str, players: int, rules: dict, games: int):
    game: Game = get_game(name)
    lineup = [game.strategies()[label] for label in ("greedy", "random")]
    from sim.games.base import StrategySpec

    specs = [StrategySpec(info.name) for info in lineup]
    return run_tournament(game, game.load_data(None), players, game.resolve_rules(rules, "test"),
                          specs, games, seed=3, workers=1)


def test_a_small_harmonies_tournament_shows_the_reference_row():
    result = _tournament("harmonies", 2, {"spirits": True}, 20)
    section = result.profile
    assert section.startswith(SECTION)
    assert "| greedy |" in section and "| random |" in section
    assert "| recorded human games (10 boards) | 10 |" in section
    assert "points_buildings" in section and "turns" in section
    header = next(line for line in section.splitlines() if line.startswith("| strategy"))
    reference_line = next(line for line in section.splitlines() if "recorded human" in line)
    cells = dict(zip(header.strip("| ").split(" | "), reference_line.strip("| ").split(" | "),
                     strict=True))
    assert cells["turns"] == "—"  # the recordings do not say how many turns were played
    assert cells["score"].startswith("93.7 ± ")
    assert "Recorded human games: 10 final boards" in section
    assert "than these recorded players" in section or "undecided" in section
    assert section in result.markdown()


def test_legendary_forests_and_the_toy_game_show_no_reference_row():
    forests = _tournament("legendary-forests", 2, {}, 8).profile
    assert forests.startswith(SECTION) and "full_runes" in forests
    assert "recorded human games (" not in forests
    toy = _tournament("pick-two", 2, {}, 8).profile
    assert toy.startswith(SECTION) and "| greedy |" in toy
    assert "recorded human games (" not in toy


def test_the_ladder_markdown_and_the_tournament_command_include_the_section(tmp_path):
    from typer.testing import CliRunner

    from sim.cli import app
    from sim.games.base import StrategySpec
    from sim.ladder import run_ladder

    game = get_game("pick-two")
    ladder = run_ladder(game, game.load_data(None), 2, game.default_rules(),
                        [StrategySpec("greedy"), StrategySpec("random")], 8, seed=2)
    assert ladder.profile.startswith(SECTION)
    assert ladder.markdown().endswith(ladder.profile)
    markdown = tmp_path / "tournament.md"
    result = CliRunner().invoke(app, ["tournament", "--game", "pick-two", "--players", "2",
                                      "--strategies", "greedy,random", "--games", "8",
                                      "--workers", "1", "--markdown", str(markdown)])
    assert result.exit_code == 0, result.output
    assert SECTION in result.output
    text = markdown.read_text()
    assert text.startswith("# Pick Two tournament, 2 players") and SECTION in text


def test_the_interval_covers_a_known_mean_95_percent_of_the_time_with_shared_deal_luck():
    # Synthetic tournaments with known truth: strategy 0's figure is 10 + deal luck (sd 3,
    # shared by every seat of a deal's games, as common random numbers make it) + seat noise
    # (sd 2). An interval that ignored the clustering would cover far less than 95%.
    generator = np.random.default_rng(20261202)
    deals, replications = 12, 2000
    covered = 0
    for _ in range(replications):
        luck = generator.normal(0.0, 3.0, deals)
        played = hand_built(np.zeros(deals))
        own = 10.0 + luck[played.deal_of_game][:, None] + generator.normal(0.0, 2.0, (2 * deals, 2))
        played.profile = {"points_trees": own, "cubes_placed": own}
        value = strategy_profiles(ProfiledGame(), ["a", "b"], played)[0].values["points_trees"]
        covered += value.low <= 10.0 <= value.high
    assert 0.93 <= covered / replications <= 0.97


def test_every_games_profile_columns_are_documented_rows_store_columns():
    from sim.games.registry import games

    for name, game in games().items():
        assert set(game.profile_columns) <= set(game.column_docs()), name
    assert get_game("harmonies").profile_columns and get_game("legendary-forests").profile_columns
