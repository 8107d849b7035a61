"""Policy ids and parameter slots: how compiled code tells the Legendary Forests strategies
apart (one int8 id per seat) and how many float parameters each seat's row holds (a strategy's
parameters fill its row in the order it declares them). Every game keeps these in
``strategies/<game>/ids.py``; defaults and descriptions are declared once, on the strategy
classes of ``catalogue``."""

RANDOM = 0
GREEDY = 1
RUNE_HUNTER = 2
CLOSER = 3
PLANNER = 4
DENIER = 5
ROLLOUT = 6
EXPERT = 7
SEARCH = 8  # the search written once for every game (sim.search.ismcts)
POLICY_IDS = {"random": RANDOM, "greedy": GREEDY, "rune-hunter": RUNE_HUNTER, "closer": CLOSER,
              "planner": PLANNER, "denier": DENIER, "rollout": ROLLOUT, "expert": EXPERT,
              "search": SEARCH}
POLICY_COUNT = len(POLICY_IDS)
PARAMETER_SLOTS = 8  # float parameters a strategy may read, per seat
