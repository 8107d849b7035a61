"""Synthetic batches: the shared design writes the columns every game has; a game's part
(``deal_model``) adds its own columns, its points and its parameters in the manifest."""

import json

import numpy as np

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats.synthetic import (
    SyntheticDesign,
    competition_ranks,
    generate_rows,
    write_synthetic_batch,
)

SHARED = ["game_id", "deal_id", "replicate", "deal_seed", "strategy_seed", "players", "seat",
          "strategy", "score", "rank", "win"]


def test_without_a_deal_model_the_rows_have_only_the_shared_columns():
    rows = generate_rows(SyntheticDesign(game="harmonies", players=3, deals=20))
    assert rows.columns == SHARED and rows.height == 60


def test_a_deal_model_adds_its_columns_and_its_points():
    plain = generate_rows(SyntheticDesign(deals=300, deal_model=ForestDeals()))
    assert plain.columns[:len(SHARED)] == SHARED
    assert {"light_tiles_drawn", "tree_phases_as_token_holder", "removed_tiles_mask"} <= set(
        plain.columns)
    # The same draws with 3 points per tree phase led: each score moves by exactly that.
    tilted = generate_rows(SyntheticDesign(deals=300, deal_model=ForestDeals(token_points=3.0)))
    led = plain["tree_phases_as_token_holder"].to_numpy().astype(int)
    moved = tilted["score"].to_numpy().astype(int) - plain["score"].to_numpy().astype(int)
    assert np.array_equal(moved, 3 * led)


def test_the_manifest_names_the_model_s_game_and_records_its_parameters(tmp_path):
    write_synthetic_batch(tmp_path, SyntheticDesign(deals=10, games_per_shard=10,
                                                    deal_model=ForestDeals(tile_points={5: 1.0})))
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["game"] == ForestDeals.game
    config = list(manifest["config"])
    assert config[-1] == "seed" and manifest["config"]["tile_points"] == {"5": 1.0}
    assert config.index("seat_points") < config.index("token_points") < config.index("seed")


def test_competition_ranks_share_ties():
    ranks, wins = competition_ranks(np.array([[5, 7, 7, 1]]))
    assert ranks.tolist() == [[3, 1, 1, 4]] and wins.tolist() == [[0.0, 0.5, 0.5, 0.0]]
