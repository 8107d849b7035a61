"""The compiled Pick Two game loop (a shard of games in one call) and ``compiled_variant``."""

from __future__ import annotations

from numba import njit

from sim.jit import rebind
from sim.rng import seed_state
from tests.toy_game.dispatch import USER_POLICY_BASE, choose_pick
from tests.toy_game.rules import (
    PLAYERS,
    chooser,
    deal,
    hand_score,
    pairs_in_hand,
    resolve_pick,
    reveal_offer,
)


@njit(cache=True)
def play_game(deck, public, rounds, pair_bonus, deal_rng, seat_rng, deal_seed, strategy_seed,
              seat_policy, seat_params):
    """One game: deal, then ``rounds`` rounds of reveal, pick and take."""
    seed_state(deal_rng, deal_seed, 0)
    deal(deck, public, deal_rng)
    for seat in range(PLAYERS):
        seed_state(seat_rng[seat], strategy_seed, seat + 1)
    for _ in range(rounds):
        reveal_offer(deck, public)
        seat = chooser(public)
        pick = choose_pick(seat_policy[seat], seat_params[seat], public, seat, pair_bonus,
                           deck[0], seat_rng[seat])
        resolve_pick(public, pick)


@njit(cache=True)
def record_game(public, pair_bonus, game, scores, ranks, wins, pairs):
    """Scores, ranks (shared on ties), shared wins and pairs of the finished game."""
    for seat in range(PLAYERS):
        scores[game, seat] = hand_score(public, seat, pair_bonus)
        pairs[game, seat] = pairs_in_hand(public, seat)
    best = max(scores[game, 0], scores[game, 1])
    top = 0
    for seat in range(PLAYERS):
        ranks[game, seat] = 1 if scores[game, seat] == best else 2
        top += 1 if scores[game, seat] == best else 0
    for seat in range(PLAYERS):
        wins[game, seat] = 1.0 / top if scores[game, seat] == best else 0.0


@njit(cache=True)
def play_games(deck, public, rounds, pair_bonus, deal_rng, seat_rng, deal_seeds, strategy_seeds,
               game_seat_policy, game_seat_params, scores, ranks, wins, pairs):
    """Play ``len(deal_seeds)`` games and record each."""
    for game in range(deal_seeds.shape[0]):
        play_game(deck, public, rounds, pair_bonus, deal_rng, seat_rng, deal_seeds[game],
                  strategy_seeds[game], game_seat_policy[game], game_seat_params[game])
        record_game(public, pair_bonus, game, scores, ranks, wins, pairs)


_VARIANTS: dict[tuple, tuple] = {}


def _pick_dispatch(fallback, policy_id, user_pick):
    @njit
    def dispatch(policy, params, public, seat, pair_bonus, tiles, rng):
        if policy == policy_id:
            return user_pick(params, public, seat, pair_bonus, rng)
        return fallback(policy, params, public, seat, pair_bonus, tiles, rng)

    return dispatch


def compiled_variant(user_picks) -> tuple:
    """(play_game, play_games) re-bound to try compiled user picks (ids from
    ``USER_POLICY_BASE``) before the built-ins; memoised per lineup."""
    key = tuple(id(pick) for pick in user_picks)
    if key not in _VARIANTS:
        dispatch = choose_pick
        for index, user_pick in enumerate(user_picks):
            dispatch = _pick_dispatch(dispatch, USER_POLICY_BASE + index, user_pick)
        game = njit(rebind(play_game.py_func, "play_game", {"choose_pick": dispatch}))
        games = njit(rebind(play_games.py_func, "play_games", {"play_game": game}))
        _VARIANTS[key] = (game, games)
    return _VARIANTS[key]
