"""The built-in Legendary Forests strategies, one class each. The class docstring says how it
plays; the compiled code is in ``baseline``, ``shapers``, ``planner``, ``rollout`` and ``expert``
and is
dispatched by name inside the one cached game loop (``sim/loops/legendary_forests/dispatch.py``)."""

from __future__ import annotations

from sim.games.base import StrategyParameter
from sim.games.strategy import SEARCH_PARAMETERS
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
    """Expected final score from where every zone is open and how many trees are still to come
    (``expert.py``). Each open half-rune faces an empty cell that only an unseen tile fitting all
    its touching sides can fill; the chance that one is drawn in the turns left (hypergeometric
    over the public unseen tiles) gives the zone's expected new runes (``fill`` per half-rune),
    and the chance that a tile sealing the cell (grass towards every empty neighbour) is drawn,
    plus ``unsealed`` x the chance of a fill that opens new half-runes, gives its share of the
    zone's closing chance; a half-rune no unseen tile can reach is dead. Zones without a tree are
    ranked: the r-th best counts ``hope`` x the chance of at least r own tree picks still to come
    (light tiles among the draws left), the sure pick after a light tile ``now``. Trees: what the
    tree adds, plus the other zones' ranked hope with the picks left, plus ``denial`` x the
    opponents' need of the colour before its next pick. A placement's sides that border empty
    cells change which unseen tiles can fill them, so the zones facing those cells are re-valued
    (a grass side can kill a cell); each empty cell it adds to the planet's edge costs
    ``compact`` x the share of the game left, and the r-th zone without a tree counts ``decay``
    ^ r more. As fast as a static evaluation: no playouts.

    The defaults are trial 13 of this ``sim tune-strategy`` run (README, "Tuning a strategy"),
    against ``rollout``, 4 players, 1,000 games a trial (``denial`` kept from the earlier run
    against ``planner``: ``--field planner --games 3000 --trials 40 --seed 15``)::

        sim tune-strategy expert:fill=0.564,unsealed=0.649,now=0.875,hope=1.013,compact=0.776,\
            decay=0.681 --players 4 --field rollout --games 1000 --trials 20 \
            --parameters fill,unsealed,now,hope,compact,decay --seed 15 --workers 2

    Its start was fitted offline to ``rollout``'s own judgement: 5,374 placement decisions of
    ``expert`` games against ``rollout``, every legal placement valued by its mean final score
    over 160 greedy playouts (the rollout's policy, the same sampled tile orders for every
    placement), and the parameters chosen (optuna CMA-ES) to minimise the expert's mean regret
    (best value minus the value of its pick), fitted on half the decisions and checked on the
    other half. On fresh deals trial 13 gained +3.6 points of head-to-head against ``rollout``
    over the start (+1.7 to +5.5, simultaneous 95% CI) and met the start 51.4% +- 1.3%.

    Judged by winning (``sim league``), that run's ``compact`` charge was a habit ``rollout``'s
    playouts reward and games do not: without it the same strategy wins 55.4% (52.6% to 58.1%)
    of two-strategy 4-player games against it, and the charge is off by default since
    2026-12-05 (the earlier default is ``defaults/expert-2026-12-04.toml``). A ``sim
    tune-strategy --objective wins`` run from there found no gain (README, "How strong the
    strategies are"). ``spread`` (off) plays one of the placements within ``spread`` points of
    the best at random: copies of a deterministic strategy draw the same tiles and build nearly
    the same planet (scores of two ``expert`` seats of one game correlate 0.61, of two
    ``rollout`` seats 0.23), which costs them wins at a shared table; measured, the randomness
    cost more than it gained (every trial with ``spread`` above 0.2 lost to the start).
    """

    name = "expert"
    description = ("expected final score from the fill and sealing chances of every zone's open "
                   "cells (public unseen tiles) and the tree picks still to come")
    parameters = (
        StrategyParameter("fill", 0.39884506282996085,
                          "new runes expected per open half-rune, times the chance its cell is "
                          "filled", minimum=0.0, tune_high=1.0),
        StrategyParameter("unsealed", 0.6864966769888222,
                          "closing weight of a fill that opens new half-runes (a sealing fill "
                          "counts 1)", minimum=0.0, maximum=1.0, tune_low=0.4),
        StrategyParameter("now", 0.9624840258085169,
                          "weight of the best zone without a tree when a tree pick follows the "
                          "placement", minimum=0.0, tune_low=0.5, tune_high=1.5),
        StrategyParameter("hope", 0.9101649779004779,
                          "weight of a zone without a tree per chance of a pick to come for it",
                          minimum=0.0, tune_low=0.3, tune_high=1.5),
        StrategyParameter("denial", 1.2128823777219768,
                          "weight of the opponents' need of a tree colour", minimum=0.0,
                          tune_high=2.0),
        StrategyParameter("compact", 0.0,
                          "points lost per empty cell a placement adds to the planet's edge, "
                          "times the share of the game left", minimum=0.0, tune_high=1.5),
        StrategyParameter("decay", 0.566805126985678,
                          "factor on the weight of each further zone without a tree in the "
                          "ranking", minimum=0.0, maximum=1.0, tune_low=0.5),
        StrategyParameter("spread", 0.0,
                          "placements within this many points of the best count as equal; "
                          "one of them is played at random", minimum=0.0, tune_high=2.0),
    )
    builtin = True
    strongest = True
    # No documented variant of another style: the shape charge at its old weight is the
    # previous default (defaults/expert-2026-12-04.toml); denial and a half charge play as the
    # default does (50.4% and 49.8% head to head over 2,000 games).


class SearchStrategy(Strategy):
    """The information-set Monte Carlo tree search written once for every game
    (``sim.search.ismcts``) on Legendary Forests' decision interface
    (``sim/loops/legendary_forests/decisions.py``): each playout re-deals the unseen tiles,
    selects with UCB1, plays out at random and backs up the win share."""

    name = "search"
    description = ("information-set Monte Carlo tree search: re-deals the unseen tiles each "
                   "playout, UCB1 over every seat's decisions, random playouts, the win share "
                   "backed up")
    parameters = SEARCH_PARAMETERS
    builtin = True


BUILTIN_CLASSES: tuple[type[Strategy], ...] = (
    RandomStrategy, GreedyStrategy, RuneHunterStrategy, CloserStrategy, PlannerStrategy,
    DenierStrategy, RolloutStrategy, ExpertStrategy, SearchStrategy,
)
