"""``greedy``: the largest immediate score gain, one decision at a time.

It takes the face-up card worth most at once (its first cube placeable now scores its first
value; ties: the higher first value, then at random); for each central space it places the
tokens one at a time, each time the (token, hex) with the largest immediate gain, then all the
cubes it can (largest gain first), and plays the space whose total gain is largest (ties at
random). It keeps a random spirit and never discards in solo.

Gains are worked out locally (``sim.games.harmonies.gains``), not by rescoring the board; the
first token's gains are the same for every space and computed once per turn.
"""

from __future__ import annotations

import numpy as np

from sim.games.harmonies.colours import BLUE, GRAY, YELLOW
from sim.games.harmonies.gains import (
    copy_gain_cache,
    copy_local_view,
    cube_gain,
    fast_local_gain,
    field_gain,
    holds_placed_spirit,
    invalidate,
    island_gain,
    note_token_in_view,
    note_token_placed,
    prepare_local_view,
    refresh,
    river_gain,
    spirit_gain,
)
from sim.games.harmonies.habitats import card_matches_at, list_cube_placements
from sim.games.harmonies.stacking import can_place_token
from sim.games.harmonies.turn import (
    may_take_card,
    place_cube,
    place_token,
    take_card,
)
from sim.jit import compiled
from strategies.harmonies.common import (
    keep_if_better,
    plan_rest_to_box,
    play_remembered_plan,
    remember_plan,
    restore_board,
    save_board,
)

ILLEGAL = -(2**30)  # marks a hex where a token may not go, in cached gains


@compiled(always_inline=True)
def first_cube_placeable(tables, public, player, card):
    """True when a card's first cube could go on the player's board now."""
    for cube_hex in range(tables.hex_count):
        if public.heights[player, cube_hex] > 0 and public.cube_heights[player, cube_hex] == 0:
            if card_matches_at(tables, public.stacks, public.heights, player, card, cube_hex):
                return True
    return False


@compiled(always_inline=True)
def greedy_card_choice(tables, public, player, generator):
    """Take the face-up card worth most at once (see the module doc); True when taken."""
    if not may_take_card(tables, public, player):
        return False
    best_key = -1
    best_position = -1
    ties = 0
    for position in range(public.card_row.shape[0]):
        card = public.card_row[position]
        if card < 0:
            continue
        first_value = np.int64(tables.card_points[card, 0])  # int16 in the table
        now = first_value if first_cube_placeable(tables, public, player, card) else 0
        key = now * 100000 + first_value
        better, ties = keep_if_better(key, best_key, ties, generator)
        if better:
            best_key, best_position = key, position
    take_card(tables, public, player, best_position)
    return True


@compiled(always_inline=True)
def greedy_cube_phase(tables, public, player, generator, work):
    """Place cubes while any fits, each time one of largest immediate gain; returns the gain."""
    total = 0
    while True:
        count = list_cube_placements(tables, public, player, work.placement_slots,
                                     work.placement_hexes)
        if count == 0:
            return total
        best_gain = -1
        best = 0
        ties = 0
        for option in range(count):
            gain = cube_gain(tables, public, player, work.placement_slots[option], work.scratch)
            better, ties = keep_if_better(gain, best_gain, ties, generator)
            if better:
                best_gain, best = gain, option
        place_cube(tables, public, player, work.placement_slots[best],
                   work.placement_hexes[best])
        total += best_gain


@compiled(always_inline=True)
def mark_changed_gains(neighbours, view, changed, hex_index, gray_changed):
    """After a token went on ``hex_index``: mark in ``changed`` every hex whose
    ``fast_local_gain`` may now differ. That gain reads the hex, its neighbours' tops, heights,
    gray counts and buildings, and the tops around a neighbouring building; so the hex itself,
    its neighbours, the hexes around a building next to it, and, when the hex turned into or
    stopped being gray (its neighbours' gray counts change), the hexes two steps away."""
    changed[hex_index] = 1
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour < 0:
            continue
        changed[neighbour] = 1
        if gray_changed or view.buildings[neighbour]:
            for second in range(6):
                further = neighbours[neighbour, second]
                if further >= 0:
                    changed[further] = 1


@compiled(always_inline=True)
def greedy_token_plan(tables, public, player, generator, work, token_count):
    """Place ``work.tokens`` one at a time, each step the (token, hex) of largest immediate gain
    (ties at random), recording the order in ``work.plan_*``; returns the total gain. The
    tokens stay on the board (callers save and restore it).

    The gain of a candidate is ``gains.token_gain`` computed from its parts, with every array
    fetched once and the trees, mountains and buildings part read off a per-hex summary of the
    board (``work.trial_view``, from ``work.start_view``, kept up to date token by token): this loop
    is the hottest code of the greedy policy."""
    work.token_left[:] = 0
    work.token_left[:token_count] = 1
    stacks, heights, cube_heights = public.stacks, public.heights, public.cube_heights
    neighbours, tree_points, mountain_points = (tables.neighbours, tables.tree_points,
                                                tables.mountain_points)
    building_points, building_min_colours = tables.building_points, tables.building_min_colours
    field_min_group, field_group_points = tables.field_min_group, tables.field_group_points
    river_points, per_extra_token = tables.river_points, tables.river_points_per_extra_token
    water_is_river, island_points = tables.water_is_river, tables.island_points
    scratch, cache = work.scratch, work.cache
    member, labels, sizes = scratch.member, scratch.labels, scratch.sizes
    distance, queue = scratch.distance, scratch.queue
    yellow_labels, yellow_sizes = cache.yellow_labels, cache.yellow_sizes
    blue_labels, blue_diameters, numbers = cache.blue_labels, cache.blue_diameters, cache.numbers
    first_step_gains = work.first_step_gains
    view = work.trial_view
    copy_local_view(work.start_view, view)
    spirit_placed = holds_placed_spirit(tables, public, player)
    # After the first step, a gain is its first-step value unless a token of the plan could
    # have changed it (``mark_changed_gains``): fields change only with a yellow token, water
    # only with a blue one (yellow and blue tops are never covered, and empty hexes are
    # already land), a placed spirit's bonus with any.
    changed = work.changed_hexes
    for hex_index in range(tables.hex_count):
        changed[hex_index] = 0
    yellow_placed = False
    blue_placed = False
    total = 0
    for step in range(token_count):
        best_gain = ILLEGAL
        best_token = -1
        best_hex = -1
        ties = 0
        refresh(tables, public, player, scratch, cache)
        for token in range(token_count):
            if work.token_left[token] == 0:
                continue
            colour = work.tokens[token]
            repeated = False  # a colour already tried this step gives the same options
            for earlier in range(token):
                if work.token_left[earlier] and work.tokens[earlier] == colour:
                    repeated = True
            if repeated:
                continue
            # Every space starts from the same board: first-step gains are worked out once.
            cached = step == 0 and work.first_step_ready[colour] == 1
            unchanged = (step > 0 and not spirit_placed
                         and not (colour == YELLOW and yellow_placed)
                         and not (colour == BLUE and blue_placed))
            for hex_index in range(tables.hex_count):
                if cached or (unchanged and changed[hex_index] == 0):
                    gain = first_step_gains[colour, hex_index]
                    if gain == ILLEGAL:
                        continue
                elif not can_place_token(stacks, heights, cube_heights, player, hex_index,
                                         colour):
                    if step == 0:
                        first_step_gains[colour, hex_index] = ILLEGAL
                    continue
                else:
                    gain = fast_local_gain(neighbours, tree_points, mountain_points,
                                           building_points, building_min_colours, heights,
                                           player, view, hex_index, colour)
                    if colour == YELLOW:
                        gain += field_gain(neighbours, yellow_labels, yellow_sizes,
                                           field_min_group, field_group_points, hex_index)
                    elif colour == BLUE:
                        if water_is_river:
                            heights[player, hex_index] = 1  # blue only goes on empty hexes
                            stacks[player, hex_index, 0] = BLUE
                            gain += river_gain(neighbours, blue_labels, blue_diameters,
                                               numbers, river_points, per_extra_token, member,
                                               distance, queue, hex_index)
                            heights[player, hex_index] = 0
                        else:
                            gain += island_gain(neighbours, island_points, numbers, stacks,
                                                heights, player, member, labels, sizes, queue,
                                                hex_index)
                    if spirit_placed:
                        gain += spirit_gain(tables, public, player, hex_index, colour, scratch,
                                            cache)
                    if step == 0:
                        first_step_gains[colour, hex_index] = gain
                better, ties = keep_if_better(gain, best_gain, ties, generator)
                if better:
                    best_gain, best_token, best_hex = gain, token, hex_index
            if step == 0:
                work.first_step_ready[colour] = 1
        if best_token < 0:
            plan_rest_to_box(work, step, token_count)
            return total
        colour = work.tokens[best_token]
        was_gray = view.tops[best_hex] == GRAY
        place_token(public, player, best_hex, colour)
        note_token_placed(cache, colour)
        note_token_in_view(neighbours, stacks, heights, player, view, best_hex)
        mark_changed_gains(neighbours, view, changed, best_hex, was_gray != (colour == GRAY))
        yellow_placed = yellow_placed or colour == YELLOW
        blue_placed = blue_placed or colour == BLUE
        work.token_left[best_token] = 0
        work.plan_colours[step] = colour
        work.plan_hexes[step] = best_hex
        total += best_gain
    return total


@compiled
def greedy_turn(tables, public, player, generator, work):
    """One turn of the ``greedy`` policy; returns (space taken, card taken as 0/1)."""
    invalidate(work.cache)
    took_card = greedy_card_choice(tables, public, player, generator)
    token_count = tables.tokens_per_space
    work.first_step_ready[:] = 0
    prepare_local_view(tables.neighbours, public.stacks, public.heights, player,
                       work.start_view)

    save_board(tables, public, player, work)
    # Every space is tried from this board: its gain cache is worked out once and put back
    # after each trial (the same contents a fresh refresh would give).
    refresh(tables, public, player, work.scratch, work.cache)
    copy_gain_cache(work.cache, work.start_cache)
    best_value = -1_000_000
    best_space = -1
    ties = 0
    for space in range(tables.central_spaces):
        count = public.central_count[space]
        if count == 0:
            continue
        for slot in range(count):
            work.tokens[slot] = public.central[space, slot]
        value = greedy_token_plan(tables, public, player, generator, work, count)
        value += greedy_cube_phase(tables, public, player, generator, work)
        restore_board(tables, public, player, work)
        copy_gain_cache(work.start_cache, work.cache)
        better, ties = keep_if_better(value, best_value, ties, generator)
        if better:
            best_value = value
            best_space = space
            token_count = count
            remember_plan(work, count)

    play_remembered_plan(tables, public, player, work, best_space, token_count)
    greedy_cube_phase(tables, public, player, generator, work)
    if not took_card and greedy_card_choice(tables, public, player, generator):
        took_card = True
        greedy_cube_phase(tables, public, player, generator, work)
    invalidate(work.cache)
    return best_space, took_card


