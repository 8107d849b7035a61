"""The built-in Legendary Forests strategies, one class each. The class docstring says how it
plays; the compiled code is in ``baseline``, ``shapers``, ``planner``, ``rollout`` and ``expert``
and is
dispatched by name inside the one cached game loop (``sim/loops/legendary_forests/dispatch.py``)."""

from __future__ import annotations

from sim.games.base import StrategyParameter
from strategies.legendary_forests.base import Strategy


class RandomStrategy(Strategy):
    """Uniform over the legal placements (one per distinct-looking rotation) and over the legal
    (colour, zone) tree choices. The floor every other strategy must beat."""

    name = "random"
    description = "uniform over legal placements and legal (colour, zone) tree choices"
    builtin = True


class GreedyStrategy(Strategy):
    """Immediate gain: the placement that scores most now (zones with trees growing or
    closing), then closes a zone with a tree, then makes full runes; the tree goes to the zone
    worth most now. Never looks ahead."""

    name = "greedy"
    description = ("best immediate gain: points now, closing zones that hold trees, new full "
                   "runes; trees into the zone worth most now")
    builtin = True


class RuneHunterStrategy(Strategy):
    """Maximises full runes: the placement that makes most full runes, then leaves the biggest
    zone; trees into the zone with most full runes that has none yet. Ignores closure, so its
    zones stay open and score single."""

    name = "rune-hunter"
    description = "most full runes per placement, trees into the biggest zone; ignores closure"
    builtin = True


class CloserStrategy(Strategy):
    """Closes zones: a zone that holds (or will hold) a tree is worth 2 x runes once closed and
    loses ``open_penalty`` per open half-rune before; trees go to the zone worth most once closed,
    discounted by how far it is from closing."""

    name = "closer"
    description = ("closes zones that hold or will hold trees; trees into the zone worth most "
                   "once closed")
    parameters = (StrategyParameter("open_penalty", 0.3,
                                    "value lost per open half-rune of a zone", minimum=0.0),)
    builtin = True


class PlannerStrategy(Strategy):
    """Expected final score: each zone is worth the points it is expected to end with (growth and
    closing chances from the turns the unseen tiles leave) times the hope of a tree (from the
    tree phases the unseen light tiles promise and the supply). Trees follow a two-pick plan: what
    the tree adds now plus the best tree left for its next pick, where a colour counts as still
    there only if the supply outlasts the opponents' expected picks in token order."""

    name = "planner"
    description = ("expected final score from the unseen tiles; tree colours planned against "
                   "the supply and the token order")
    parameters = (
        StrategyParameter("growth", 0.5, "expected new full runes per open half-rune (whole game)",
                          minimum=0.0),
        StrategyParameter("closing", 2.0, "closing chance scale (divided by open half-runes)",
                          minimum=0.0),
        StrategyParameter("hope", 0.6, "weight of a zone without a tree (hope of getting one)",
                          minimum=0.0, maximum=1.0),
        StrategyParameter("lookahead", 0.5, "weight of the next tree pick in the tree plan",
                          minimum=0.0),
    )
    builtin = True


class DenierStrategy(Strategy):
    """Places like ``greedy``; in tree phases each (colour, zone) is worth what the tree adds to
    its own planet plus ``denial`` x what that colour is worth to its opponents together, divided
    by the trees of that colour left: it takes scarce colours the others need."""

    name = "denier"
    description = "greedy placements; takes the tree colours its opponents need most"
    parameters = (StrategyParameter("denial", 1.0,
                                    "weight of the opponents' need against its own gain",
                                    minimum=0.0),)
    builtin = True


class RolloutStrategy(Strategy):
    """Monte-Carlo: shortlists the ``candidates`` best options by the planner's static value,
    plays each out ``rollouts`` times on a copy of its planet (sampled orders of the unseen tiles,
    greedy placements, random opponent trees from the supply in token order) and plays the one
    with the best mean final score."""

    name = "rollout"
    description = "Monte-Carlo playouts of the shortlisted moves over sampled unseen-tile orders"
    parameters = (
        StrategyParameter("rollouts", 8, "playouts per shortlisted option", minimum=0,
                          integer=True, tune_low=1, tune_high=16),
        StrategyParameter("candidates", 4, "options shortlisted by the planner's value",
                          minimum=1, integer=True, tune_low=1, tune_high=8),
    )
    builtin = True


class ExpertStrategy(Strategy):
    """Expected final score with the open cells of every zone looked at (``expert.py``): each
    open half-rune faces an empty cell that only an unseen tile fitting all its touching sides
    can fill; the chance that one of them is drawn in the turns left (hypergeometric over the
    public unseen tiles) gives each zone its expected new runes (``fill`` per half-rune) and its
    chance to close (the product over its cells, times ``cap`` per open half-rune); a half-rune
    no unseen tile can reach is dead, and its zone stays open. Zones without a tree count with
    the hope of one (``hope``, whole from ``phases`` tree phases left, scaled by the colour's
    supply). Trees: what the tree adds now, plus ``lookahead`` x the best tree left for the next
    pick against the opponents' expected picks in token order, plus ``denial`` x the opponents'
    need of the colour. As fast as a static evaluation: no playouts.

    The defaults are trial 12 of this ``sim tune-strategy`` run (README, "Tuning a strategy";
    it starts from the hand-set values, against ``planner``, 4 players, 2,000 games a trial)::

        sim tune-strategy expert:fill=0.327,cap=1.035,hope=0.634,phases=1.859,lookahead=0.251,\
            denial=0.683 --players 4 --field planner --games 2000 --trials 40 --seed 15

    On fresh deals they gained +1.5 points of head-to-head against ``planner`` over the start
    (+0.7 to +2.2, simultaneous 95% CI) and beat the start 51.2% +- 0.7% head to head.
    """

    name = "expert"
    description = ("expected final score from the fill and closing chances of every zone's open "
                   "cells (public unseen tiles); planned tree picks")
    parameters = (
        StrategyParameter("fill", 0.15649604025385389,
                          "new runes expected per open half-rune, times the chance its cell is "
                          "filled", minimum=0.0, tune_high=1.0),
        StrategyParameter("cap", 1.0619531985455506, "closing chance factor per open half-rune",
                          minimum=0.0, tune_low=0.5, tune_high=1.5),
        StrategyParameter("hope", 0.4719352636947364,
                          "weight of a zone without a tree (hope of one)", minimum=0.0,
                          maximum=1.0, tune_low=0.3),
        StrategyParameter("phases", 0.9234814670867266,
                          "expected tree phases left at which hope is whole", minimum=0.0,
                          tune_low=0.5, tune_high=4.0),
        StrategyParameter("lookahead", 0.02736258122711477,
                          "weight of the next tree pick in the tree plan", minimum=0.0,
                          tune_high=1.0),
        StrategyParameter("denial", 0.9550648229151465,
                          "weight of the opponents' need of a tree colour", minimum=0.0,
                          tune_high=2.0),
    )
    builtin = True


BUILTIN_CLASSES: tuple[type[Strategy], ...] = (
    RandomStrategy, GreedyStrategy, RuneHunterStrategy, CloserStrategy, PlannerStrategy,
    DenierStrategy, RolloutStrategy, ExpertStrategy,
)
