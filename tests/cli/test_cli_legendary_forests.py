"""`sim play`, `sim score` and `sim bench` from the command line (Typer's test runner)."""

import json

from typer.testing import CliRunner

from sim.cli import app

runner = CliRunner()


def test_play_json_planets_score_the_same_with_sim_score(tmp_path):
    for seed, players, strategies in ((1, 4, ["greedy"]), (7, 3, ["random", "greedy", "random"]),
                                      (11, 1, ["random"]), (3, 5, ["greedy"])):
        out = tmp_path / f"game-{seed}.json"
        arguments = ["play", "--players", str(players), "--seed", str(seed), "--json", str(out)]
        for name in strategies:
            arguments += ["--strategy", name]
        result = runner.invoke(app, arguments)
        assert result.exit_code == 0, result.output
        assert "turn 19: tile" in result.output
        game = json.loads(out.read_text())
        assert len(game["turns"]) == 19
        for seat, planet in enumerate(game["planets"]):
            path = tmp_path / f"planet-{seed}-{seat}.json"
            path.write_text(json.dumps(planet))
            scored = runner.invoke(app, ["score", str(path), "--json"])
            assert scored.exit_code == 0, scored.output
            assert json.loads(scored.output)["total"] == game["scores"][seat]
            text = runner.invoke(app, ["score", str(path)])
            assert text.output.strip().endswith(f"total: {game['scores'][seat]}")
        # The play file itself: every planet, the game read from its 'game' field.
        whole = runner.invoke(app, ["score", str(out), "--json"])
        assert whole.exit_code == 0, whole.output
        assert [d["total"] for d in json.loads(whole.output)] == game["scores"]
        last = runner.invoke(app, ["score", str(out), "--player", str(players)])
        assert last.output.strip().endswith(f"total: {game['scores'][-1]}")
        assert f"seat {players}" in last.output  # seats from 1, as `sim play` prints them
        beyond = runner.invoke(app, ["score", str(out), "--player", str(players + 1)])
        assert beyond.exit_code == 2 and "out of range" in beyond.output


def test_play_is_deterministic_for_a_seed():
    first = runner.invoke(app, ["play", "--seed", "42", "--strategy", "random"])
    second = runner.invoke(app, ["play", "--seed", "42", "--strategy", "random"])
    other = runner.invoke(app, ["play", "--seed", "43", "--strategy", "random"])
    assert first.exit_code == 0
    # stdout: a first run on a cold cache also says on stderr that it compiles.
    assert first.stdout == second.stdout
    assert first.stdout != other.stdout


def test_score_rejects_an_invalid_planet_with_one_line_and_exit_2(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"game": "legendary-forests",
                                "tiles": [{"number": 2, "x": 0, "y": 0, "rotation": 0}],
                                "trees": []}))
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "bad.json" in lines[0] and "tile 1" in lines[0]


def test_bad_options_exit_2_with_one_line(tmp_path):
    cases = [
        (["play", "--players", "6"], "players"),
        (["play", "--strategy", "gredy"], "did you mean 'greedy'"),
        (["play", "--players", "3", "--strategy", "random", "--strategy", "greedy"], "3 players"),
        (["play", "--tiles", str(tmp_path / "none.toml")], "not found"),
        (["play", "--removed-tiles", "30"], "removed_tiles"),
        (["score", str(tmp_path / "missing.json")], "not found"),
    ]
    for arguments, expected in cases:
        result = runner.invoke(app, arguments)
        assert result.exit_code == 2, (arguments, result.output)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and expected in lines[0], (arguments, result.output)


def test_custom_tile_set_from_the_command_line(tmp_path):
    tiles = tmp_path / "three.toml"
    tiles.write_text("""
[[tiles]]
number = 1
light = false
sides = ["pink", "pink", "pink", "pink"]
areas = [[0, 1, 2, 3]]
[[tiles]]
number = 2
light = true
sides = ["pink", "pink", "pink", "pink"]
areas = [[0, 1, 2, 3]]
[[tiles]]
number = 3
light = true
sides = ["pink", "grass", "pink", "grass"]
areas = [[0], [1], [2], [3]]
""")
    result = runner.invoke(app, ["play", "--players", "2", "--tiles", str(tiles),
                                 "--removed-tiles", "0"])
    assert result.exit_code == 0, result.output
    assert "turn  2: tile" in result.output


def test_bench_reports_games_per_second():
    result = runner.invoke(app, ["bench", "--games", "200", "--strategy", "random"])
    assert result.exit_code == 0, result.output
    assert "games/s" in result.output and "compile/cache load" in result.output
