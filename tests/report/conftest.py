"""Small synthetic batches for the report tests (see ``sim.stats.synthetic``)."""

import pytest

from sim.stats.synthetic import SyntheticDesign, generate_rows, write_synthetic_batch

FOREST = SyntheticDesign(name="forest", deals=300, replicates=2, games_per_shard=100,
                         lineup=("greedy", "random", "greedy", "random"), rotate_lineup=True,
                         strategy_points={"greedy": 3.0}, seat_points=(3.0, 0.0, 0.0, -3.0),
                         deal_sd=4.0, noise_sd=6.0, tile_points={5: 3.0}, token_points=1.0)


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
    write_synthetic_batch(run_dir, SyntheticDesign(name="harmonies", game="harmonies",
                                                   deals=200, games_per_shard=100, players=3))
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
