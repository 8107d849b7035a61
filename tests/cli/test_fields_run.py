"""Fields of players: `sim run --field` / `fields = [...]` play every field on the same deals,
in one folder, resumable; the field specs are checked before anything is played."""

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.errors import InputError
from sim.fields import FieldSpec, field_from_config, parse_fields
from sim.games.registry import games, get_game
from sim.sweep import load_sweep

runner = CliRunner()

CONFIG = """
game = "legendary-forests"
players = 3
deals = 60
replicates_per_deal = 2
seed = 7
shard_size = 40
fields = ["greedy=greedy", "random=random", "mix=pool:greedy+random"]
"""


def _rows(folder):
    return pl.read_parquet(sorted(str(p) for p in folder.glob("points/*/shards/*.parquet")))


def test_every_field_plays_the_same_deals_and_resumes_byte_identical(tmp_path):
    config = tmp_path / "fields.toml"
    config.write_text(CONFIG)
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", str(config), "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert sorted(rows["field"].unique()) == ["greedy", "mix", "random"]
    # Common random numbers: the same deal ids with the same deal seeds in every field.
    deals = rows.select("field", "deal_id", "deal_seed").unique()
    per_field = {name: dict(zip(part["deal_id"], part["deal_seed"], strict=True))
                 for (name,), part in deals.group_by("field")}
    assert per_field["greedy"] == per_field["random"] == per_field["mix"]
    assert len(per_field["greedy"]) == 60
    assert rows.filter(pl.col("field") == "mix")["strategy"].unique().sort().to_list() == \
        ["greedy", "random"]
    before = {p.name: p.read_bytes() for p in out.glob("points/*/shards/*.parquet")}
    again = runner.invoke(app, ["run", "--resume", str(out), "--workers", "2"])
    assert again.exit_code == 0, again.output
    assert {p.name: p.read_bytes() for p in out.glob("points/*/shards/*.parquet")} == before
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["axes"] == {"field": ["greedy", "random", "mix"]}


def test_a_field_with_a_pool_plays_the_first_fields_deals(tmp_path):
    # A pool would default to one replicate per seating; every field plays the first's design.
    config = tmp_path / "fields.toml"
    config.write_text(CONFIG.replace("deals = 60\nreplicates_per_deal = 2\n", "games = 30\n"))
    plan = load_sweep(config, {"output": str(tmp_path / "run")})
    designs = {p.values["field"]: (p.config.deals, p.config.replicates_per_deal)
               for p in plan.points}
    assert len(set(designs.values())) == 1, designs


def test_fields_cross_the_other_axes_of_a_sweep(tmp_path):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(CONFIG + "[sweep]\ntrees_per_colour_per_player = [1, 2]\n")
    plan = load_sweep(sweep, {"output": str(tmp_path / "run")})
    assert [p.label for p in plan.points][:3] == [
        "trees_per_colour_per_player=1,field=greedy", "trees_per_colour_per_player=1,field=random",
        "trees_per_colour_per_player=1,field=mix"]
    assert len(plan.points) == 6


@pytest.mark.parametrize(("arguments", "message"), [
    (["--field", "strong"], "at least two fields"),
    (["--field", "nobody", "--field", "strong"], "'nobody' is not a field legendary-forests"),
    (["--field", "a=greedy", "--field", "a=random"], "named twice"),
    (["--field", "a=", "--field", "b=random"], "needs a lineup"),
    (["--field", "a b=greedy", "--field", "b=random"], "must be letters"),
    (["--field", "a=greedy", "--field", "b=nosuch"], "nosuch"),
    (["--field", "a=greedy", "--field", "b=random", "--strategy", "greedy"],
     "cannot be combined with fields"),
])
def test_bad_fields_are_one_line_errors_before_any_game(tmp_path, arguments, message):
    config = tmp_path / "plain.toml"
    config.write_text(CONFIG.replace('fields = ["greedy=greedy", "random=random", '
                                     '"mix=pool:greedy+random"]\n', ""))
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", str(config), "--out", str(out), *arguments])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert result.output.count("\n") == 1
    assert not out.exists()


def test_every_registered_game_declares_fields_that_parse():
    for name, game in games().items():
        declared = [field for field, _, _ in game.field_lineups]
        assert len(declared) >= 2, name
        assert set(game.default_fields) <= set(declared), name
        specs = parse_fields(["default"], game, "test")
        assert [spec.name for spec in specs] == list(game.default_fields)
        for spec in parse_fields(declared, game, "test"):
            for strategy in spec.strategies:
                base = strategy.partition(":")[0]
                assert base in game.strategies(), (name, strategy)


def test_a_field_round_trips_through_a_batch_config():
    for lineup, config in [("expert", {"lineup": ["expert"] * 4, "rotate": False}),
                           ("pool:expert+planner", {"lineup": ["expert", "planner"],
                                                    "rotate": True}),
                           ("a+b", {"lineup": ["a", "b"], "rotate": False})]:
        assert field_from_config("x", config) == FieldSpec("x", lineup)


def test_a_plain_config_refuses_fields_outside_run_and_sweep(tmp_path):
    from sim.config import load_config

    config = tmp_path / "f.toml"
    config.write_text(CONFIG)
    with pytest.raises(InputError, match="field 'fields'"):
        load_config(config)
    assert get_game("legendary-forests").default_fields
