"""build_report end to end on synthetic batches: files, content, errors."""

import hashlib
import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from sim.errors import InputError
from sim.games.legendary_forests.synthetic import ForestDeals
from sim.report import build_report
from sim.report.summary_table import SCHEMA
from sim.stats.synthetic import SyntheticDesign, write_synthetic_batch


@pytest.fixture(scope="module")
def forest_report(forest_dir, tmp_path_factory):
    messages = []
    result = build_report(forest_dir, tmp_path_factory.mktemp("out"), progress=messages.append)
    return result, messages


def test_writes_the_three_outputs(forest_report):
    result, _ = forest_report
    for path in (result.html, result.markdown, result.summary_parquet):
        assert path.is_file() and path.stat().st_size > 0
    assert result.html.name == "report.html" and result.markdown.name == "report.md"
    assert result.seconds > 0


def test_html_is_self_contained(forest_report):
    html = forest_report[0].html.read_text()
    assert html.startswith("<!DOCTYPE html>")
    images = re.findall(r'<img [^>]*src="([^"]+)"', html)
    assert len(images) >= 6  # scores, seats, matrix, variance, tiles, light, convergence
    assert all(src.startswith("data:image/png;base64,") for src in images)
    # The only links to files: each figure's SVG, written beside its PNG.
    svgs = re.findall(r'href="(figures/[^"]+\.svg)"', html)
    assert svgs and all((forest_report[0].html.parent / svg).is_file() for svg in svgs)
    assert not re.search(r'(src|href)="(https?:|//|[^"#df])', html)
    assert "<link" not in html and "<script" not in html


def test_markdown_figures_exist(forest_report):
    result, _ = forest_report
    markdown = result.markdown.read_text()
    figures = re.findall(r"\]\((figures/[^)]+\.png)\)", markdown)
    assert len(figures) >= 6
    for figure in figures:
        assert (result.markdown.parent / figure).read_bytes().startswith(b"\x89PNG")


def test_opens_with_three_findings(forest_report):
    result, _ = forest_report
    assert len(result.findings) == 3
    seat, strategy, deal = result.findings
    assert seat.startswith("Seat 1 wins") and "more often than seat 4" in seat
    assert "Seats are unfair" in seat
    assert strategy.startswith("greedy finishes ahead of random")
    assert deal.startswith("The deal decides")
    html = result.html.read_text()
    summary = html.index("Summary: the findings that matter")
    assert summary < html.index("Scores and win rates by strategy")
    for finding in result.findings:
        assert finding.replace("'", "&#x27;") in html


def test_summary_parquet_holds_the_numbers(forest_report, forest_rows):
    table = pl.read_parquet(forest_report[0].summary_parquet)
    assert dict(table.schema) == SCHEMA
    assert {"scores", "seats", "strategies", "token", "deal variance", "tile impact",
            "light tiles", "convergence"} <= set(table["section"])
    seat_0 = table.filter((pl.col("section") == "seats") & (pl.col("metric") == "win_rate")
                          & (pl.col("seat") == 0)).row(0, named=True)
    truth = forest_rows.filter(pl.col("seat") == 0)["win"].mean()
    assert seat_0["value"] == pytest.approx(truth)
    assert seat_0["ci_low"] < seat_0["value"] < seat_0["ci_high"]
    tile_5 = table.filter((pl.col("section") == "tile impact") & (pl.col("metric") == "effect")
                          & (pl.col("key") == "tile=5"))
    assert tile_5.height == 1 and tile_5["value"][0] > 0
    histogram = table.filter(pl.col("metric") == "histogram")
    assert histogram["value"].sum() == forest_rows.height


def test_progress_is_reported(forest_report):
    _, messages = forest_report
    assert messages[0] == "reading rows" and messages[-1] == "writing"
    assert "deal variance" in messages


def test_notable_drawings_are_monospace(forest_report):
    html = forest_report[0].html.read_text()
    assert "The highest-scoring game" in html and "The lowest-scoring game" in html
    assert html.count("<pre>") == 8  # two games, four seats each
    markdown = forest_report[0].markdown.read_text()
    assert markdown.count("```text") == 8


def test_summary_store_report(forest_summary_dir, tmp_path):
    result = build_report(forest_summary_dir, tmp_path)
    assert len(result.findings) == 3
    markdown = result.markdown.read_text()
    assert "need a batch run with the rows store" in markdown
    assert "Deal variance: what the deal decides" in markdown and "tiles.png" not in markdown
    sections = set(pl.read_parquet(result.summary_parquet)["section"])
    assert "tile impact" not in sections and "convergence" in sections


def test_harmonies_report_has_no_legendary_forests_wording(harmonies_dir, tmp_path):
    result = build_report(harmonies_dir, tmp_path)
    markdown = result.markdown.read_text()
    for wording in ("removed_tiles_mask", "Architect", "construction token", "Construction token",
                    "removed tile", "light tile", "Tile-set", "Needs the rows store"):
        assert wording not in markdown, wording
    assert "seat 1 plays first in every round" in markdown
    assert "Not shown: no deal was replayed" in markdown
    assert "Only one strategy played (greedy)" in markdown
    # No seat effect, one strategy, no replays: seat, then the precision fallback.
    assert result.findings[0].startswith("No seat is detectably favoured")
    assert result.findings[-1].startswith("The mean score is known to")


def _with_config(source, target, **config):
    """A copy of the batch in ``source`` whose manifest records ``config`` (a sim run config)."""
    shutil.copytree(source, target)
    manifest_path = target / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["config"] = config
    manifest_path.write_text(json.dumps(manifest))
    return target


HARMONIES_SIDE_B = {"name": "harmonies-b", "game": "harmonies", "players": 3,
                    "lineup": ["greedy", "greedy", "greedy"], "rotate": False, "games": 200,
                    "deals": 200, "replicates_per_deal": 1, "seed": 7, "shard_size": 100,
                    "output": "runs/harmonies-b", "store": "rows",
                    "rules": {"side": 1, "mountain_points": 0, "spirits": 1},
                    "data_file": None, "data_digest": "synthetic", "tags": {}}


def test_header_states_what_was_played(harmonies_dir, tmp_path):
    batch = _with_config(harmonies_dir, tmp_path / "side-b", **HARMONIES_SIDE_B)
    result = build_report(batch, tmp_path / "out")
    markdown = result.markdown.read_text()
    header = markdown[:markdown.index("## Summary")]
    assert "| Game | Harmonies (harmonies) |" in header
    assert "| Rules: side | B (1):" in header
    assert "| Rules: mountain_points | rulebook (0) (default):" in header
    assert "| Rules: spirits | true (1):" in header
    assert "| Lineup | greedy in every seat |" in header
    assert "| Players | 3 (the game allows 1 to 4) |" in header
    assert "digest synthetic" in header and "200 deals x 1 replicate per deal" in header
    assert "sim run config.toml" in header and "sim report runs/harmonies-b" in header
    toml = (tmp_path / "out" / "config.toml").read_text()
    assert 'strategies = ["greedy"]' in toml and "side = 1" in toml
    assert toml in markdown


def test_reproducing_config_loads_to_the_same_config_hash(tmp_path):
    from sim.config import load_config
    from sim.report.build import reproducing_config
    from sim.runner import new_manifest

    config_path = tmp_path / "batch.toml"
    config_path.write_text('game = "harmonies"\nplayers = 2\npool = ["greedy", "random"]\n'
                           'deals = 30\nreplicates_per_deal = 2\nseed = 5\n'
                           '[rules]\nside = "B"\n')
    original = load_config(config_path)
    written = tmp_path / "again" / "batch.toml"
    written.parent.mkdir()
    written.write_text(reproducing_config(new_manifest(original)))
    again = load_config(written)
    assert again.digest() == original.digest()


def test_legendary_forests_header_names_rules_and_pool(forest_dir, tmp_path):
    batch = _with_config(forest_dir, tmp_path / "forest", name="forest", game="legendary-forests",
                         players=4, lineup=["greedy", "random"], rotate=True, games=600,
                         deals=300, replicates_per_deal=2, seed=3, shard_size=100,
                         output="runs/forest", store="rows",
                         rules={"removed_tiles": 3, "trees_per_colour_per_player": 2},
                         data_file=None, data_digest="synthetic", tags={})
    markdown = build_report(batch, tmp_path / "out").markdown.read_text()
    assert "| Rules: removed_tiles | 3:" in markdown
    assert "| Rules: trees_per_colour_per_player | 2 (default):" in markdown
    assert "pool greedy, random, rotating through the seats" in markdown
    assert "300 deals x 2 replicates per deal" in markdown


def test_default_output_folder_is_named_after_the_batch_folder(forest_dir, tmp_path,
                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = build_report(forest_dir)
    folder = Path("reports") / forest_dir.name
    assert result.html == folder / "report.html"
    assert (tmp_path / folder / "summary.parquet").is_file()
    identity = json.loads((tmp_path / folder / "batch.json").read_text())
    assert identity["name"] == "forest" and str(tmp_path) not in json.dumps(identity)


def test_report_of_another_batch_is_not_overwritten(forest_dir, harmonies_dir, tmp_path):
    out = tmp_path / "out"
    build_report(forest_dir, out)
    before = (out / "report.html").read_bytes()
    build_report(forest_dir, out)  # the same batch again: allowed, byte for byte the same
    assert (out / "report.html").read_bytes() == before
    with pytest.raises(InputError, match="holds the report of batch 'forest'"):
        build_report(harmonies_dir, out)
    assert (out / "report.html").read_bytes() == before
    (out / "batch.json").unlink()
    with pytest.raises(InputError, match="does not say which batch"):
        build_report(forest_dir, out)


def test_html_has_a_table_of_contents(forest_report):
    html = forest_report[0].html.read_text()
    contents = html[html.index('<nav class="contents">'):html.index("</nav>")]
    headings = re.findall(r'<h([23]) id="([^"]+)">', html)
    assert len(headings) >= 8
    for _, anchor in headings:
        assert f'href="#{anchor}"' in contents
    assert html.index("</nav>") < html.index('id="summary-the-findings-that-matter"')


def test_quantile_note_and_drawing_legend(forest_report):
    markdown = forest_report[0].markdown.read_text()
    assert "the lowest score s such that at least a share q of player-games scored s or less" \
        in markdown
    assert "How to read the drawings:" in markdown


def test_missing_run_dir_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="batch folder does not exist"):
        build_report(tmp_path / "missing", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_solo_games_build(tmp_path):
    write_synthetic_batch(tmp_path / "solo", SyntheticDesign(name="solo", players=1, deals=100,
                                                             games_per_shard=50,
                                                             deal_model=ForestDeals()))
    result = build_report(tmp_path / "solo", tmp_path / "out")
    assert "a single seat, nothing to compare" in result.markdown.read_text()
    assert len(result.findings) >= 1
    assert not any(finding.startswith("Seat") for finding in result.findings)


def test_unreadable_drawings_do_not_stop_the_report(forest_dir, tmp_path):
    # Recorded with its size and hash (written so by another program), yet not Parquet.
    copy = tmp_path / "copy"
    shutil.copytree(forest_dir, copy)
    broken = b"broken"
    (copy / "notable" / "shard-000000.parquet").write_bytes(broken)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["shard_files"]["0"][1].update(bytes=len(broken),
                                           sha256=hashlib.sha256(broken).hexdigest())
    (copy / "manifest.json").write_text(json.dumps(manifest))
    result = build_report(copy, tmp_path / "out")
    assert "could not be read" in result.markdown.read_text()
    assert result.ignored_note is None


def test_a_damaged_drawings_file_leaves_its_shard_out_and_says_so(forest_dir, tmp_path):
    # A shard is finished only when all its files are whole: `sim run --resume` replays it.
    copy = tmp_path / "copy"
    shutil.copytree(forest_dir, copy)
    (copy / "notable" / "shard-000000.parquet").write_bytes(b"broken")
    result = build_report(copy, tmp_path / "out")
    assert result.ignored_note == ("ignored 1 shard file: notable/shard-000000.parquet (size "
                                   "differs from manifest.json)")
    assert "Files left out of this report" in result.markdown.read_text()


def test_two_reports_of_one_batch_are_byte_identical(forest_report, forest_dir, tmp_path):
    """Every reduction runs in a fixed order: the same batch gives the same bytes, however
    polars schedules its threads."""
    again = build_report(forest_dir, tmp_path / "again")
    first, _ = forest_report
    for name in ("summary.parquet", "report.html", "report.md"):
        assert (first.summary_parquet.parent / name).read_bytes() == \
            (again.summary_parquet.parent / name).read_bytes(), name
