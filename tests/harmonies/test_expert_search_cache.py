"""The ``expert``'s search reads cached numbers where a move cannot change them (issue 39): the
hexes within two steps of each hex, the potentials after a plan's tokens worked out again near
them only, and a token's value far from the tokens placed before it equal to its value on the
board without them. Each is checked against a full recount on random boards, number for number
(``==``: the games depend on exact ties)."""

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
    near_hexes,
    note_hex_potentials,
    note_potentials_near_plan,
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


def test_near_hexes_are_the_hexes_within_two_steps(tables_4a):
    near = near_hexes(tables_4a)
    for hex_index in range(tables_4a.hex_count):
        within = {h for h, d in steps_apart(tables_4a.neighbours, hex_index).items() if d <= 2}
        assert {h for h in range(tables_4a.hex_count) if int(near[hex_index]) >> h & 1} == within


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
        note_potentials_near_plan(tables_4a, public, 0, work, TOKEN_COST, step + 1)
        near_plan = work.hex_potentials[1].copy()
        note_hex_potentials(tables_4a, public, 0, work, TOKEN_COST, 1)
        assert np.array_equal(near_plan, work.hex_potentials[1])


@pytest.mark.parametrize("seed", range(4))
def test_a_tokens_value_holds_three_steps_from_the_tokens_before_it(tables_4a, seed):
    generator = np.random.default_rng(100 + seed)
    public, _ = new_state(tables_4a)
    work = new_workspace(tables_4a)
    work.supply[:] = generator.uniform(0.2, 0.9, work.supply.shape[0])
    random_board(tables_4a, public, generator, 10)
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
    copy_local_view(work.start_view, work.trial_view)
    before = {colour: values(colour) for colour in (BROWN, GRAY, GREEN, RED)}
    legal = [(h, c) for h in range(tables_4a.hex_count) for c in COLOURS
             if can_place_token(public.stacks, public.heights, public.cube_heights, 0, h, c)]
    placed, colour = legal[int(generator.integers(len(legal)))]
    place_token(public, 0, placed, colour)
    note_token_in_view(tables_4a.neighbours, public.stacks, public.heights, 0, work.trial_view,
                       placed)
    far = {h for h, d in steps_apart(tables_4a.neighbours, placed).items() if d >= 3}
    compared = 0
    for token_colour, earlier in before.items():
        after = values(token_colour)
        for hex_index in far & set(earlier):
            assert after[hex_index] == earlier[hex_index]
            compared += 1
    assert compared > 0
