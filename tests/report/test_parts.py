"""The report's pieces: long table, renderers, plots and the findings rule."""

import polars as pl
import pytest

from sim.report import plots
from sim.report.document import Figure, Monospace, Paragraph, Table, render_html, render_markdown
from sim.report.findings import choose_findings, format_p_value, percent_range
from sim.report.summary_table import SCHEMA, long_rows
from sim.stats.analysis import analyse_batch
from sim.stats.batch import open_batch


def test_long_rows_melts_metrics_with_intervals():
    frame = pl.DataFrame({"players": [4, 4], "seat": [0, 1], "tile": [3, 4],
                          "effect": [1.0, -2.0], "effect_low": [0.5, -3.0],
                          "effect_high": [1.5, -1.0], "deals": [10, 12]})
    table = long_rows("tiles", frame, ["effect", "deals", "absent"], ["tile"])
    assert dict(table.schema) == SCHEMA
    assert table.height == 4
    effect = table.filter(pl.col("metric") == "effect").row(1, named=True)
    assert effect == {"section": "tiles", "metric": "effect", "players": 4, "rules": None,
                      "strategy": None, "seat": 1, "key": "tile=4", "value": -2.0,
                      "ci_low": -3.0, "ci_high": -1.0}
    assert table.filter(pl.col("metric") == "deals")["ci_low"].is_null().all()
    assert long_rows("empty", None, ["x"]).is_empty()


def test_renderers_escape_text():
    blocks = [Paragraph("a < b & c"), Table(("x|y",), (("<i>",),)),
              Monospace("seat 0", " .P.\nY07^R"), Figure("f", b"\x89PNG", "cap")]
    html = render_html("T", blocks)
    assert "a &lt; b &amp; c" in html and "&lt;i&gt;" in html and "<i>" not in html
    assert '<div class="drawings">\n<figure><figcaption>seat 0</figcaption><pre> .P.\nY07^R</pre>' \
        '</figure>\n</div>' in html
    assert 'src="data:image/png;base64,iVBORw=="' in html
    markdown = render_markdown("T", blocks, "figures")
    assert "| x\\|y |" in markdown and "![cap](figures/f.png)" in markdown
    assert "```text\n .P.\nY07^R\n```" in markdown


def test_formatting_helpers():
    assert format_p_value(0.0) == "p < 1e-300"
    assert format_p_value(0.0123) == "p = 0.012"
    assert percent_range(0.26, 0.31) == "26–31%"
    assert percent_range(0.261, 0.263) == "26.1–26.3%"


@pytest.fixture(scope="module")
def forest_analysis(forest_dir):
    return analyse_batch(open_batch(forest_dir))


def test_every_plot_draws_a_png(forest_analysis):
    analysis = forest_analysis
    players, rules = analysis.main_panel()
    drawn = [
        plots.score_distributions(analysis.pooled_histogram),
        plots.seat_win_rates(analysis.seats, analysis.seat_tests),
        plots.win_matrix(analysis.head_to_head, players, rules),
        plots.tile_impact(analysis.removed_items, players, rules),
        plots.variance_decomposition(analysis.deal_variance, players, rules),
        plots.light_tiles(analysis.count_table, analysis.role_table, players, rules),
        plots.convergence(analysis.running, players, rules),
    ]
    for png in drawn:
        assert png is not None and png.startswith(b"\x89PNG")
    assert plots.win_matrix(None, players, rules) is None
    assert plots.tile_impact(analysis.removed_items, players + 1, rules) is None


def test_findings_follow_the_rule_in_order(forest_analysis):
    findings = choose_findings(forest_analysis, count=8)
    starts = ["Seat 1 wins", "greedy finishes ahead", "The deal decides", "Skill, for this field",
              "Removing tile 5", "Each extra light tile", "Holding the construction token",
              "The mean score is"]
    assert len(findings) == 8
    for finding, start in zip(findings, starts, strict=True):
        assert finding.startswith(start)


def test_convergence_band_limits_show_the_whole_band_within_bounds():
    import matplotlib.pyplot as plt
    import numpy as np

    from sim.report.plots import _fit_band

    figure, axis = plt.subplots()
    low, high = np.array([-50.0, 20.0, 40.0]), np.array([150.0, 70.0, 45.0])
    _fit_band(axis, np.clip(low, 0, 100), np.clip(high, 0, 100), np.array([50.0, 45.0, 42.0]),
              (0.0, 100.0))
    assert axis.get_ylim() == (0.0, 100.0)
    _fit_band(axis, np.array([np.nan, 10.0, 55.0]), np.array([np.inf, 90.0, 65.0]),
              np.array([50.0, 50.0, 60.0]))
    bottom, top = axis.get_ylim()
    assert bottom < 10.0 and top > 90.0 and np.isfinite(top)
    plt.close(figure)


def test_a_tight_half_width_is_never_shown_as_zero():
    from sim.report.numbers import shown_half

    assert shown_half(0.004, 2) == "0.004"
    assert shown_half(0.26, 1) == "0.3"
    assert shown_half(0.0, 2) == "0.00"
    assert shown_half(3e-9, 1) == "0.00000"  # at most 4 more decimals
