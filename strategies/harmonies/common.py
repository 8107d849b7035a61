"""What every Harmonies strategy shares: the :data:`Workspace` of scratch arrays, small queries
on the public state, and saving / restoring a board around a trial placement.

Strategies see a :data:`~sim.games.harmonies.state.PublicState` (boards, cards, central board,
card row, the bag's *counts*) and never the hidden state (bag order, deck order); the compiled
turn functions they are handed take no hidden state argument.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.harmonies.colours import COLOUR_COUNT
from sim.games.harmonies.gains import invalidate, new_gain_cache, new_local_view
from sim.games.harmonies.scoring import CATEGORY_COUNT, new_scratch
from sim.games.harmonies.stacking import can_place_token
from sim.games.harmonies.tables import MAX_HABITAT_CELLS
from sim.games.harmonies.turn import discard_unplaceable_token, place_token, take_central_space
from sim.jit import compiled, inlined
from sim.rng import next_below
from strategies.harmonies.ids import PARAMETER_SLOTS

Workspace = namedtuple(
    "Workspace",
    [
        "generators",  # uint64[P, 4] one strategy generator per seat
        "parameters",  # float64[P, PARAMETER_SLOTS] each seat's strategy parameters
        "scratch",  # scoring.Scratch
        "cache",  # gains.GainCache
        "start_cache",  # gains.GainCache of the board at the start of the turn's trials
        "start_view",  # gains.LocalView of the board at the start of the turn's trials
        "trial_view",  # gains.LocalView of the board during a trial
        "tokens",  # int8[T] tokens in hand
        "token_left",  # int8[T] 1 while the token is still to be placed
        "legal_hexes",  # int16[H]
        "placement_slots",  # int16[M * H] listed cube placements: card slots ...
        "placement_hexes",  # int16[M * H] ... and cube hexes
        "plan_colours",  # int8[T] tokens in the order a strategy would place them ...
        "plan_hexes",  # int16[T] ... and where (-1: to the box)
        "best_plan_colours",  # int8[T]
        "best_plan_hexes",  # int16[T]
        "saved_stacks",  # int8[H, 3] the player's board before trying a space
        "saved_heights",  # int8[H]
        "saved_cube_heights",  # int8[H]
        "saved_cubes_placed",  # int8[M]
        "scores",  # int32[CATEGORY_COUNT]
        "first_step_gains",  # int32[6, H] greedy: gains on the board as it was at turn start
        "first_step_ready",  # int8[6] 1 once first_step_gains holds that colour's row
        "changed_hexes",  # int8[H] greedy: 1 where a gain may differ from its first-step value
        "first_step_values",  # float64[6, H] valued strategies: the same for their values
        "supply",  # float64[6] valued strategies: chance of getting each colour in time
        "target_slot",  # int16[K] card slot a habitat target is for (-1: none)
        "target_value",  # float64[K] points the card's next cube adds
        "target_cells",  # int16[K, 7] hexes of the target habitat (cube hex first)
        "target_requirements",  # int16[K, 7] what each of those hexes must hold
        "target_cell_count",  # int8[K]
        "target_levels",  # int8[K] tokens the whole habitat holds
        "target_remaining",  # int16[K] tokens still missing (-1: the target is spoiled)
        "hex_potentials",  # float64[2, H] expert: each hex's potential (start, trial board)
    ],
)


def new_workspace(tables) -> Workspace:
    """Scratch arrays for one game of ``tables`` (reused from game to game)."""
    hexes, tokens = tables.hex_count, tables.tokens_per_space
    cards = tables.max_cards_per_player
    targets = 3 * (tables.card_limit + 1)  # expert: up to three habitats per card
    return Workspace(
        generators=np.zeros((tables.players, 4), dtype=np.uint64),
        parameters=np.zeros((tables.players, PARAMETER_SLOTS), dtype=np.float64),
        scratch=new_scratch(hexes),
        cache=new_gain_cache(hexes),
        start_cache=new_gain_cache(hexes),
        start_view=new_local_view(hexes),
        trial_view=new_local_view(hexes),
        tokens=np.zeros(tokens, dtype=np.int8),
        token_left=np.zeros(tokens, dtype=np.int8),
        legal_hexes=np.zeros(hexes, dtype=np.int16),
        placement_slots=np.zeros(cards * hexes, dtype=np.int16),
        placement_hexes=np.zeros(cards * hexes, dtype=np.int16),
        plan_colours=np.zeros(tokens, dtype=np.int8),
        plan_hexes=np.zeros(tokens, dtype=np.int16),
        best_plan_colours=np.zeros(tokens, dtype=np.int8),
        best_plan_hexes=np.zeros(tokens, dtype=np.int16),
        saved_stacks=np.zeros((hexes, 3), dtype=np.int8),
        saved_heights=np.zeros(hexes, dtype=np.int8),
        saved_cube_heights=np.zeros(hexes, dtype=np.int8),
        saved_cubes_placed=np.zeros(cards, dtype=np.int8),
        scores=np.zeros(CATEGORY_COUNT, dtype=np.int32),
        first_step_gains=np.zeros((COLOUR_COUNT, hexes), dtype=np.int32),
        first_step_ready=np.zeros(COLOUR_COUNT, dtype=np.int8),
        changed_hexes=np.zeros(hexes, dtype=np.int8),
        first_step_values=np.zeros((COLOUR_COUNT, hexes), dtype=np.float64),
        supply=np.zeros(COLOUR_COUNT, dtype=np.float64),
        target_slot=np.full(targets, -1, dtype=np.int16),
        target_value=np.zeros(targets, dtype=np.float64),
        target_cells=np.full((targets, MAX_HABITAT_CELLS), -1, dtype=np.int16),
        target_requirements=np.zeros((targets, MAX_HABITAT_CELLS), dtype=np.int16),
        target_cell_count=np.zeros(targets, dtype=np.int8),
        target_levels=np.zeros(targets, dtype=np.int8),
        target_remaining=np.zeros(targets, dtype=np.int16),
        hex_potentials=np.zeros((2, hexes), dtype=np.float64),
    )


@compiled(always_inline=True)
def list_legal_hexes(tables, public, player, colour, out):
    """Write the hexes where a ``colour`` token may go into ``out``; returns how many."""
    count = 0
    stacks, heights, cube_heights = public.stacks, public.heights, public.cube_heights
    for hex_index in range(tables.hex_count):
        if can_place_token(stacks, heights, cube_heights, player, hex_index, colour):
            out[count] = hex_index
            count += 1
    return count


@inlined
def nth_full_space(public, n):
    """The ``n``-th (from 0) central space holding tokens."""
    for space in range(public.central_count.shape[0]):
        if public.central_count[space] > 0:
            if n == 0:
                return space
            n -= 1
    return -1


@inlined
def face_up_count(public):
    """Cards in the card row."""
    count = 0
    for position in range(public.card_row.shape[0]):
        if public.card_row[position] >= 0:
            count += 1
    return count


@inlined
def nth_face_up(public, n):
    """Row position of the ``n``-th (from 0) face-up card."""
    for position in range(public.card_row.shape[0]):
        if public.card_row[position] >= 0:
            if n == 0:
                return position
            n -= 1
    return -1


@compiled(always_inline=True)
def save_board(tables, public, player, work):
    """Copy the player's board and cube counts into the workspace."""
    for hex_index in range(tables.hex_count):
        for level in range(3):
            work.saved_stacks[hex_index, level] = public.stacks[player, hex_index, level]
        work.saved_heights[hex_index] = public.heights[player, hex_index]
        work.saved_cube_heights[hex_index] = public.cube_heights[player, hex_index]
    for slot in range(public.held_count[player]):
        work.saved_cubes_placed[slot] = public.cubes_placed[player, slot]


@compiled(always_inline=True)
def restore_board(tables, public, player, work):
    """Undo every change since :func:`save_board` (cards held must not have changed)."""
    for hex_index in range(tables.hex_count):
        for level in range(3):
            public.stacks[player, hex_index, level] = work.saved_stacks[hex_index, level]
        public.heights[player, hex_index] = work.saved_heights[hex_index]
        public.cube_heights[player, hex_index] = work.saved_cube_heights[hex_index]
    for slot in range(public.held_count[player]):
        public.cubes_placed[player, slot] = work.saved_cubes_placed[slot]
    invalidate(work.cache)


@inlined
def keep_if_better(value, best_value, ties, generator):
    """Reservoir tie-break over candidates seen one by one: returns (keep this one, ties so
    far among the best). Equal values are kept with probability 1/ties, so the pick is uniform
    among them in one pass."""
    if value > best_value:
        return True, 1
    if value == best_value:
        ties += 1
        return next_below(generator, ties) == 0, ties
    return False, ties


@compiled(always_inline=True)
def remember_plan(work, token_count):
    """Keep the token plan just evaluated as the best so far."""
    for slot in range(token_count):
        work.best_plan_colours[slot] = work.plan_colours[slot]
        work.best_plan_hexes[slot] = work.plan_hexes[slot]


@compiled(always_inline=True)
def play_remembered_plan(tables, public, player, work, space, token_count):
    """Take ``space`` and put its tokens where the remembered plan says (a token with no legal
    hex goes to the box)."""
    take_central_space(tables, public, space, work.tokens)
    for step in range(token_count):
        colour = work.best_plan_colours[step]
        if work.best_plan_hexes[step] < 0:
            discard_unplaceable_token(tables, public, player, colour)
        else:
            place_token(public, player, work.best_plan_hexes[step], colour)


@compiled(always_inline=True)
def plan_rest_to_box(work, step, token_count):
    """No token left in hand fits anywhere: the plan sends the rest to the box, in hand order,
    from plan position ``step`` on."""
    position = step
    for token in range(token_count):
        if work.token_left[token]:
            work.plan_colours[position] = work.tokens[token]
            work.plan_hexes[position] = -1
            work.token_left[token] = 0
            position += 1
