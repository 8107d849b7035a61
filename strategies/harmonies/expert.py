"""``expert``: the planner's board value (:mod:`strategies.harmonies.valued`: score now,
partial landscapes and held cards' targets valued by the chance that the public bag counts
supply the missing tokens in the turns left), plus: the spirit of the higher measured mean
score, denial of the next player's best space, a space's three tokens planned as one move
(every space token by token, the best again from ``deep`` first placements), each move judged
by the card habitats likeliest after it and by the best face-up card it readies, habitats for
held cards' later cubes, and optional knobs for the game clock, tempo and card slots. What each
parameter does and the measurements behind the defaults: docs/strategies/harmonies-expert.md
and the README (Harmonies strategies). A space's token-by-token plan and the turn's end are
the search every Harmonies strategy shares (:mod:`strategies.harmonies.planning`), specialised
with the expert's steps (:func:`expert_step_start` and the functions named with it).

Speed: a move changes the board on its own hexes only. A token's value works out again only
the potentials and card targets it can change, and a whole move's judge reads every card
habitat's chance from the start of the search (:data:`SearchCache`) except for the habitats
covering the move's hexes, and of those only the cells on them; a later token step reads a
token's first-step value where no token before it lies in its reach (:func:`note_value_reach`:
its neighbours, and hexes two away unless every hex between is quiet), a blue's river gain and a
yellow's field gain are the start board's until a blue or yellow is placed, potentials are
worked out again only on the newest token's hex and the neighbours that read it, and every
trial starts from the search start's gain cache. Cached numbers are the very numbers a full
recount gives, summed and compared in the same order, so the games are those of the full
recount, move for move. Every function is declared through :mod:`sim.jit` (no reference
counting unless it allocates, the small hot ones pasted into their callers).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.harmonies.colours import BLUE, BROWN, GRAY, GREEN, RED, YELLOW
from sim.games.harmonies.gains import (
    copy_gain_cache,
    fast_local_gain,
    holds_placed_spirit,
    invalidate,
    note_token_in_view,
    note_token_placed,
    prepare_local_view,
    refresh,
    river_gain,
    spirit_gain,
)
from sim.games.harmonies.scoring import score_player, spirit_bonus
from sim.games.harmonies.tables import ROTATIONS
from sim.games.harmonies.turn import may_take_card, place_token, take_card, uncompleted_cards
from sim.jit import compiled
from strategies.harmonies.common import (
    keep_if_better,
    remember_plan,
    restore_board,
    save_board,
)
from strategies.harmonies.greedy import greedy_cube_phase, greedy_token_plan
from strategies.harmonies.ids import (
    POLICY_PLANNER,
    SLOT_BEAM,
    SLOT_CARDS,
    SLOT_CHANCE,
    SLOT_CHOOSE,
    SLOT_CLOG,
    SLOT_COST,
    SLOT_DEEP,
    SLOT_DEFER,
    SLOT_DENIAL,
    SLOT_DRAWS,
    SLOT_FADE,
    SLOT_LATER,
    SLOT_OFFER,
    SLOT_POTENTIAL,
    SLOT_READY,
    SLOT_RETARGET,
    SLOT_RUSH,
    SLOT_SECOND,
    SLOT_SPACE,
    SLOT_SPIRIT,
    SLOT_THIRD,
    SLOT_THRESHOLD,
    SLOT_TRACK,
    SLOT_WIDE,
)
from strategies.harmonies.planning import specialise, start_token_plan, token_steps, turn_end
from strategies.harmonies.valued import (
    NOT_LEGAL,
    card_offer_worth,
    cards_worth,
    cell_chance,
    choose_targets,
    estimate_supply,
    fresh_chance,
    habitat_token_count,
    hex_potential,
    next_cube_points,
    placement_chance,
    target_worth,
    targets_touching,
    token_score_gain,
    turns_left_estimate,
    valued_first_value_table,
)

# Mean final score of a seat by the spirit it kept, by card id (2 players, side A, spirits,
# 6,000 games of expert self-play, seed 777: the seat's score does not depend on the spirit it
# let go, so a spirit's mean when kept is its worth whatever it was kept over). 35 is never
# kept (it ranks last): planner self-play's mean (spirits kept at random). An id not listed
# (user data) gets 0, so the choice falls to the first offered.
SPIRIT_PREFERENCE = np.zeros(64, dtype=np.float64)
for _card_id, _mean_score in {33: 87.1, 34: 91.2, 35: 79.9, 36: 88.2, 37: 83.2, 38: 83.2,
                              39: 83.3, 40: 86.4, 41: 83.1, 42: 88.7}.items():
    SPIRIT_PREFERENCE[_card_id] = _mean_score
FIRST_TURNS_RATE = 2.0  # hexes a board is expected to fill per turn before it has played
MIN_FILL_RATE = 0.5  # a board that stacked everything so far still fills some hexes
LEAD_SCALE = 10.0  # points of lead (or deficit) at which the rush is full


# --------------------------------------------------------------------------------------------
# The clock


@compiled(always_inline=True)
def turns_to_fill(tables, public, player):
    """Turns ``player``'s board can still take before it ends the game, at the rate it has
    filled hexes so far (FIRST_TURNS_RATE before its first turn, at least MIN_FILL_RATE)."""
    empty = 0
    for hex_index in range(tables.hex_count):
        if public.heights[player, hex_index] == 0:
            empty += 1
    turns = public.turns_played[player]
    rate = FIRST_TURNS_RATE
    if turns > 0:
        rate = max(MIN_FILL_RATE, (tables.hex_count - empty) / float(turns))
    return (empty - tables.end_when_empty_hexes_at_most) / rate


@compiled(always_inline=True)
def clock_share(tables, public, player, fade_turns):
    """How much this player's own board sets the end of the game: 1 when its turns left (its
    empty hexes at its own filling rate so far) are no more than every other board's (at
    theirs) and the bag's, falling linearly to 0 as another end comes ``fade_turns`` turns
    nearer; 0 once the end is a turn away. Against a player who fills fast, slowing down buys
    nothing: the other board ends the game anyway."""
    own = turns_to_fill(tables, public, player)
    bag_left = 0
    for colour in range(public.bag_counts.shape[0]):
        bag_left += public.bag_counts[colour]
    other = bag_left / float(tables.tokens_per_space * tables.players)
    for opponent in range(tables.players):
        if opponent != player:
            other = min(other, turns_to_fill(tables, public, opponent))
    if min(own, other) <= 1.0:
        return 0.0
    if own <= other:
        return 1.0
    if fade_turns <= 0:
        return 0.0
    return max(0.0, 1.0 - (own - other) / fade_turns)


@compiled(always_inline=True)
def score_lead(tables, public, player, work):
    """This player's score now less the best other player's."""
    own = score_player(tables, public, player, work.scratch, work.scores)
    best_other = -1_000_000
    for opponent in range(tables.players):
        if opponent != player:
            best_other = max(best_other, score_player(tables, public, opponent, work.scratch,
                                                      work.scores))
    return float(own - best_other) if tables.players > 1 else 0.0


@compiled
def space_charge_now(tables, public, player, work):
    """Points charged for a token on an empty hex this turn: ``space`` times the clock share;
    with ``rush``, less up to ``rush`` when ahead (filling fast ends a game one leads) and more
    up to ``rush`` times the share when behind (a longer game is a chance to catch up), in
    proportion to the lead, full at LEAD_SCALE points."""
    share = clock_share(tables, public, player, work.parameters[player, SLOT_FADE])
    charge = work.parameters[player, SLOT_SPACE] * share
    rush = work.parameters[player, SLOT_RUSH]
    if rush > 0:
        lead = min(1.0, max(-1.0, score_lead(tables, public, player, work) / LEAD_SCALE))
        if lead > 0:
            charge -= rush * lead
        else:
            charge -= rush * lead * share
    return charge


# --------------------------------------------------------------------------------------------
# Spirit and cards


@compiled
def expert_choose_spirit(tables, offers):
    """Of the two offered spirits (card indices), the one of the higher preference."""
    first = SPIRIT_PREFERENCE[tables.card_ids[offers[0]]]
    second = SPIRIT_PREFERENCE[tables.card_ids[offers[1]]]
    return 1 if second > first else 0


@compiled(refcounts=True)
def expert_card_choice(tables, public, player, generator, work, turns_left):
    """Take the face-up card of highest expected points when it beats the threshold plus the
    slot charge for every open card held; True when a card was taken."""
    if not may_take_card(tables, public, player):
        return False
    wanted = (work.parameters[player, SLOT_THRESHOLD]
              + work.parameters[player, SLOT_CLOG] * uncompleted_cards(tables, public, player))
    best, best_position, ties = -1.0, -1, 0
    for position in range(public.card_row.shape[0]):
        card = public.card_row[position]
        if card < 0:
            continue
        worth = expert_offer_worth(tables, public, player, card, work.supply, turns_left,
                                   work.parameters[player, SLOT_OFFER],
                                   work.parameters[player, SLOT_LATER])
        better, ties = keep_if_better(worth, best, ties, generator)
        if better:
            best, best_position = worth, position
    if best_position < 0 or best < wanted:
        return False
    take_card(tables, public, player, best_position)
    return True


@compiled(always_inline=True)
def expert_target_value(tables, public, player, slot, scratch, track, spirit_points):
    """What the next cube of the card in ``slot`` is worth to the expert: the planner's next
    cube's points, blended (weight ``track``) with the mean step of the rest of the card's
    track, since a first cube worth little opens the cubes worth more. A spirit's cube is worth
    its bonus now, at least ``spirit_points`` (the bonus scores only once the cube is down)."""
    card = public.held_cards[player, slot]
    if tables.card_is_spirit[card]:
        bonus = spirit_bonus(tables, public.stacks, public.heights, player, card, scratch)
        return max(float(bonus), spirit_points)
    points = next_cube_points(tables, public, player, slot, scratch)
    if track == 0:
        return points
    placed = public.cubes_placed[player, slot]
    cubes = tables.card_cube_count[card]
    already = tables.card_points[card, placed - 1] if placed > 0 else 0
    mean_step = (tables.card_points[card, cubes - 1] - already) / float(cubes - placed)
    return (1.0 - track) * points + track * mean_step


@compiled
def best_other_placement(tables, stacks, heights, cube_heights, player, card, supply,
                         taken_hexes, taken_count):
    """(chance, rotation, cube hex) of the likeliest spot for ``card``'s habitat whose cube
    hex is none of the first ``taken_count`` of ``taken_hexes`` (the card's earlier targets:
    one cube per hex); chance -1 if none. The other hexes may be shared with those targets:
    a token may serve several habitats."""
    best, best_rotation, best_hex = -1.0, -1, -1
    for cube_hex in range(tables.hex_count):
        taken = False
        for earlier in range(taken_count):
            if taken_hexes[earlier] == cube_hex:
                taken = True
        if taken:
            continue
        for rotation in range(ROTATIONS):
            chance = placement_chance(tables, stacks, heights, cube_heights, player, card,
                                      rotation, cube_hex, supply)
            if chance > best:
                best, best_rotation, best_hex = chance, rotation, cube_hex
    return best, best_rotation, best_hex


@compiled(refcounts=True)
def add_later_targets(tables, public, player, work, second, third):
    """For every held card with cubes after its next one, later targets: the likeliest
    habitat for the cube after the next on another cube hex, worth ``second`` times that
    cube's points, and (``third`` > 0) one for the cube after that on a third hex, worth
    ``third`` times its points: the habitats of several cubes built at once, sharing tokens
    where the pattern allows."""
    first_count = 0
    for target in range(work.target_slot.shape[0]):
        if work.target_slot[target] >= 0:
            first_count += 1
    count = first_count
    taken_hexes = np.zeros(3, dtype=np.int64)
    for target in range(first_count):
        slot = work.target_slot[target]
        card = public.held_cards[player, slot]
        placed = public.cubes_placed[player, slot]
        taken_hexes[0] = work.target_cells[target, 0]
        for depth in range(1, 3):
            weight = second if depth == 1 else third
            cube = placed + depth
            if weight <= 0 or cube >= tables.card_cube_count[card]:
                break
            if count >= work.target_slot.shape[0]:
                return
            chance, rotation, cube_hex = best_other_placement(
                tables, public.stacks, public.heights, public.cube_heights, player, card,
                work.supply, taken_hexes, depth)
            if chance < 0:
                break
            taken_hexes[depth] = cube_hex
            work.target_slot[count] = slot
            work.target_value[count] = weight * (tables.card_points[card, cube]
                                                 - tables.card_points[card, cube - 1])
            cells = tables.card_cell_count[card]
            work.target_cell_count[count] = cells
            for cell in range(cells):
                work.target_cells[count, cell] = tables.card_cells[card, rotation, cube_hex,
                                                                   cell]
                work.target_requirements[count, cell] = tables.card_requirement[card, cell]
            count += 1


@compiled(always_inline=True)
def note_spot_chances(tables, stacks, heights, cube_heights, player, card, supply, hex_best):
    """``hex_best[cube hex]``: the chance of completing ``card``'s habitat with its cube on
    that hex, at the likeliest rotation (-1 where it can never be)."""
    for cube_hex in range(tables.hex_count):
        best = -1.0
        for rotation in range(ROTATIONS):
            chance = placement_chance(tables, stacks, heights, cube_heights, player, card,
                                      rotation, cube_hex, supply)
            if chance > best:
                best = chance
        hex_best[cube_hex] = best


@compiled(always_inline=True)
def offer_uses_planner_worth(tables, card, later, later_share):
    """True when :func:`expert_offer_worth` of ``card`` is the planner's
    (:func:`valued.card_offer_worth`): a spirit, or every later cube counted on empty hexes."""
    return tables.card_is_spirit[card] or (later <= 0 and later_share >= 1.0)


@compiled(always_inline=True)
def offer_worth_from_spots(tables, public, player, card, supply, turns_left, later,
                           later_share, hex_best):
    """:func:`expert_offer_worth` of ``card`` (not one of
    :func:`offer_uses_planner_worth`) from ``hex_best``, its chance on every cube hex of the
    board as it is (:func:`note_spot_chances`): the likeliest spot is the first hex of the
    largest chance, as a scan of every spot in hex order finds it."""
    chance, first_hex = -1.0, -1
    for cube_hex in range(tables.hex_count):
        if hex_best[cube_hex] > chance:
            chance, first_hex = hex_best[cube_hex], cube_hex
    if chance < 0:
        return 0.0
    first = float(tables.card_points[card, 0]) * chance
    if later_share <= 0.0 or tables.card_cube_count[card] < 2:
        return first  # the default: no later cube counts, so none is worked out
    if later <= 0:
        worth = card_offer_worth(tables, public, player, card, supply, POLICY_PLANNER,
                                 turns_left)
        return first + later_share * (worth - first)
    second_chance = -1.0  # the likeliest spot on another cube hex (one cube per hex)
    for cube_hex in range(tables.hex_count):
        if cube_hex != first_hex and hex_best[cube_hex] > second_chance:
            second_chance = hex_best[cube_hex]
    cells = tables.card_cell_count[card]
    fresh = fresh_chance(tables.card_requirement[card], cells, supply)
    buildable = turns_left * 1.5 / habitat_token_count(tables, card)
    worth = first
    for cube in range(1, tables.card_cube_count[card]):
        step = tables.card_points[card, cube] - tables.card_points[card, cube - 1]
        base = max(second_chance, fresh) if cube == 1 else fresh
        worth += later_share * step * base * min(1.0, max(0.0, buildable - cube))
    return worth


@compiled(refcounts=True)
def expert_offer_worth(tables, public, player, card, supply, turns_left, later, later_share):
    """Expected points of taking ``card`` now. ``later`` 0: the planner's
    (:func:`valued.card_offer_worth`). ``later`` 1: the second cube is valued at the
    likeliest spot of the board on another cube hex (tokens already down count), not on
    empty hexes; the time the turns left give to build it is charged as in the planner.
    ``later_share`` counts that share of the cubes after the first (0: the first cube's
    expected points alone)."""
    if offer_uses_planner_worth(tables, card, later, later_share):
        return card_offer_worth(tables, public, player, card, supply, POLICY_PLANNER,
                                turns_left)
    hex_best = np.empty(tables.hex_count, dtype=np.float64)
    note_spot_chances(tables, public.stacks, public.heights, public.cube_heights, player, card,
                      supply, hex_best)
    return offer_worth_from_spots(tables, public, player, card, supply, turns_left, later,
                                  later_share, hex_best)


@compiled(refcounts=True)
def expert_choose_targets(tables, public, player, work, track, spirit_points, second, third):
    """The planner's targets (:func:`valued.choose_targets`) with the expert's cube values,
    plus later targets (:func:`add_later_targets`) when ``second`` > 0."""
    choose_targets(tables, public, player, work)
    for target in range(work.target_slot.shape[0]):
        slot = work.target_slot[target]
        if slot >= 0:
            work.target_value[target] = expert_target_value(tables, public, player, slot,
                                                            work.scratch, track, spirit_points)
    if second > 0:
        add_later_targets(tables, public, player, work, second, third)


# --------------------------------------------------------------------------------------------
# Tokens


@compiled
def note_hex_potentials(tables, public, player, work, token_cost, row):
    """Potential of every hex of the board as it is, into ``work.hex_potentials[row]`` (row 0:
    the board at the start of the turn's trials, row 1: during a trial)."""
    for hex_index in range(tables.hex_count):
        work.hex_potentials[row, hex_index] = hex_potential(
            tables.neighbours, tables.tree_points, tables.mountain_points,
            tables.building_points, tables.building_min_colours, public.stacks, public.heights,
            public.cube_heights, player, hex_index, work.supply, token_cost)


@compiled(always_inline=True)
def note_potentials_near_plan(tables, public, player, work, token_cost, step, first_step):
    """:func:`note_hex_potentials` into row 1 for the board with the first ``step`` tokens of
    ``work.plan_hexes`` added to the board of row 0. A potential depends on its hex and, when
    it reads its neighbours (:func:`potential_reads_neighbours`), their tops only; so after a
    token only its hex and the neighbours that read theirs are worked out again, and the rest
    keep their numbers. At ``first_step`` (or step 1) row 1 starts from row 0 with every token
    placed so far; later steps add the newest token to the row the step before left."""
    if step == first_step or step == 1:
        for hex_index in range(tables.hex_count):
            work.hex_potentials[1, hex_index] = work.hex_potentials[0, hex_index]
        oldest = 0
    else:
        oldest = step - 1
    for placed in range(oldest, step):
        hex_index = work.plan_hexes[placed]
        if hex_index < 0:
            continue
        for direction in range(7):
            near = hex_index if direction == 6 else tables.neighbours[hex_index, direction]
            if near < 0:
                continue
            if direction < 6 and not potential_reads_neighbours(
                    public.stacks, public.heights, public.cube_heights, player, near):
                continue
            work.hex_potentials[1, near] = hex_potential(
                tables.neighbours, tables.tree_points, tables.mountain_points,
                tables.building_points, tables.building_min_colours, public.stacks,
                public.heights, public.cube_heights, player, near, work.supply, token_cost)


@compiled(always_inline=True)
def potential_reads_neighbours(stacks, heights, cube_heights, player, hex_index):
    """True when :func:`valued.hex_potential` of ``hex_index`` depends on its neighbours'
    tokens: a stack with no cube whose top is gray, yellow or red. Any other hex's potential
    (empty, under a cube, a trunk, a tree, water) reads its own stack only, so a token next to
    it leaves it as it was."""
    height = heights[player, hex_index]
    if height == 0 or cube_heights[player, hex_index] > 0:
        return False
    top = stacks[player, hex_index, height - 1]
    return top == GRAY or top == YELLOW or top == RED


@compiled(always_inline=True)
def cards_worth_after_token(work, stacks, heights, cube_heights, player, hex_index, worths):
    """:func:`valued.cards_worth` on the board with a token just put on ``hex_index``, given
    ``worths`` on the board before it: only the targets covering that hex are worked out again
    (the others' terms are the same numbers, summed in the same order)."""
    total = 0.0
    for target in range(work.target_slot.shape[0]):
        if work.target_slot[target] < 0:
            continue
        covers = False
        for cell in range(work.target_cell_count[target]):
            if work.target_cells[target, cell] == hex_index:
                covers = True
        if covers:
            total += target_worth(work, target, stacks, heights, cube_heights, player,
                                  work.supply)
        else:
            total += worths[target]
    return total


@compiled(always_inline=True)
def expert_token_value(tables, public, player, work, hex_index, colour, w_potential, w_cards,
                       spirit_placed, cards_before, target_worths, space_charge, token_cost,
                       potentials):
    """Value added by a ``colour`` token on the legal ``hex_index``: score gain, weighted
    change of potentials (from the step's ``potentials`` of every hex) and of card progress
    (``cards_before`` and each target's ``target_worths`` on the board as it is), less the
    space charge on an empty hex. The board is left unchanged.

    Only what the token can change is worked out again: the potential of its hex and of the
    neighbours whose potential reads their neighbours (:func:`potential_reads_neighbours`), the
    targets covering its hex. The rest enter as the cached numbers, in the same sums, so the
    value is the very number a full recount gives."""
    stacks, heights, cube_heights = public.stacks, public.heights, public.cube_heights
    value = token_score_gain(tables, public, player, work, hex_index, colour, spirit_placed)
    height = heights[player, hex_index]
    if height == 0:
        value -= space_charge
    touches_target = w_cards > 0 and targets_touching(work, hex_index)
    if w_potential > 0 or touches_target:
        previous = stacks[player, hex_index, height]
        stacks[player, hex_index, height] = colour
        heights[player, hex_index] = height + 1
        if w_potential > 0:
            value += w_potential * potential_change(tables, public, player, work, hex_index,
                                                    colour, token_cost, potentials)
        if touches_target:
            value += w_cards * (cards_worth_after_token(work, stacks, heights, cube_heights,
                                                        player, hex_index, target_worths)
                                - cards_before)
        heights[player, hex_index] = height
        stacks[player, hex_index, height] = previous
    return value


@compiled(always_inline=True)
def potential_change(tables, public, player, work, hex_index, colour, token_cost, potentials):
    """The change of the board's potentials made by the ``colour`` token just put on
    ``hex_index``, given ``potentials`` of every hex before it: its hex's and those of the
    neighbours whose potential reads their neighbours (:func:`potential_reads_neighbours`)."""
    stacks, heights, cube_heights = public.stacks, public.heights, public.cube_heights
    neighbours = tables.neighbours
    if colour == GREEN or colour == BLUE:
        own = 0.0  # a tree or water grows no further: hex_potential's 0
    else:
        own = hex_potential(neighbours, tables.tree_points, tables.mountain_points,
                            tables.building_points, tables.building_min_colours,
                            stacks, heights, cube_heights, player, hex_index,
                            work.supply, token_cost)
    change = -potentials[hex_index] + own
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour >= 0:
            after = potentials[neighbour]
            if potential_reads_neighbours(stacks, heights, cube_heights, player, neighbour):
                after = hex_potential(
                    neighbours, tables.tree_points, tables.mountain_points,
                    tables.building_points, tables.building_min_colours, stacks,
                    heights, cube_heights, player, neighbour, work.supply, token_cost)
            change += after - potentials[neighbour]
    return change


@compiled(always_inline=True)
def note_target_parts(work, stacks, heights, cube_heights, player, search):
    """Each target's worth on the board as it is into ``search.target_worths`` and each of its
    cells' chances into ``search.target_parts``; returns the worths' sum,
    :func:`valued.cards_worth`. A worth is :func:`valued.target_worth`: the cells' chances
    multiplied in cell order up to the first that can never be, then the fresh chance."""
    total = 0.0
    for target in range(work.target_slot.shape[0]):
        if work.target_slot[target] < 0:
            continue
        chance = 1.0
        spoiled = False
        for cell in range(work.target_cell_count[target]):
            # Every cell's chance is kept (also past a spoiled one): a token may change any.
            part = cell_chance(work.target_requirements[target, cell], stacks, heights,
                               cube_heights, player, work.target_cells[target, cell], cell == 0,
                               work.supply)
            search.target_parts[target, cell] = part
            if spoiled:
                continue
            if part < 0:
                chance = search.target_fresh[target]
                spoiled = True
            else:
                chance *= part
        search.target_worths[target] = work.target_value[target] * chance
        total += search.target_worths[target]
    return total


@compiled(always_inline=True)
def cards_worth_after_token_in_search(work, stacks, heights, cube_heights, player, hex_index,
                                      search):
    """:func:`cards_worth_after_token` from the step's :func:`note_target_parts`: of a target
    covering ``hex_index`` only that cell's chance is worked out again."""
    total = 0.0
    for target in range(work.target_slot.shape[0]):
        if work.target_slot[target] < 0:
            continue
        if not search.target_covers[target, hex_index]:
            total += search.target_worths[target]
            continue
        chance = 1.0
        for cell in range(work.target_cell_count[target]):
            if work.target_cells[target, cell] == hex_index:
                part = cell_chance(work.target_requirements[target, cell], stacks, heights,
                                   cube_heights, player, hex_index, cell == 0, work.supply)
            else:
                part = search.target_parts[target, cell]
            if part < 0:
                chance = search.target_fresh[target]
                break
            chance *= part
        total += work.target_value[target] * chance
    return total


@compiled(always_inline=True)
def search_score_gain(tables, public, player, work, hex_index, colour, spirit_placed, search,
                      river_from_start):
    """:func:`planning.token_score_gain` with a blue token's river gain (side A) read from
    ``search`` when ``river_from_start``: no blue token has been placed since the search's
    start, and a river gain reads the blue groups only, so it is the start board's number
    (worked out the first time a hex asks). The same terms in the same order."""
    if colour != BLUE or not tables.water_is_river or not river_from_start:
        return token_score_gain(tables, public, player, work, hex_index, colour, spirit_placed)
    stacks, heights = public.stacks, public.heights
    neighbours = tables.neighbours
    value = float(fast_local_gain(neighbours, tables.tree_points, tables.mountain_points,
                                  tables.building_points, tables.building_min_colours, heights,
                                  player, work.trial_view, hex_index, colour))
    # As token_score_gain leaves it: blue only goes on empty hexes, and the level above the
    # stack keeps the blue written there.
    stacks[player, hex_index, 0] = BLUE
    if search.river_known[hex_index] == 0:
        scratch, cache = work.scratch, work.cache
        search.river_gains[hex_index] = river_gain(
            neighbours, cache.blue_labels, cache.blue_diameters, cache.numbers,
            tables.river_points, tables.river_points_per_extra_token, scratch.member,
            scratch.distance, scratch.queue, hex_index)
        search.river_known[hex_index] = 1
    value += search.river_gains[hex_index]
    if spirit_placed:
        value += spirit_gain(tables, public, player, hex_index, colour, work.scratch, work.cache)
    return value


@compiled(always_inline=True)
def search_token_value(tables, public, player, work, hex_index, colour, w_potential, w_cards,
                       spirit_placed, cards_before, space_charge, token_cost, potentials,
                       search, river_from_start):
    """:func:`expert_token_value` from the search's caches: whether the hex is a target's
    (:func:`note_target_cells`), the step's target cells' chances (:func:`note_target_parts`)
    and the start board's river gains (:func:`search_score_gain`); the same terms in the same
    order, so the same number."""
    stacks, heights = public.stacks, public.heights
    value = search_score_gain(tables, public, player, work, hex_index, colour, spirit_placed,
                              search, river_from_start)
    height = heights[player, hex_index]
    if height == 0:
        value -= space_charge
    touches_target = w_cards > 0 and search.target_touches[hex_index]
    if w_potential > 0 or touches_target:
        previous = stacks[player, hex_index, height]
        stacks[player, hex_index, height] = colour
        heights[player, hex_index] = height + 1
        if w_potential > 0:
            value += w_potential * potential_change(tables, public, player, work, hex_index,
                                                    colour, token_cost, potentials)
        if touches_target:
            value += w_cards * (cards_worth_after_token_in_search(
                work, stacks, heights, public.cube_heights, player, hex_index, search)
                - cards_before)
        heights[player, hex_index] = height
        stacks[player, hex_index, height] = previous
    return value


@compiled(always_inline=True)
def first_value_holds(search, hex_index, placed, placed_on_target):
    """True when a token's first-step value on ``hex_index`` (the board at the search's start)
    is its value on the board with tokens on the hexes of the bit mask ``placed``, given a
    colour whose gain reads no whole field or river changed since the start (see
    :func:`expert_first_values_reusable`) and no placed spirit (a spirit's gain reads the
    whole board): no token placed lies in the hex's reach (:func:`note_value_reach`), and
    when one is on a target's hex the hex is no target's (the card term then adds the very
    same worths)."""
    if search.reach[hex_index] & placed:
        return False
    return not (placed_on_target and search.target_touches[hex_index])


# What the expert's token value reads in one step of a plan (:func:`expert_step_start`).
ExpertStep = namedtuple("ExpertStep", [
    "w_potential", "w_cards", "token_cost", "spirit_placed",
    "cards_before",  # the held cards' worth on the board as it is (note_target_parts)
    "potentials",  # every hex's potential on the board as it is (a row of work.hex_potentials)
    "reuse",  # first-step values may be read this step (expert_first_values_reusable)
    "placed",  # bit mask of the hexes the plan's tokens so far went on
    "placed_on_target",  # one of them is a target's cell
    "river_from_start",  # no blue placed yet: river gains are the start board's
    "fields_from_start",  # no yellow placed yet: field gains are the start board's
    "blue_from_start",  # river_from_start on a river side (island gains are always worked out)
    "space_charge", "search",
])


@compiled(always_inline=True)
def expert_plan_start(tables, public, player, work, context):
    """What the value reads for the whole plan: (w_potential, w_cards, token_cost, a placed
    spirit is held)."""
    return (work.parameters[player, SLOT_POTENTIAL], work.parameters[player, SLOT_CARDS],
            work.parameters[player, SLOT_COST], holds_placed_spirit(tables, public, player))


@compiled(always_inline=True)
def expert_step_start(tables, public, player, work, step, plan, context):
    """What a value reads this step (``work.plan_*`` holds the ``step`` tokens placed so far):
    the target cells' chances and the cards' worth (:func:`note_target_parts`), the potentials
    of every hex (row 0 at the first step, row 1 brought up to the plan by
    :func:`note_potentials_near_plan`), whether the blue river and yellow field gains are
    still the start board's, and what :func:`expert_first_value_holds` reads. ``context``:
    (space charge, the :data:`SearchCache`, the plan position the steps started from)."""
    w_potential, w_cards, token_cost, spirit_placed = plan
    space_charge, search, first_step = context
    stacks, heights, cube_heights = public.stacks, public.heights, public.cube_heights
    cards_before = 0.0
    if w_cards > 0:
        cards_before = note_target_parts(work, stacks, heights, cube_heights, player, search)
    if step > 0 and w_potential > 0:
        note_potentials_near_plan(tables, public, player, work, token_cost, step, first_step)
    potentials = work.hex_potentials[0 if step == 0 else 1]
    # Fields and rivers change only with a yellow or a blue token (nothing goes on either):
    # until one is placed their gains are the start board's.
    river_from_start = True
    fields_from_start = True
    for earlier in range(step):
        if work.plan_colours[earlier] == BLUE:
            river_from_start = False
        if work.plan_colours[earlier] == YELLOW:
            fields_from_start = False
    # A later step may read a first-step value where the tokens placed so far change nothing
    # it is worked out from (:func:`first_value_holds`).
    placed = np.uint64(0)
    placed_on_target = False
    reuse = step > 0 and may_cache_spots(tables) and not spirit_placed
    if reuse:
        placed = plan_hex_mask(work, step)
        placed_on_target = w_cards > 0 and (placed & search.all_target_cells[0]) != 0
    return ExpertStep(w_potential, w_cards, token_cost, spirit_placed, cards_before,
                      potentials, reuse, placed, placed_on_target, river_from_start,
                      fields_from_start, river_from_start and tables.water_is_river,
                      space_charge, search)


@compiled(always_inline=True)
def expert_first_values_reusable(work, colour, step_context):
    """A ``colour`` token's first-step values may be read this step (hex by hex, where
    :func:`expert_first_value_holds`) when the step reuses values at all (no placed spirit,
    spots cached), the colour's were worked out, and its gain reads no whole field or river
    changed since the start: a yellow while no yellow is placed, a blue while no blue is
    placed on a river side (island water reads the whole board)."""
    return (step_context.reuse and work.first_step_ready[colour] == 1
            and (colour != YELLOW or step_context.fields_from_start)
            and (colour != BLUE or step_context.blue_from_start))


@compiled(always_inline=True)
def expert_first_value_holds(work, hex_index, step_context):
    """:func:`first_value_holds` with the step's placed-hex mask and target flag."""
    return first_value_holds(step_context.search, hex_index, step_context.placed,
                             step_context.placed_on_target)


@compiled(always_inline=True)
def expert_token_step_value(tables, public, player, work, hex_index, colour, step_context):
    """:func:`search_token_value` with the step's weights, potentials and caches."""
    step = step_context
    return search_token_value(tables, public, player, work, hex_index, colour, step.w_potential,
                              step.w_cards, step.spirit_placed, step.cards_before,
                              step.space_charge, step.token_cost, step.potentials, step.search,
                              step.river_from_start)


@compiled(always_inline=True)
def expert_token_planned(tables, work, plan, hex_index, colour, covered_top):
    """The plan's weights do not change with its tokens (each step reads ``work.plan_*``)."""
    return plan


expert_token_steps = specialise(
    token_steps, "expert_token_steps", __name__, always_inline=False,
    plan_start=expert_plan_start, step_start=expert_step_start,
    first_value_table=valued_first_value_table,
    first_values_reusable=expert_first_values_reusable,
    first_value_holds=expert_first_value_holds, token_value=expert_token_step_value,
    token_planned=expert_token_planned)


@compiled(always_inline=True)
def add_next_cubes_worth(total, tables, public, player, work, slot, hex_best, spirit_points,
                         second, third):
    """``total`` plus the expected points of the next cubes of the card in ``slot`` from
    ``hex_best``, its chance on every cube hex (:func:`note_spot_chances`; overwritten): the
    next cube at the best hex, with ``second`` / ``third`` the cubes after it at the best other
    hexes, at those weights (ties to the lower hex, as a scan in hex order picks). Added term by
    term to ``total``, in that order."""
    card = public.held_cards[player, slot]
    placed = public.cubes_placed[player, slot]
    for depth in range(3):
        weight = 1.0 if depth == 0 else (second if depth == 1 else third)
        cube = placed + depth
        if weight <= 0 or cube >= tables.card_cube_count[card]:
            break
        chance, chosen = -1.0, -1
        for cube_hex in range(tables.hex_count):
            if hex_best[cube_hex] > chance:
                chance, chosen = hex_best[cube_hex], cube_hex
        if chance < 0:
            break
        hex_best[chosen] = -1.0  # one cube per hex
        if depth == 0:
            total += chance * expert_target_value(tables, public, player, slot, work.scratch,
                                                  0.0, spirit_points)
        else:
            total += weight * chance * (tables.card_points[card, cube]
                                        - tables.card_points[card, cube - 1])
    return total


@compiled(refcounts=True)
def dynamic_cards_worth(tables, public, player, work, spirit_points, second, third):
    """Expected points of every held card's next cubes at their likeliest habitats on the
    board as it is now (not the targets fixed at the turn's start): the next cube at its best
    spot, and with ``second`` / ``third`` the cubes after it at the best spots on other cube
    hexes, at those weights (:func:`add_next_cubes_worth`)."""
    total = 0.0
    hex_best = np.empty(tables.hex_count, dtype=np.float64)
    for slot in range(public.held_count[player]):
        card = public.held_cards[player, slot]
        if public.cubes_placed[player, slot] >= tables.card_cube_count[card]:
            continue
        note_spot_chances(tables, public.stacks, public.heights, public.cube_heights, player,
                          card, work.supply, hex_best)
        total = add_next_cubes_worth(total, tables, public, player, work, slot, hex_best,
                                     spirit_points, second, third)
    return total


@compiled(refcounts=True)
def retarget_change(tables, public, player, work):
    """What re-choosing the card targets after a plan adds to its value: ``retarget`` times
    the card weight times the likeliest habitats' worth less the fixed targets' worth, both on
    the board with the plan's tokens down (the worth before the plan is the same for every
    plan, so it drops out)."""
    share = work.parameters[player, SLOT_RETARGET]
    w_cards = work.parameters[player, SLOT_CARDS]
    if share <= 0 or w_cards <= 0:
        return 0.0
    dynamic = dynamic_cards_worth(tables, public, player, work,
                                  work.parameters[player, SLOT_SPIRIT],
                                  work.parameters[player, SLOT_SECOND],
                                  work.parameters[player, SLOT_THIRD])
    fixed = cards_worth(work, public.stacks, public.heights, public.cube_heights, player,
                        work.supply)
    return share * w_cards * (dynamic - fixed)


@compiled(refcounts=True)
def best_offer_worth(tables, public, player, work, turns_left):
    """The largest expected points among the face-up cards on the board as it is."""
    best = 0.0
    for position in range(public.card_row.shape[0]):
        card = public.card_row[position]
        if card >= 0:
            best = max(best, expert_offer_worth(tables, public, player, card, work.supply,
                                                turns_left, work.parameters[player, SLOT_OFFER],
                                                work.parameters[player, SLOT_LATER]))
    return best


# --------------------------------------------------------------------------------------------
# The search's cache: a move changes the board on its own hexes only


# Per turn, for each held card (entry = its slot) and face-up card (entry = held-card slots
# + its row position): the chance of its habitat at every (rotation, cube hex) on the board
# at the start of the search, and the hexes that habitat covers as a bit mask. A move's
# tokens change the chance of the habitats covering their hexes only, so the judge of a
# whole move (:func:`judged_whole_move`) works out those again and reads the rest: the same
# numbers, compared in the same order, as a scan of the board after the move.
SearchCache = namedtuple("SearchCache", [
    "chances",  # float64[E, ROTATIONS, H] chance on the board at the search's start (-1: never)
    "cells",  # uint64[E, ROTATIONS, H] bit h set when the habitat covers hex h (0: never done)
    "parts",  # float64[E, ROTATIONS, H, cells] each cell's chance at the start (where cells != 0)
    "start_best",  # float64[E, H] the largest chance over rotations at each cube hex at the start
    "hex_cells",  # uint64[E, H] the union over rotations of ``cells`` at each cube hex
    "hex_best",  # float64[H] scratch: a card's chance on every cube hex after a move
    "target_worths",  # float64[K] scratch: each target's worth at a token step's start
    "target_parts",  # float64[K, cells] scratch: each target cell's chance at a step's start
    "target_covers",  # uint8[K, H] 1 when the target covers the hex
    "target_touches",  # uint8[H] 1 when some target covers the hex
    "target_fresh",  # float64[K] the chance of building the target's habitat afresh
    "target_cells",  # uint64[K] bit h set when the target covers hex h (boards of <= 64 hexes)
    "start_target_worths",  # float64[K] each target's worth at the search's start
    "all_target_cells",  # uint64[1] the union of ``target_cells``
    "reach",  # uint64[H] bit h set when a token on h may change the hex's token values
    "river_known",  # uint8[H] 1 once ``river_gains`` holds the hex's number
    "river_gains",  # int64[H] a blue token's river gain on the board at the search's start
])


@compiled(refcounts=True)
def new_search_cache(tables, public, work):
    """A :data:`SearchCache` for ``tables``'s boards, unfilled."""
    entries = public.held_cards.shape[1] + public.card_row.shape[0]
    shape = (entries, ROTATIONS, tables.hex_count)
    targets = work.target_slot.shape[0]
    return SearchCache(np.empty(shape, dtype=np.float64), np.zeros(shape, dtype=np.uint64),
                       np.empty(shape + (tables.card_cells.shape[3],), dtype=np.float64),
                       np.empty((entries, tables.hex_count), dtype=np.float64),
                       np.zeros((entries, tables.hex_count), dtype=np.uint64),
                       np.empty(tables.hex_count, dtype=np.float64),
                       np.empty(targets, dtype=np.float64),
                       np.empty((targets, tables.card_cells.shape[3]), dtype=np.float64),
                       np.zeros((targets, tables.hex_count), dtype=np.uint8),
                       np.zeros(tables.hex_count, dtype=np.uint8),
                       np.empty(targets, dtype=np.float64), np.zeros(targets, dtype=np.uint64),
                       np.empty(targets, dtype=np.float64), np.zeros(1, dtype=np.uint64),
                       np.zeros(tables.hex_count, dtype=np.uint64),
                       np.zeros(tables.hex_count, dtype=np.uint8),
                       np.zeros(tables.hex_count, dtype=np.int64))


@compiled
def note_value_reach(tables, public, player, search):
    """For each hex x, the bit mask of the hexes where a token may change the value of a token
    on x (all 0 on a board of more than 64 hexes, where masks are not used): x, its neighbours,
    and a hex two steps away unless every hex between them is quiet on the board as it is
    (:func:`quiet_between`). What a token's value reads lies within 2 steps; two steps away it
    reads only through a hex between them, and only when that hex is a mountain's or
    building's piece, or a stack whose potential reads its neighbours. The hexes between are
    not in the plan's tokens (a token there is a neighbour of x), so they stay as they are
    through the search."""
    for hex_index in range(tables.hex_count):
        search.reach[hex_index] = 0
    if not may_cache_spots(tables):
        return
    for hex_index in range(tables.hex_count):
        mask = np.uint64(1) << np.uint64(hex_index)
        for direction in range(6):
            neighbour = tables.neighbours[hex_index, direction]
            if neighbour >= 0:
                mask |= np.uint64(1) << np.uint64(neighbour)
        for direction in range(6):
            neighbour = tables.neighbours[hex_index, direction]
            if neighbour < 0 or quiet_between(public, player, neighbour):
                continue
            for further in range(6):
                second = tables.neighbours[neighbour, further]
                if second >= 0:
                    mask |= np.uint64(1) << np.uint64(second)
        search.reach[hex_index] = mask


@compiled(always_inline=True)
def quiet_between(public, player, hex_index):
    """True when a token next to ``hex_index`` cannot change, through it, the value of a token
    on its other side: the hex is empty or shows green, blue or brown. A gray top reads the
    gray around it (mountains), a red one may be a building (it reads the colours around it),
    and a gray, yellow or red top's potential reads its neighbours."""
    height = public.heights[player, hex_index]
    if height == 0:
        return True
    top = public.stacks[player, hex_index, height - 1]
    return top == GREEN or top == BLUE or top == BROWN


@compiled(always_inline=True)
def may_cache_spots(tables):
    """True when a board's hexes fit a :data:`SearchCache` bit mask."""
    return tables.hex_count <= 64


@compiled
def note_card_spots(tables, public, player, supply, search, entry, card):
    """Fill ``search``'s entry ``entry`` for ``card`` on the board as it is: every spot's
    chance (:func:`valued.placement_chance`: the product of its cells' chances in cell order,
    -1 at the first cell that can never be), its cells' chances and hexes, and per cube hex the
    largest chance and the hexes of all its rotations."""
    cells = tables.card_cell_count[card]
    for cube_hex in range(tables.hex_count):
        search.hex_cells[entry, cube_hex] = 0
    for rotation in range(ROTATIONS):
        for cube_hex in range(tables.hex_count):
            chance = -1.0
            if tables.card_fits[card, rotation, cube_hex]:
                chance = 1.0
                for cell in range(cells):
                    part = cell_chance(tables.card_requirement[card, cell], public.stacks,
                                       public.heights, public.cube_heights, player,
                                       tables.card_cells[card, rotation, cube_hex, cell],
                                       cell == 0, supply)
                    search.parts[entry, rotation, cube_hex, cell] = part
                    if part < 0:
                        chance = -1.0
                        break
                    chance *= part
            search.chances[entry, rotation, cube_hex] = chance
            mask = np.uint64(0)
            # A habitat that can never be completed stays so while tokens are added: a stack
            # only grows on top (a wrong level or a stack too tall stays), cubes stay put. Its
            # -1 is kept whatever a move does.
            if chance >= 0:
                for cell in range(cells):
                    mask |= np.uint64(1) << np.uint64(
                        tables.card_cells[card, rotation, cube_hex, cell])
            search.cells[entry, rotation, cube_hex] = mask
            search.hex_cells[entry, cube_hex] |= mask
    for cube_hex in range(tables.hex_count):
        best = -1.0
        for rotation in range(ROTATIONS):
            if search.chances[entry, rotation, cube_hex] > best:
                best = search.chances[entry, rotation, cube_hex]
        search.start_best[entry, cube_hex] = best


@compiled
def note_target_cells(tables, public, player, work, search):
    """Fill ``search``'s facts about the turn's targets (fixed for the search): the hexes each
    covers, its fresh chance and its worth on the board as it is."""
    for hex_index in range(tables.hex_count):
        search.target_touches[hex_index] = 0
        for target in range(search.target_covers.shape[0]):
            search.target_covers[target, hex_index] = 0
    search.all_target_cells[0] = 0
    for target in range(work.target_slot.shape[0]):
        mask = np.uint64(0)
        if work.target_slot[target] >= 0:
            cells = work.target_cell_count[target]
            for cell in range(cells):
                hex_index = work.target_cells[target, cell]
                search.target_covers[target, hex_index] = 1
                search.target_touches[hex_index] = 1
                if may_cache_spots(tables):
                    mask |= np.uint64(1) << np.uint64(hex_index)
            search.target_fresh[target] = fresh_chance(work.target_requirements[target], cells,
                                                       work.supply)
            search.start_target_worths[target] = target_worth(
                work, target, public.stacks, public.heights, public.cube_heights, player,
                work.supply)
        search.target_cells[target] = mask
        search.all_target_cells[0] |= mask


@compiled
def note_search_start(tables, public, player, work, search, with_offers):
    """Fill ``search`` for the board at the start of the search: every held card with cubes
    left, and with ``with_offers`` every face-up card."""
    for slot in range(public.held_count[player]):
        card = public.held_cards[player, slot]
        if public.cubes_placed[player, slot] < tables.card_cube_count[card]:
            note_card_spots(tables, public, player, work.supply, search, slot, card)
    if with_offers:
        for position in range(public.card_row.shape[0]):
            card = public.card_row[position]
            if card >= 0:
                note_card_spots(tables, public, player, work.supply, search,
                                public.held_cards.shape[1] + position, card)


@compiled(always_inline=True)
def plan_hex_mask(work, token_count):
    """Bit mask of the hexes the plan in ``work.plan_hexes`` puts tokens on."""
    mask = np.uint64(0)
    for step in range(token_count):
        if work.plan_hexes[step] >= 0:
            mask |= np.uint64(1) << np.uint64(work.plan_hexes[step])
    return mask


@compiled(always_inline=True)
def note_spot_chances_after(tables, public, player, card, supply, search, entry, changed):
    """:func:`note_spot_chances` into ``search.hex_best`` on the board after a move whose
    tokens went on the hexes of the bit mask ``changed``: a habitat covering none of them keeps
    its chance from the search's start, a cube hex none of whose habitats cover them its
    largest chance, and a habitat covering some works out the chances of those cells only
    (the product is taken over the same numbers in the same order)."""
    cells = tables.card_cell_count[card]
    for cube_hex in range(tables.hex_count):
        if not search.hex_cells[entry, cube_hex] & changed:
            search.hex_best[cube_hex] = search.start_best[entry, cube_hex]
            continue
        best = -1.0
        for rotation in range(ROTATIONS):
            if search.cells[entry, rotation, cube_hex] & changed:
                # Only a spot of chance >= 0 at the start has cells: it fits the board.
                chance = 1.0
                for cell in range(cells):
                    hex_index = tables.card_cells[card, rotation, cube_hex, cell]
                    if (changed >> np.uint64(hex_index)) & np.uint64(1):
                        part = cell_chance(tables.card_requirement[card, cell], public.stacks,
                                           public.heights, public.cube_heights, player,
                                           hex_index, cell == 0, supply)
                    else:
                        part = search.parts[entry, rotation, cube_hex, cell]
                    if part < 0:
                        chance = -1.0
                        break
                    chance *= part
            else:
                chance = search.chances[entry, rotation, cube_hex]
            if chance > best:
                best = chance
        search.hex_best[cube_hex] = best


@compiled(always_inline=True)
def cards_worth_after_move(work, public, player, search, changed):
    """:func:`valued.cards_worth` on the board after a move (tokens on the hexes of
    ``changed``): the targets covering none of them keep their worth from the search's start
    (the same terms, added in the same order)."""
    total = 0.0
    for target in range(work.target_slot.shape[0]):
        if work.target_slot[target] < 0:
            continue
        if search.target_cells[target] & changed:
            total += target_worth(work, target, public.stacks, public.heights,
                                  public.cube_heights, player, work.supply)
        else:
            total += search.start_target_worths[target]
    return total


@compiled(always_inline=True)
def retarget_change_after(tables, public, player, work, search, changed):
    """:func:`retarget_change` on the board after a move (tokens on the hexes of ``changed``)
    from the search's cache."""
    share = work.parameters[player, SLOT_RETARGET]
    w_cards = work.parameters[player, SLOT_CARDS]
    if share <= 0 or w_cards <= 0:
        return 0.0
    spirit_points = work.parameters[player, SLOT_SPIRIT]
    second = work.parameters[player, SLOT_SECOND]
    third = work.parameters[player, SLOT_THIRD]
    dynamic = 0.0
    for slot in range(public.held_count[player]):
        card = public.held_cards[player, slot]
        if public.cubes_placed[player, slot] >= tables.card_cube_count[card]:
            continue
        note_spot_chances_after(tables, public, player, card, work.supply, search, slot,
                                changed)
        dynamic = add_next_cubes_worth(dynamic, tables, public, player, work, slot,
                                       search.hex_best, spirit_points, second, third)
    fixed = cards_worth_after_move(work, public, player, search, changed)
    return share * w_cards * (dynamic - fixed)


@compiled(always_inline=True)
def best_offer_worth_after(tables, public, player, work, turns_left, search, changed):
    """:func:`best_offer_worth` on the board after a move (tokens on the hexes of
    ``changed``) from the search's cache."""
    later = work.parameters[player, SLOT_OFFER]
    later_share = work.parameters[player, SLOT_LATER]
    best = 0.0
    for position in range(public.card_row.shape[0]):
        card = public.card_row[position]
        if card < 0:
            continue
        if offer_uses_planner_worth(tables, card, later, later_share):
            worth = card_offer_worth(tables, public, player, card, work.supply, POLICY_PLANNER,
                                     turns_left)
        else:
            note_spot_chances_after(tables, public, player, card, work.supply, search,
                                    public.held_cards.shape[1] + position, changed)
            worth = offer_worth_from_spots(tables, public, player, card, work.supply,
                                           turns_left, later, later_share, search.hex_best)
        best = max(best, worth)
    return best


@compiled
def judged_whole_move(total, tables, public, player, work, offer_weight, turns_left, search,
                      token_count):
    """``total``, the sum of a move's token steps, with the whole move judged (its
    ``token_count`` tokens on the board, as ``work.plan_hexes`` says): plus the card habitats
    likeliest after it (:func:`retarget_change`) and ``offer_weight`` times the best face-up
    card's worth after it (:func:`best_offer_worth`), added in that order; from ``search``,
    filled at the search's start (:func:`note_search_start`)."""
    if not may_cache_spots(tables):
        total += retarget_change(tables, public, player, work)
        if offer_weight > 0:
            total += offer_weight * best_offer_worth(tables, public, player, work, turns_left)
        return total
    changed = plan_hex_mask(work, token_count)
    total += retarget_change_after(tables, public, player, work, search, changed)
    if offer_weight > 0:
        total += offer_weight * best_offer_worth_after(tables, public, player, work,
                                                       turns_left, search, changed)
    return total


@compiled(refcounts=True)
def expert_token_plan(tables, public, player, generator, work, token_count, space_charge,
                      beam, offer_weight, turns_left, search):
    """Plan the tokens of ``work.tokens`` into ``work.plan_*``; returns the plan's value.

    ``beam`` 1: token by token, the best (token, hex) each step. ``beam`` k > 1: the three
    tokens as one move, looking ahead from each of the k best first placements (the rest
    token by token) and keeping the best whole plan. A whole plan is judged with the card
    habitats likeliest after it (:func:`retarget_change`) and ``offer_weight`` times the best
    face-up card's worth after it (0 once a card was taken this turn), from ``search``
    (:func:`note_search_start` of the board as it is). The board is left with the tokens
    placed (beam 1) or as it was (beam > 1); callers restore it either way."""
    first = expert_token_steps(tables, public, player, generator, work, token_count, 0,
                               (space_charge, search, 0))
    first = judged_whole_move(first, tables, public, player, work, offer_weight, turns_left,
                              search, token_count)
    if beam <= 1 or token_count < 2 or work.plan_hexes[0] < 0:
        return first
    # The first step has filled the cache of first-step values for every colour in hand.
    best_total = first
    best_colours = work.plan_colours.copy()
    best_hexes = work.plan_hexes.copy()
    tried_colour = np.full(beam, -1, dtype=np.int64)
    tried_hex = np.full(beam, -1, dtype=np.int64)
    tried_colour[0] = work.plan_colours[0]
    tried_hex[0] = work.plan_hexes[0]
    for branch in range(1, beam):
        # The next best first placement not tried yet.
        value, colour, hex_index = NOT_LEGAL, -1, -1
        for token in range(token_count):
            token_colour = work.tokens[token]
            for candidate in range(tables.hex_count):
                candidate_value = work.first_step_values[token_colour, candidate]
                if candidate_value <= value:
                    continue
                seen = False
                for earlier in range(branch):
                    if tried_colour[earlier] == token_colour and tried_hex[earlier] == candidate:
                        seen = True
                if not seen:
                    value, colour, hex_index = candidate_value, token_colour, candidate
        if colour < 0:
            break
        tried_colour[branch] = colour
        tried_hex[branch] = hex_index
        restore_board(tables, public, player, work)
        copy_gain_cache(work.start_cache, work.cache)
        start_token_plan(work, token_count)
        for token in range(token_count):
            if work.tokens[token] == colour:
                work.token_left[token] = 0
                break
        place_token(public, player, hex_index, colour)
        note_token_placed(work.cache, colour)
        note_token_in_view(tables.neighbours, public.stacks, public.heights, player,
                           work.trial_view, hex_index)
        work.plan_colours[0] = colour
        work.plan_hexes[0] = hex_index
        total = value + expert_token_steps(tables, public, player, generator, work,
                                           token_count, 1, (space_charge, search, 1))
        total = judged_whole_move(total, tables, public, player, work, offer_weight, turns_left,
                                  search, token_count)
        if total > best_total:
            best_total = total
            best_colours[:] = work.plan_colours
            best_hexes[:] = work.plan_hexes
    work.plan_colours[:] = best_colours
    work.plan_hexes[:] = best_hexes
    return best_total


@compiled(refcounts=True)
def next_player_gains(tables, public, player, generator, work, gains):
    """``gains[space]``: the immediate score gain the next player in turn order would make
    from each central space (``greedy``'s token plan on their board; 0 solo). Public
    information only: their board and the central board."""
    gains[:] = 0.0
    opponent = (player + 1) % tables.players
    if opponent == player:
        return
    invalidate(work.cache)
    work.first_step_ready[:] = 0
    prepare_local_view(tables.neighbours, public.stacks, public.heights, opponent,
                       work.start_view)
    save_board(tables, public, opponent, work)
    for space in range(tables.central_spaces):
        count = public.central_count[space]
        if count == 0:
            continue
        for slot in range(count):
            work.tokens[slot] = public.central[space, slot]
        gains[space] = greedy_token_plan(tables, public, opponent, generator, work, count)
        restore_board(tables, public, opponent, work)
    invalidate(work.cache)
    work.first_step_ready[:] = 0


@compiled(always_inline=True)
def best_left_over(gains, taken):
    """The largest of ``gains`` over every space but ``taken``."""
    best = 0.0
    for space in range(gains.shape[0]):
        if space != taken and gains[space] > best:
            best = gains[space]
    return best


@compiled(always_inline=True)
def empty_hexes_in_plan(tables, public, player, work, token_count):
    """How many of the hexes in ``work.plan_hexes`` are empty on the board as it is (a hex
    counted once however many of the plan's tokens go on it): the plan's space charges."""
    covered = 0
    for step in range(token_count):
        hex_index = work.plan_hexes[step]
        if hex_index < 0 or public.heights[player, hex_index] != 0:
            continue
        first = True
        for earlier in range(step):
            if work.plan_hexes[earlier] == hex_index:
                first = False
        if first:
            covered += 1
    return covered


@compiled
def space_plan_value(tables, public, player, generator, work, space, space_charge, beam,
                     denial, opponent_gains, offer_weight, turns_left, search):
    """Value of taking central ``space``: its best token plan (left in ``work.plan_*``, the
    board restored), the share of the space charge not counted in the choice given back, less
    the denial charge for the best space it leaves the next player."""
    count = public.central_count[space]
    for slot in range(count):
        work.tokens[slot] = public.central[space, slot]
    value = expert_token_plan(tables, public, player, generator, work, count, space_charge,
                              beam, offer_weight, turns_left, search)
    restore_board(tables, public, player, work)
    copy_gain_cache(work.start_cache, work.cache)
    choose = work.parameters[player, SLOT_CHOOSE]
    if choose < 1.0 and space_charge != 0.0:
        value += (1.0 - choose) * space_charge * empty_hexes_in_plan(tables, public, player,
                                                                     work, count)
    if denial > 0:
        value -= denial * best_left_over(opponent_gains, space)
    return value


@compiled
def best_space_plan(tables, public, player, generator, work, spaces, space_charge, beam,
                    denial, opponent_gains, offer_weight, turns_left, values, search):
    """Of the central ``spaces`` (in that order), the one of the highest
    :func:`space_plan_value` with ``beam`` first placements (ties at random), its plan
    remembered; every space's value goes into ``values``. Returns (space, token count),
    (-1, tokens per space) when ``spaces`` is empty."""
    best_value = NOT_LEGAL
    best_space = -1
    token_count = tables.tokens_per_space
    ties = 0
    for space in spaces:
        count = public.central_count[space]
        value = space_plan_value(tables, public, player, generator, work, space, space_charge,
                                 beam, denial, opponent_gains, offer_weight, turns_left,
                                 search)
        values[space] = value
        better, ties = keep_if_better(value, best_value, ties, generator)
        if better:
            best_value = value
            best_space = space
            token_count = count
            remember_plan(work, count)
    return best_space, token_count


# expert_card_choice takes the turns left as the context turn_end passes it.
expert_turn_end = specialise(turn_end, "expert_turn_end", __name__,
                             card_choice=expert_card_choice, place_cubes=greedy_cube_phase)


@compiled(refcounts=True)
def expert_turn(tables, public, player, generator, work):
    """One turn of ``expert`` (see the module doc); returns (space taken, card taken)."""
    invalidate(work.cache)
    estimate_supply(tables, public, work.parameters[player, SLOT_CHANCE],
                    work.parameters[player, SLOT_DRAWS], work.supply)
    turns_left = turns_left_estimate(tables, public)
    denial = work.parameters[player, SLOT_DENIAL]
    opponent_gains = np.zeros(tables.central_spaces, dtype=np.float64)
    if denial > 0:
        next_player_gains(tables, public, player, generator, work, opponent_gains)
    took_card = False
    if work.parameters[player, SLOT_DEFER] == 0:
        took_card = expert_card_choice(tables, public, player, generator, work, turns_left)
    if took_card:
        greedy_cube_phase(tables, public, player, generator, work)
    expert_choose_targets(tables, public, player, work, work.parameters[player, SLOT_TRACK],
                          work.parameters[player, SLOT_SPIRIT],
                          work.parameters[player, SLOT_SECOND],
                          work.parameters[player, SLOT_THIRD])
    work.first_step_ready[:] = 0
    prepare_local_view(tables.neighbours, public.stacks, public.heights, player,
                       work.start_view)
    space_charge = space_charge_now(tables, public, player, work)
    if work.parameters[player, SLOT_POTENTIAL] > 0:
        note_hex_potentials(tables, public, player, work, work.parameters[player, SLOT_COST], 0)

    beam = int(work.parameters[player, SLOT_BEAM])
    offer_weight = 0.0
    if not took_card and may_take_card(tables, public, player):
        offer_weight = work.parameters[player, SLOT_READY]
    save_board(tables, public, player, work)
    # Every trial starts from this board: its gain cache is worked out once and put back after
    # each board restore (the same contents a fresh refresh would give).
    invalidate(work.cache)
    refresh(tables, public, player, work.scratch, work.cache)
    copy_gain_cache(work.cache, work.start_cache)
    search = new_search_cache(tables, public, work)
    note_value_reach(tables, public, player, search)
    note_target_cells(tables, public, player, work, search)
    if may_cache_spots(tables):
        note_search_start(tables, public, player, work, search, offer_weight > 0)
    values = np.full(tables.central_spaces, NOT_LEGAL)
    spaces = np.nonzero(public.central_count[:tables.central_spaces] > 0)[0]
    best_space, token_count = best_space_plan(tables, public, player, generator, work, spaces,
                                              space_charge, beam, denial, opponent_gains,
                                              offer_weight, turns_left, values, search)
    wide = int(work.parameters[player, SLOT_WIDE])
    deep = int(work.parameters[player, SLOT_DEEP])
    if wide > 0 and deep > beam and best_space >= 0:
        # The best spaces planned again from more first placements; only they stay candidates.
        order = np.argsort(values, kind="mergesort")[::-1][:min(wide, tables.central_spaces)]
        best_space, token_count = best_space_plan(tables, public, player, generator, work,
                                                  order[values[order] != NOT_LEGAL],
                                                  space_charge, deep, denial, opponent_gains,
                                                  offer_weight, turns_left, values,
                                                  search)

    invalidate(work.cache)  # as the search's last board restore left it
    return expert_turn_end(tables, public, player, generator, work, turns_left, best_space,
                           token_count, took_card)


