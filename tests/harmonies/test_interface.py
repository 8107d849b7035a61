"""The Harmonies ``Game`` interface: registry, data folders, rules parameters, shard columns,
determinism, and what the rules parameters do to the scores."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from sim.errors import InputError
from sim.games.base import StrategySpec
from sim.games.harmonies.data import DEFAULT_PATHS
from sim.games.harmonies.position import load_board, score_board
from sim.games.registry import get_game

GAME = get_game("harmonies")
CATEGORY_COLUMNS = ("points_trees", "points_mountains", "points_fields", "points_buildings",
                    "points_water", "points_animals", "points_spirit")
RIVER_VALUES = {0, 2, 5, 8, 11, 15} | {15 + 4 * k for k in range(1, 20)}


@pytest.fixture(scope="module")
def shipped():
    return GAME.load_data(None)


def shard(data, lineup_names, seats, seeds, rules=None, players=4):
    lineup = [StrategySpec(name) for name in lineup_names]
    seeds = np.asarray(seeds, dtype=np.uint64)
    return GAME.play_shard(data, players, rules or GAME.default_rules(), lineup,
                           np.asarray(seats), seeds, seeds + np.uint64(1000))


def test_registered_with_its_parameters_and_strategies():
    assert GAME.name == "harmonies" and GAME.data_option == "data"
    assert (GAME.min_players, GAME.max_players) == (1, 4)
    assert GAME.default_rules() == {"side": 0, "mountain_points": 0, "spirits": 0}
    rules = GAME.resolve_rules({"side": "B", "mountain_points": "seed-text", "spirits": True},
                               "test")
    assert rules == {"side": 1, "mountain_points": 1, "spirits": 1}
    with pytest.raises(InputError, match="'side': 'C' is not one of A, B"):
        GAME.resolve_rules({"side": "C"}, "test")
    assert {"random", "greedy", "landscape", "animals", "planner",
            "expert"} <= set(GAME.strategies())
    for info in GAME.strategies().values():
        assert info.description


def test_shard_columns_are_per_game_and_seat_and_add_up(shipped):
    games, players = 6, 3
    seats = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]] * 2)
    columns = shard(shipped, ["random", "greedy", "planner"], seats, np.arange(games),
                    players=players)
    cards = {"cards_taken", "card_rounds", "card_offers", "card_cubes", "card_completed",
             "card_points", "spirits_dealt", "spirit_kept", "card_opening_row"}
    expected = {"seat", "score", "rank", "win", *CATEGORY_COLUMNS, "cubes_placed",
                "cards_completed", "turns", *cards}
    assert set(columns) == expected
    assert set(GAME.column_docs()) == expected - {"seat", "score", "rank", "win"}
    for name, array in columns.items():
        assert len(array) == games * players, name
        if name not in cards:
            assert array.shape == (games * players,), name
    assert columns["seat"].tolist() == [0, 1, 2] * games
    assert columns["score"].dtype == np.int16 and columns["rank"].dtype == np.int8
    assert columns["cubes_placed"].dtype == np.int8 and columns["turns"].dtype == np.int8
    total = sum(columns[name].astype(int) for name in CATEGORY_COLUMNS)
    assert (total == columns["score"]).all()
    wins = columns["win"].reshape(games, players).sum(axis=1)
    assert np.allclose(wins, 1.0)
    turns = columns["turns"].reshape(games, players)
    assert (turns == turns[:, :1]).all()


def test_shards_are_deterministic_and_a_game_equals_itself_alone(shipped):
    lineup = ["greedy", "animals", "landscape", "random"]
    seats = np.array([np.roll(np.arange(4), g) for g in range(5)])
    seeds = np.arange(100, 105)
    first = shard(shipped, lineup, seats, seeds)
    again = shard(shipped, lineup, seats, seeds)
    for name in first:
        assert _equal(first[name], again[name]), name
    for game in (0, 3):
        alone = shard(shipped, lineup, seats[game:game + 1], seeds[game:game + 1])
        for name in first:
            assert _equal(alone[name], first[name][4 * game:4 * game + 4]), name


def _equal(first, second) -> bool:
    """Equal columns: numpy arrays, or list columns (polars Series)."""
    if hasattr(first, "equals"):
        return first.equals(second)
    return np.array_equal(first, second)


def test_mountain_points_seed_text_rescores_the_same_random_games(shipped):
    # Random play ignores scores, so both tables give the very same boards: only mountain
    # points (and the totals) may change, and 1/2/3 never beats 1/3/7.
    seats = np.zeros((40, 4), dtype=np.int64)
    rulebook = shard(shipped, ["random"], seats, np.arange(40))
    seed_text = shard(shipped, ["random"], seats, np.arange(40),
                      rules={"side": 0, "mountain_points": 1, "spirits": 0})
    for name in CATEGORY_COLUMNS:
        if name != "points_mountains":
            assert np.array_equal(rulebook[name], seed_text[name]), name
    lost = rulebook["points_mountains"].astype(int) - seed_text["points_mountains"]
    assert (lost >= 0).all() and lost.sum() > 0
    assert (rulebook["score"] - seed_text["score"].astype(int) == lost).all()


def test_side_b_scores_islands_and_side_a_rivers(shipped):
    seats = np.zeros((30, 4), dtype=np.int64)
    side_a = shard(shipped, ["random"], seats, np.arange(30))
    side_b = shard(shipped, ["random"], seats, np.arange(30),
                   rules={"side": 1, "mountain_points": 0, "spirits": 0})
    assert set(side_a["points_water"].tolist()) <= RIVER_VALUES
    islands = side_b["points_water"]
    assert (islands >= 5).all() and (islands % 5 == 0).all()
    assert not set(islands.tolist()) <= RIVER_VALUES  # e.g. 10 or 20 points of islands


def test_spirit_variant_scores_spirits_only_when_on(shipped):
    seats = np.zeros((20, 4), dtype=np.int64)
    off = shard(shipped, ["greedy"], seats, np.arange(20))
    on = shard(shipped, ["greedy"], seats, np.arange(20),
               rules={"side": 0, "mountain_points": 0, "spirits": 1})
    assert (off["points_spirit"] == 0).all()
    assert on["points_spirit"].sum() > 0


def test_data_folder_replaces_only_the_files_it_holds(shipped, tmp_path):
    folder = tmp_path / "variant"
    folder.mkdir()
    scoring = DEFAULT_PATHS["scoring"].read_text().replace("field_group_points = 5",
                                                           "field_group_points = 9")
    (folder / "scoring.toml").write_text(scoring)
    variant = GAME.load_data(str(folder))
    assert variant.scoring.field_group_points == 9
    assert variant.sources["bag"] == str(DEFAULT_PATHS["bag"])
    assert GAME.data_digest(variant) != GAME.data_digest(shipped)
    assert GAME.data_digest(GAME.load_data(None)) == GAME.data_digest(shipped)
    seats = np.zeros((10, 4), dtype=np.int64)
    fields = shard(variant, ["random"], seats, np.arange(10))["points_fields"]
    assert (fields % 9 == 0).all() and fields.sum() > 0


def test_bad_data_folders_give_one_line_errors(tmp_path):
    with pytest.raises(InputError, match="data folder not found"):
        GAME.load_data(str(tmp_path / "missing"))
    a_file = tmp_path / "bag.toml"
    shutil.copy(DEFAULT_PATHS["bag"], a_file)
    with pytest.raises(InputError, match="expected a folder"):
        GAME.load_data(str(a_file))
    (tmp_path / "animal.toml").write_text("")
    with pytest.raises(InputError, match="animal.toml: not a Harmonies data file"):
        GAME.load_data(str(tmp_path))
    (tmp_path / "animal.toml").unlink()
    a_file.write_text("[bag]\nblue = 1\n")
    with pytest.raises(InputError, match="bag.toml"):
        GAME.load_data(str(tmp_path))


def test_final_drawings_show_each_board_with_its_points(shipped):
    rules = GAME.default_rules()
    lineup = [StrategySpec("greedy"), StrategySpec("random")]
    drawings = GAME.final_drawings(shipped, 2, rules, lineup, 5, 1005)
    columns = shard(shipped, ["greedy", "random"], np.array([[0, 1]]), [5], players=2)
    assert len(drawings) == 2
    for seat, drawing in enumerate(drawings):
        assert drawing.splitlines()[0].endswith(f"total {columns['score'][seat]}")
        assert drawing.count("[") == 23  # one bracketed cell per hex of side A


def test_played_boards_score_the_same_from_their_files(shipped, tmp_path):
    rules = {"side": 1, "mountain_points": 1, "spirits": 1}
    played = GAME.play_one(shipped, 3, rules, [StrategySpec("planner")] * 3, 4)
    for seat, document in enumerate(played.document["boards"]):
        path = tmp_path / f"board-{seat}.json"
        path.write_text(json.dumps(document))
        board = load_board(path, shipped)
        assert board.mountain_points == (1, 2, 3)
        assert score_board(board, shipped)["total"] == played.scores[seat]
