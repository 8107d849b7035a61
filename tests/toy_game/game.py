"""Pick Two behind the ``Game`` interface: what the registry, the runner and the CLI use."""

from __future__ import annotations

from html import escape

import numpy as np

from sim.games.base import Game, PlayedGame, RulesParameter, ScoredFile, StrategySpec
from sim.jit import rebind
from sim.loops.seats import only_compiled_hook, per_seat_rows, seat_arrays, seat_column
from sim.seeding import single_game_seeds
from tests.toy_game import driver, loop
from tests.toy_game.dispatch import PARAMETER_SLOTS, POLICY_IDS, USER_POLICY_BASE
from tests.toy_game.rules import (
    PLAYERS,
    Deck,
    check_rules_against_deck,
    load_deck,
    new_state,
    score_position,
)
from tests.toy_game.rules import (
    deal as rules_deal,
)
from tests.toy_game.strategies import REGISTRY

RULES_PARAMETERS = (
    RulesParameter("rounds", 6, 1, 40, "rounds played (two tiles each)"),
    RulesParameter("pair_bonus", 5, 0, 50, "points per pair of equal tiles", option=True),
)


class PickTwo(Game):
    """Pick Two: two players split the two revealed tiles of every round."""

    name = "pick-two"
    title = "Pick Two"
    listing_order = 50
    min_players = PLAYERS
    max_players = PLAYERS
    data_option = "deck"
    data_help = "a Pick Two deck TOML file"
    data_files = ("*.toml",)  # one deck file
    position_help = "a Pick Two hand"
    rules_parameters = RULES_PARAMETERS
    field_lineups = (("strong", "greedy", "greedy in both seats"),
                     ("casual", "random", "random in both seats"),
                     ("mixed", "pool:greedy+random", "greedy and random, seats rotating"))
    default_fields = ("strong", "casual")

    def load_data(self, path):
        return load_deck(path)

    def data_digest(self, data: Deck) -> str:
        return data.digest()

    def strategies(self):
        return REGISTRY

    def report_notes(self):
        return ["Seats are counted from 1: seat 1 chooses first. (The Parquet files count "
                "seats from 0.)"]

    def column_docs(self):
        return {"pairs": "pairs of equal tiles in the final hand"}

    def _seats(self, lineup: list[StrategySpec]):
        """The lineup's policy ids, parameter rows, compiled user picks and Python strategies
        (``sim.loops.seats.SeatArrays``)."""
        return seat_arrays(REGISTRY, lineup, POLICY_IDS, PARAMETER_SLOTS, USER_POLICY_BASE,
                           user_function=only_compiled_hook)

    def _columns(self, games, scores, ranks, wins, pairs):
        return {"seat": seat_column(games, PLAYERS), "score": per_seat_rows(scores),
                "rank": per_seat_rows(ranks), "win": per_seat_rows(wins),
                "pairs": per_seat_rows(pairs)}

    def _arrays(self, games):
        return (np.zeros((games, PLAYERS), np.int16), np.zeros((games, PLAYERS), np.int8),
                np.zeros((games, PLAYERS), np.float32), np.zeros((games, PLAYERS), np.int8))

    def play_shard(self, data, players, rules, lineup, game_seat_strategy, deal_seeds,
                   strategy_seeds, use_driver=False):
        """Play a shard: in the compiled loop, or in the Python driver when a seat plays a
        Python strategy (or ``use_driver``)."""
        check_rules_against_deck(rules["rounds"], data, "rules")
        seats = np.asarray(game_seat_strategy)
        ids, rows, user_picks, python = self._seats(lineup)
        games = len(deal_seeds)
        deck, public = new_state(data, rules["rounds"])
        deal_rng = np.zeros(4, np.uint64)
        seat_rng = np.zeros((PLAYERS, 4), np.uint64)
        scores, ranks, wins, pairs = self._arrays(games)
        deals = np.asarray(deal_seeds, dtype=np.uint64)
        strategy = np.asarray(strategy_seeds, dtype=np.uint64)
        if use_driver or any(entry is not None for entry in python):
            instances = {}
            for game in range(games):
                python_seats = []
                for seat in range(PLAYERS):
                    entry = int(seats[game, seat])
                    if python[entry] is None:
                        python_seats.append(None)
                        continue
                    if (entry, seat) not in instances:
                        cls, values = python[entry]
                        instances[(entry, seat)] = cls(**values)
                    python_seats.append(instances[(entry, seat)])
                play = driver.play_game if not user_picks else None
                if play is None:
                    raise NotImplementedError("compiled and Python user strategies together")
                play(deck, public, rules["rounds"], rules["pair_bonus"], deal_rng, seat_rng,
                     deals[game], strategy[game], ids[seats[game]], rows[seats[game]],
                     python_seats)
                loop.record_game(public, rules["pair_bonus"], game, scores, ranks, wins, pairs)
        else:
            kernel = loop.compiled_variant(user_picks)[1] if user_picks else loop.play_games
            kernel(deck, public, rules["rounds"], rules["pair_bonus"], deal_rng, seat_rng,
                   deals, strategy, np.ascontiguousarray(ids[seats]),
                   np.ascontiguousarray(rows[seats]), scores, ranks, wins, pairs)
        return self._columns(games, scores, ranks, wins, pairs)

    def play_shard_in_driver(self, data, players, rules, lineup, game_seat_strategy,
                             deal_seeds, strategy_seeds):
        """The same shard played by the Python driver."""
        return self.play_shard(data, players, rules, lineup, game_seat_strategy, deal_seeds,
                               strategy_seeds, use_driver=True)

    def hidden_information_decisions(self, data, players, rules, lineup, seed, shuffle):
        """The first round's split from two deals equal in what is public then (the first
        offer) but with the rest of the deck in another order (``shuffle``: None or a seed);
        returns (decisions, the hidden deck order)."""
        ids, rows, _, _ = self._seats(lineup)
        deck, public = new_state(data, rules["rounds"])
        deal_seed, strategy_seed = single_game_seeds(seed)

        def deal(deck, public, generator):
            rules_deal(deck, public, generator)
            if shuffle is not None:
                np.random.default_rng(shuffle).shuffle(deck[1, 2:])

        game = rebind(loop.play_game.py_func, "play_game", {"deal": deal})
        game(deck, public, rules["rounds"], rules["pair_bonus"], np.zeros(4, np.uint64),
             np.zeros((PLAYERS, 4), np.uint64), np.uint64(deal_seed), np.uint64(strategy_seed),
             ids[:PLAYERS], rows[:PLAYERS])
        return [(int(public.hands[0, 0]), int(public.hands[1, 0]))], deck[1].copy()

    def play_one(self, data, players, rules, lineup, seed):
        deal_seed, strategy_seed = single_game_seeds(seed)
        columns, log = self._one(data, rules, lineup, deal_seed, strategy_seed)
        lines = [f"Pick Two, seed {seed}"]
        lines += [f"  round {r + 1}: seat {s + 1} takes tile {pick}" for r, s, pick in log]
        scores = [int(v) for v in columns["score"]]
        lines += [f"seat {s + 1} ({lineup[s].label()}): {scores[s]} points" for s in range(PLAYERS)]
        document = {"game": self.name, "seed": seed, "rules": dict(rules),
                    "strategies": [spec.label() for spec in lineup], "scores": scores,
                    "picks": [list(entry) for entry in log]}
        return PlayedGame(text="\n".join(lines), document=document, scores=scores)

    def _one(self, data, rules, lineup, deal_seed, strategy_seed):
        ids, rows, user_picks, python = self._seats(lineup)
        deck, public = new_state(data, rules["rounds"])
        scores, ranks, wins, pairs = self._arrays(1)
        log: list = []
        python_seats = [None if entry is None else entry[0](**entry[1]) for entry in python]
        driver.play_game(deck, public, rules["rounds"], rules["pair_bonus"],
                         np.zeros(4, np.uint64), np.zeros((PLAYERS, 4), np.uint64), deal_seed,
                         strategy_seed, ids, rows, python_seats, log)
        loop.record_game(public, rules["pair_bonus"], 0, scores, ranks, wins, pairs)
        self.last_hands = public.hands.copy()
        return self._columns(1, scores, ranks, wins, pairs), log

    def final_drawings(self, data, players, rules, lineup, deal_seed, strategy_seed):
        self._one(data, rules, lineup, deal_seed, strategy_seed)
        return [" ".join(str(int(t)) for t in hand) for hand in self.last_hands]

    def final_svgs(self, data, players, rules, lineup, deal_seed, strategy_seed, labels=None):
        """Each seat's final hand as a small SVG (the tile numbers in a row), headed with the
        seat from 1 and the score: what ``sim play --svg`` and the runner's notable games
        carry."""
        columns, _ = self._one(data, rules, lineup, deal_seed, strategy_seed)
        drawings = []
        for seat, hand in enumerate(self.last_hands):
            tiles = [int(t) for t in hand]
            width = max(220, 30 * len(tiles) + 20)
            boxes = "".join(f'<rect class="tile" x="{10 + 30 * k}" y="34" width="26" height="26" '
                            f'fill="#eeeeee" stroke="#333333"/><text x="{23 + 30 * k}" y="52" '
                            f'font-size="12" text-anchor="middle">{tile}</text>'
                            for k, tile in enumerate(tiles))
            label = (labels or [spec.label() for spec in lineup])[seat]
            heading = (f"Seat {seat + 1} ({escape(label)}): "
                       f"{int(columns['score'][seat])} points")
            drawings.append(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} 70">'
                            f'<title>Pick Two hand: {heading}</title><text x="10" y="20" '
                            f'font-size="13">{heading}</text>{boxes}</svg>\n')
        return drawings

    def score_file(self, path, data):
        hand, pairs, score = score_position(path)
        return ScoredFile(text=f"{path}: {len(hand)} tiles, {pairs} pairs, {score} points",
                          document={"hand": hand, "pairs": pairs, "score": score})
