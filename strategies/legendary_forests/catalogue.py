"""The built-in Legendary Forests strategies, one class each. The class docstring says how it
plays; the compiled code is in ``baseline``, ``shapers``, ``planner`` and ``rollout`` and is
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
                                    "value lost per open half-rune of a zone"),)
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
        StrategyParameter("growth", 0.5, "expected new full runes per open half-rune (whole game)"),
        StrategyParameter("closing", 2.0, "closing chance scale (divided by open half-runes)"),
        StrategyParameter("hope", 0.6, "weight of a zone without a tree (hope of getting one)"),
        StrategyParameter("lookahead", 0.5, "weight of the next tree pick in the tree plan"),
    )
    builtin = True


class DenierStrategy(Strategy):
    """Places like ``greedy``; in tree phases each (colour, zone) is worth what the tree adds to
    its own planet plus ``denial`` x what that colour is worth to its opponents together, divided
    by the trees of that colour left: it takes scarce colours the others need."""

    name = "denier"
    description = "greedy placements; takes the tree colours its opponents need most"
    parameters = (StrategyParameter("denial", 1.0,
                                    "weight of the opponents' need against its own gain"),)
    builtin = True


class RolloutStrategy(Strategy):
    """Monte-Carlo: shortlists the ``candidates`` best options by the planner's static value,
    plays each out ``rollouts`` times on a copy of its planet (sampled orders of the unseen tiles,
    greedy placements, random opponent trees from the supply in token order) and plays the one
    with the best mean final score."""

    name = "rollout"
    description = "Monte-Carlo playouts of the shortlisted moves over sampled unseen-tile orders"
    parameters = (
        StrategyParameter("rollouts", 8, "playouts per shortlisted option"),
        StrategyParameter("candidates", 4, "options shortlisted by the planner's value"),
    )
    builtin = True


BUILTIN_CLASSES: tuple[type[Strategy], ...] = (
    RandomStrategy, GreedyStrategy, RuneHunterStrategy, CloserStrategy, PlannerStrategy,
    DenierStrategy, RolloutStrategy,
)
