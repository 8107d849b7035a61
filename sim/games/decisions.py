"""The decision interface every game implements in compiled code: what a generic strategy (the
information-set tree search of ``sim.search.ismcts``) needs to play a game it was not written
for, in the spirit of OpenSpiel's ``legal_actions`` / ``apply_action`` and pgx's
``legal_action_mask`` / ``step``.

A game implements it in its own rooms (``sim/loops/<game>/decisions.py``) on a **search state**:
a tuple of arrays holding one position of the game, public and hidden parts together (the
draw order, the bag, the deck), plus the registers that say whose decision comes next. A
**context** (a tuple or array the game chooses: tile arrays, engine tables, rules numbers)
holds what never changes during a game. A decision is an integer **decision code** (int64,
>= 0); the game documents what its codes mean. A turn made of several choices may be one code
or a sequence of decision steps, each a decision of its own.

The compiled functions (numba, callable from compiled code; ``DecisionFunctions`` bundles
them):

* ``copy_state(context, source, target)``: copy a search state into another one of the same
  shapes (the search's scratch).
* ``determinise(context, state, observer, rng)``: re-deal everything seat ``observer`` cannot
  see (the draw order, the bag, the deck, other seats' face-down cards) from the generator
  ``rng`` (``sim.rng``), as a uniformly random arrangement consistent with what that seat has
  seen. It changes nothing public and only permutes hidden items (the same multiset).
* ``is_over(context, state) -> bool``: the game has ended.
* ``to_move(context, state) -> int``: the seat whose decision comes next (the game is not
  over).
* ``decision_capacity(context, state) -> int``: the most decisions a seat can ever have at
  once in games of this state's shapes (the size of the code buffer).
* ``legal_decisions(context, state, out) -> int``: writes the legal decision codes of the seat
  to move into ``out`` (int64[decision_capacity]) and returns how many (at least 1: a game skips a
  seat with nothing to decide itself, as its rules say). The codes of the seat to move depend
  only on what that seat can see.
* ``apply_decision(context, state, code)``: the seat to move makes decision ``code`` (one of the
  listed ones); the state then runs on through everything nobody decides (reveals, draws,
  refills, forced discards, end-of-round steps) to the next decision or the end of the game.
* ``final_results(context, state, scores, wins)``: the finished game's points per seat into
  ``scores`` (float64[players]) and each seat's share of the win into ``wins`` (float64[players]:
  1 / k for each of the k seats tied on top by the game's own ranking and tie-breaks, summing
  to 1), exactly as the game's results record them.

Python-level members of ``DecisionFunctions`` (used by the contract check and the tests, never
by compiled code): ``score_scale`` (a
typical high score: a one-seat game's reward is its score over this, clipped to [0, 1]),
``public_arrays(state, observer)`` (every array of the state that seat ``observer`` sees),
``hidden_items(context, state, observer)`` (the hidden items as one int array whose multiset
``determinise`` keeps), ``new_game(data, players, rules, seed) -> (context, state)`` (a game
dealt from ``seed`` and run on to its first decision) and ``reference_scores(data, players,
rules, context, state)`` (the finished game's points per seat by the game's own scorer,
independently of ``final_results``: a position file's from-scratch scorer, or the loop's
results).

A game's decisions module defines each function under its member's name and bundles them with
``decision_functions(name, globals(), score_scale)``.

``check_decisions`` plays a random game through the interface from Python and checks the
contract; ``tests/test_decisions.py`` runs it for every game that has the interface.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping

import numpy as np

DecisionFunctions = namedtuple(
    "DecisionFunctions",
    ["name", "copy_state", "determinise", "is_over", "to_move", "decision_capacity",
     "legal_decisions", "apply_decision", "final_results", "score_scale", "public_arrays",
     "hidden_items", "new_game", "reference_scores"],
)
# The members a game's decisions module defines as functions under these very names.
FUNCTION_MEMBERS = tuple(field for field in DecisionFunctions._fields
                         if field not in ("name", "score_scale"))


def decision_functions(name: str, namespace: Mapping[str, object],
                       score_scale: float) -> DecisionFunctions:
    """A game's ``DecisionFunctions``, each function member taken from ``namespace`` (the game's
    decisions module, ``globals()``) under its own name: ``DECISIONS = decision_functions(
    "my-game", globals(), SCORE_SCALE)``. Raises TypeError naming any member it lacks."""
    missing = [member for member in FUNCTION_MEMBERS if member not in namespace]
    if missing:
        raise TypeError(f"decisions of '{name}': no function named {', '.join(missing)}")
    return DecisionFunctions(name=name, score_scale=score_scale,
                             **{member: namespace[member] for member in FUNCTION_MEMBERS})


def rng_state(seed: int) -> np.ndarray:
    """A ``sim.rng`` generator state (uint64[4]) seeded from ``seed``, stream 0."""
    from sim.rng import seed_state

    state = np.zeros(4, dtype=np.uint64)
    seed_state(state, np.uint64(seed), 0)
    return state


def play_random_decisions(functions: DecisionFunctions, context, state, generator,
                          stop_after: int | None = None, on_decision: Callable | None = None
                          ) -> int:
    """Play uniformly random legal decisions on ``state`` from Python (``generator``: a numpy
    Generator) until the game is over, or after ``stop_after`` decisions; returns how many were
    made. ``on_decision(seat, legal codes, code)`` sees each one before it is applied."""
    buffer = np.zeros(int(functions.decision_capacity(context, state)), dtype=np.int64)
    made = 0
    while not functions.is_over(context, state) and (stop_after is None or made < stop_after):
        count = int(functions.legal_decisions(context, state, buffer))
        if count < 1:
            raise AssertionError(f"{functions.name}: no legal decision in a game not over")
        codes = buffer[:count].copy()
        if len(set(codes.tolist())) != count or (codes < 0).any():
            raise AssertionError(f"{functions.name}: legal codes repeat or are negative: {codes}")
        code = int(codes[generator.integers(count)])
        if on_decision is not None:
            on_decision(int(functions.to_move(context, state)), codes, code)
        functions.apply_decision(context, state, code)
        made += 1
    return made


def final_results(functions: DecisionFunctions, context, state, players: int):
    """(scores, wins) of a finished game, as float64 arrays."""
    scores = np.zeros(players, dtype=np.float64)
    wins = np.zeros(players, dtype=np.float64)
    functions.final_results(context, state, scores, wins)
    return scores, wins


def check_determinisation(functions: DecisionFunctions, context, state, copy, observer: int,
                          rng: np.ndarray) -> None:
    """``determinise`` on ``copy`` (a fresh copy of ``state``) keeps every array ``observer``
    sees and the multiset of hidden items; raises AssertionError otherwise."""
    functions.copy_state(context, state, copy)
    functions.determinise(context, copy, observer, rng)
    for before, after in zip(functions.public_arrays(state, observer),
                             functions.public_arrays(copy, observer), strict=True):
        np.testing.assert_array_equal(before, after, err_msg=f"{functions.name}: determinise "
                                      f"changed public information")
    hidden_before = np.sort(functions.hidden_items(context, state, observer))
    hidden_after = np.sort(functions.hidden_items(context, copy, observer))
    np.testing.assert_array_equal(hidden_before, hidden_after,
                                  err_msg=f"{functions.name}: determinise changed the hidden "
                                  f"items, not only their order")


def check_decisions(functions: DecisionFunctions, data, players: int, rules: dict,
                    seed: int, probes: int = 4) -> int:
    """Play one game of uniformly random legal decisions through the interface (dealt from
    ``seed``) and check the contract on the way: every listed decision applies, the game ends,
    ``determinise`` keeps public arrays and the hidden multiset at ``probes`` positions, a copy
    plays on as the original does, and the final scores equal the game's own scorer with the
    win shared among the seats on top. Returns the decisions made; AssertionError otherwise."""
    import numpy as np

    generator = np.random.default_rng(seed)
    context, state = functions.new_game(data, players, rules, seed)
    _, copy = functions.new_game(data, players, rules, seed + 1)
    total = 0
    for probe in range(probes):
        if functions.is_over(context, state):
            break
        observer = int(functions.to_move(context, state))
        check_determinisation(functions, context, state, copy, observer, rng_state(seed + probe))
        # A copy is the same position: the same decisions from it give the same game.
        functions.copy_state(context, state, copy)
        twin = np.random.default_rng([seed, probe])
        made = play_random_decisions(functions, context, copy, twin, stop_after=5)
        twin = np.random.default_rng([seed, probe])
        play_random_decisions(functions, context, state, twin, stop_after=made)
        for mine, theirs in zip(functions.public_arrays(state, observer),
                                functions.public_arrays(copy, observer), strict=True):
            np.testing.assert_array_equal(mine, theirs, err_msg=f"{functions.name}: a copy "
                                          f"played on differently")
        total += made
        total += play_random_decisions(functions, context, state, generator,
                                       stop_after=int(generator.integers(1, 30)))
    total += play_random_decisions(functions, context, state, generator)
    scores, wins = final_results(functions, context, state, players)
    reference = np.asarray(functions.reference_scores(data, players, rules, context,
                                                           state), dtype=np.float64)
    np.testing.assert_array_equal(scores, reference, err_msg=f"{functions.name}: final scores "
                                  f"differ from the game's own scorer")
    # The win goes to seats on top by points (a game's tie-break may split them further).
    assert abs(wins.sum() - 1.0) < 1e-12 and (wins >= 0).all(), f"{functions.name}: {wins}"
    assert (wins[scores < scores.max()] == 0).all(), f"{functions.name}: {wins} for {scores}"
    return total
