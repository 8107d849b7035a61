"""The contract every registered game keeps (in the spirit of OpenSpiel's test that plays every
registered game): the shipped games and the toy game of ``tests/toy_game`` alike.

For each game: the same seed gives the same game; the compiled loop and the Python driver give
identical games; results match the documented schema; strategies receive no hidden information;
rules parameters round-trip through configs and sweeps; bad data files give one-line errors.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config import config_from_document, load_config
from sim.errors import InputError
from sim.games.base import StrategySpec
from sim.games.registry import games, get_game
from sim.runner import config_from_manifest, new_manifest
from sim.sweep import sweep_from_document

GAMES = list(games())
REQUIRED_COLUMNS = {"seat", "score", "rank", "win"}
runner = CliRunner()


def cheap(spec_name: str) -> dict[str, float]:
    """Parameters that keep the slowest strategies quick (they still play their own way)."""
    return {"rollout": {"rollouts": 2, "candidates": 2},
            "search": {"playouts": 4}}.get(spec_name, {})


def builtin_names(game) -> list[str]:
    registry = game.strategies()
    return [name for name in registry
            if getattr(registry, "strategy_class", None) is None
            or registry.strategy_class(name).kind() == "built-in"]


def assert_same_column(first, second, name: str) -> None:
    """Two result columns are equal: numpy arrays, or list columns (polars Series)."""
    if isinstance(first, pl.Series):
        assert isinstance(second, pl.Series) and first.dtype == second.dtype, name
        assert first.equals(second), name
    else:
        np.testing.assert_array_equal(first, second, err_msg=name)


def is_numeric_column(values) -> bool:
    """A numeric array, or a list column of numbers or booleans (at any depth)."""
    if isinstance(values, pl.Series):
        dtype = values.dtype
        while isinstance(dtype, pl.List | pl.Array):
            dtype = dtype.inner
        return dtype.is_numeric() or dtype == pl.Boolean
    return bool(np.issubdtype(np.asarray(values).dtype, np.number))


def mixed_shard(game, games_count: int = 6, seed: int = 7):
    """A shard seating every built-in strategy, rotated over the seats, at the middle player
    count, with the shipped data and default rules."""
    players = max(game.min_players, min(game.max_players, 3))
    names = builtin_names(game)
    lineup = [StrategySpec(name, cheap(name)) for name in names]
    seats = np.array([[(g + s) % len(lineup) for s in range(players)]
                      for g in range(games_count)], dtype=np.int64)
    deals = np.arange(games_count, dtype=np.uint64) + np.uint64(seed)
    return (game.load_data(None), players, game.default_rules(), lineup, seats, deals,
            deals * np.uint64(3) + np.uint64(1))


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_gives_the_same_game(name):
    game = get_game(name)
    first = game.play_shard(*mixed_shard(game))
    second = game.play_shard(*mixed_shard(game))
    assert first.keys() == second.keys()
    for column in first:
        assert_same_column(first[column], second[column], column)
    data, players, rules, lineup = game.load_data(None), game.min_players, game.default_rules(), \
        [StrategySpec("random")] * game.min_players
    assert game.play_one(data, players, rules, lineup, 5).document == \
        game.play_one(data, players, rules, lineup, 5).document
    other = game.play_shard(*mixed_shard(game, seed=1000))
    assert not np.array_equal(first["score"], other["score"])


@pytest.mark.parametrize("name", GAMES)
def test_compiled_loop_and_python_driver_give_identical_games(name):
    game = get_game(name)
    shard = mixed_shard(game, games_count=3)
    compiled = game.play_shard(*shard)
    driven = game.play_shard_in_driver(*shard)
    assert compiled.keys() == driven.keys()
    for column in compiled:
        assert_same_column(compiled[column], driven[column], column)
    if game.supports_trace:
        compiled = game.play_shard(*shard, trace=True)
        driven = game.play_shard_in_driver(*shard, trace=True)
        for column in compiled:
            assert_same_column(compiled[column], driven[column], column)


@pytest.mark.parametrize("name", GAMES)
def test_results_match_the_documented_schema(name):
    game = get_game(name)
    data, players, rules, lineup, seats, deals, strategies = mixed_shard(game)
    columns = game.play_shard(data, players, rules, lineup, seats, deals, strategies)
    documented = game.column_docs()
    assert set(columns) == REQUIRED_COLUMNS | set(documented)
    assert all(isinstance(text, str) and text for text in documented.values())
    rows = len(deals) * players
    for column, values in columns.items():
        assert len(values) == rows, column
        assert is_numeric_column(values), column
    np.testing.assert_array_equal(columns["seat"], np.tile(np.arange(players), len(deals)))
    wins = np.asarray(columns["win"], dtype=np.float64).reshape(len(deals), players)
    np.testing.assert_allclose(wins.sum(axis=1), 1.0, rtol=1e-6)
    ranks = np.asarray(columns["rank"]).reshape(len(deals), players)
    scores = np.asarray(columns["score"]).reshape(len(deals), players)
    assert (ranks >= 1).all() and (ranks == 1).any(axis=1).all()
    assert (scores[ranks == 1] == np.repeat(scores.max(axis=1), (ranks == 1).sum(axis=1))).all()


@pytest.mark.parametrize("name", GAMES)
def test_strategies_receive_no_hidden_information(name):
    game = get_game(name)
    data, players, rules = game.load_data(None), max(2, game.min_players), game.default_rules()
    players = min(players, game.max_players)
    for strategy in builtin_names(game):
        lineup = [StrategySpec(strategy, cheap(strategy))] * players
        dealt, hidden = game.hidden_information_decisions(data, players, rules, lineup, 3, None)
        for shuffle in (1, 2):
            decisions, reshuffled = game.hidden_information_decisions(data, players, rules,
                                                                      lineup, 3, shuffle)
            assert not np.array_equal(hidden, reshuffled), "the probe changed nothing hidden"
            assert decisions == dealt, f"{strategy} decided differently on hidden information"


def non_default(parameter):
    """A valid value other than the default, as a user would write it."""
    if parameter.choices:
        return next(text for text, value in parameter.choices if value != parameter.default)
    return parameter.maximum if parameter.default != parameter.maximum else parameter.minimum


@pytest.mark.parametrize("name", GAMES)
def test_rules_parameters_round_trip_through_configs_and_sweeps(name, tmp_path):
    game = get_game(name)
    for parameter in game.rules_parameters:
        value = non_default(parameter)
        expected = parameter.check(value, "test")
        text = json.dumps(value) if not isinstance(value, bool) else str(value).lower()
        path = tmp_path / f"{parameter.name}.toml"
        path.write_text(f'game = "{name}"\nplayers = {game.min_players}\n'
                        f'strategies = ["random"]\n[rules]\n{parameter.name} = {text}\n')
        config = load_config(path)
        assert config.rules[parameter.name] == expected
        assert config_from_manifest(new_manifest(config)) == config
        document = {"game": name, "players": game.min_players, "strategies": ["random"],
                    "output": str(tmp_path / "sweep"),
                    "sweep": {parameter.name: [parameter.default, value]}}
        plan = sweep_from_document(document, "sweep.toml", tmp_path, "sweep")
        assert [p.config.rules[parameter.name] for p in plan.points] == \
            [parameter.default, expected]
        point = plan.points[1].config
        assert config_from_manifest(new_manifest(point)) == point
        with pytest.raises(InputError, match=parameter.name):
            config_from_document({"game": name, "players": game.min_players,
                                  "rules": {parameter.name: "no such value"}},
                                 "bad.toml", tmp_path, "bad")


@pytest.mark.parametrize("name", GAMES)
def test_bad_data_files_give_one_line_errors(name, tmp_path):
    game = get_game(name)
    garbage = tmp_path / "garbage.toml"
    garbage.write_text("this is [not toml\n")
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "garbage.toml").write_text("x = 1\n")
    for bad in (tmp_path / "missing.toml", garbage, folder):
        try:
            game.load_data(str(bad))
        except InputError as error:
            message = str(error)
            assert "\n" not in message and str(bad) in message, message
        else:
            raise AssertionError(f"{name}: {bad} was accepted as data")
    result = runner.invoke(app, ["play", "--game", name, f"--{game.data_option}", str(garbage),
                                 "--players", str(game.min_players)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")


@pytest.mark.parametrize("name", GAMES)
def test_a_shard_played_in_pieces_encodes_to_the_files_of_the_whole_shard(name, tmp_path):
    # A run's last shards are played in pieces on several workers and joined before encoding
    # (``sim.runner.split_tail``): the rows, notable games and Parquet bytes must not change.
    from sim import runner

    game = get_game(name)
    players = max(game.min_players, min(game.max_players, 3))
    pool = builtin_names(game)[:players]
    config = config_from_document(
        {"game": name, "players": players, "pool": pool, "games": 14, "shard_size": 7,
         "seed": 5, "trace": game.supports_trace, "output": str(tmp_path / "run")},
        "pieces.toml", tmp_path, "pieces")
    data = game.load_data(None)
    last = list(runner.shard_tasks(config, data, range(config.shards)))[-1]
    pieces = list(runner.split_tail([last], 2))
    assert [piece.games for piece in pieces] == [1, 2, 2, 2]
    assert [piece.first_game for piece in pieces] == [7, 8, 10, 12]
    played = [runner.play_shard_task(piece) for piece in reversed(pieces)]
    assert all(isinstance(piece, runner.PlayedShard) for piece in played)
    whole = runner.play_shard_task(last)
    (joined,) = runner.join_pieces_as_they_come(played)
    assert joined.index == whole.index == 1 and joined.games == whole.games == 7
    assert joined.result_bytes == whole.result_bytes
    assert joined.notable_bytes == whole.notable_bytes


@pytest.mark.parametrize("name", GAMES)
def test_fields_play_the_same_deals_and_every_finding_is_judged_across_them(name, tmp_path):
    from sim.report.sweep import FIELDS_PARQUET, build_sweep_report
    from sim.sweep import run_sweep

    game = get_game(name)
    players = max(game.min_players, min(game.max_players, 2))
    document = {"game": name, "players": players, "deals": 24, "seed": 3, "shard_size": 12,
                "output": str(tmp_path / "fields"), "fields": ["a=random", "b=greedy"]}
    plan = sweep_from_document(document, "fields.toml", tmp_path, "fields")
    run_sweep(plan, workers=1)
    result = build_sweep_report(plan.output, tmp_path / "report", point_reports=False)
    frame = pl.read_parquet(tmp_path / "report" / FIELDS_PARQUET)
    assert set(frame["field"].drop_nulls()) == {"a", "b"}
    # Seat 1's win-share gap: one row per field and one for the pair, on the same 24 deals.
    seat = frame.filter(pl.col("key") == "seat_win_gap/1")
    assert seat["row"].to_list() == ["field", "field", "pair"]
    assert seat["clusters"].to_list() == [24, 24, 24]
    assert result.findings and result.findings[0].startswith("Across fields (a and b)")
    assert "Findings across fields" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.parametrize("name", GAMES)
def test_names_and_drawings_are_well_formed_and_stable(name):
    """Every named item has a non-empty name, names are unique within their noun, every noun a
    report uses for an item (cards, draft cards, deal covariates' items) is named, and every
    drawing is a standalone SVG document, the same bytes on every call."""
    import xml.etree.ElementTree as ElementTree

    game = get_game(name)
    data = game.load_data(None)
    names = game.item_names(data)
    assert names == game.item_names(data)
    nouns_used = {covariate.item for covariate in game.deal_covariates() if covariate.item}
    for columns in (game.card_columns(), game.draft_columns()):
        if columns is not None:
            nouns_used.add(columns.noun)
    assert nouns_used <= set(names), f"{name}: unnamed nouns {nouns_used - set(names)}"
    for noun, by_id in names.items():
        assert by_id and all(isinstance(label, str) and label.strip() for label in by_id.values())
        assert len(set(by_id.values())) == len(by_id), f"{name}: {noun} names repeat"
        first = min(by_id)
        svg = game.item_svg(noun, first, data)
        if svg is not None:
            assert ElementTree.fromstring(svg).tag.endswith("svg")
            assert svg == game.item_svg(noun, first, data)
    data_, players, rules, lineup, _, deals, strategies = mixed_shard(game)
    seats = [lineup[seat % len(lineup)] for seat in range(players)]
    drawings = game.final_svgs(data_, players, rules, seats, int(deals[0]), int(strategies[0]))
    if drawings is not None:
        assert len(drawings) == players
        for drawing in drawings:
            assert ElementTree.fromstring(drawing).tag.endswith("svg")
        assert drawings == game.final_svgs(data_, players, rules, seats, int(deals[0]),
                                           int(strategies[0]))
