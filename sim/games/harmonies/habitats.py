"""Habitats: where a card's next cube may go (RULES.md, "A turn", step 3).

A cube placement is a pair (card slot, cube hex). It is legal when the card is not completed,
the cube hex holds a token and no cube, and for one of the 6 rotations (never a mirror image)
every habitat cell lies on the board and holds exactly the required stack (a building requirement
takes red on exactly one brown, gray or red). Other habitat hexes may hold cubes: one token may
belong to several habitats.
"""

from __future__ import annotations

from sim.games.harmonies.colours import (
    BROWN,
    BUILDING_REQUIREMENT,
    GRAY,
    RED,
    STACK_CODE_BASE,
)
from sim.games.harmonies.tables import ROTATIONS
from sim.jit import compiled, inlined


@inlined
def stack_code_at(stacks, heights, player, hex_index):
    """The stack code (see ``colours.py``) of ``player``'s hex."""
    code = 0
    scale = 1
    for level in range(heights[player, hex_index]):
        # int(): in plain Python (NUMBA_DISABLE_JIT) an int8 stack entry would keep int8 and
        # overflow at the third level; compiled code widens it anyway.
        code += (int(stacks[player, hex_index, level]) + 1) * scale
        scale *= STACK_CODE_BASE
    return code


@inlined
def is_building_at(stacks, heights, player, hex_index):
    """True when the hex holds a building: red on exactly one brown, gray or red."""
    if heights[player, hex_index] != 2 or stacks[player, hex_index, 1] != RED:
        return False
    base = stacks[player, hex_index, 0]
    return base == BROWN or base == GRAY or base == RED


@inlined
def stack_meets(stacks, heights, player, hex_index, requirement):
    """True when the hex holds what a habitat ``requirement`` asks for."""
    if requirement == BUILDING_REQUIREMENT:
        return is_building_at(stacks, heights, player, hex_index)
    return stack_code_at(stacks, heights, player, hex_index) == requirement


@compiled(always_inline=True)
def habitat_matches(card_cell_count, card_requirement, card_fits, card_cells, stacks, heights,
                    player, card, cube_hex):
    """True when ``card``'s habitat, in some rotation, lies on the board with its cube cell on
    ``cube_hex`` and every cell holding its required stack (the cube hex's own cube is not
    checked here). Takes the card arrays of the tables (not the tuple) because it runs in
    inner loops, where fetching arrays out of a tuple costs reference-count updates."""
    cell_count = card_cell_count[card]
    if not stack_meets(stacks, heights, player, cube_hex, card_requirement[card, 0]):
        return False
    for rotation in range(ROTATIONS):
        if not card_fits[card, rotation, cube_hex]:
            continue
        matched = True
        for cell in range(1, cell_count):
            hex_index = card_cells[card, rotation, cube_hex, cell]
            if not stack_meets(stacks, heights, player, hex_index, card_requirement[card, cell]):
                matched = False
                break
        if matched:
            return True
    return False


@compiled(always_inline=True)
def card_matches_at(tables, stacks, heights, player, card, cube_hex):
    """:func:`habitat_matches` for callers holding the tables tuple."""
    return habitat_matches(tables.card_cell_count, tables.card_requirement, tables.card_fits,
                           tables.card_cells, stacks, heights, player, card, cube_hex)


@inlined
def card_is_completed(tables, public, player, slot):
    """True when every cube of the card in ``slot`` is on the board."""
    card = public.held_cards[player, slot]
    return public.cubes_placed[player, slot] >= tables.card_cube_count[card]


@compiled(always_inline=True)
def cube_placement_is_legal(tables, public, player, slot, cube_hex):
    """True when the next cube of the card in ``slot`` may go on ``cube_hex`` now."""
    if slot < 0 or slot >= public.held_count[player]:
        return False
    if card_is_completed(tables, public, player, slot):
        return False
    if public.heights[player, cube_hex] == 0 or public.cube_heights[player, cube_hex] > 0:
        return False
    return card_matches_at(tables, public.stacks, public.heights, player,
                           public.held_cards[player, slot], cube_hex)


@compiled(always_inline=True)
def list_cube_placements(tables, public, player, out_slots, out_hexes):
    """Write every legal (card slot, cube hex) pair of ``player`` into the two output arrays
    (each at least cards held x hexes long) and return how many there are, slot by slot."""
    count = 0
    stacks, heights, cube_heights = public.stacks, public.heights, public.cube_heights
    held_cards, cubes_placed = public.held_cards, public.cubes_placed
    card_cube_count, card_cell_count = tables.card_cube_count, tables.card_cell_count
    card_requirement, card_fits, card_cells = (tables.card_requirement, tables.card_fits,
                                               tables.card_cells)
    hex_count = tables.hex_count
    # Most calls find no open card, and a player holds few: each hex's stack is read per open
    # card rather than summed up for every hex first.
    for slot in range(public.held_count[player]):
        card = held_cards[player, slot]
        if cubes_placed[player, slot] >= card_cube_count[card]:
            continue
        cube_requirement = card_requirement[card, 0]
        # A stack code is unique to its stack, so only hexes of the required height can hold
        # it (a building is 2 high).
        needed_height = 2
        if cube_requirement != BUILDING_REQUIREMENT:
            needed_height = 0
            code = cube_requirement
            while code > 0:
                code //= STACK_CODE_BASE
                needed_height += 1
        for cube_hex in range(hex_count):
            height = heights[player, cube_hex]
            if height == 0 or height != needed_height or cube_heights[player, cube_hex] > 0:
                continue
            if cube_requirement == BUILDING_REQUIREMENT:
                if not is_building_at(stacks, heights, player, cube_hex):
                    continue
            elif stack_code_at(stacks, heights, player, cube_hex) != cube_requirement:
                continue
            if habitat_matches(card_cell_count, card_requirement, card_fits, card_cells,
                               stacks, heights, player, card, cube_hex):
                out_slots[count] = slot
                out_hexes[count] = cube_hex
                count += 1
    return count
