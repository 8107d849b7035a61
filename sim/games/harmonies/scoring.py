"""Final scoring, compiled (RULES.md, "End and scoring").

Scores come per category, in the order of :data:`CATEGORY_NAMES`: trees, mountains, fields,
buildings, water (side A: best river; side B: islands), animals, spirit. A board is read through
``stacks``/``heights`` arrays indexed ``[player, hex]``, so the same functions score a live game
and a board loaded from a file.

The group and distance searches need scratch arrays; :func:`new_scratch` makes one
:data:`Scratch` per game so the hot loops allocate nothing.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.harmonies.colours import BLUE, GRAY, GREEN, NO_TOKEN, YELLOW
from sim.games.harmonies.habitats import is_building_at
from sim.games.harmonies.tables import (
    BONUS_BLUE_TOKENS,
    BONUS_BUILDING_GROUPS,
    BONUS_FIELD_GROUPS,
    BONUS_MOUNTAINS,
    BONUS_TREES,
    BONUS_WATER_GROUPS,
)
from sim.jit import compiled, inlined

CATEGORY_NAMES = ("trees", "mountains", "fields", "buildings", "water", "animals", "spirit")
TREES, MOUNTAINS, FIELDS, BUILDINGS, WATER, ANIMALS, SPIRIT = range(7)
CATEGORY_COUNT = len(CATEGORY_NAMES)

Scratch = namedtuple(
    "Scratch",
    [
        "member",  # int8[H] 1 for hexes taking part in the current search
        "labels",  # int16[H] group label per hex, -1 outside every group
        "sizes",  # int16[H] size per group label
        "queue",  # int16[H] breadth-first search queue
        "distance",  # int16[H] distance from the search start, -1 unreached
    ],
)


def new_scratch(hex_count: int) -> Scratch:
    """Scratch arrays for a board of ``hex_count`` hexes."""
    return Scratch(
        member=np.zeros(hex_count, dtype=np.int8),
        labels=np.zeros(hex_count, dtype=np.int16),
        sizes=np.zeros(hex_count, dtype=np.int16),
        queue=np.zeros(hex_count, dtype=np.int16),
        distance=np.zeros(hex_count, dtype=np.int16),
    )


@inlined
def top_colour(stacks, heights, player, hex_index):
    """The colour on top of the hex, or NO_TOKEN when it is empty."""
    height = heights[player, hex_index]
    if height == 0:
        return NO_TOKEN
    return stacks[player, hex_index, height - 1]


@inlined
def table_value(values, count, size):
    """``values[size - 1]`` where the last of ``count`` values applies to every larger size."""
    if size <= 0:
        return 0
    if size > count:
        return values[count - 1]
    return values[size - 1]


@compiled
def label_groups(neighbours, member, labels, sizes, queue):
    """Label the connected groups of hexes with ``member[h] == 1``: fills ``labels`` (-1
    outside) and ``sizes`` (per label); returns the number of groups."""
    hex_count = member.shape[0]
    labels[:] = -1
    groups = 0
    for start in range(hex_count):
        if member[start] == 0 or labels[start] >= 0:
            continue
        labels[start] = groups
        queue[0] = start
        head, tail = 0, 1
        while head < tail:
            current = queue[head]
            head += 1
            for direction in range(6):
                neighbour = neighbours[current, direction]
                if neighbour >= 0 and member[neighbour] == 1 and labels[neighbour] < 0:
                    labels[neighbour] = groups
                    queue[tail] = neighbour
                    tail += 1
        sizes[groups] = tail
        groups += 1
    return groups


@compiled(always_inline=True)
def eccentricity(neighbours, member, start, distance, queue):
    """Largest number of steps from ``start`` to a hex of its group (hexes with member == 1)."""
    distance[:] = -1
    distance[start] = 0
    queue[0] = start
    head, tail = 0, 1
    farthest = 0
    while head < tail:
        current = queue[head]
        head += 1
        for direction in range(6):
            neighbour = neighbours[current, direction]
            if neighbour >= 0 and member[neighbour] == 1 and distance[neighbour] < 0:
                distance[neighbour] = distance[current] + 1
                if distance[neighbour] > farthest:
                    farthest = distance[neighbour]
                queue[tail] = neighbour
                tail += 1
    return farthest


@compiled
def mark_top_colour(stacks, heights, player, colour, member):
    """Set ``member[h] = 1`` where the top token is ``colour``, else 0; returns the count."""
    count = 0
    for hex_index in range(member.shape[0]):
        if top_colour(stacks, heights, player, hex_index) == colour:
            member[hex_index] = 1
            count += 1
        else:
            member[hex_index] = 0
    return count


# Per-hex scores take arrays, not the tables tuple: they run inside the greedy policy's inner
# loop, where every array fetched out of a tuple costs a reference-count update.


@inlined
def tree_points_at(tree_points, stacks, heights, player, hex_index):
    """Points of the hex as a tree: green on top, by height; 0 otherwise."""
    if top_colour(stacks, heights, player, hex_index) != GREEN:
        return 0
    return tree_points[heights[player, hex_index] - 1]


@compiled
def mountain_points_at(neighbours, mountain_points, stacks, heights, player, hex_index):
    """Points of the hex as a mountain: gray on top, by height, only next to another mountain."""
    if top_colour(stacks, heights, player, hex_index) != GRAY:
        return 0
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour >= 0 and top_colour(stacks, heights, player, neighbour) == GRAY:
            return mountain_points[heights[player, hex_index] - 1]
    return 0


@compiled
def building_points_at(neighbours, building_points, building_min_colours, stacks, heights,
                       player, hex_index):
    """Points of the hex as a building: when its neighbours' top tokens show enough colours."""
    if not is_building_at(stacks, heights, player, hex_index):
        return 0
    seen = 0
    colours = 0
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour < 0:
            continue
        colour = top_colour(stacks, heights, player, neighbour)
        if colour != NO_TOKEN and (seen >> colour) & 1 == 0:
            seen |= 1 << colour
            colours += 1
    return building_points if colours >= building_min_colours else 0


@compiled
def field_points(tables, stacks, heights, player, scratch):
    """Points of the fields: each group of enough connected yellow tokens."""
    mark_top_colour(stacks, heights, player, YELLOW, scratch.member)
    groups = label_groups(tables.neighbours, scratch.member, scratch.labels, scratch.sizes,
                          scratch.queue)
    total = 0
    for group in range(groups):
        if scratch.sizes[group] >= tables.field_min_group:
            total += tables.field_group_points
    return total


@inlined
def river_length_points(river_points, points_per_extra_token, length):
    """Points of a river of ``length`` tokens (the table, then a fixed amount per extra token)."""
    if length <= 0:
        return 0
    listed = river_points.shape[0]
    if length <= listed:
        return river_points[length - 1]
    return river_points[listed - 1] + points_per_extra_token * (length - listed)


@inlined
def river_points_for_length(tables, length):
    """:func:`river_length_points` with the tables' river table."""
    return river_length_points(tables.river_points, tables.river_points_per_extra_token, length)


@compiled
def best_river_length(tables, stacks, heights, player, scratch):
    """Length in tokens of the longest river: the largest graph diameter of a blue group, both
    ends counted (0 without blue)."""
    blue = mark_top_colour(stacks, heights, player, BLUE, scratch.member)
    if blue == 0:
        return 0
    longest = 0
    neighbours, member = tables.neighbours, scratch.member
    for start in range(tables.hex_count):
        if member[start] == 1:
            steps = eccentricity(neighbours, member, start, scratch.distance, scratch.queue)
            if steps > longest:
                longest = steps
    return longest + 1


@compiled
def count_islands(neighbours, stacks, heights, player, member, labels, sizes, queue):
    """Islands: connected groups of hexes not topped by blue (empty hexes are land)."""
    for hex_index in range(member.shape[0]):
        is_water = top_colour(stacks, heights, player, hex_index) == BLUE
        member[hex_index] = 0 if is_water else 1
    return label_groups(neighbours, member, labels, sizes, queue)


@compiled
def island_count(tables, stacks, heights, player, scratch):
    """:func:`count_islands` with the tables' geometry and the scratch arrays."""
    return count_islands(tables.neighbours, stacks, heights, player, scratch.member,
                         scratch.labels, scratch.sizes, scratch.queue)


@compiled
def water_points(tables, stacks, heights, player, scratch):
    """Side A: points of the best river; side B: points of the islands."""
    if tables.water_is_river:
        return river_points_for_length(
            tables, best_river_length(tables, stacks, heights, player, scratch)
        )
    return tables.island_points * island_count(tables, stacks, heights, player, scratch)


@compiled
def group_bonus(tables, card, groups, scratch):
    """Sum of a spirit's bonus over the groups labelled in ``scratch`` (by group size)."""
    total = 0
    count = tables.bonus_points_count[card]
    for group in range(groups):
        total += table_value(tables.bonus_points[card], count, scratch.sizes[group])
    return total


@compiled
def spirit_bonus(tables, stacks, heights, player, card, scratch):
    """End bonus of the spirit ``card`` on the player's board (RULES.md spirit table)."""
    kind = tables.bonus_kind[card]
    count = tables.bonus_points_count[card]
    points = tables.bonus_points[card]
    total = 0
    if kind == BONUS_FIELD_GROUPS or kind == BONUS_WATER_GROUPS:
        colour = YELLOW if kind == BONUS_FIELD_GROUPS else BLUE
        mark_top_colour(stacks, heights, player, colour, scratch.member)
        groups = label_groups(tables.neighbours, scratch.member, scratch.labels, scratch.sizes,
                              scratch.queue)
        total = group_bonus(tables, card, groups, scratch)
    elif kind == BONUS_BUILDING_GROUPS:
        for hex_index in range(tables.hex_count):
            scratch.member[hex_index] = 1 if is_building_at(stacks, heights, player,
                                                            hex_index) else 0
        groups = label_groups(tables.neighbours, scratch.member, scratch.labels, scratch.sizes,
                              scratch.queue)
        total = group_bonus(tables, card, groups, scratch)
    elif kind == BONUS_TREES or kind == BONUS_MOUNTAINS:
        colour = GREEN if kind == BONUS_TREES else GRAY
        for hex_index in range(tables.hex_count):
            if top_colour(stacks, heights, player, hex_index) == colour:
                total += table_value(points, count, heights[player, hex_index])
    elif kind == BONUS_BLUE_TOKENS:
        total = points[0] * mark_top_colour(stacks, heights, player, BLUE, scratch.member)
    return total


@compiled
def landscape_points(tables, stacks, heights, player, scratch, out):
    """Write trees, mountains, fields, buildings and water points into ``out[0:5]``."""
    trees = 0
    mountains = 0
    buildings = 0
    neighbours = tables.neighbours
    tree_points, mountain_points = tables.tree_points, tables.mountain_points
    for hex_index in range(tables.hex_count):
        trees += tree_points_at(tree_points, stacks, heights, player, hex_index)
        mountains += mountain_points_at(neighbours, mountain_points, stacks, heights, player,
                                        hex_index)
        buildings += building_points_at(neighbours, tables.building_points,
                                        tables.building_min_colours, stacks, heights, player,
                                        hex_index)
    out[TREES] = trees
    out[MOUNTAINS] = mountains
    out[FIELDS] = field_points(tables, stacks, heights, player, scratch)
    out[BUILDINGS] = buildings
    out[WATER] = water_points(tables, stacks, heights, player, scratch)


@compiled
def card_points(tables, stacks, heights, held_cards, cubes_placed, held_count, player, scratch,
                out):
    """Write animal card points into ``out[ANIMALS]`` (the track value of the cubes placed) and
    spirit bonuses into ``out[SPIRIT]`` (only for a spirit whose cube is placed)."""
    animals = 0
    spirit = 0
    for slot in range(held_count[player]):
        card = held_cards[player, slot]
        placed = cubes_placed[player, slot]
        if placed <= 0:
            continue
        if tables.card_is_spirit[card]:
            spirit += spirit_bonus(tables, stacks, heights, player, card, scratch)
        else:
            animals += tables.card_points[card, placed - 1]
    out[ANIMALS] = animals
    out[SPIRIT] = spirit


@compiled
def score_player(tables, public, player, scratch, out):
    """Write ``player``'s points per category into ``out`` (length CATEGORY_COUNT); returns the
    total."""
    landscape_points(tables, public.stacks, public.heights, player, scratch, out)
    card_points(tables, public.stacks, public.heights, public.held_cards, public.cubes_placed,
                public.held_count, player, scratch, out)
    total = 0
    for category in range(CATEGORY_COUNT):
        total += out[category]
    return total


@compiled
def animal_cubes_placed(tables, public, player):
    """Animal cubes the player has moved to the board (spirit cubes excluded): the tie-break."""
    cubes = 0
    for slot in range(public.held_count[player]):
        if not tables.card_is_spirit[public.held_cards[player, slot]]:
            cubes += public.cubes_placed[player, slot]
    return cubes


@compiled
def animal_cards_completed(tables, public, player):
    """Animal cards whose every cube is on the board."""
    completed = 0
    for slot in range(public.held_count[player]):
        card = public.held_cards[player, slot]
        if not tables.card_is_spirit[card] and \
                public.cubes_placed[player, slot] >= tables.card_cube_count[card]:
            completed += 1
    return completed
