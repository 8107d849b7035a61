"""`sim run` on a tiny Harmonies config, through the batch runner."""

from __future__ import annotations

import polars as pl

from sim.config import load_config
from sim.runner import run_batch

CONFIG = """
game = "harmonies"
players = 3
pool = ["greedy", "random", "landscape"]
games = 24
seed = 5
shard_size = 12
store = "rows"
[rules]
side = "B"
mountain_points = "seed-text"
spirits = true
"""


def test_sim_run_writes_harmonies_rows(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(CONFIG)
    config = load_config(path, {"output": str(tmp_path / "out")})
    assert config.rules == {"side": 1, "mountain_points": 1, "spirits": 1}
    summary = run_batch(config, workers=1)
    assert summary.complete and summary.games_played == 24
    rows = pl.read_parquet(str(tmp_path / "out" / "shards" / "*.parquet"))
    assert rows.height == 24 * 3
    for column in ("game_id", "seat", "strategy", "score", "rank", "win", "side",
                   "mountain_points", "spirits", "points_trees", "points_water",
                   "points_animals", "points_spirit", "cubes_placed", "cards_completed",
                   "turns"):
        assert column in rows.columns, column
    assert set(rows["strategy"].unique()) == {"greedy", "random", "landscape"}
    assert (rows["side"] == 1).all() and (rows["points_water"] % 5 == 0).all()
    assert rows["points_spirit"].sum() > 0
    notable = pl.read_parquet(str(tmp_path / "out" / "notable" / "*.parquet"))
    assert set(notable["kind"]) == {"highest", "lowest"}
    assert all("[" in drawing for drawing in notable["drawing"])
