"""The fairness margin is declared once (sim.stats.margins) and every reader agrees with it."""

import pytest

from sim.cli.options import sweep_fair_margin
from sim.stats import margins
from sim.stats.seats import FAIR_MARGIN
from sim.sweep import AdaptiveRule


def test_points_become_a_proportion_and_none_is_the_default():
    assert margins.margin_from_points(None) == margins.FAIR_MARGIN == FAIR_MARGIN == 0.02
    assert margins.margin_from_points(2.5) == pytest.approx(0.025)
    assert margins.FAIR_MARGIN_POINTS == pytest.approx(2.0)


def test_a_sweep_without_a_margin_is_judged_with_the_default():
    assert sweep_fair_margin(None, None) == margins.FAIR_MARGIN
    assert sweep_fair_margin(3.0, {"metric": "seat_verdict", "fair_margin": 0.05}) == 0.03
    assert sweep_fair_margin(None, {"metric": "seat_verdict", "fair_margin": 0.05}) == 0.05
    assert AdaptiveRule.__dataclass_fields__["fair_margin"].default == margins.FAIR_MARGIN
