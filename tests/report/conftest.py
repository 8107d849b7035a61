"""Small synthetic batches for the report tests (see ``sim.stats.synthetic``)."""

import hashlib
import json
from pathlib import Path

import polars as pl
import pytest

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.games.registry import get_game
from sim.stats.synthetic import SyntheticDesign, generate_rows, write_synthetic_batch
from sim.stats.synthetic_cards import CardDesign, generate_card_rows

# Harmonies cards and spirits with one planted strong card and one strong spirit.
NAMED_CARDS = CardDesign(deals=200, card_extra={7: 6.0}, draft_extra={35: 8.0}, seed=11)

FOREST = SyntheticDesign(name="forest", deals=300, replicates=2, games_per_shard=100,
                         lineup=("greedy", "random", "greedy", "random"), rotate_lineup=True,
                         strategy_points={"greedy": 3.0}, seat_points=(3.0, 0.0, 0.0, -3.0),
                         deal_sd=4.0, noise_sd=6.0,
                         deal_model=ForestDeals(tile_points={5: 3.0}, token_points=1.0))


@pytest.fixture(scope="session")
def forest_rows():
    return generate_rows(FOREST)


@pytest.fixture(scope="session")
def forest_dir(tmp_path_factory, forest_rows):
    run_dir = tmp_path_factory.mktemp("forest")
    write_synthetic_batch(run_dir, FOREST, forest_rows)
    return run_dir


@pytest.fixture(scope="session")
def forest_summary_dir(tmp_path_factory, forest_rows):
    run_dir = tmp_path_factory.mktemp("forest-summary")
    design = SyntheticDesign(**{**FOREST.__dict__, "store": "summary",
                                "name": "forest-summary"})
    write_synthetic_batch(run_dir, design, forest_rows)
    return run_dir


@pytest.fixture(scope="session")
def harmonies_dir(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("harmonies")
    # No seat effect is built in; seed 2, since under seed 1 the seats' gap comes out
    # detectable by chance (a false positive the seat test below would read as a finding).
    write_synthetic_batch(run_dir, SyntheticDesign(name="harmonies", game="harmonies",
                                                   deals=200, games_per_shard=100, players=3,
                                                   seed=2))
    return run_dir


SWEEP = """
game = "legendary-forests"
pool = ["greedy", "random"]
deals = 150
replicates_per_deal = 2
seed = 3
shard_size = 100
output = "out"
[sweep]
players = [2, 3]
trees_per_colour_per_player = [1, 3]
[adaptive]
metric = "score_mean"
half_width = 0.8
min_games = 200
"""


@pytest.fixture(scope="session")
def sweep_run(tmp_path_factory):
    """A small real sweep (2 x 2 points, Legendary Forests), played by `sim sweep` from its own
    folder so that its recorded paths are relative; returns (sweep folder, the command's
    result)."""
    import os

    from typer.testing import CliRunner

    from sim.cli import app

    folder = tmp_path_factory.mktemp("sweep")
    (folder / "grid.toml").write_text(SWEEP)
    here = os.getcwd()
    os.chdir(folder)
    try:
        result = CliRunner().invoke(app, ["sweep", "grid.toml", "--workers", "1", "--quiet"])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    return folder / "out", result


@pytest.fixture(scope="session")
def sweep_report(tmp_path_factory, sweep_run):
    """The sweep's report with every point's batch report."""
    from sim.report.sweep import build_sweep_report

    return build_sweep_report(sweep_run[0], tmp_path_factory.mktemp("sweep-report") / "report")


def shipped_digest(game) -> str:
    return game.data_digest(game.load_data(None))


def record_data_digest(run_dir: Path, digest: str) -> None:
    """Make a synthetic batch say it was played with the shipped data (its manifest records the
    digest "synthetic")."""
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["data_digest"] = digest
    manifest["config"]["data_digest"] = digest
    path.write_text(json.dumps(manifest))


def add_notable_svgs(run_dir: Path) -> None:
    """Give a batch's notable files the ``svg`` column the runner writes (one drawing per seat,
    naming game and seat), and record their new sizes and hashes in the manifest."""
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    for records in manifest["shard_files"].values():
        for record in records:
            if not record["path"].startswith("notable/"):
                continue
            file = run_dir / record["path"]
            frame = pl.read_parquet(file)
            frame = frame.with_columns(svg=pl.format(
                '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 200"><title>game {} '
                'seat {}</title><text x="10" y="30" font-size="14">game {} seat {}</text></svg>',
                "game_id", "seat", "game_id", "seat"))
            frame.write_parquet(file)
            data = file.read_bytes()
            record["bytes"], record["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    path.write_text(json.dumps(manifest))


@pytest.fixture(scope="session")
def named_card_dir(tmp_path_factory):
    """A synthetic Harmonies batch with animal cards and nature spirits that says it was played
    with the shipped data (so its report names them), and whose notable games carry SVGs."""
    harmonies = get_game("harmonies")
    rows = generate_card_rows(NAMED_CARDS, harmonies.card_columns(), harmonies.draft_columns())
    rows = rows.with_columns(spirits=pl.lit(1, dtype=pl.Int16))
    run_dir = tmp_path_factory.mktemp("named-cards")
    write_synthetic_batch(run_dir, SyntheticDesign(name="cards", game="harmonies", players=4,
                                                   deals=NAMED_CARDS.deals, games_per_shard=100,
                                                   lineup=NAMED_CARDS.lineup), rows)
    record_data_digest(run_dir, shipped_digest(harmonies))
    add_notable_svgs(run_dir)
    return run_dir
