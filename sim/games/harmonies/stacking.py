"""Stacking: which token may go on which stack (RULES.md, "Stacking").

Two formulations of the same table, kept apart on purpose so tests can check one against the
other: :func:`can_place_token` (compiled, used by the engine at every placement) says what may go
on top of a stack; :func:`is_legal_stack` (pure Python, used by the board loader, the data loader
and the reference scorer) lists the complete stacks the table allows.
"""

from __future__ import annotations

from sim.games.harmonies.colours import (
    BLUE,
    BROWN,
    GRAY,
    GREEN,
    MAX_STACK_HEIGHT,
    RED,
    YELLOW,
)
from sim.jit import inlined

# Every stack that the stacking table allows, bottom to top (partial trees included).
LEGAL_STACKS = frozenset(
    {
        (),
        (GRAY,),
        (GRAY, GRAY),
        (GRAY, GRAY, GRAY),
        (BROWN,),
        (BROWN, BROWN),
        (GREEN,),
        (BROWN, GREEN),
        (BROWN, BROWN, GREEN),
        (RED,),
        (BROWN, RED),
        (GRAY, RED),
        (RED, RED),
        (YELLOW,),
        (BLUE,),
    }
)


def is_legal_stack(colours: list[int] | tuple[int, ...]) -> bool:
    """True when the stack (colour codes, bottom to top) is one the stacking table allows."""
    return tuple(colours) in LEGAL_STACKS


@inlined
def can_place_token(stacks, heights, cube_heights, player, hex_index, colour):
    """True when ``colour`` may go on top of ``player``'s stack at ``hex_index`` right now."""
    if cube_heights[player, hex_index] > 0:
        return False  # nothing ever goes on a hex holding a cube
    height = heights[player, hex_index]
    if height == 0:
        return True
    if height >= MAX_STACK_HEIGHT:
        return False
    top = stacks[player, hex_index, height - 1]
    if colour == GRAY:
        # Only gray ever goes under gray, so a gray top means an all-gray stack.
        return top == GRAY
    if colour == BROWN:
        return height == 1 and top == BROWN
    if colour == GREEN:
        # Brown only goes on empty or on one brown: a brown top is a trunk of height 1 or 2.
        return top == BROWN
    if colour == RED:
        return height == 1 and (top == BROWN or top == GRAY or top == RED)
    return False  # yellow and blue go only on an empty hex
