"""Policy ids and parameter slots (every game keeps them in ``strategies/<game>/ids.py``): how
compiled code tells the Harmonies strategies apart (one int8 id per seat; the valued strategies
also read it to pick their variant) and what each seat plays with (a row of PARAMETER_SLOTS
floats, one slot per name of PARAMETER_NAMES). Defaults and descriptions are declared once, on
the strategy classes of ``catalogue``."""

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_LANDSCAPE = 2
POLICY_ANIMALS = 3
POLICY_PLANNER = 4
POLICY_EXPERT = 5
POLICY_SEARCH = 6  # the search written once for every game (sim.search.ismcts)
POLICY_IDS = {
    "random": POLICY_RANDOM,
    "greedy": POLICY_GREEDY,
    "landscape": POLICY_LANDSCAPE,
    "animals": POLICY_ANIMALS,
    "planner": POLICY_PLANNER,
    "expert": POLICY_EXPERT,
    "search": POLICY_SEARCH,
}

# Parameter slots of the valued strategies (see strategies.harmonies.valued).
SLOT_POTENTIAL = 0  # weight of partial landscapes
SLOT_CARDS = 1  # weight of card progress
SLOT_CHANCE = 2  # fixed chance of getting a missing token (<= 0: from the bag, planner)
SLOT_THRESHOLD = 3  # expected points a face-up card must offer to be taken
SLOT_COST = 4  # points a future token could earn elsewhere (charged to partial landscapes)
SLOT_DRAWS = 5  # planner: tokens of a colour one may hope to draw per turn left
SLOT_SPACE = 6  # expert: points charged for covering an empty hex (the game clock)
SLOT_CLOG = 7  # expert: points a card must offer more for each open card held
SLOT_TRACK = 8  # expert: weight of the mean step of a card's remaining track in a cube's value
SLOT_BEAM = 9  # expert: first placements looked ahead from (1: token by token)
SLOT_RUSH = 10  # expert: points an empty hex gains (ahead) or costs (behind) at a full lead
SLOT_FADE = 11  # expert: turns sooner another end must come for the space charge to vanish
SLOT_SPIRIT = 12  # expert: least points a held spirit's cube is worth before its bonus shows
SLOT_DENIAL = 13  # expert: weight of the next player's best gain among the spaces left
SLOT_SECOND = 14  # expert: weight of the habitat for a held card's cube after its next one
SLOT_THIRD = 15  # expert: weight of the habitat for the cube after that (a third cube hex)
SLOT_OFFER = 16  # expert: 1 = a face-up card's second cube valued on the board as it is
SLOT_CHOOSE = 17  # expert: share of the space charge counted in choosing the central space
SLOT_LATER = 18  # expert: share of a face-up card's later cubes counted in its worth
SLOT_RETARGET = 19  # expert: share of a plan's card value from targets chosen after it
SLOT_WIDE = 20  # expert: best spaces planned again with the deeper beam (0: none)
SLOT_DEEP = 21  # expert: first placements looked ahead from in those spaces
SLOT_READY = 22  # expert: weight of the best face-up card's worth after a move
SLOT_DEFER = 23  # expert: 1 = a card only after the tokens
PARAMETER_SLOTS = 24
PARAMETER_NAMES = ("potential", "cards", "chance", "threshold", "cost", "draws", "space", "clog",
                   "track", "beam", "rush", "fade", "spirit", "denial",
                   "second", "third", "offer", "choose", "later", "retarget", "wide", "deep",
                   "ready", "defer")
