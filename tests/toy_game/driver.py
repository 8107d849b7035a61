"""The Python driver: the compiled loop's own code (``loop.play_game.py_func``) run from Python
with its decision point re-bound, so Python strategies can play and every other seat plays
exactly as in the compiled loop."""

from __future__ import annotations

from numbers import Integral

import numpy as np

from sim.errors import InputError
from sim.jit import rebind
from tests.toy_game import loop
from tests.toy_game.dispatch import choose_pick
from tests.toy_game.strategies import Observation


def _observation(public, seat, pair_bonus) -> Observation:
    hands = tuple(tuple(int(t) for t in public.hands[s, :public.hand_count[s]]) for s in (0, 1))
    return Observation(seat=int(seat), round=int(public.progress[0]),
                       offer=(int(public.offer[0]), int(public.offer[1])), hands=hands,
                       pair_bonus=int(pair_bonus))


def play_game(deck, public, rounds, pair_bonus, deal_rng, seat_rng, deal_seed, strategy_seed,
              seat_policy, seat_params, python_seats, decisions=None):
    """One game with the loop's code; ``python_seats[s]`` is a Python strategy instance or
    None (then ``seat_policy[s]`` plays, compiled). ``decisions`` collects every pick."""

    def pick(policy, params, public, seat, pair_bonus, tiles, rng):
        strategy = python_seats[seat]
        if strategy is None:
            answer = choose_pick(policy, params, public, seat, pair_bonus, tiles, rng)
        else:
            answer = strategy.choose(_observation(public, seat, pair_bonus))
            if isinstance(answer, bool) or not isinstance(answer, Integral | np.integer) \
                    or answer not in (0, 1):
                raise InputError(f"strategy '{strategy.name}' returned {answer!r}; expected 0 "
                                 f"or 1")
        if decisions is not None:
            decisions.append((int(public.progress[0]), int(seat), int(answer)))
        return int(answer)

    for seat, strategy in enumerate(python_seats):
        if strategy is not None:
            sequence = np.random.SeedSequence([int(strategy_seed), seat])
            strategy.new_game(seat, np.random.default_rng(sequence))
    game = rebind(loop.play_game.py_func, "play_game", {"choose_pick": pick})
    game(deck, public, rounds, pair_bonus, deal_rng, seat_rng, np.uint64(deal_seed),
         np.uint64(strategy_seed), seat_policy, seat_params)
