"""Policy ids and parameter slots: how the compiled kernel tells the Harmonies strategies apart
(one int8 id per seat) and what each seat plays with (a row of PARAMETER_SLOTS floats)."""

import numpy as np

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_LANDSCAPE = 2
POLICY_ANIMALS = 3
POLICY_PLANNER = 4
POLICY_IDS = {
    "random": POLICY_RANDOM,
    "greedy": POLICY_GREEDY,
    "landscape": POLICY_LANDSCAPE,
    "animals": POLICY_ANIMALS,
    "planner": POLICY_PLANNER,
}

# Parameter slots of the valued strategies (see strategies.harmonies.valued).
SLOT_POTENTIAL = 0  # weight of partial landscapes
SLOT_CARDS = 1  # weight of card progress
SLOT_CHANCE = 2  # fixed chance of getting a missing token (<= 0: from the bag, planner)
SLOT_THRESHOLD = 3  # expected points a face-up card must offer to be taken
SLOT_COST = 4  # points a future token could earn elsewhere (charged to partial landscapes)
SLOT_DRAWS = 5  # planner: tokens of a colour one may hope to draw per turn left
PARAMETER_SLOTS = 6
PARAMETER_NAMES = ("potential", "cards", "chance", "threshold", "cost", "draws")

DEFAULT_PARAMETERS = {
    "random": (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    "greedy": (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    "landscape": (1.0, 0.0, 0.6, 0.0, 2.0, 0.0),
    "animals": (0.0, 1.0, 0.6, 0.0, 2.0, 0.0),
    "planner": (1.0, 2.0, 0.0, 1.0, 2.0, 1.2),
}
# Which parameters a strategy reads (the others are fixed by its design).
TUNABLE = {
    "random": (),
    "greedy": (),
    "landscape": ("potential", "chance", "cost"),
    "animals": ("cards", "chance"),
    "planner": ("potential", "cards", "threshold", "cost", "draws"),
}


def parameter_row(name: str, overrides: dict[str, float]) -> np.ndarray:
    """float64[PARAMETER_SLOTS]: the defaults of strategy ``name`` updated with ``overrides``."""
    row = np.array(DEFAULT_PARAMETERS[name], dtype=np.float64)
    for key, value in overrides.items():
        row[PARAMETER_NAMES.index(key)] = value
    return row


def default_parameter_table() -> np.ndarray:
    """float64[policies, PARAMETER_SLOTS]: the default row of every policy id."""
    table = np.zeros((len(POLICY_IDS), PARAMETER_SLOTS), dtype=np.float64)
    for name, policy in POLICY_IDS.items():
        table[policy] = DEFAULT_PARAMETERS[name]
    return table
