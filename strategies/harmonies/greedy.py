"""``greedy``: the largest immediate score gain, one decision at a time.

It takes the face-up card worth most at once (its first cube placeable now scores its first
value; ties: the higher first value, then at random); for each central space it places the
tokens one at a time, each time the (token, hex) with the largest immediate gain, then all the
cubes it can (largest gain first), and plays the space whose total gain is largest (ties at
random). It keeps a random spirit and never discards in solo.

Gains are worked out locally (``sim.games.harmonies.gains``), not by rescoring the board; the
first token's gains are the same for every space and computed once per turn. The search over
spaces and tokens is the one every strategy shares (``strategies.harmonies.planning``); greedy
gives it the gain of a token (``planning.token_score_gain``) and says which gains a placed
token leaves as they were.
"""

from __future__ import annotations

import numpy as np

from sim.games.harmonies.colours import BLUE, GRAY, YELLOW
from sim.games.harmonies.gains import cube_gain, holds_placed_spirit, invalidate
from sim.games.harmonies.habitats import card_matches_at, list_cube_placements
from sim.games.harmonies.turn import may_take_card, place_cube, take_card
from sim.jit import compiled, inlined
from strategies.harmonies.common import keep_if_better
from strategies.harmonies.planning import (
    space_search,
    specialise,
    token_score_gain,
    token_steps,
    turn_end,
)

ILLEGAL = -(2**30)  # marks a hex where a token may not go, in greedy's first-step gains


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
def greedy_plan_start(tables, public, player, work, context):
    """A plan starts with no hex marked changed and no yellow or blue token placed; returns
    (a placed spirit is held, a yellow was placed, a blue was placed)."""
    for hex_index in range(tables.hex_count):
        work.changed_hexes[hex_index] = 0
    return holds_placed_spirit(tables, public, player), False, False


@compiled(always_inline=True)
def greedy_step_start(tables, public, player, work, step, plan, context):
    """Greedy's value reads nothing per step beyond the plan so far."""
    return plan


@compiled(always_inline=True)
def greedy_first_gains_reusable(work, colour, plan):
    """After the first step, a gain is its first-step value unless a token of the plan could
    have changed it (``mark_changed_gains``): fields change only with a yellow token, water
    only with a blue one (yellow and blue tops are never covered, and empty hexes are
    already land), a placed spirit's bonus with any."""
    spirit_placed, yellow_placed, blue_placed = plan
    return not spirit_placed and not (colour == YELLOW and yellow_placed) and not (
        colour == BLUE and blue_placed)


@compiled(always_inline=True)
def greedy_first_gain_holds(work, hex_index, plan):
    """True when no token of the plan has changed what the gain on ``hex_index`` reads."""
    return work.changed_hexes[hex_index] == 0


@compiled(always_inline=True)
def greedy_token_gain(tables, public, player, work, hex_index, colour, plan):
    """Greedy's value of a placement: the score it adds now."""
    return token_score_gain(tables, public, player, work, hex_index, colour, plan[0])


@compiled(always_inline=True)
def greedy_token_planned(tables, work, plan, hex_index, colour, covered_top):
    """Mark the hexes whose gain the token on ``hex_index`` may have changed; note a yellow or
    blue token."""
    spirit_placed, yellow_placed, blue_placed = plan
    mark_changed_gains(tables.neighbours, work.trial_view, work.changed_hexes, hex_index,
                       (covered_top == GRAY) != (colour == GRAY))
    return spirit_placed, yellow_placed or colour == YELLOW, blue_placed or colour == BLUE


@inlined  # returns a workspace array: pasted in, not a call
def greedy_first_gain_table(work):
    """Greedy's first-step gains: whole points, as integers (see ``planning.token_steps``)."""
    return work.first_step_gains


greedy_token_steps = specialise(
    token_steps, "greedy_token_steps", __name__, not_legal=ILLEGAL, plan_start=greedy_plan_start,
    step_start=greedy_step_start, first_value_table=greedy_first_gain_table,
    first_values_reusable=greedy_first_gains_reusable,
    first_value_holds=greedy_first_gain_holds, token_value=greedy_token_gain,
    token_planned=greedy_token_planned)


@compiled(always_inline=True)
def greedy_token_plan(tables, public, player, generator, work, token_count):
    """Place ``work.tokens`` one at a time, each step the (token, hex) of largest immediate gain
    (ties at random), recording the order in ``work.plan_*``; returns the total gain. The
    tokens stay on the board (callers save and restore it). This is the hottest code of the
    greedy policy: after the first step a gain is worked out again only where the plan's
    tokens may have changed it (``greedy_first_gains_reusable``)."""
    return greedy_token_steps(tables, public, player, generator, work, token_count, 0, 0)


@compiled(always_inline=True)
def greedy_space_value(tables, public, player, generator, work, token_count, context):
    """A space's worth to greedy: the gain of its tokens and of the cubes they allow."""
    value = greedy_token_plan(tables, public, player, generator, work, token_count)
    return value + greedy_cube_phase(tables, public, player, generator, work)


@compiled(always_inline=True)
def greedy_late_card(tables, public, player, generator, work, context):
    """Greedy's card choice, with the arguments ``planning.turn_end`` passes."""
    return greedy_card_choice(tables, public, player, generator)


greedy_space_search = specialise(space_search, "greedy_space_search", __name__,
                                 space_value=greedy_space_value)
greedy_turn_end = specialise(turn_end, "greedy_turn_end", __name__,
                             card_choice=greedy_late_card, place_cubes=greedy_cube_phase)


@compiled
def greedy_turn(tables, public, player, generator, work):
    """One turn of the ``greedy`` policy; returns (space taken, card taken as 0/1)."""
    invalidate(work.cache)
    took_card = greedy_card_choice(tables, public, player, generator)
    space, token_count = greedy_space_search(tables, public, player, generator, work, 0)
    return greedy_turn_end(tables, public, player, generator, work, 0, space, token_count,
                           took_card)
