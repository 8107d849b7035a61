"""The stored league results (``reports/league/<game>-<N>p/league.json``, written by
``sim league``): in every one the shipped default of the game's strongest strategy tops the
league, and the file rates today's default (not a stale one). No games are played here. The
check itself is tested on hand-made documents of the toy game: on top, not on top, stale, and
a bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.games.registry import get_game
from sim.league import KIND_DEFAULT, KIND_VARIANT, check_document, check_league_file
from tests.toy_game.strategies import GreedyStrategy

STORED = Path(__file__).resolve().parent.parent / "reports" / "league"
FILES = sorted(STORED.glob("*/league.json"))


runner = CliRunner()
TOY = "pick-two"


def _registry(name: str):
    return get_game(name, "league.json").strategies()


@pytest.mark.skipif(not FILES, reason=f"no stored league results in {STORED} yet (run sim "
                                      f"league --out reports/league/GAME-Np)")
@pytest.mark.parametrize("path", FILES, ids=[path.parent.name for path in FILES])
def test_the_shipped_default_tops_the_stored_league(path):
    verdict = check_league_file(path, _registry)
    assert verdict.on_top, f"{path}: {verdict.line()}"


@pytest.fixture
def greedy_is_strongest(monkeypatch):
    """The toy game's greedy as the game's strongest strategy, with one documented variant."""
    monkeypatch.setattr(GreedyStrategy, "strongest", True)
    monkeypatch.setattr(GreedyStrategy, "variants", ("patience=0.5",))


def _document(strongest_label="greedy:patience=0", variant=(0.56, 0.52, 0.60),
              other=(0.51, 0.45, 0.57)) -> dict:
    """A hand-made league.json of the toy game: greedy (strongest) against a variant and
    another member, (point, low, high) of greedy's win share against each."""
    cells = []
    for name, (point, low, high) in (("greedy:patience=0.5", variant), ("random", other)):
        cells.append({"row": "greedy", "column": name, "point": point, "low": low,
                      "high": high, "games": 400})
        cells.append({"row": name, "column": "greedy", "point": 1 - point, "low": 1 - high,
                      "high": 1 - low, "games": 400})
    return {"format": 1, "settings": {"game": TOY, "players": 2},
            "members": [{"name": "greedy", "label": strongest_label, "kind": KIND_DEFAULT,
                         "strongest": True},
                        {"name": "greedy:patience=0.5", "label": "greedy:patience=0.5",
                         "kind": KIND_VARIANT, "strongest": False},
                        {"name": "random", "label": "random", "kind": KIND_DEFAULT,
                         "strongest": False}],
            "head_to_head": cells}


def _check_file(tmp_path, document) -> tuple[int, str]:
    path = tmp_path / "league.json"
    path.write_text(json.dumps(document))
    result = runner.invoke(app, ["league", "--check", str(path)])
    return result.exit_code, result.output


def test_check_on_top(tmp_path, greedy_is_strongest):
    verdict = check_document(_document())
    assert verdict.on_top and verdict.worst == "random" and verdict.failures == []
    code, output = _check_file(tmp_path, _document())
    assert code == 0 and output.startswith("shipped default on top: yes (worst: random lower "
                                           "bound 45.0%"), output


@pytest.mark.parametrize("variant, other, failing", [
    ((0.56, 0.49, 0.63), (0.51, 0.45, 0.57), "greedy:patience=0.5"),  # a variant's bound < 50%
    ((0.56, 0.52, 0.60), (0.45, 0.41, 0.49), "random"),  # another member shown to beat it
])
def test_check_not_on_top(tmp_path, greedy_is_strongest, variant, other, failing):
    document = _document(variant=variant, other=other)
    verdict = check_document(document)
    assert not verdict.on_top and verdict.failures == [failing]
    code, output = _check_file(tmp_path, document)
    assert code == 1 and output.startswith("shipped default on top: no") and failing in output


def test_check_stale_when_todays_default_differs(tmp_path, greedy_is_strongest):
    document = _document(strongest_label="greedy:patience=0.1")
    code, output = _check_file(tmp_path, document)
    assert code == 1 and "stale: re-run the league" in output
    verdict = check_league_file(tmp_path / "league.json", lambda name: get_game(name)
                                .strategies())
    assert not verdict.on_top


def test_check_of_a_bad_file_exits_2(tmp_path):
    assert _check_file(tmp_path, {"format": 1, "members": []})[0] == 2
    (tmp_path / "broken.json").write_text("{")
    result = runner.invoke(app, ["league", "--check", str(tmp_path / "broken.json")])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    result = runner.invoke(app, ["league", "--check", str(tmp_path / "missing.json")])
    assert result.exit_code == 2


def test_check_undecided_against_an_equal_member(tmp_path, greedy_is_strongest):
    """Another member at 49% (45% to 53%): not shown to beat the default, not shown to lose:
    the check passes and names the pair as undecided."""
    document = _document(other=(0.49, 0.45, 0.53))
    verdict = check_document(document)
    assert verdict.on_top and verdict.failures == [] and verdict.undecided == ["random"]
    code, output = _check_file(tmp_path, document)
    assert code == 0 and "undecided against random" in output


def _stored(folder, document) -> Path:
    """``document`` written as ``folder/league.json`` (the folders of reports/league/)."""
    folder.mkdir(parents=True)
    (folder / "league.json").write_text(json.dumps(document))
    return folder / "league.json"


def test_check_lists_a_missing_builtin_where_another_league_rates_it(tmp_path,
                                                                     greedy_is_strongest):
    """The stored league lacks the built-in search (played before it existed): the check still
    passes on the members it holds and names search as left out, with the league beside it
    (same game) that rates it and both leagues' games per pair; a league of another game or an
    unreadable file beside it rates nothing."""
    document = _document()
    document["settings"]["games_per_pair"] = 2000
    path = _stored(tmp_path / "pick-two-2p", document)
    with_search = _document()
    with_search["settings"]["games_per_pair"] = 400
    with_search["members"].append({"name": "search", "label": "search:exploration=0.7",
                                   "kind": KIND_DEFAULT, "strongest": False})
    with_search["head_to_head"] += [
        {"row": "greedy", "column": "search", "point": 0.6, "low": 0.55, "high": 0.65,
         "games": 400},
        {"row": "search", "column": "greedy", "point": 0.4, "low": 0.35, "high": 0.45,
         "games": 400}]
    _stored(tmp_path / "pick-two-2p-search", with_search)
    other_game = json.loads(json.dumps(with_search))
    other_game["settings"]["game"] = "harmonies"
    _stored(tmp_path / "harmonies-2p-search", other_game)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "league.json").write_text("{")
    verdict = check_league_file(path, _registry)
    assert verdict.on_top and verdict.worst == "random"
    assert verdict.left_out == ["search (not in this league; rated in pick-two-2p-search, 400 "
                                "games per pair against 2,000 here)"]
    result = runner.invoke(app, ["league", "--check", str(path)])
    assert result.exit_code == 0 and "; left out: search (not in this league; rated in " \
                                      "pick-two-2p-search" in result.output, result.output
    # The league that holds every built-in lists nothing as left out.
    assert check_league_file(tmp_path / "pick-two-2p-search" / "league.json",
                             _registry).left_out == []


def test_check_names_a_missing_builtin_no_league_rates(tmp_path, greedy_is_strongest):
    path = _stored(tmp_path / "pick-two-2p", _document())
    verdict = check_league_file(path, _registry)
    assert verdict.on_top
    assert verdict.left_out == ["search (not in this league; in no stored league of the game)"]
