"""Every line of the RULES.md stacking table, allowed and refused, on the compiled rule; and
the compiled rule against the pure-Python list of legal stacks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sim.games.harmonies.colours import COLOUR_CODES, COLOUR_NAMES
from sim.games.harmonies.stacking import LEGAL_STACKS, can_place_token, is_legal_stack

# (stack below, token) pairs the table allows, written out by hand from RULES.md.
ALLOWED = {
    ("", "gray"), ("", "brown"), ("", "green"), ("", "red"), ("", "yellow"), ("", "blue"),
    ("gray", "gray"), ("gray+gray", "gray"),
    ("brown", "brown"),
    ("brown", "green"), ("brown+brown", "green"),
    ("brown", "red"), ("gray", "red"), ("red", "red"),
}
STACKS = ["", "gray", "gray+gray", "gray+gray+gray", "brown", "brown+brown", "green",
          "brown+green", "brown+brown+green", "red", "brown+red", "gray+red", "red+red",
          "yellow", "blue"]


def _codes(text: str) -> list[int]:
    return [COLOUR_CODES[name] for name in text.split("+")] if text else []


def _one_hex(stack: list[int], cube: bool = False):
    stacks = np.zeros((1, 1, 3), dtype=np.int8)
    heights = np.zeros((1, 1), dtype=np.int8)
    cube_heights = np.zeros((1, 1), dtype=np.int8)
    stacks[0, 0, : len(stack)] = stack
    heights[0, 0] = len(stack)
    cube_heights[0, 0] = len(stack) if cube else 0
    return stacks, heights, cube_heights


@pytest.mark.parametrize("below", STACKS)
def test_each_token_on_each_stack(below):
    for colour in COLOUR_NAMES:
        stacks, heights, cube_heights = _one_hex(_codes(below))
        allowed = can_place_token(stacks, heights, cube_heights, 0, 0, COLOUR_CODES[colour])
        assert allowed == ((below, colour) in ALLOWED), f"{colour} on '{below}'"


@pytest.mark.parametrize("below", ["gray", "brown", "brown+brown", "red"])
def test_nothing_goes_on_a_cube(below):
    for colour in COLOUR_NAMES:
        stacks, heights, cube_heights = _one_hex(_codes(below), cube=True)
        assert not can_place_token(stacks, heights, cube_heights, 0, 0, COLOUR_CODES[colour])


def test_legal_stacks_are_exactly_those_built_by_legal_placements():
    built = {()}
    frontier = [()]
    while frontier:
        stack = frontier.pop()
        for colour in range(6):
            stacks, heights, cube_heights = _one_hex(list(stack))
            if can_place_token(stacks, heights, cube_heights, 0, 0, colour):
                grown = (*stack, colour)
                assert len(grown) <= 3
                if grown not in built:
                    built.add(grown)
                    frontier.append(grown)
    assert built == set(LEGAL_STACKS)
    for length in range(4):
        for stack in itertools.product(range(6), repeat=length):
            assert is_legal_stack(stack) == (stack in built)
