"""The Python game driver: one game played turn by turn, with a log of every move (for
``sim play``).

The batch loop (``loop.play_games``) records only compact per-card arrays
(``results.Recording``: the cards taken, when and from which face-up row, their cubes; the
spirits dealt; optionally the score after each round), so it pays almost nothing for it. Here the
very code of the compiled loop (``loop.play_games_kernel.py_func``, the way
``loop.compiled_variant`` re-binds it) runs from Python for one game with its ``play_turn``
re-bound to a wrapper that reads every turn off the state: the same compiled pieces in the same
order with the same seeds, so a recorded game is the very game the loop plays (a test checks
this). Each turn is read off the state before and after it: the
central space taken and its tokens, where each token went (or that it went to the box), the
spirit kept, the card taken and every cube placed.

Tokens placed on one turn are listed by hex (the state does not keep their order). A cube is
attributed to a card whose cubes rose this turn and whose cube-hex requirement the hex holds
(that hex cannot change once it holds a cube); when two such cards could take the same hexes,
any consistent attribution is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.games.harmonies.colours import (
    BUILDING_BASE_COLOURS,
    BUILDING_REQUIREMENT,
    COLOUR_COUNT,
    COLOUR_NAMES,
    RED,
    stack_code,
)
from sim.games.harmonies.results import (
    GameResults,
    legal_stack_code_table,
    new_game_results,
    new_recording,
)
from sim.games.harmonies.state import PROGRESS_ROUND, deal, new_state
from sim.jit import rebind
from sim.loops.harmonies.dispatch import strategy_table
from sim.loops.harmonies.loop import (
    KernelVariant,
    game_lineups,
    play_games_kernel,
    play_turn,
    seat_parameter_array,
)
from sim.signals import stop_signals_held
from strategies.harmonies.common import new_workspace

Position = tuple[int, int]


@dataclass
class TurnRecord:
    """What one seat did on one turn. Positions are axial (q, r); a token with position None
    went to the box (it fitted nowhere)."""

    round: int
    seat: int
    space: int  # central space taken, -1 if the central board was empty
    taken: list[int] = field(default_factory=list)  # colours of the space's tokens
    tokens: list[tuple[int, Position | None]] = field(default_factory=list)
    spirit: int | None = None  # card id of the spirit kept (variant, first turn)
    card: int | None = None  # card id of the animal card taken
    cubes: list[tuple[int, Position]] = field(default_factory=list)  # (card id, hex)
    # Card ids face up when the turn started (the row a card is taken from), when one was taken.
    offered: list[int] | None = None

    def to_json(self) -> dict:
        """The record as a JSON object."""
        return {
            "round": self.round + 1,
            "seat": self.seat,
            "space": self.space,
            "taken": [COLOUR_NAMES[c] for c in self.taken],
            "tokens": [{"color": COLOUR_NAMES[c], "q": p[0], "r": p[1]} if p is not None
                       else {"color": COLOUR_NAMES[c], "box": True} for c, p in self.tokens],
            "spirit": self.spirit,
            "card": self.card,
            "cubes": [{"card": card, "q": p[0], "r": p[1]} for card, p in self.cubes],
            "offered": self.offered,
        }


@dataclass
class RecordedGame:
    """A finished game: results (a batch of one), final state and the turn log."""

    results: GameResults
    public: object  # state.PublicState
    turns: list[TurnRecord]


def _snapshot(public, seat: int) -> dict:
    return {
        "central": public.central.copy(),
        "central_count": public.central_count.copy(),
        "stacks": public.stacks[seat].copy(),
        "heights": public.heights[seat].copy(),
        "cube_heights": public.cube_heights[seat].copy(),
        "held_count": int(public.held_count[seat]),
        "cubes_placed": public.cubes_placed[seat].copy(),
        "card_row": public.card_row.copy(),
    }


def _meets(stack: tuple[int, ...], requirement: int) -> bool:
    """True when ``stack`` is what a habitat ``requirement`` asks for."""
    if requirement == BUILDING_REQUIREMENT:
        return len(stack) == 2 and stack[1] == RED and stack[0] in BUILDING_BASE_COLOURS
    return stack_code(stack) == requirement


def _attribute_cubes(tables, slots: list[tuple[int, int]], hexes: list[tuple[int, tuple]]):
    """Match each new cube hex (index, stack) to a card slot (slot, card index) whose cube-hex
    requirement it meets, each slot used as often as it appears; backtracking (a turn places
    a handful of cubes at most)."""
    assignment: list[int] = [-1] * len(hexes)
    used = [False] * len(slots)

    def solve(position: int) -> bool:
        if position == len(hexes):
            return True
        stack = hexes[position][1]
        for k, (_, card) in enumerate(slots):
            if not used[k] and _meets(stack, int(tables.card_requirement[card, 0])):
                used[k] = True
                assignment[position] = k
                if solve(position + 1):
                    return True
                used[k] = False
        return False

    if not solve(0):  # cannot happen for legal play; keep the log readable regardless
        assignment = list(range(len(hexes)))
    return [slots[k] for k in assignment]


def _describe_turn(tables, public, before: dict, seat: int, space: int, round_number: int,
                   positions: np.ndarray) -> TurnRecord:
    record = TurnRecord(round=round_number, seat=seat, space=space)
    if space >= 0:
        record.taken = [int(c) for c in before["central"][space, :before["central_count"][space]]]
    placed: list[int] = []
    for index in range(tables.hex_count):
        old, new = int(before["heights"][index]), int(public.heights[seat, index])
        for level in range(old, new):
            colour = int(public.stacks[seat, index, level])
            placed.append(colour)
            record.tokens.append((colour, (int(positions[index, 0]), int(positions[index, 1]))))
    left = list(record.taken)
    for colour in placed:
        left.remove(colour)
    record.tokens.extend((colour, None) for colour in left)
    for slot in range(before["held_count"], int(public.held_count[seat])):
        card = int(public.held_cards[seat, slot])
        if tables.card_is_spirit[card]:
            record.spirit = int(tables.card_ids[card])
        else:
            record.card = int(tables.card_ids[card])
            record.offered = [int(tables.card_ids[c]) for c in before["card_row"] if c >= 0]
    slots = []
    for slot in range(int(public.held_count[seat])):
        old = int(before["cubes_placed"][slot]) if slot < before["held_count"] else 0
        card = int(public.held_cards[seat, slot])
        slots.extend([(slot, card)] * (int(public.cubes_placed[seat, slot]) - old))
    new_cubes = [
        (index, tuple(int(c) for c in public.stacks[seat, index, :public.heights[seat, index]]))
        for index in range(tables.hex_count)
        if before["cube_heights"][index] == 0 and public.cube_heights[seat, index] > 0
    ]
    for (index, _), (_, card) in zip(new_cubes, _attribute_cubes(tables, slots, new_cubes),
                                     strict=True):
        record.cubes.append((int(tables.card_ids[card]),
                             (int(positions[index, 0]), int(positions[index, 1]))))
    return record


def play_recorded_game(tables, positions: np.ndarray, lineup, deal_seed: int,
                       strategy_seed: int, parameters=None,
                       variant: KernelVariant | None = None, after_deal=None,
                       trace: bool = False) -> RecordedGame:
    """Play one game with the policies of ``lineup`` (names or ids, one per seat) and their
    ``parameters`` (float[players, PARAMETER_SLOTS], None: defaults), logging every turn.
    ``positions[h]`` is the axial (q, r) of hex ``h`` of the board side played; ``variant``
    plays lineups with compiled user strategies (``loop.compiled_variant``); ``after_deal``,
    a function ``(public, hidden)``, may change the state right after the deal (tests);
    ``trace`` records the scores after each round as the batch loop does."""
    players = tables.players
    lineup_ids = game_lineups(lineup, players, 1, variant.user_ids if variant is not None else ())
    if parameters is not None:
        parameters = np.asarray(parameters, dtype=np.float64)[None]
    seat_parameters = seat_parameter_array(lineup_ids, parameters)
    public, hidden = new_state(tables)
    work = new_workspace(tables)
    turns: list[TurnRecord] = []
    compiled_turn = play_turn if variant is None else variant.play_turn

    def recorded_turn(tables, public, hidden, work, lineup, seat, strategies):
        before = _snapshot(public, seat)
        with stop_signals_held():  # the table is unboxed by calls into Python
            space = compiled_turn(tables, public, hidden, work, lineup, seat, strategies)
        turns.append(_describe_turn(tables, public, before, seat, int(space),
                                    int(public.progress[PROGRESS_ROUND]), positions))
        return space

    def dealt(tables, public, hidden, seed):
        deal(tables, public, hidden, seed)
        if after_deal is not None:
            after_deal(public, hidden)

    kernel = rebind(play_games_kernel.py_func, "play_games_kernel",
                    {"play_turn": recorded_turn, "deal": dealt})
    results = new_game_results(tables, 1, trace)
    audit_codes = np.zeros(1, dtype=np.int8)
    kernel(tables, public, hidden, work, lineup_ids, seat_parameters,
           np.array([deal_seed], dtype=np.uint64), np.array([strategy_seed], dtype=np.uint64),
           False, legal_stack_code_table(), np.zeros(COLOUR_COUNT, dtype=np.int32),
           results.category_points, results.total,
           results.rank, results.win, results.cubes_placed, results.cards_completed,
           results.turns, audit_codes, new_recording(results, tables),
           strategy_table(lineup_ids, tables, public, work, hidden))
    return RecordedGame(results=results, public=public, turns=turns)
