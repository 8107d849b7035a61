"""Harmonies strategies: compiled policies, chosen per seat by an integer id.

Every strategy plays whole turns through the actions of ``sim.games.harmonies.turn`` and sees
only the public state (boards, cards, central board, card row, the bag's counts), never the bag
order or the deck order. Modules:

* ``common``       the workspace of scratch arrays and small shared queries
* ``random_play``  ``random``: uniform among legal choices
* ``greedy``       ``greedy``: largest immediate score gain
* ``valued``       ``landscape``, ``animals``, ``planner``: a board value beyond the score now
* ``dispatch``     the compiled entry points, by policy id (``ids``)

Decision points of a turn (the same for every strategy):

1. take a face-up card (if allowed), then place cubes;
2. take a central space; place its tokens one at a time, choosing which token next and where;
   cubes may be placed after each token;
3. if no card was taken and the card limit now allows one (a card was completed), take a card,
   then place cubes;
4. solo, if no card was taken: discard a face-up card or not.

Strategy parameters (``planner:cards=1.5``) are a row of floats per seat
(``ids.PARAMETER_NAMES``); each strategy reads the ones its ``StrategyInfo`` lists.
"""

from __future__ import annotations

from sim.games.base import StrategyInfo, StrategyParameter
from strategies.harmonies.ids import DEFAULT_PARAMETERS, PARAMETER_NAMES, POLICY_IDS, TUNABLE

PARAMETER_HELP = {
    "potential": "weight of partial landscapes (trunks, growing mountains, lone yellows, "
                 "buildings short of colours) in the board value",
    "cards": "weight of held cards' progress (next cube's points x chance to finish)",
    "chance": "chance of getting each missing token (fixed; the planner reads the bag)",
    "threshold": "expected points a face-up card must offer before the planner takes it",
    "cost": "points a future token could earn elsewhere: charged for each token a partial "
            "landscape still needs",
    "draws": "tokens of one colour the planner hopes to draw per turn left (its chances)",
}


def _parameters(name: str) -> tuple[StrategyParameter, ...]:
    defaults = dict(zip(PARAMETER_NAMES, DEFAULT_PARAMETERS[name], strict=True))
    return tuple(StrategyParameter(key, defaults[key], PARAMETER_HELP[key])
                 for key in TUNABLE[name])


REGISTRY: dict[str, StrategyInfo] = {
    "random": StrategyInfo("random", "uniform among the legal choices at every decision"),
    "greedy": StrategyInfo("greedy", "largest immediate score gain: best card now, then the "
                                     "space and token order that score most at once"),
    "landscape": StrategyInfo("landscape", "builds landscapes only (trees, mountains, fields, "
                                           "buildings, water), valuing partial ones; never "
                                           "takes an animal card", _parameters("landscape")),
    "animals": StrategyInfo("animals", "takes the cards whose habitats it can most likely "
                                       "complete and builds towards them", _parameters("animals")),
    "planner": StrategyInfo("planner", "values partial landscapes and card progress by the "
                                       "chance that the bag (public counts) and the time left "
                                       "supply the missing tokens", _parameters("planner")),
}
assert set(REGISTRY) == set(POLICY_IDS)
