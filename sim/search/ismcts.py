"""``search``: single-observer information-set Monte Carlo tree search (ISMCTS; Cowling,
Powley and Whitehouse 2012), written once for every game that implements the decision interface
of ``sim.games.decisions``. It names no game: each game's loop specialises it
(``specialise``) to its compiled decision functions and registers it as its strategy
``search``.

The searching seat (the observer) is handed the position as it sees it. Each of ``playouts``
iterations:

1. copies that position and **determinises** it with a generator of its own (seeded from the
   seat's generator and the iteration number): everything the seat cannot see (the draw order,
   the bag, the deck) is re-dealt at random, consistent with what it has seen;
2. **selects** down the tree with UCB1 among the children whose decision is legal in this
   determinisation, counting each such child as available (a child's exploration term uses its
   availability count, not its parent's visits, since a decision is not legal in every
   determinisation);
3. **expands** one legal decision not yet in the tree, chosen uniformly;
4. **plays out** uniformly random legal decisions to the end of the game;
5. **backs up** the result: every node on the path is credited with the result of the seat that
   made its decision, so each seat's decisions in the tree are chosen for that seat.

The result of a seat is its share of the win as the game ranks it (1 alone on top, 1/k tied
with k - 1 others, 0 otherwise): the quantity the tournaments and the league judge strategies
by, bounded in [0, 1] so that one exploration constant suits every game; a margin of points
would make the constant depend on each game's scale. A one-seat game has no win to share, so
there the result is the score over the game's ``score_scale``, clipped to [0, 1].

The decision played is the root child visited most (ties: the better mean result, then the one
expanded first). The whole search is a pure function of the position and the seat's generator,
so a game stays a pure function of its seeds.

numba cannot hand a "game object" to compiled code, and a compiled function passed as an
argument is specialised per function and cannot be cached. ``specialise`` therefore re-binds
the code below to one game's compiled decision functions (as ``sim.jit.rebind`` does for the
loops' dispatchers), under a name of the game's own, so that each game's search is compiled
once and cached on disk.
"""

from __future__ import annotations

import math

import numpy as np

from sim.jit import compiled, inlined, rebind
from sim.rng import next_below, next_u64, seed_state

DEFAULT_PLAYOUTS = 100
DEFAULT_EXPLORATION = 0.7  # about 1 / sqrt(2), the UCB1 constant for results in [0, 1]


def _unbound(*args):
    """What the template's game functions are until ``specialise`` re-binds them."""
    raise NotImplementedError("sim.search.ismcts: call specialise(decision functions) first")


# The game's decision functions, as the template below names them (re-bound by ``specialise``).
copy_state = determinise = is_over = to_move = decision_capacity = legal_decisions = \
    apply_decision = final_results = _unbound
SCORE_SCALE = 1.0


@inlined
def position_of(codes, count, code):
    """Index of ``code`` among the first ``count`` of ``codes``, or -1."""
    for index in range(count):
        if codes[index] == code:
            return index
    return -1


@inlined
def seat_result(scores, wins, seat, players, score_scale):
    """What a finished game is worth to ``seat``: its share of the win, or, alone at the
    table, its score over ``score_scale`` clipped to [0, 1]."""
    if players > 1:
        return wins[seat]
    return min(1.0, max(0.0, scores[seat] / score_scale))


def random_playout(context, state, legal, rng):
    """Uniformly random legal decisions until the game is over (``legal``: the code buffer)."""
    while not is_over(context, state):
        count = legal_decisions(context, state, legal)
        apply_decision(context, state, legal[next_below(rng, count)])


def search(context, root, state, observer, rng, playouts, exploration, players):
    """The decision code ``observer`` plays in ``root`` (a search state whose hidden parts are
    ignored: every iteration re-deals them), after ``playouts`` iterations with UCB1
    exploration constant ``exploration``; ``state`` is a scratch search state of ``root``'s
    shapes; ``rng`` is the seat's generator (advanced by one draw)."""
    playouts = max(1, playouts)
    nodes = playouts + 1
    first_child = np.full(nodes, -1, dtype=np.int64)
    next_sibling = np.full(nodes, -1, dtype=np.int64)
    node_code = np.zeros(nodes, dtype=np.int64)
    node_mover = np.zeros(nodes, dtype=np.int64)
    visits = np.zeros(nodes, dtype=np.float64)
    available = np.zeros(nodes, dtype=np.float64)
    total = np.zeros(nodes, dtype=np.float64)
    path = np.zeros(nodes + 1, dtype=np.int64)
    capacity = decision_capacity(context, root)
    legal = np.zeros(capacity, dtype=np.int64)
    root_legal = np.zeros(capacity, dtype=np.int64)
    in_tree = np.zeros(capacity, dtype=np.bool_)
    untried = np.zeros(capacity, dtype=np.int64)
    scores = np.zeros(players, dtype=np.float64)
    wins = np.zeros(players, dtype=np.float64)
    local = np.zeros(4, dtype=np.uint64)
    base = next_u64(rng)
    # The seat's own legal decisions depend only on what it sees (the interface's contract), so
    # one determinisation lists them.
    seed_state(local, base, playouts)
    copy_state(context, root, state)
    determinise(context, state, observer, local)
    root_count = legal_decisions(context, state, root_legal)
    if root_count == 1:
        return root_legal[0]
    used = 1
    for iteration in range(playouts):
        seed_state(local, base, iteration)
        copy_state(context, root, state)
        determinise(context, state, observer, local)
        node = 0
        depth = 0
        while not is_over(context, state):
            count = legal_decisions(context, state, legal)
            seat = to_move(context, state)
            for index in range(count):
                in_tree[index] = False
            best = -1
            best_value = -np.inf
            child = first_child[node]
            while child >= 0:
                index = position_of(legal, count, node_code[child])
                if index >= 0:
                    in_tree[index] = True
                    available[child] += 1.0
                    value = total[child] / visits[child] + exploration * math.sqrt(
                        math.log(available[child]) / visits[child])
                    if value > best_value:
                        best_value = value
                        best = child
                child = next_sibling[child]
            untried_count = 0
            for index in range(count):
                if not in_tree[index]:
                    untried[untried_count] = legal[index]
                    untried_count += 1
            if untried_count > 0 and used < nodes:
                code = untried[next_below(local, untried_count)]
                new = used
                used += 1
                node_code[new] = code
                node_mover[new] = seat
                available[new] = 1.0
                next_sibling[new] = first_child[node]
                first_child[node] = new
                apply_decision(context, state, code)
                depth += 1
                path[depth] = new
                break
            if best < 0:
                break  # the tree is full: play out from here
            apply_decision(context, state, node_code[best])
            node = best
            depth += 1
            path[depth] = node
        random_playout(context, state, legal, local)
        final_results(context, state, scores, wins)
        for step in range(1, depth + 1):
            node = path[step]
            visits[node] += 1.0
            total[node] += seat_result(scores, wins, node_mover[node], players, SCORE_SCALE)
    chosen = -1
    child = first_child[0]
    while child >= 0:
        if position_of(root_legal, root_count, node_code[child]) >= 0:
            if chosen < 0 or visits[child] > visits[chosen] or (
                    visits[child] == visits[chosen]
                    and total[child] / visits[child] > total[chosen] / visits[chosen]):
                chosen = child
        child = next_sibling[child]
    if chosen < 0:
        return root_legal[0]
    return node_code[chosen]


def _bound(template, overrides: dict, name: str):
    """``template`` re-bound to ``overrides`` and compiled under a name of its own (numba names
    a function's cache files by its qualified name)."""
    bound = rebind(template, f"{template.__name__}__{name}", overrides)
    bound.__qualname__ = f"{template.__qualname__}__{name}"
    bound.__module__ = template.__module__
    bound.__doc__ = template.__doc__
    return compiled(refcounts=True)(bound)


_SPECIALISED: dict[str, object] = {}


def specialise(functions):
    """The compiled search (``search``'s signature) for the game whose decision functions are
    ``functions`` (a ``sim.games.decisions.DecisionFunctions``); one per game name for the
    process, cached on disk."""
    key = functions.name
    if key in _SPECIALISED:
        return _SPECIALISED[key]
    name = "".join(c if c.isalnum() else "_" for c in functions.name)
    game = {"copy_state": functions.copy_state, "determinise": functions.determinise,
            "is_over": functions.is_over, "to_move": functions.to_move,
            "decision_capacity": functions.decision_capacity,
            "legal_decisions": functions.legal_decisions,
            "apply_decision": functions.apply_decision,
            "final_results": functions.final_results,
            "SCORE_SCALE": float(functions.score_scale)}
    playout = _bound(random_playout, game, name)
    searcher = _bound(search, {**game, "random_playout": playout}, name)
    _SPECIALISED[key] = searcher
    return searcher
