"""Pick Two strategies: the base class (the shared model of ``sim.games.strategy``), the
built-ins and the registry. A strategy sees the public state only: the offer and the hands.

A compiled strategy sets ``compiled_pick(params, public, seat, pair_bonus, rng) -> 0 or 1``; a
Python strategy overrides ``choose(observation) -> 0 or 1`` (``observation`` is an
``Observation``: the offer, both hands, the seat, the round, the pair bonus).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from numba import njit

from sim.games.base import StrategyParameter
from sim.games.strategy import SEARCH_PARAMETERS, StrategyRegistry
from sim.games.strategy import Strategy as SharedStrategy
from sim.rng import next_below, next_float
from tests.toy_game.rules import gain_of


@dataclass(frozen=True)
class Observation:
    """What a Python strategy is shown: public information only."""

    seat: int
    round: int
    offer: tuple[int, int]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    pair_bonus: int


class Strategy(SharedStrategy):
    """Base class of Pick Two strategies."""

    compiled_functions: ClassVar[tuple[str, ...]] = ("compiled_pick",)
    python_methods: ClassVar[tuple[str, ...]] = ("choose",)
    compiled_pick: ClassVar = None

    def choose(self, observation: Observation) -> int:
        """Python strategies: 0 or 1, the offer tile to take."""
        raise NotImplementedError(f"strategy '{self.name}' does not implement choose")


@njit(cache=True)
def random_pick(rng):
    """Either tile, uniformly."""
    return next_below(rng, 2)


@njit(cache=True)
def greedy_pick(public, seat, pair_bonus, rng, patience):
    """The tile that adds most now; ``patience`` is the chance of taking the smaller one to
    leave a pair tile to nobody (here: ties and that chance go at random)."""
    first = gain_of(public, seat, public.offer[0], pair_bonus)
    second = gain_of(public, seat, public.offer[1], pair_bonus)
    if first == second or next_float(rng) < patience:
        return next_below(rng, 2)
    return 0 if first > second else 1


class RandomStrategy(Strategy):
    """Either tile, uniformly."""

    name = "random"
    description = "either offer tile, uniformly"
    builtin = True


class GreedyStrategy(Strategy):
    """The tile that adds most to its score now (its number, plus the bonus when it completes a
    pair)."""

    name = "greedy"
    description = "the offer tile that adds most now"
    parameters = (StrategyParameter("patience", 0.0, "chance of picking at random instead",
                                    minimum=0.0, maximum=1.0),)
    builtin = True


class SearchStrategy(Strategy):
    """The information-set Monte Carlo tree search written once for every game
    (``sim.search.ismcts``), on Pick Two's decision interface (``decisions``)."""

    name = "search"
    description = ("information-set Monte Carlo tree search: re-deals the unseen tiles each "
                   "playout, UCB1 over the picks, random playouts, the win share backed up")
    parameters = SEARCH_PARAMETERS
    builtin = True


# The hand-written built-ins (what the league's tests build their toy registries from), and
# every built-in the game registers: those and the search written once for every game.
BUILTIN_CLASSES = (RandomStrategy, GreedyStrategy)
REGISTERED_CLASSES = (*BUILTIN_CLASSES, SearchStrategy)
REGISTRY = StrategyRegistry(Strategy, "tests.toy_game.user_strategies",
                            [], lambda: REGISTERED_CLASSES)
