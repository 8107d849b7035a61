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
