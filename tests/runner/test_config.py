"""Config validation: every error is one line naming the file, the field and the reason, and
`sim run` exits 2 without touching earlier results."""

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config import load_config
from sim.errors import InputError

GOOD = """
game = "legendary-forests"
players = 4
strategies = ["greedy"]
games = 40
seed = 1
shard_size = 10
"""


@pytest.mark.parametrize("text, expected", [
    (GOOD + "shard_sise = 5\n", "unknown field 'shard_sise' (did you mean 'shard_size'?)"),
    (GOOD.replace("players = 4", "players = \"four\""), "field 'players': expected an integer"),
    (GOOD.replace("games = 40", "games = 4.5"), "field 'games': expected an integer"),
    (GOOD.replace("players = 4", "players = 9"), "field 'players': 9 is out of range 1..5"),
    (GOOD.replace("players = 4", "players = 0"), "field 'players': 0 is out of range 1..5"),
    (GOOD.replace('["greedy"]', '["greddy"]'),
     "field 'strategies[0]': unknown strategy 'greddy' (did you mean 'greedy'?)"),
    (GOOD.replace('["greedy"]', '["greedy", "random"]'),
     "field 'strategies': 2 strategies for 4 players"),
    (GOOD + 'tiles = "no-such-tiles.toml"\n', "field 'tiles': file not found"),
    (GOOD + "[rules]\nremoved_tile = 3\n", "field 'removed_tile': not a rules parameter"),
    (GOOD + "[rules]\nremoved_tiles = -1\n", "field 'removed_tiles': -1 is out of range"),
    (GOOD + "[rules]\ntrees_per_colour_per_player = \"2\"\n",
     "field 'trees_per_colour_per_player': expected an integer"),
    (GOOD.replace("games = 40", "games = 0"), "field 'games': must be at least 1"),
    (GOOD + 'store = "csv"\n', "field 'store': 'csv' is not one of rows, summary"),
    (GOOD.replace('game = "legendary-forests"', 'game = "chess"'), "unknown game 'chess'"),
    (GOOD + 'pool = ["random"]\n', "fields 'strategies' and 'pool': give one or the other"),
    (GOOD + "deals = 7\nreplicates_per_deal = 2\n", "field 'games': 40 is not deals x"),
    ("players = [", "not valid TOML"),
    (GOOD + "trace = 1\n", "field 'trace': expected true or false, got int 1"),
    (GOOD + 'store = "summary"\ntrace = true\n',
     "field 'trace': the score trace needs the rows store"),
])
def test_config_errors_name_file_field_and_reason(tmp_path, text, expected):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InputError) as error:
        load_config(path)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(str(path)), message
    assert expected in message, message


def test_missing_config_file(tmp_path):
    with pytest.raises(InputError, match="config file not found"):
        load_config(tmp_path / "nope.toml")


def test_cli_config_error_exits_2_and_keeps_earlier_results(tmp_path):
    runner = CliRunner()
    good = tmp_path / "good.toml"
    good.write_text(GOOD)
    out = tmp_path / "run"
    first = runner.invoke(app, ["run", str(good), "--out", str(out), "--workers", "1", "-q"])
    assert first.exit_code == 0, first.output
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD + "colour = 3\n")
    result = runner.invoke(app, ["run", str(bad), "--out", str(out)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "unknown field 'colour'" in result.output
    again = runner.invoke(app, ["run", str(good), "--out", str(out)])
    assert again.exit_code == 2 and "already here" in again.output
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_cli_overrides_apply(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(GOOD)
    config = load_config(good, {"players": 3, "strategies": ["random"], "seed": 9,
                                "rules": {"trees_per_colour_per_player": 3}})
    assert config.players == 3 and config.lineup == ("random",) * 3 and config.seed == 9
    assert config.rules == {"removed_tiles": 5, "trees_per_colour_per_player": 3}


def test_trace_is_a_config_field_and_an_option(tmp_path):
    path = tmp_path / "traced.toml"
    path.write_text(GOOD + "trace = true\n")
    assert load_config(path).trace is True
    plain = tmp_path / "plain.toml"
    plain.write_text(GOOD)
    assert load_config(plain).trace is False
    assert load_config(plain, {"trace": True}).trace is True
    with pytest.raises(InputError, match="^--trace: the score trace needs the rows store"):
        load_config(plain, {"trace": True, "store": "summary"})
