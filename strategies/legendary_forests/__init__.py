"""Legendary Forests strategies and their registry (name -> compiled policy id and parameters)."""

from sim.games.base import StrategyInfo
from strategies.legendary_forests.builtin import POLICY_IDS

BUILTIN_STRATEGIES: dict[str, StrategyInfo] = {
    "random": StrategyInfo(
        "random", "uniform over legal placements and legal (colour, zone) tree choices"
    ),
    "greedy": StrategyInfo(
        "greedy",
        "best immediate gain: points now, closing zones that hold trees, new full runes; "
        "trees into the zone worth most now",
    ),
}

assert set(BUILTIN_STRATEGIES) == set(POLICY_IDS)
