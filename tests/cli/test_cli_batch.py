"""End to end: `sim run` a small batch, then `sim report` and `sim sweep` on real results."""

import json
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from sim.cli import app

runner = CliRunner()

CONFIG = """
game = "legendary-forests"
players = 3
pool = ["greedy", "random"]
deals = 300
replicates_per_deal = 2
seed = 5
shard_size = 200
"""


def test_run_then_report(tmp_path):
    config = tmp_path / "small.toml"
    config.write_text(CONFIG)
    run_dir = tmp_path / "run"
    result = runner.invoke(app, ["run", str(config), "--out", str(run_dir), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "600 games" in result.output
    out = tmp_path / "report"
    result = runner.invoke(app, ["report", str(run_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Findings:" in result.output and "1. " in result.output
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "Seat advantage" in html
    assert (out / "report.md").exists()
    summary = pl.read_parquet(out / "summary.parquet")
    assert summary.height > 10


def test_report_of_a_missing_folder_is_a_one_line_error(tmp_path):
    result = runner.invoke(app, ["report", str(tmp_path / "nothing")])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1


SWEEP = """
game = "legendary-forests"
pool = ["greedy", "random"]
games = 1200
seed = 3
shard_size = 200
[sweep]
players = [2, 3]
trees_per_colour_per_player = [1, 3]
[adaptive]
metric = "score_mean"
half_width = 0.5
min_games = 400
"""


def test_sweep_plays_every_point_on_common_deals_and_stops_adaptively(tmp_path):
    config = tmp_path / "grid.toml"
    out = tmp_path / "sweep"
    config.write_text(SWEEP)
    result = runner.invoke(app, ["sweep", str(config), "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "sweep.json").read_text())
    assert len(manifest["points"]) == 4
    for point in manifest["points"]:
        assert point["state"] in ("precise", "complete")
        assert 400 <= point["games_played"] <= 1200
    rows = pl.scan_parquet(str(out / "points" / "*" / "shards" / "*.parquet")).collect()
    assert set(rows["point"].unique()) == {0, 1, 2, 3}
    assert set(rows["trees_per_colour_per_player"].unique()) == {1, 3}
    # Common random numbers: deal d has the same shuffle at every grid point.
    first_deal = rows.filter(pl.col("deal_id") == 7).group_by("point").agg(
        pl.col("deal_seed").first(), pl.col("draw_order").first())
    assert first_deal["deal_seed"].n_unique() == 1
    assert len({tuple(order) for order in first_deal["draw_order"].to_list()}) == 1
    # The stopping rule held: a point stopped early is precise enough.
    again = runner.invoke(app, ["sweep", str(config), "--out", str(out)])
    assert again.exit_code == 2 and "--resume" in again.output
    resumed = runner.invoke(app, ["sweep", str(config), "--out", str(out), "--resume"])
    assert resumed.exit_code == 0, resumed.output


def test_sweep_errors(tmp_path):
    config = tmp_path / "grid.toml"
    config.write_text(SWEEP.replace("trees_per_colour_per_player = [1, 3]",
                                    "trees_per_colour = [1, 3]"))
    result = runner.invoke(app, ["sweep", str(config)])
    assert result.exit_code == 2
    assert "sweep.trees_per_colour" in result.output and "did you mean" in result.output


def test_adaptive_sweep_plays_until_the_fairness_verdict_is_decided(tmp_path):
    config = tmp_path / "grid.toml"
    out = tmp_path / "sweep"
    config.write_text(SWEEP.replace('metric = "score_mean"\nhalf_width = 0.5\nmin_games = 400',
                                    'metric = "seat_verdict"\nfair_margin = 0.3\n'
                                    'min_games = 200'))
    result = runner.invoke(app, ["sweep", str(config), "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "sweep.json").read_text())
    for point in manifest["points"]:
        # Seats are surely within 30 points of each other: decided after the first 200 games.
        assert point["state"] == "decided" and point["games_played"] == 200, point


def test_seat_verdict_of_rows():
    from sim.stats.stopping import seat_verdict
    from sim.stats.synthetic import SyntheticDesign, generate_rows

    tilted = generate_rows(SyntheticDesign(deals=2000, seat_points=(6.0, 0.0, 0.0, -6.0)))
    assert seat_verdict(tilted.lazy(), 0.02) == "unfair"
    equal = generate_rows(SyntheticDesign(deals=300, seed=3))
    assert seat_verdict(equal.lazy(), 0.02) == "undecided"
    assert seat_verdict(equal.lazy(), 0.5) == "fair"
    # As in the batch report: below 10 deals no verdict, however wide the margin.
    few = generate_rows(SyntheticDesign(deals=8, seed=3))
    assert seat_verdict(few.lazy(), 0.9) == "undecided"


def test_version():
    from sim import __version__

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"sim {__version__}\n"


def test_report_refuses_another_batch_s_report_folder(tmp_path):
    from sim.stats.synthetic import SyntheticDesign, write_synthetic_batch

    for name in ("one", "two"):
        write_synthetic_batch(tmp_path / name, SyntheticDesign(name=name, deals=40,
                                                               games_per_shard=20))
    out = tmp_path / "out"
    first = runner.invoke(app, ["report", str(tmp_path / "one"), "--out", str(out), "-q"])
    assert first.exit_code == 0
    result = runner.invoke(app, ["report", str(tmp_path / "two"), "--out", str(out), "-q"])
    assert result.exit_code == 2
    assert "holds the report of batch 'one'" in result.output


def test_sweep_help_shows_its_table_names():
    result = runner.invoke(app, ["sweep", "--help"], env={"COLUMNS": "200"})
    assert "[sweep] table of axes" in result.output and "[adaptive]" in result.output


def test_runs_shows_adaptive_points_as_stopped_and_keeps_columns(tmp_path, monkeypatch):
    from sim.stats.synthetic import SyntheticDesign, write_synthetic_batch

    monkeypatch.chdir(tmp_path)
    long_name = "a-sweep-point-with-a-name-much-longer-than-thirty-two-characters"
    point = Path("runs") / "sweep" / long_name
    write_synthetic_batch(point, SyntheticDesign(name="point", deals=40, games_per_shard=20))
    manifest = json.loads((point / "manifest.json").read_text())
    manifest.update(status="partial", shards_total=3, games_total=60)
    (point / "manifest.json").write_text(json.dumps(manifest))
    (Path("runs") / "sweep" / "sweep.json").write_text(json.dumps(
        {"points": [{"run_dir": str(point), "state": "precise"}]}))
    result = runner.invoke(app, ["runs", "runs"])
    assert result.exit_code == 0, result.output
    header, line = result.output.splitlines()
    assert "stopped (precise)" in line and "40/60" not in line and "partial" not in line
    assert line.startswith(str(point) + " ")
    assert header.index("game") == line.index("legendary-forests")
