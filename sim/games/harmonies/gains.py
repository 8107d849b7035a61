"""Immediate score gains, compiled: how many points one token or one cube would add right now.

The greedy policy evaluates hundreds of candidate placements per turn, so a token's gain is worked
out locally instead of rescoring the board: a token on hex h changes only the tree at h, the
mountains and buildings at h and its neighbours, the yellow group it joins, and the water.
Group labels (yellow, blue) and the current water and spirit scores are cached in a
:data:`GainCache` that stays valid until a yellow or blue token (or any token, for a placed
spirit's bonus) is added; callers mark it stale through :func:`note_token_placed`.

Tests check every gain here against a full rescore (``tests/harmonies/test_gains.py``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.harmonies.colours import BLUE, BROWN, GRAY, GREEN, NO_TOKEN, RED, YELLOW
from sim.games.harmonies.habitats import is_building_at
from sim.games.harmonies.scoring import (
    building_points_at,
    count_islands,
    eccentricity,
    island_count,
    label_groups,
    mark_top_colour,
    mountain_points_at,
    river_length_points,
    spirit_bonus,
)
from sim.jit import compiled, inlined

GainCache = namedtuple(
    "GainCache",
    [
        "valid",  # int8[3]: yellow groups, blue groups, spirit bonus are up to date
        "yellow_labels",  # int16[H] yellow group per hex, -1 elsewhere
        "yellow_sizes",  # int16[H] size per yellow group
        "blue_labels",  # int16[H] blue group per hex, -1 elsewhere
        "blue_diameters",  # int16[H] river length (tokens) per blue group
        "numbers",  # int32[4]: blue group count, best river length, islands, spirit points
    ],
)
LocalView = namedtuple(
    "LocalView",
    [
        "tops",  # int8[H] top colour per hex, NO_TOKEN when empty
        "gray_around",  # int8[H] neighbours topped by gray
        "buildings",  # int8[H] 1 where a building stands
    ],
)
VALID_YELLOW, VALID_BLUE, VALID_SPIRIT = 0, 1, 2
BLUE_GROUPS, BEST_RIVER, ISLANDS, SPIRIT_POINTS = 0, 1, 2, 3


def new_gain_cache(hex_count: int) -> GainCache:
    """An empty (stale) cache for a board of ``hex_count`` hexes."""
    return GainCache(
        valid=np.zeros(3, dtype=np.int8),
        yellow_labels=np.zeros(hex_count, dtype=np.int16),
        yellow_sizes=np.zeros(hex_count, dtype=np.int16),
        blue_labels=np.zeros(hex_count, dtype=np.int16),
        blue_diameters=np.zeros(hex_count, dtype=np.int16),
        numbers=np.zeros(4, dtype=np.int32),
    )


@inlined
def invalidate(cache):
    """Mark everything stale (e.g. after the board was restored or changed hands)."""
    cache.valid[:] = 0


@compiled(always_inline=True)
def copy_gain_cache(source, target):
    """Copy one cache into another, validity included (e.g. the turn's starting board, worked
    out once, back after a trial is undone)."""
    for part in range(source.valid.shape[0]):
        target.valid[part] = source.valid[part]
    for hex_index in range(source.yellow_labels.shape[0]):
        target.yellow_labels[hex_index] = source.yellow_labels[hex_index]
        target.yellow_sizes[hex_index] = source.yellow_sizes[hex_index]
        target.blue_labels[hex_index] = source.blue_labels[hex_index]
        target.blue_diameters[hex_index] = source.blue_diameters[hex_index]
    for number in range(source.numbers.shape[0]):
        target.numbers[number] = source.numbers[number]


@inlined
def note_token_placed(cache, colour):
    """Mark stale what a new token of ``colour`` may have changed."""
    if colour == YELLOW:
        cache.valid[VALID_YELLOW] = 0
    if colour == BLUE:
        cache.valid[VALID_BLUE] = 0
    cache.valid[VALID_SPIRIT] = 0


@compiled(always_inline=True)
def placed_spirit_points(tables, public, player, scratch):
    """Bonus points of the player's spirits whose cube is placed."""
    total = 0
    for slot in range(public.held_count[player]):
        card = public.held_cards[player, slot]
        if tables.card_is_spirit[card] and public.cubes_placed[player, slot] > 0:
            total += spirit_bonus(tables, public.stacks, public.heights, player, card, scratch)
    return total


@inlined
def holds_placed_spirit(tables, public, player):
    """True when one of the player's spirits has its cube on the board (its bonus then moves
    with every token)."""
    for slot in range(public.held_count[player]):
        card = public.held_cards[player, slot]
        if tables.card_is_spirit[card] and public.cubes_placed[player, slot] > 0:
            return True
    return False


@compiled(always_inline=True)
def refresh(tables, public, player, scratch, cache):
    """Recompute the stale parts of the cache for ``player``'s board."""
    valid = cache.valid
    if valid[VALID_YELLOW] == 1 and valid[VALID_BLUE] == 1 and valid[VALID_SPIRIT] == 1:
        return
    stacks, heights = public.stacks, public.heights
    neighbours, member = tables.neighbours, scratch.member
    if cache.valid[VALID_YELLOW] == 0:
        mark_top_colour(stacks, heights, player, YELLOW, member)
        label_groups(neighbours, member, cache.yellow_labels, cache.yellow_sizes, scratch.queue)
        cache.valid[VALID_YELLOW] = 1
    if cache.valid[VALID_BLUE] == 0:
        if tables.water_is_river:
            mark_top_colour(stacks, heights, player, BLUE, member)
            labels, diameters = cache.blue_labels, cache.blue_diameters
            groups = label_groups(neighbours, member, labels, scratch.sizes, scratch.queue)
            diameters[:groups] = 0
            best = 0
            for start in range(tables.hex_count):
                group = labels[start]
                if group >= 0:
                    length = eccentricity(neighbours, member, start, scratch.distance,
                                          scratch.queue) + 1
                    if length > diameters[group]:
                        diameters[group] = length
                    if length > best:
                        best = length
            cache.numbers[BLUE_GROUPS] = groups
            cache.numbers[BEST_RIVER] = best
        else:
            cache.numbers[ISLANDS] = island_count(tables, stacks, heights, player, scratch)
        cache.valid[VALID_BLUE] = 1
    if cache.valid[VALID_SPIRIT] == 0:
        cache.numbers[SPIRIT_POINTS] = placed_spirit_points(tables, public, player, scratch)
        cache.valid[VALID_SPIRIT] = 1


@compiled
def changeable_points(neighbours, mountain_points, building_points, building_min_colours,
                      stacks, heights, player, hex_index, with_neighbour_mountains):
    """Mountain and building points that a token on ``hex_index`` can change: the hex itself,
    the buildings around it (their neighbours' colours change), and, when the hex turns into or
    stops being a mountain, the mountains around it (their adjacency changes)."""
    total = mountain_points_at(neighbours, mountain_points, stacks, heights, player, hex_index)
    total += building_points_at(neighbours, building_points, building_min_colours, stacks,
                                heights, player, hex_index)
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour < 0:
            continue
        if with_neighbour_mountains:
            total += mountain_points_at(neighbours, mountain_points, stacks, heights, player,
                                        neighbour)
        if is_building_at(stacks, heights, player, neighbour):
            total += building_points_at(neighbours, building_points, building_min_colours,
                                        stacks, heights, player, neighbour)
    return total


@compiled
def local_token_gain(neighbours, tree_points, mountain_points, building_points,
                     building_min_colours, stacks, heights, player, hex_index, colour):
    """Trees, mountains and buildings points gained by a ``colour`` token on ``hex_index`` (which
    must be legal). Arrays rather than the tables tuple: this is the greedy's innermost call.
    The board is left unchanged."""
    height = heights[player, hex_index]
    old_top = stacks[player, hex_index, height - 1] if height > 0 else NO_TOKEN
    gain = 0
    if colour == GREEN:
        # Nothing goes on green, so a tree only ever appears, never disappears.
        gain += tree_points[height]
    mountain_status_changes = (colour == GRAY) != (old_top == GRAY)
    before = changeable_points(neighbours, mountain_points, building_points,
                               building_min_colours, stacks, heights, player, hex_index,
                               mountain_status_changes)
    previous = stacks[player, hex_index, height]
    stacks[player, hex_index, height] = colour
    heights[player, hex_index] = height + 1
    after = changeable_points(neighbours, mountain_points, building_points,
                              building_min_colours, stacks, heights, player, hex_index,
                              mountain_status_changes)
    heights[player, hex_index] = height
    stacks[player, hex_index, height] = previous
    return gain + after - before


# The gains below take arrays, not the tables tuple: passing that tuple copies it, and these
# run once per candidate hex.


@compiled(always_inline=True)
def field_gain(neighbours, yellow_labels, yellow_sizes, field_min_group, field_group_points,
               hex_index):
    """Field points gained by a yellow token on the empty ``hex_index`` (labels and sizes of
    the board without it): the groups it touches merge into one."""
    merged_size = 1
    big_groups_before = 0
    seen = 0  # bit per yellow group already counted
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour < 0:
            continue
        group = yellow_labels[neighbour]
        if group < 0 or (seen >> group) & 1:
            continue
        seen |= 1 << group
        merged_size += yellow_sizes[group]
        if yellow_sizes[group] >= field_min_group:
            big_groups_before += 1
    after = field_group_points if merged_size >= field_min_group else 0
    return after - big_groups_before * field_group_points


@compiled(always_inline=True)
def river_gain(neighbours, blue_labels, blue_diameters, numbers, river_points,
               points_per_extra_token, member, distance, queue, hex_index):
    """Side A: river points gained by a blue token on the empty ``hex_index`` (labels, group
    diameters and ``numbers`` of the cache, for the board without it). Only the groups the
    token touches change; they merge, and the merged river may even be shorter than the
    longest of them (a shortcut), so its diameter is measured afresh."""
    touched = 0  # bit per blue group next to the new token
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour >= 0 and blue_labels[neighbour] >= 0:
            touched |= 1 << blue_labels[neighbour]
    best_untouched = 0
    for group in range(numbers[BLUE_GROUPS]):
        if (touched >> group) & 1 == 0 and blue_diameters[group] > best_untouched:
            best_untouched = blue_diameters[group]
    merged_length = 1
    if touched != 0:
        hex_count = member.shape[0]
        for other in range(hex_count):
            group = blue_labels[other]
            member[other] = 1 if group >= 0 and (touched >> group) & 1 == 1 else 0
        member[hex_index] = 1
        for start in range(hex_count):
            if member[start] == 1:
                length = eccentricity(neighbours, member, start, distance, queue) + 1
                if length > merged_length:
                    merged_length = length
    new_best = merged_length if merged_length > best_untouched else best_untouched
    return river_length_points(river_points, points_per_extra_token, new_best) - \
        river_length_points(river_points, points_per_extra_token, numbers[BEST_RIVER])


@compiled
def island_gain(neighbours, island_points, numbers, stacks, heights, player, member, labels,
                sizes, queue, hex_index):
    """Side B: island points gained by a blue token on the empty ``hex_index`` (``numbers`` of
    the cache for the board without it)."""
    height = heights[player, hex_index]
    previous = stacks[player, hex_index, height]
    stacks[player, hex_index, height] = BLUE
    heights[player, hex_index] = height + 1
    islands = count_islands(neighbours, stacks, heights, player, member, labels, sizes, queue)
    heights[player, hex_index] = height
    stacks[player, hex_index, height] = previous
    return island_points * (islands - numbers[ISLANDS])


@compiled(always_inline=True)
def spirit_gain(tables, public, player, hex_index, colour, scratch, cache):
    """Change of the placed spirits' bonus from a ``colour`` token on ``hex_index`` (cache up
    to date). The board is left unchanged."""
    stacks, heights = public.stacks, public.heights
    height = heights[player, hex_index]
    previous = stacks[player, hex_index, height]
    stacks[player, hex_index, height] = colour
    heights[player, hex_index] = height + 1
    gain = placed_spirit_points(tables, public, player, scratch) - cache.numbers[SPIRIT_POINTS]
    heights[player, hex_index] = height
    stacks[player, hex_index, height] = previous
    return gain


@compiled
def water_gain(tables, public, player, hex_index, scratch, cache):
    """Water points gained by a blue token on ``hex_index`` (cache up to date)."""
    if tables.water_is_river:
        height = public.heights[player, hex_index]
        public.stacks[player, hex_index, height] = BLUE
        public.heights[player, hex_index] = height + 1
        gain = river_gain(tables.neighbours, cache.blue_labels, cache.blue_diameters,
                          cache.numbers, tables.river_points,
                          tables.river_points_per_extra_token, scratch.member,
                          scratch.distance, scratch.queue, hex_index)
        public.heights[player, hex_index] = height
        return gain
    return island_gain(tables.neighbours, tables.island_points, cache.numbers, public.stacks,
                       public.heights, player, scratch.member, scratch.labels, scratch.sizes,
                       scratch.queue, hex_index)


@compiled
def token_gain(tables, public, player, hex_index, colour, scratch, cache):
    """Points gained at once by putting a ``colour`` token on ``hex_index`` (which must be
    legal), cards excluded except a placed spirit's bonus. The board is left unchanged.

    The reference form of the gain; the greedy policy computes the same sum from the parts
    with the arrays fetched once per step."""
    refresh(tables, public, player, scratch, cache)
    gain = local_token_gain(tables.neighbours, tables.tree_points, tables.mountain_points,
                            tables.building_points, tables.building_min_colours,
                            public.stacks, public.heights, player, hex_index, colour)
    if colour == YELLOW:
        gain += field_gain(tables.neighbours, cache.yellow_labels, cache.yellow_sizes,
                           tables.field_min_group, tables.field_group_points, hex_index)
    elif colour == BLUE:
        gain += water_gain(tables, public, player, hex_index, scratch, cache)
    if holds_placed_spirit(tables, public, player):
        gain += spirit_gain(tables, public, player, hex_index, colour, scratch, cache)
    return gain


@compiled(always_inline=True)
def cube_gain(tables, public, player, slot, scratch):
    """Points gained at once by moving the next cube of the card in ``slot`` to the board."""
    card = public.held_cards[player, slot]
    placed = public.cubes_placed[player, slot]
    if tables.card_is_spirit[card]:
        return spirit_bonus(tables, public.stacks, public.heights, player, card, scratch)
    gain = tables.card_points[card, placed]
    if placed > 0:
        gain -= tables.card_points[card, placed - 1]
    return gain


# --------------------------------------------------------------------------------------------
# A faster local gain for the strategies' inner loops: the board summed up per hex once per
# placement step (top colours, gray neighbours, buildings), then O(6) work per candidate.


def new_local_view(hex_count: int) -> LocalView:
    """Empty per-hex summaries for a board of ``hex_count`` hexes."""
    return LocalView(
        tops=np.zeros(hex_count, dtype=np.int8),
        gray_around=np.zeros(hex_count, dtype=np.int8),
        buildings=np.zeros(hex_count, dtype=np.int8),
    )


@compiled
def prepare_local_view(neighbours, stacks, heights, player, view):
    """Fill ``view`` for ``player``'s board as it is now."""
    tops, gray_around, buildings = view.tops, view.gray_around, view.buildings
    hex_count = tops.shape[0]
    for hex_index in range(hex_count):
        height = heights[player, hex_index]
        tops[hex_index] = stacks[player, hex_index, height - 1] if height > 0 else NO_TOKEN
        buildings[hex_index] = 1 if is_building_at(stacks, heights, player, hex_index) else 0
    for hex_index in range(hex_count):
        count = 0
        for direction in range(6):
            neighbour = neighbours[hex_index, direction]
            if neighbour >= 0 and tops[neighbour] == GRAY:
                count += 1
        gray_around[hex_index] = count


@compiled(always_inline=True)
def _building_scores(neighbours, tops, building_min_colours, building, changed, new_top):
    """Whether the building on ``building`` sees enough colours when hex ``changed`` shows
    ``new_top``."""
    seen = 0
    colours = 0
    for direction in range(6):
        neighbour = neighbours[building, direction]
        if neighbour < 0:
            continue
        colour = new_top if neighbour == changed else tops[neighbour]
        if colour != NO_TOKEN and (seen >> colour) & 1 == 0:
            seen |= 1 << colour
            colours += 1
    return colours >= building_min_colours


@compiled(always_inline=True)
def fast_local_gain(neighbours, tree_points, mountain_points, building_points,
                    building_min_colours, heights, player, view, hex_index, colour):
    """:func:`local_token_gain` from a :func:`prepare_local_view` summary: the trees,
    mountains and buildings points a legal ``colour`` token on ``hex_index`` adds.

    A legal token never lands on a building (nothing goes on a red of height 2), so the hex
    itself can only stop being or become a mountain, become a tree, or become a building."""
    tops, gray_around, buildings = view.tops, view.gray_around, view.buildings
    height = heights[player, hex_index]
    old_top = tops[hex_index]
    gain = 0
    if colour == GREEN:
        gain += tree_points[height]
    if old_top == GRAY and gray_around[hex_index] > 0:
        gain -= mountain_points[height - 1]
    if colour == GRAY and gray_around[hex_index] > 0:
        gain += mountain_points[height]
    if colour == RED and height == 1 and (old_top == BROWN or old_top == GRAY
                                          or old_top == RED):
        if _building_scores(neighbours, tops, building_min_colours, hex_index, -1, NO_TOKEN):
            gain += building_points
    was_gray = old_top == GRAY
    is_gray = colour == GRAY
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour < 0:
            continue
        if was_gray != is_gray and tops[neighbour] == GRAY:
            # The neighbour mountain's only gray neighbour may have come or gone.
            before = gray_around[neighbour] > 0
            after = gray_around[neighbour] - (1 if was_gray else 0) + (1 if is_gray else 0) > 0
            if before != after:
                points = mountain_points[heights[player, neighbour] - 1]
                gain += points if after else -points
        if buildings[neighbour] and old_top != colour:
            before = _building_scores(neighbours, tops, building_min_colours, neighbour, -1,
                                      NO_TOKEN)
            after = _building_scores(neighbours, tops, building_min_colours, neighbour,
                                     hex_index, colour)
            if before != after:
                gain += building_points if after else -building_points
    return gain


@compiled(always_inline=True)
def copy_local_view(source, target):
    """Copy one summary into another (e.g. the turn's starting board before a trial)."""
    for hex_index in range(source.tops.shape[0]):
        target.tops[hex_index] = source.tops[hex_index]
        target.gray_around[hex_index] = source.gray_around[hex_index]
        target.buildings[hex_index] = source.buildings[hex_index]


@compiled(always_inline=True)
def note_token_in_view(neighbours, stacks, heights, player, view, hex_index):
    """Update ``view`` after a token went on ``hex_index`` (already on the board)."""
    height = heights[player, hex_index]
    old_top = view.tops[hex_index]
    new_top = stacks[player, hex_index, height - 1]
    view.tops[hex_index] = new_top
    view.buildings[hex_index] = 1 if is_building_at(stacks, heights, player, hex_index) else 0
    change = (1 if new_top == GRAY else 0) - (1 if old_top == GRAY else 0)
    if change != 0:
        for direction in range(6):
            neighbour = neighbours[hex_index, direction]
            if neighbour >= 0:
                view.gray_around[neighbour] += change
