"""Pick Two rules and state: the deck file, the state arrays and the pure step functions.

State layout (one game, reused from game to game; ``R`` rounds, ``D`` deck size):

* ``deck``        int16[2, D]  row 0: the deck file's order; row 1: this game's shuffled order
                               (hidden: never given to a strategy)
* ``offer``       int16[2]     the two tiles revealed this round (public)
* ``hands``       int16[2, R]  the tiles each seat holds, in the order taken (public)
* ``hand_count``  int16[2]     tiles held per seat (public)
* ``progress``    int16[2]     round number, tiles dealt from the deck (public)
"""

from __future__ import annotations

import hashlib
import tomllib
from collections import namedtuple
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from sim.errors import InputError
from sim.rng import shuffle_in_place

DEFAULT_DECK = Path(__file__).parent / "data" / "deck.toml"
PLAYERS = 2
PROGRESS_ROUND = 0
PROGRESS_DEALT = 1

PublicState = namedtuple("PublicState", ["offer", "hands", "hand_count", "progress"])


@dataclass(frozen=True)
class Deck:
    """The deck file: tile numbers, and where they came from."""

    tiles: tuple[int, ...]
    path: str

    def digest(self) -> str:
        """A short hash of the tile numbers."""
        return hashlib.sha256(repr(self.tiles).encode()).hexdigest()[:16]


def load_deck(path: str | None) -> Deck:
    """The deck file at ``path`` (None: the shipped one), or a one-line InputError."""
    source = Path(path) if path is not None else DEFAULT_DECK
    try:
        document = tomllib.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{source}: deck file not found") from None
    except IsADirectoryError:
        raise InputError(f"{source}: is a folder, not a deck file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        reason = str(error).splitlines()[0]
        raise InputError(f"{source}: not valid TOML ({reason})") from None
    tiles = document.get("tiles")
    if not isinstance(tiles, list) or not tiles:
        raise InputError(f"{source}: field 'tiles': expected a non-empty array of integers")
    for tile in tiles:
        if not isinstance(tile, int) or isinstance(tile, bool) or not 1 <= tile <= 99:
            raise InputError(f"{source}: field 'tiles': {tile!r} is not a tile number 1..99")
    return Deck(tuple(tiles), str(source))


def new_state(deck: Deck, rounds: int) -> tuple[np.ndarray, PublicState]:
    """(hidden deck array, public state) for games of ``rounds`` rounds."""
    hidden = np.array([deck.tiles, deck.tiles], dtype=np.int16)
    public = PublicState(offer=np.zeros(2, dtype=np.int16),
                         hands=np.zeros((PLAYERS, rounds), dtype=np.int16),
                         hand_count=np.zeros(PLAYERS, dtype=np.int16),
                         progress=np.zeros(2, dtype=np.int16))
    return hidden, public


@njit(cache=True)
def deal(deck, public, generator):
    """Shuffle the deck (from the file's order, so a game depends on its own seed only) and
    empty the hands (a new game)."""
    deck[1, :] = deck[0, :]
    shuffle_in_place(generator, deck[1])
    public.hand_count[:] = 0
    public.progress[:] = 0


@njit(cache=True)
def reveal_offer(deck, public):
    """Turn the next two tiles of the deck face up."""
    dealt = public.progress[PROGRESS_DEALT]
    public.offer[0] = deck[1, dealt]
    public.offer[1] = deck[1, dealt + 1]
    public.progress[PROGRESS_DEALT] = dealt + 2


@njit(cache=True)
def chooser(public):
    """The seat that picks this round: seat 0 in even rounds, seat 1 in odd ones."""
    return public.progress[PROGRESS_ROUND] % PLAYERS


@njit(cache=True)
def take(public, seat, tile):
    """``seat`` adds ``tile`` to its hand."""
    public.hands[seat, public.hand_count[seat]] = tile
    public.hand_count[seat] += 1


@njit(cache=True)
def resolve_pick(public, pick):
    """The chooser takes offer tile ``pick`` (0 or 1), the other seat the other one; the round
    ends."""
    seat = chooser(public)
    take(public, seat, public.offer[pick])
    take(public, 1 - seat, public.offer[1 - pick])
    public.progress[PROGRESS_ROUND] += 1


@njit(cache=True)
def pairs_in_hand(public, seat):
    """Pairs of equal tiles in ``seat``'s hand (three equal tiles make one pair)."""
    pairs = 0
    count = public.hand_count[seat]
    for value in range(1, 100):
        same = 0
        for index in range(count):
            if public.hands[seat, index] == value:
                same += 1
        pairs += same // 2
    return pairs


@njit(cache=True)
def hand_score(public, seat, pair_bonus):
    """Sum of the tiles plus ``pair_bonus`` per pair."""
    total = 0
    for index in range(public.hand_count[seat]):
        total += public.hands[seat, index]
    return total + pair_bonus * pairs_in_hand(public, seat)


@njit(cache=True)
def gain_of(public, seat, tile, pair_bonus):
    """What taking ``tile`` adds to ``seat``'s score now."""
    same = 0
    for index in range(public.hand_count[seat]):
        if public.hands[seat, index] == tile:
            same += 1
    return tile + (pair_bonus if same % 2 == 1 else 0)


def check_rules_against_deck(rounds: int, deck: Deck, source: str) -> None:
    """Every round needs two tiles from the deck."""
    if 2 * rounds > len(deck.tiles):
        raise InputError(f"{source}: field 'rounds': {rounds} rounds need {2 * rounds} tiles; "
                         f"the deck {deck.path} has {len(deck.tiles)}")


def score_position(path: str) -> tuple[list[int], int, int]:
    """A hand file (JSON ``{"hand": [...], "pair_bonus": n}``): the hand, its pairs and its
    score, or a one-line InputError."""
    import json

    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: position file not found") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not valid JSON ({error})") from None
    hand = document.get("hand") if isinstance(document, dict) else None
    if not isinstance(hand, list) or not all(isinstance(t, int) and 1 <= t <= 99 for t in hand):
        raise InputError(f"{path}: field 'hand': expected an array of tile numbers 1..99")
    bonus = document.get("pair_bonus", 5)
    if not isinstance(bonus, int):
        raise InputError(f"{path}: field 'pair_bonus': expected an integer")
    public = PublicState(offer=np.zeros(2, dtype=np.int16),
                         hands=np.array([hand or [0], [0] * max(1, len(hand))], dtype=np.int16),
                         hand_count=np.array([len(hand), 0], dtype=np.int16),
                         progress=np.zeros(2, dtype=np.int16))
    return hand, int(pairs_in_hand(public, 0)), int(hand_score(public, 0, bonus))
