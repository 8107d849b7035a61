"""The strategies' fast local gain (per-hex summary of the board) equals the reference local
gain on random legal boards, and the summary kept up to date token by token equals one made
afresh."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.harmonies.gains import (
    copy_local_view,
    fast_local_gain,
    local_token_gain,
    new_local_view,
    note_token_in_view,
    prepare_local_view,
)
from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.stacking import can_place_token
from sim.games.harmonies.state import new_state
from sim.games.harmonies.tables import build_tables

TABLES = {}


def tables_for(data, side):
    if side not in TABLES:
        TABLES[side] = build_tables(data, HarmoniesRules(players=1, side=side))
    return TABLES[side]


def views_equal(first, second) -> bool:
    return all((getattr(first, name) == getattr(second, name)).all()
               for name in ("tops", "gray_around", "buildings"))


@settings(max_examples=60, deadline=None)
@given(side=st.sampled_from(["A", "B"]),
       moves=st.lists(st.tuples(st.integers(0, 24), st.integers(0, 5)), max_size=50))
def test_fast_local_gain_equals_local_token_gain(data, side, moves):
    tables = tables_for(data, side)
    public, _ = new_state(tables)
    view, fresh = new_local_view(tables.hex_count), new_local_view(tables.hex_count)
    prepare_local_view(tables.neighbours, public.stacks, public.heights, 0, view)
    for hex_index, colour in moves:
        hex_index %= tables.hex_count
        if can_place_token(public.stacks, public.heights, public.cube_heights, 0, hex_index,
                           colour):
            public.stacks[0, hex_index, public.heights[0, hex_index]] = colour
            public.heights[0, hex_index] += 1
            note_token_in_view(tables.neighbours, public.stacks, public.heights, 0, view,
                               hex_index)
    prepare_local_view(tables.neighbours, public.stacks, public.heights, 0, fresh)
    assert views_equal(view, fresh)
    copied = new_local_view(tables.hex_count)
    copy_local_view(fresh, copied)
    assert views_equal(copied, fresh)
    checked = 0
    for hex_index in range(tables.hex_count):
        for colour in range(6):
            if not can_place_token(public.stacks, public.heights, public.cube_heights, 0,
                                   hex_index, colour):
                continue
            reference = local_token_gain(tables.neighbours, tables.tree_points,
                                         tables.mountain_points, tables.building_points,
                                         tables.building_min_colours, public.stacks,
                                         public.heights, 0, hex_index, colour)
            fast = fast_local_gain(tables.neighbours, tables.tree_points,
                                   tables.mountain_points, tables.building_points,
                                   tables.building_min_colours, public.heights, 0, fresh,
                                   hex_index, colour)
            assert fast == reference, (side, hex_index, colour)
            checked += 1
    assert checked > 0
