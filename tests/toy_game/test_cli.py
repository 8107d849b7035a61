"""The toy game through the CLI, with no edit outside its own folder: `sim play`, `sim score`,
`sim strategies`, `sim run`, `sim report`, `sim tournament` and `sim sweep` all find it through
the game registry, with its own data option (``--deck``) and rules option (``--pair-bonus``)."""

import json

import polars as pl
from typer.testing import CliRunner

from sim.cli import app

runner = CliRunner()

CONFIG = """
game = "pick-two"
players = 2
pool = ["greedy", "random"]
deals = 200
replicates_per_deal = 2
seed = 5
shard_size = 100
[rules]
rounds = 8
"""

SWEEP = """
game = "pick-two"
players = 2
strategies = ["greedy", "random"]
games = 300
seed = 3
shard_size = 100
[sweep]
pair_bonus = [0, 10]
"""


def test_run_report_tournament_and_sweep(tmp_path):
    config = tmp_path / "toy.toml"
    config.write_text(CONFIG)
    run_dir = tmp_path / "run"
    result = runner.invoke(app, ["run", str(config), "--out", str(run_dir), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "400 games" in result.output
    rows = pl.read_parquet(run_dir / "shards")
    assert rows.height == 800 and {"pairs", "rounds", "pair_bonus"} <= set(rows.columns)
    assert rows.group_by("game_id").agg(pl.col("win").sum())["win"].round(6).eq(1).all()

    out = tmp_path / "report"
    result = runner.invoke(app, ["report", str(run_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    markdown = (out / "report.md").read_text()
    assert "Pick Two" in markdown and "seat 1 chooses first" in markdown
    assert "Architect" not in markdown

    result = runner.invoke(app, ["tournament", "--game", "pick-two", "--players", "2",
                                 "--strategies", "random,greedy", "--games", "400",
                                 "--workers", "1", "--pair-bonus", "8"])
    assert result.exit_code == 0, result.output
    assert "greedy" in result.output and "random" in result.output

    sweep = tmp_path / "sweep.toml"
    sweep.write_text(SWEEP)
    result = runner.invoke(app, ["sweep", str(sweep), "--out", str(tmp_path / "sweep"),
                                 "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    points = pl.read_parquet(tmp_path / "sweep" / "points" / "*" / "shards" / "*.parquet")
    means = points.group_by("pair_bonus").agg(pl.col("score").mean()).sort("pair_bonus")
    assert means["pair_bonus"].to_list() == [0, 10]
    assert means["score"][1] > means["score"][0]  # the bonus is paid


def test_play_score_and_strategies(tmp_path):
    result = runner.invoke(app, ["play", "--game", "pick-two", "--players", "2", "--seed", "4",
                                 "--strategy", "greedy", "--strategy", "random",
                                 "--pair-bonus", "3", "--json", str(tmp_path / "game.json")])
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "game.json").read_text())
    assert document["rules"]["pair_bonus"] == 3 and len(document["picks"]) == 6
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps({"hand": [3, 3, 5, 5, 5], "pair_bonus": 4}))
    result = runner.invoke(app, ["score", "--game", "pick-two", str(hand), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"hand": [3, 3, 5, 5, 5], "pairs": 2, "score": 29}
    result = runner.invoke(app, ["strategies", "--game", "pick-two"])
    assert "greedy [built-in]" in result.output and "patience=0" in result.output
    result = runner.invoke(app, ["play", "--game", "pick-two", "--players", "3"])
    assert result.exit_code == 2 and "out of range 2..2" in result.stderr


SEARCH_CONFIG = """
game = "pick-two"
players = 2
pool = ["search:playouts=30", "random"]
deals = 40
replicates_per_deal = 1
seed = 8
shard_size = 40
"""


def test_the_search_strategy_plays_through_play_run_and_report(tmp_path):
    """``search`` (written once for every game, ``sim.search.ismcts``) through the CLI."""
    result = runner.invoke(app, ["play", "--game", "pick-two", "--players", "2", "--seed", "4",
                                 "--strategy", "search:playouts=50", "--strategy", "greedy",
                                 "--json", str(tmp_path / "game.json")])
    assert result.exit_code == 0, result.output
    assert "search:playouts=50" in result.output
    assert len(json.loads((tmp_path / "game.json").read_text())["picks"]) == 6
    config = tmp_path / "search.toml"
    config.write_text(SEARCH_CONFIG)
    run_dir = tmp_path / "run"
    result = runner.invoke(app, ["run", str(config), "--out", str(run_dir), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert pl.read_parquet(run_dir / "shards").height == 80
    result = runner.invoke(app, ["report", str(run_dir), "--out", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    assert "search:playouts=30" in (tmp_path / "report" / "report.md").read_text()
