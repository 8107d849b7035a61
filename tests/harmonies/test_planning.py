"""The turn search the strategies share (``strategies.harmonies.planning``): a template takes
exactly its steps, and greedy's reuse of first-step gains plans what working every gain out
again plans."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.stacking import can_place_token
from sim.games.harmonies.state import deal, new_state
from sim.games.harmonies.tables import build_tables
from sim.jit import compiled
from sim.rng import seed_state
from strategies.harmonies.common import new_workspace
from strategies.harmonies.greedy import (
    ILLEGAL,
    greedy_cube_phase,
    greedy_first_gain_holds,
    greedy_first_gain_table,
    greedy_plan_start,
    greedy_space_search,
    greedy_step_start,
    greedy_token_gain,
    greedy_token_planned,
)
from strategies.harmonies.planning import space_search, specialise, token_steps


@compiled(always_inline=True)
def never_reusable(work, colour, plan):
    """Every gain after the first step worked out again."""
    return False


recomputing_token_steps = specialise(
    token_steps, "recomputing_greedy_token_steps", __name__, not_legal=ILLEGAL,
    plan_start=greedy_plan_start, step_start=greedy_step_start,
    first_value_table=greedy_first_gain_table, first_values_reusable=never_reusable,
    first_value_holds=greedy_first_gain_holds, token_value=greedy_token_gain,
    token_planned=greedy_token_planned)


@compiled(always_inline=True)
def recomputing_space_value(tables, public, player, generator, work, token_count, context):
    """Greedy's space value with every gain worked out afresh."""
    value = recomputing_token_steps(tables, public, player, generator, work, token_count, 0,
                                    context)
    return value + greedy_cube_phase(tables, public, player, generator, work)


recomputing_space_search = specialise(space_search, "recomputing_greedy_space_search",
                                      __name__, space_value=recomputing_space_value)

TABLES = {}


def tables_for(data, side):
    if side not in TABLES:
        TABLES[side] = build_tables(data, HarmoniesRules(players=2, side=side))
    return TABLES[side]


def test_specialise_wants_exactly_the_template_steps():
    with pytest.raises(TypeError, match="space_value"):
        specialise(space_search, "misnamed", __name__, value=never_reusable)


@settings(max_examples=25, deadline=None)
@given(side=st.sampled_from(["A", "B"]), deal_seed=st.integers(0, 10_000),
       moves=st.lists(st.tuples(st.integers(0, 24), st.integers(0, 5)), max_size=40))
def test_greedy_reusing_first_step_gains_plans_as_recomputing_them(data, side, deal_seed,
                                                                   moves):
    tables = tables_for(data, side)
    public, hidden = new_state(tables)
    deal(tables, public, hidden, deal_seed)
    for hex_index, colour in moves:
        hex_index %= tables.hex_count
        if can_place_token(public.stacks, public.heights, public.cube_heights, 0, hex_index,
                           colour):
            public.stacks[0, hex_index, public.heights[0, hex_index]] = colour
            public.heights[0, hex_index] += 1
    boards = [part.copy() for part in (public.stacks, public.heights, public.cube_heights)]
    chosen = []
    for search in (greedy_space_search, recomputing_space_search):
        work = new_workspace(tables)
        generator = np.zeros(4, dtype=np.uint64)
        seed_state(generator, deal_seed, 0)
        space, token_count = search(tables, public, 0, generator, work, 0)
        chosen.append((space, token_count, work.best_plan_colours.tolist(),
                       work.best_plan_hexes.tolist(), generator.tolist()))
        # The search puts the board back as it found it.
        for before, after in zip(boards,
                                 (public.stacks, public.heights, public.cube_heights), strict=True):
            assert np.array_equal(before, after)
    assert chosen[0] == chosen[1]
    assert chosen[0][0] >= 0
