"""The Board JSON format: loading, one-line errors, round trip."""

from __future__ import annotations

import json

import pytest

from sim.errors import InputError
from sim.games.harmonies.position import load_board, parse_board, score_board


def _doc(**changes):
    document = {"game": "harmonies", "side": "A",
                "cells": [{"q": 0, "r": 0, "stack": ["brown", "green"]},
                          {"q": 1, "r": 0, "stack": ["green"]}],
                "cubes": [{"q": 0, "r": 0}],
                "cards": [{"id": 18, "placed": 1}]}
    document.update(changes)
    return document


def test_load_the_rules_example_and_round_trip(tmp_path, data):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(_doc()), encoding="utf-8")
    board = load_board(path, data)
    assert board.stacks == {(0, 0): (2, 3), (1, 0): (3,)}
    assert score_board(board, data)["trees"] == 4
    assert score_board(board, data)["animals"] == 3
    assert parse_board(board.to_json(), "again", data).stacks == board.stacks


@pytest.mark.parametrize(("changes", "message"), [
    ({"game": "chess"}, "field 'game'"),
    ({"side": "C"}, "field 'side'"),
    ({"cells": [{"q": 9, "r": 0, "stack": ["blue"]}]}, r"cells #1: \(9, 0\) is not a hex"),
    ({"cells": [{"q": 0, "r": 0, "stack": ["green", "brown"]}]}, "green\\+brown breaks"),
    ({"cells": [{"q": 0, "r": 0, "stack": ["gray", "gray", "gray", "gray"]}]}, "breaks"),
    ({"cells": [{"q": 0, "r": 0, "stack": ["purple"]}]}, "field 'stack': unknown colour 'purple'"),
    ({"cells": [{"q": 0, "r": 0, "stack": ["blue"]}, {"q": 0, "r": 0, "stack": ["blue"]}]},
     "listed twice"),
    ({"cubes": [{"q": 2, "r": 1}]}, r"cubes #1: hex \(2, 1\) holds no token"),
    ({"cubes": [{"q": 0, "r": 0}, {"q": 0, "r": 0}]}, "already holds a cube"),
    ({"cards": [{"id": 99, "placed": 0}]}, "99 is not a known card id"),
    ({"cards": [{"id": 18, "placed": 5}]}, "'placed': 5 is not 0..4"),
    ({"cards": [{"id": 18, "placed": 1}, {"id": 18, "placed": 0}]}, "listed twice"),
    ({"cards": [{"id": 18, "placed": 2}]}, "1 cubes on the board but the cards say 2"),
    ({"extra": 1}, "unknown field 'extra'"),
])
def test_bad_boards_give_one_line_errors(tmp_path, data, changes, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_doc(**changes)), encoding="utf-8")
    with pytest.raises(InputError, match=message) as error:
        load_board(path, data)
    assert str(path) in str(error.value) and "\n" not in str(error.value)


def test_unreadable_board_files(tmp_path, data):
    with pytest.raises(InputError, match="board file not found"):
        load_board(tmp_path / "missing.json", data)
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        load_board(path, data)
