"""The ``expert``'s search reads cached numbers where a move cannot change them (issue 39): each
hex's reach (the hexes where a token may change its token values), the potentials after a plan's
tokens worked out again near them only, and a token's value outside the reach of the tokens
placed before it equal to its value on the board without them. Each is checked against a full
recount on random boards, number for number (``==``: the games depend on exact ties)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.harmonies.colours import BLUE, BROWN, GRAY, GREEN, RED, YELLOW
from sim.games.harmonies.gains import (
    copy_local_view,
    invalidate,
    note_token_in_view,
    prepare_local_view,
    refresh,
)
from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.stacking import can_place_token
from sim.games.harmonies.state import new_state
from sim.games.harmonies.tables import build_tables
from sim.games.harmonies.turn import place_token
from strategies.harmonies.common import new_workspace
from strategies.harmonies.expert import (
    expert_token_value,
    new_search_cache,
    note_hex_potentials,
    note_potentials_near_plan,
    note_value_reach,
)

COLOURS = (BLUE, BROWN, GRAY, GREEN, RED, YELLOW)
TOKEN_COST = 1.5


@pytest.fixture(scope="module")
def tables_4a(data):
    return build_tables(data, HarmoniesRules(players=4, side="A"))


def steps_apart(neighbours: np.ndarray, start: int) -> dict[int, int]:
    """Breadth-first distances (in steps between neighbouring hexes) from ``start``."""
    distance = {start: 0}
    frontier = [start]
    while frontier:
        following = []
        for hex_index in frontier:
            for neighbour in neighbours[hex_index]:
                if neighbour >= 0 and int(neighbour) not in distance:
                    distance[int(neighbour)] = distance[hex_index] + 1
                    following.append(int(neighbour))
        frontier = following
    return distance


def random_board(tables, public, generator: np.random.Generator, tokens: int) -> None:
    """Put ``tokens`` random legal tokens on player 0's board."""
    for _ in range(tokens):
        colour = int(generator.choice(COLOURS))
        legal = [h for h in range(tables.hex_count)
                 if can_place_token(public.stacks, public.heights, public.cube_heights, 0, h,
                                    colour)]
        if legal:
            place_token(public, 0, int(generator.choice(legal)), colour)


def quiet(public, hex_index: int) -> bool:
    """Empty, or a green, blue or brown top (read from the board, independently of the
    expert's own helper)."""
    height = int(public.heights[0, hex_index])
    return height == 0 or int(public.stacks[0, hex_index, height - 1]) in (GREEN, BLUE, BROWN)


def reach_of(tables, public):
    """The expert's reach masks on ``public``'s board for player 0."""
    work = new_workspace(tables)
    search = new_search_cache(tables, public, work)
    note_value_reach(tables, public, 0, search)
    return search.reach


@pytest.mark.parametrize("seed", range(4))
def test_the_reach_is_the_neighbours_and_what_lies_behind_a_busy_neighbour(tables_4a, seed):
    generator = np.random.default_rng(200 + seed)
    public, _ = new_state(tables_4a)
    random_board(tables_4a, public, generator, 4 + 5 * seed)
    reach = reach_of(tables_4a, public)
    neighbours = tables_4a.neighbours
    for hex_index in range(tables_4a.hex_count):
        expected = {hex_index} | {int(n) for n in neighbours[hex_index] if n >= 0}
        for between in neighbours[hex_index]:
            if between >= 0 and not quiet(public, int(between)):
                expected |= {int(n) for n in neighbours[between] if n >= 0}
        got = {h for h in range(tables_4a.hex_count) if int(reach[hex_index]) >> h & 1}
        assert got == expected
        within_two = {h for h, d in steps_apart(neighbours, hex_index).items() if d <= 2}
        assert got <= within_two


@pytest.mark.parametrize("seed", range(6))
def test_potentials_near_a_plan_are_a_full_recount(tables_4a, seed):
    generator = np.random.default_rng(seed)
    public, _ = new_state(tables_4a)
    work = new_workspace(tables_4a)
    work.supply[:] = generator.uniform(0.2, 0.9, work.supply.shape[0])
    random_board(tables_4a, public, generator, 12)
    note_hex_potentials(tables_4a, public, 0, work, TOKEN_COST, 0)
    for step in range(3):
        colour = int(generator.choice((BROWN, GRAY, RED, YELLOW)))
        legal = [h for h in range(tables_4a.hex_count)
                 if can_place_token(public.stacks, public.heights, public.cube_heights, 0, h,
                                    colour)]
        work.plan_hexes[step] = int(generator.choice(legal))
        place_token(public, 0, work.plan_hexes[step], colour)
        note_potentials_near_plan(tables_4a, public, 0, work, TOKEN_COST, step + 1, 0)
        near_plan = work.hex_potentials[1].copy()
        note_hex_potentials(tables_4a, public, 0, work, TOKEN_COST, 1)
        assert np.array_equal(near_plan, work.hex_potentials[1])


@pytest.mark.parametrize("seed", range(8))
def test_a_tokens_value_holds_outside_the_reach_of_the_token_before_it(tables_4a, seed):
    generator = np.random.default_rng(100 + seed)
    public, _ = new_state(tables_4a)
    work = new_workspace(tables_4a)
    work.supply[:] = generator.uniform(0.2, 0.9, work.supply.shape[0])
    random_board(tables_4a, public, generator, 6 + 2 * seed)
    target_worths = np.zeros(work.target_slot.shape[0])  # no card weight: not read

    def values(colour: int) -> dict[int, float]:
        """The value of a ``colour`` token on every legal hex of the board as it is."""
        invalidate(work.cache)
        refresh(tables_4a, public, 0, work.scratch, work.cache)
        note_hex_potentials(tables_4a, public, 0, work, TOKEN_COST, 0)
        return {h: expert_token_value(tables_4a, public, 0, work, h, colour, 1.6, 0.0, False,
                                      0.0, target_worths, 0.5, TOKEN_COST,
                                      work.hex_potentials[0])
                for h in range(tables_4a.hex_count)
                if can_place_token(public.stacks, public.heights, public.cube_heights, 0, h,
                                   colour)}

    prepare_local_view(tables_4a.neighbours, public.stacks, public.heights, 0, work.start_view)
    reach = reach_of(tables_4a, public)
    copy_local_view(work.start_view, work.trial_view)
    before = {colour: values(colour) for colour in COLOURS}
    legal = [(h, c) for h in range(tables_4a.hex_count) for c in COLOURS
             if can_place_token(public.stacks, public.heights, public.cube_heights, 0, h, c)]
    stacks, heights = public.stacks.copy(), public.heights.copy()
    compared = 0
    for pick in generator.permutation(len(legal))[:25]:
        placed, colour = legal[int(pick)]
        place_token(public, 0, placed, colour)
        copy_local_view(work.start_view, work.trial_view)
        note_token_in_view(tables_4a.neighbours, public.stacks, public.heights, 0,
                           work.trial_view, placed)
        # Outside the reach; a yellow's (blue's) gain reads whole fields (rivers), so it holds
        # only while no yellow (blue) is placed.
        outside = {h for h in range(tables_4a.hex_count) if not int(reach[h]) >> placed & 1}
        for token_colour, earlier in before.items():
            if token_colour in (YELLOW, BLUE) and token_colour == colour:
                continue
            after = values(token_colour)
            for hex_index in outside & set(earlier):
                assert after[hex_index] == earlier[hex_index], (token_colour, hex_index, placed)
                compared += 1
        public.stacks[:] = stacks
        public.heights[:] = heights
    assert compared > 0
