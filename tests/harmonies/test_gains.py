"""The greedy policy's incremental token gains equal a full rescore, on random legal boards."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.harmonies.gains import invalidate, new_gain_cache, token_gain
from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.scoring import new_scratch, score_player
from sim.games.harmonies.stacking import can_place_token
from sim.games.harmonies.state import new_state
from sim.games.harmonies.tables import build_tables

TABLES = {}


def tables_for(data, side):
    if side not in TABLES:
        TABLES[side] = build_tables(data, HarmoniesRules(players=1, side=side))
    return TABLES[side]


@settings(max_examples=40, deadline=None)
@given(side=st.sampled_from(["A", "B"]),
       moves=st.lists(st.tuples(st.integers(0, 24), st.integers(0, 5)), max_size=45),
       spirit=st.sampled_from([None, 33, 35, 37, 39, 41, 42]))
def test_token_gain_equals_rescoring(data, side, moves, spirit):
    tables = tables_for(data, side)
    public, _ = new_state(tables)
    for hex_index, colour in moves:
        hex_index %= tables.hex_count
        if can_place_token(public.stacks, public.heights, public.cube_heights, 0, hex_index,
                           colour):
            public.stacks[0, hex_index, public.heights[0, hex_index]] = colour
            public.heights[0, hex_index] += 1
    if spirit is not None:
        public.held_cards[0, 0] = list(tables.card_ids).index(spirit)
        public.cubes_placed[0, 0] = 1
        public.held_count[0] = 1
    scratch, cache = new_scratch(tables.hex_count), new_gain_cache(tables.hex_count)
    out = np.zeros(7, dtype=np.int32)
    before = score_player(tables, public, 0, scratch, out)
    invalidate(cache)
    for hex_index in range(tables.hex_count):
        for colour in range(6):
            if not can_place_token(public.stacks, public.heights, public.cube_heights, 0,
                                   hex_index, colour):
                continue
            gain = token_gain(tables, public, 0, hex_index, colour, scratch, cache)
            height = public.heights[0, hex_index]
            public.stacks[0, hex_index, height] = colour
            public.heights[0, hex_index] = height + 1
            after = score_player(tables, public, 0, scratch, out)
            public.heights[0, hex_index] = height
            assert gain == after - before, (side, hex_index, colour)
