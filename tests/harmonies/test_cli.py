"""`sim play`, `sim score` and `sim bench` with ``--game harmonies`` (Typer's test runner)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from sim.cli import app

runner = CliRunner()


def test_play_json_boards_score_the_same_with_sim_score(tmp_path):
    cases = (
        (1, 4, ["greedy"], []),
        (7, 3, ["random", "planner", "animals"], ["--rule", "side=B"]),
        (11, 1, ["landscape"], ["--rule", "mountain_points=seed-text"]),
        (3, 2, ["planner", "greedy"], ["--rule", "spirits=true", "--rule", "side=B"]),
    )
    for seed, players, strategies, rules in cases:
        out = tmp_path / f"game-{seed}.json"
        arguments = ["play", "--game", "harmonies", "--players", str(players), "--seed",
                     str(seed), "--json", str(out), *rules]
        for name in strategies:
            arguments += ["--strategy", name]
        result = runner.invoke(app, arguments)
        assert result.exit_code == 0, result.output
        assert "round 1" in result.output and "space" in result.output
        game = json.loads(out.read_text())
        assert len(game["boards"]) == players == len(game["scores"])
        assert len(game["turns"]) == players * (game["turns"][-1]["round"])
        for seat, board in enumerate(game["boards"]):
            assert board["game"] == "harmonies"
            path = tmp_path / f"board-{seed}-{seat}.json"
            path.write_text(json.dumps(board))
            scored = runner.invoke(app, ["score", "--game", "harmonies", str(path), "--json"])
            assert scored.exit_code == 0, scored.output
            document = json.loads(scored.output)
            assert document["total"] == game["scores"][seat]
            assert {key: document[key] for key in game["points"][seat]} == game["points"][seat]
            text = runner.invoke(app, ["score", "--game", "harmonies", str(path)])
            assert text.output.strip().endswith(f"total: {game['scores'][seat]}")
        # The play file without --game: the game comes from its 'game' field.
        whole = runner.invoke(app, ["score", str(out), "--json"])
        assert whole.exit_code == 0, whole.output
        assert [d["total"] for d in json.loads(whole.output)] == game["scores"]


def test_turn_log_replays_to_the_final_boards(tmp_path):
    out = tmp_path / "game.json"
    result = runner.invoke(app, ["play", "--game", "harmonies", "--seed", "5", "--strategy",
                                 "animals", "--json", str(out)])
    assert result.exit_code == 0, result.output
    game = json.loads(out.read_text())
    for seat, board in enumerate(game["boards"]):
        stacks: dict[tuple[int, int], list[str]] = {}
        cubes, cards = set(), []
        for turn in game["turns"]:
            if turn["seat"] != seat:
                continue
            placed = [t["color"] for t in turn["tokens"]]
            assert sorted(placed) == sorted(turn["taken"])
            for token in turn["tokens"]:
                if not token.get("box"):
                    stacks.setdefault((token["q"], token["r"]), []).append(token["color"])
            cubes |= {(cube["q"], cube["r"]) for cube in turn["cubes"]}
            if turn["card"] is not None:
                cards.append(turn["card"])
        final = {(cell["q"], cell["r"]): cell["stack"] for cell in board["cells"]}
        # Tokens of one turn on one hex are listed bottom to top, so the replay is exact.
        assert stacks == final
        assert cubes == {(cube["q"], cube["r"]) for cube in board["cubes"]}
        assert cards == [card["id"] for card in board["cards"]]


def test_play_is_deterministic_for_a_seed():
    arguments = ["play", "--game", "harmonies", "--strategy", "random"]
    first = runner.invoke(app, [*arguments, "--seed", "42"])
    second = runner.invoke(app, [*arguments, "--seed", "42"])
    other = runner.invoke(app, [*arguments, "--seed", "43"])
    assert first.exit_code == 0
    # stdout: a first run on a cold cache also says on stderr that it compiles.
    assert first.stdout == second.stdout != other.stdout


def test_bad_input_exits_2_with_one_line(tmp_path):
    board = tmp_path / "bad.json"
    board.write_text(json.dumps({"game": "harmonies", "side": "A",
                                 "cells": [{"q": 0, "r": 0, "stack": ["green", "brown"]}]}))
    cases = [
        (["score", "--game", "harmonies", str(board)], "breaks the stacking rules"),
        (["play", "--game", "harmonies", "--rule", "side=C"], "not one of A, B"),
        (["play", "--game", "harmonies", "--players", "5"], "players"),
        (["play", "--game", "harmonies", "--strategy", "planer"], "did you mean 'planner'"),
        (["play", "--game", "harmonies", "--strategy", "planner:depth=2"], "no parameter"),
        (["play", "--game", "harmonies", "--data", str(tmp_path / "none")], "not found"),
    ]
    for arguments, message in cases:
        result = runner.invoke(app, arguments)
        assert result.exit_code == 2, arguments
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and message in lines[0], (arguments, result.output)


def test_bench_reports_games_per_second():
    result = runner.invoke(app, ["bench", "--game", "harmonies", "--games", "20", "--strategy",
                                 "random", "--strategy", "planner:cards=2"])
    assert result.exit_code == 0, result.output
    assert "Harmonies, 4 players" in result.output
    assert "random" in result.output and "planner:cards=2" in result.output
