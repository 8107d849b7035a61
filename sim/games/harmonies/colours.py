"""Token colours and stack codes shared by the loader, the compiled engine and the board format.

A colour is a small integer (``BLUE`` .. ``RED``). A stack of up to 3 tokens is also summed up as
one integer, its *stack code*: ``sum((colour + 1) * 7**level)`` over its levels, bottom level 0,
so the empty stack is 0 and every stack has its own code below ``STACK_CODE_COUNT``. A habitat
requirement is either a stack code (the hex must hold exactly that stack) or
``BUILDING_REQUIREMENT`` (any building).
"""

from __future__ import annotations

BLUE, GRAY, BROWN, GREEN, YELLOW, RED = 0, 1, 2, 3, 4, 5
COLOUR_COUNT = 6
NO_TOKEN = -1
COLOUR_NAMES = ("blue", "gray", "brown", "green", "yellow", "red")
COLOUR_CODES = {name: code for code, name in enumerate(COLOUR_NAMES)}

MAX_STACK_HEIGHT = 3
STACK_CODE_BASE = 7
STACK_CODE_COUNT = STACK_CODE_BASE**MAX_STACK_HEIGHT
BUILDING_REQUIREMENT = -2
# A building is red on exactly one token of these colours (RULES.md, "Stacking").
BUILDING_BASE_COLOURS = (BROWN, GRAY, RED)


def stack_code(colours: list[int] | tuple[int, ...]) -> int:
    """The stack code of a stack given as colour codes, bottom to top."""
    code = 0
    for level, colour in enumerate(colours):
        code += (colour + 1) * STACK_CODE_BASE**level
    return code


def stack_from_code(code: int) -> list[int]:
    """The colours (bottom to top) of a stack code: the inverse of :func:`stack_code`."""
    colours = []
    while code:
        colours.append(code % STACK_CODE_BASE - 1)
        code //= STACK_CODE_BASE
    return colours


def stack_name(colours: list[int] | tuple[int, ...]) -> str:
    """A stack written as in the data files, e.g. ``brown+green`` (``empty`` for no token)."""
    return "+".join(COLOUR_NAMES[c] for c in colours) or "empty"
