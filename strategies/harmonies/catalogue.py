"""The built-in Harmonies strategies, one class each, with their parameters declared once (name,
default, help); a parameter a strategy reads but does not let users tune is in
``fixed_parameters``. The compiled code is in ``random_play``, ``greedy``, ``valued`` and
``expert`` and is dispatched by name inside the one cached game loop
(``sim/loops/harmonies/dispatch.py``)."""

from __future__ import annotations

from sim.games.base import StrategyParameter
from sim.games.strategy import SEARCH_PARAMETERS
from strategies.harmonies.base import Strategy

POTENTIAL = "weight of partial landscapes (trunks, growing mountains, lone yellows, buildings " \
            "short of colours) in the board value"
CARDS = "weight of held cards' progress (next cube's points x chance to finish)"
CHANCE = "chance of getting each missing token (fixed; the planner reads the bag)"
THRESHOLD = "expected points a face-up card must offer before the planner takes it"
COST = ("points a future token could earn elsewhere: charged for each token a partial "
        "landscape still needs")
DRAWS = "tokens of one colour the planner hopes to draw per turn left (its chances)"
SPACE = ("points charged for a token on an empty hex while this board is the one that will end "
         "the game (the clock)")
CLOG = "expected points a card must offer more for each open card already held"
BEAM = ("first placements of a space's tokens the expert looks ahead from, in every space (1: "
        "token by token; k: the k best first placements, each followed by the rest, the best "
        "whole move kept)")
RUSH = ("points covering an empty hex gains when 10+ points ahead (ending the game one leads) "
        "or costs when as far behind")
FADE = ("turns sooner another board (or the bag) must be due to end the game for the space "
        "charge to vanish (it falls linearly from 1 when this board is due first)")
SPIRIT = ("least points the held nature spirit's cube is worth while its bonus is smaller (the "
          "bonus scores only once the cube is placed)")
DENIAL = ("weight of the largest immediate gain the next player could make from the spaces a "
          "move leaves them (charged to the move)")
SECOND = ("weight of a second habitat for each held card with a cube after its next one (its "
          "likeliest spot on another cube hex; tokens may be shared with the first)")
THIRD = ("weight of a third habitat (the cube after that, on a third cube hex) for each held "
         "card with cubes enough; needs second > 0")
OFFER = ("1: a face-up card's second cube is valued at its likeliest spot on the board as it "
         "is (tokens already down count); 0: on empty hexes, as the planner does (no effect "
         "while later is 0)")
CHOOSE = ("share (0-1) of the space charge counted when choosing the central space; the rest "
          "only steers where the chosen space's tokens go")
RETARGET = ("share (0-1) of a plan's card value taken from each card's likeliest habitats "
            "on the board after the plan, not the targets fixed at the turn's start")
WIDE = "how many of the best central spaces are planned again with the deeper beam (0: none)"
DEEP = "first placements looked ahead from when a best space is planned again"
READY = ("weight of the best face-up card's worth on the board after a move, while a card may "
         "still be taken this turn")
DEFER = ("1: a face-up card is taken only after the tokens (0: before them when it is worth "
         "it)")
LATER = ("share (0-1) of a face-up card's later cubes (after the first) counted in what "
         "taking it is worth")
TRACK = ("weight (0-1) of the mean step of a card's remaining track, against its next cube's "
         "points, in what a held card's next cube is worth")


class RandomStrategy(Strategy):
    """Uniform among the legal choices at every decision; the only one that makes the solo
    discard."""

    name = "random"
    description = "uniform among the legal choices at every decision"
    builtin = True


class GreedyStrategy(Strategy):
    """Largest immediate score gain: the best card now, then the space and token order that
    score most at once."""

    name = "greedy"
    description = ("largest immediate score gain: best card now, then the space and token order "
                   "that score most at once")
    builtin = True


class LandscapeStrategy(Strategy):
    """Builds landscapes only, valuing partial ones; never takes an animal card."""

    name = "landscape"
    description = ("builds landscapes only (trees, mountains, fields, buildings, water), valuing "
                   "partial ones; never takes an animal card")
    parameters = (StrategyParameter("potential", 1.0, POTENTIAL),
                  StrategyParameter("chance", 0.6, CHANCE),
                  StrategyParameter("cost", 2.0, COST))
    builtin = True


class AnimalsStrategy(Strategy):
    """Takes the cards whose habitats it can most likely complete and builds towards them."""

    name = "animals"
    description = ("takes the cards whose habitats it can most likely complete and builds "
                   "towards them")
    parameters = (StrategyParameter("cards", 1.0, CARDS),
                  StrategyParameter("chance", 0.6, CHANCE))
    fixed_parameters = {"cost": 2.0}
    builtin = True


class PlannerStrategy(Strategy):
    """Values partial landscapes and card progress by the chance that the bag (public counts) and
    the time left supply the missing tokens."""

    name = "planner"
    description = ("values partial landscapes and card progress by the chance that the bag "
                   "(public counts) and the time left supply the missing tokens")
    parameters = (StrategyParameter("potential", 1.0, POTENTIAL),
                  StrategyParameter("cards", 2.0, CARDS),
                  StrategyParameter("threshold", 1.0, THRESHOLD),
                  StrategyParameter("cost", 2.0, COST),
                  StrategyParameter("draws", 1.2, DRAWS))
    builtin = True


class ExpertStrategy(Strategy):
    """The planner's board value plus the spirit of the better measured score, denial of the
    next player's best space, a space's three tokens planned as one move (the best space from
    16 first placements), each move's card value from the habitats likeliest after it, and
    habitats for held cards' later cubes; the game clock, tempo and card-slot charge are
    parameters, off by default (``strategies.harmonies.expert``; measurements and tuning runs
    in the README)."""

    name = "expert"
    description = ("planner's board value, the better spirit, denial of the next player's best "
                   "space, a space's three tokens planned as one move and judged by the card "
                   "habitats likeliest after it, habitats for held cards' later cubes; clock and "
                   "tempo as options")
    parameters = (StrategyParameter("potential", 1.60342, POTENTIAL),
                  StrategyParameter("cards", 1.82435, CARDS),
                  StrategyParameter("threshold", 1.0, THRESHOLD),
                  StrategyParameter("cost", 1.5, COST),
                  StrategyParameter("draws", 1.2, DRAWS),
                  StrategyParameter("space", 0.0, SPACE, minimum=0.0, tune_high=12.0),
                  StrategyParameter("clog", 0.0, CLOG, minimum=0.0, tune_high=3.0),
                  StrategyParameter("track", 0.0, TRACK, minimum=0.0, maximum=1.0),
                  StrategyParameter("beam", 1, BEAM, minimum=1, maximum=8, integer=True),
                  StrategyParameter("rush", 0.0, RUSH, minimum=0.0, tune_high=6.0),
                  StrategyParameter("fade", 3.2977, FADE, minimum=0.0, tune_high=6.0),
                  StrategyParameter("spirit", 12.0, SPIRIT, minimum=0.0, tune_high=20.0),
                  StrategyParameter("denial", 0.251816, DENIAL, minimum=0.0, tune_high=1.5),
                  StrategyParameter("second", 0.5, SECOND, minimum=0.0, tune_high=1.5),
                  StrategyParameter("third", 0.25, THIRD, minimum=0.0, tune_high=1.0),
                  StrategyParameter("offer", 0, OFFER, minimum=0, maximum=1, integer=True),
                  StrategyParameter("choose", 1.0, CHOOSE, minimum=0.0, maximum=1.0),
                  StrategyParameter("later", 0.0, LATER, minimum=0.0, maximum=1.0),
                  StrategyParameter("retarget", 1.0, RETARGET, minimum=0.0, maximum=1.0),
                  StrategyParameter("wide", 1, WIDE, minimum=0, maximum=5, integer=True),
                  StrategyParameter("deep", 16, DEEP, minimum=1, maximum=64, integer=True),
                  StrategyParameter("ready", 2.97904, READY, minimum=0.0, tune_high=4.0),
                  StrategyParameter("defer", 1, DEFER, minimum=0, maximum=1, integer=True))
    builtin = True
    strongest = True
    # The game clock on, at the setting measured in the README (a style that slows the game).
    variants = ("space=6,fade=3",)


class SearchStrategy(Strategy):
    """The information-set Monte Carlo tree search written once for every game
    (``sim.search.ismcts``) on Harmonies' decision interface
    (``sim/loops/harmonies/decisions.py``): every step of a turn is searched; each playout
    re-deals the bag and the deck, selects with UCB1, plays out at random and backs up the win
    share. The spirit is kept at random and it never makes the solo discard, as a compiled
    strategy."""

    name = "search"
    description = ("information-set Monte Carlo tree search over every step of a turn: "
                   "re-deals the bag and the deck each playout, UCB1, random playouts, the win "
                   "share backed up")
    # Its own two slots: only the search reads its row.
    parameters = SEARCH_PARAMETERS
    parameter_slots = ("playouts", "exploration")
    builtin = True


BUILTIN_CLASSES: tuple[type[Strategy], ...] = (
    RandomStrategy, GreedyStrategy, LandscapeStrategy, AnimalsStrategy, PlannerStrategy,
    ExpertStrategy, SearchStrategy,
)
