"""summary.md beside every batch and sweep report: the report's findings in the report's order,
image links to figures that exist, no absolute path, the same bytes on a second build."""

import os
import re

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.report.build import build_report
from sim.report.summary_page import SUMMARY_FILE
from sim.report.sweep import build_sweep_report

runner = CliRunner()

BATCH = """
name = "lf-small"
game = "legendary-forests"
players = 2
pool = ["random", "greedy"]
deals = 150
replicates_per_deal = 2
seed = 11
shard_size = 100
output = "run"
"""

SWEEP = """
name = "lf-fields"
game = "legendary-forests"
players = 2
fields = ["greedy=greedy", "mix=pool:greedy+random"]
deals = 40
replicates_per_deal = 2
seed = 5
shard_size = 40
output = "sweep"
[sweep]
trees_per_colour_per_player = [1, 2]
"""

IMAGE = re.compile(r"!\[[^\]]*\]\(([^)]+)\)")


def _play(folder, text, command):
    """Play ``text`` with ``command`` (run / sweep) from inside ``folder`` (relative paths)."""
    (folder / "config.toml").write_text(text)
    here = os.getcwd()
    os.chdir(folder)
    try:
        result = runner.invoke(app, [command, "config.toml", "--workers", "1", "--quiet"])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def batch_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("summary-batch")
    _play(folder, BATCH, "run")
    return folder / "run"


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("summary-sweep")
    _play(folder, SWEEP, "sweep")
    return folder / "sweep"


def _check_page(out_dir, page: str) -> list[str]:
    """The checks every page passes; the image targets."""
    assert str(out_dir) not in page and "/tmp" not in page
    assert not re.search(r"\]\(/", page)  # no absolute link
    targets = IMAGE.findall(page)
    # At most two figures, and the sample final position beside them when it is drawn.
    figures = [target for target in targets if target != "figures/sample-position.svg"]
    assert 1 <= len(figures) <= 2 and len(targets) - len(figures) <= 1
    for target in targets:
        assert target.startswith("figures/") and (out_dir / target).is_file(), target
    assert "Full report: [report.html](report.html); every number: " \
           "[summary.parquet](summary.parquet)" in page
    return targets


def test_batch_summary_has_the_reports_findings_figures_and_same_bytes(batch_dir, tmp_path):
    result = build_report(batch_dir, tmp_path / "one")
    page = (tmp_path / "one" / SUMMARY_FILE).read_text()
    report = result.markdown.read_text()
    assert page.startswith("# Balance report: lf-small: summary\n")
    assert "game Legendary Forests (legendary-forests); players 2; lineup pool" in page
    assert "rules: the defaults" in page
    assert "150 deals x 2 replicates" in page and "master seed 11" in page
    # The findings, numbered, in the report's order and words.
    numbered = [f"{i + 1}. {finding}" for i, finding in enumerate(result.findings)]
    assert result.findings and "\n".join(numbered) in page and "\n".join(numbered) in report
    assert _check_page(tmp_path / "one", page) == ["figures/seats.png", "figures/scores.png",
                                                   "figures/sample-position.svg"]
    assert "Reproduce: `sim run config.toml`, then `sim report runs/lf-small`" in page
    build_report(batch_dir, tmp_path / "two")
    assert (tmp_path / "two" / SUMMARY_FILE).read_bytes() == page.encode()


def test_sweep_summary_has_the_findings_across_fields_and_the_results_table(sweep_dir,
                                                                            tmp_path):
    result = build_sweep_report(sweep_dir, tmp_path / "one", point_reports=False)
    page = (tmp_path / "one" / SUMMARY_FILE).read_text()
    assert result.findings
    numbered = [f"{i + 1}. {finding}" for i, finding in enumerate(result.findings)]
    assert "\n".join(numbered) in page
    # Then the comparisons with the baseline, each with its count line.
    assert re.search(rf"{len(numbered) + 1}\. Against the baseline, .*: Of [\d,]+ metrics?:",
                     page)
    assert "## Every grid point" in page and "trees_per_colour_per_player" in page
    assert "fields.parquet" in page and "against-baseline.parquet" in page
    _check_page(tmp_path / "one", page)
    assert "Reproduce: `sim sweep sweep.toml`, then `sim report runs/sweep`" in page
    build_sweep_report(sweep_dir, tmp_path / "two", point_reports=False)
    assert (tmp_path / "two" / SUMMARY_FILE).read_bytes() == page.encode()
