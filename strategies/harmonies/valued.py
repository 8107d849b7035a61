"""Strategies that value a position beyond its score now: ``landscape``, ``animals``, ``planner``.

All three play the same kind of turn (:func:`valued_turn`, the search every strategy shares:
``strategies.harmonies.planning``): for every central space they place the tokens one at a
time, each time the (token, hex) whose *value* rises most, and play the space whose tokens add
most value; cubes go down whenever a habitat is complete. The value of a board is

    score now  +  w_potential * (partial landscapes)  +  w_cards * (progress of held cards)

* **Partial landscapes** (:func:`hex_potential`): what a stack may still become, less a cost
  per missing token (``cost``: what that token could earn elsewhere), times the chance of
  getting the missing tokens: a trunk (a tree of 3 or 7 once green tops it), a mountain that
  can grow or find a neighbour, a lone yellow that a second one would make a field, a
  building still short of neighbour colours that empty hexes could supply.
* **Card progress** (:func:`choose_targets`): for the next cube of every held card the strategy
  picks a *target*, the spot and rotation of the habitat on its board that is most likely to be
  finished (every stack there is a start of the stack needed and no cube is in the way). The
  card is worth its next cube's points times the chance of getting the tokens still missing; a
  token that spoils the target drops it to the chance of building the habitat afresh.
* **Chances** (:func:`estimate_supply`) are ``supply[colour]``, per missing token. ``landscape``
  and ``animals`` use a fixed 0.6; ``planner`` reads the public bag counts and central board
  (never the bag order) and the turns likely left: a colour is likely when it is common in what
  is left and there is time to draw it, and nothing is likely in the last round.

The weights, the fixed chance and the card threshold are strategy parameters
(``strategies.harmonies.ids``; e.g. ``planner:potential=0.5``). The three differ in them and in
their cards:

* ``landscape``: potentials only (w_cards = 0); it never takes an animal card.
* ``animals``: card progress only (no potentials); it takes the face-up card whose cubes it is
  most likely to place, whenever it may.
* ``planner``: both (cards weighted double), with chances from the bag and the time left; it
  takes a card when the points it can expect from it are worth a slot (1 point; 2 when it
  already holds 3 open cards). Its defaults were tuned in mixed 4-player games.
"""

from __future__ import annotations

import numpy as np

from sim.games.harmonies.colours import (
    BROWN,
    BUILDING_REQUIREMENT,
    COLOUR_COUNT,
    GRAY,
    GREEN,
    RED,
    STACK_CODE_BASE,
    YELLOW,
)
from sim.games.harmonies.gains import holds_placed_spirit, invalidate
from sim.games.harmonies.habitats import is_building_at
from sim.games.harmonies.scoring import spirit_bonus
from sim.games.harmonies.tables import ROTATIONS
from sim.games.harmonies.turn import may_take_card, take_card, uncompleted_cards
from sim.jit import compiled, inlined
from strategies.harmonies.common import keep_if_better
from strategies.harmonies.greedy import greedy_cube_phase
from strategies.harmonies.ids import (
    POLICY_LANDSCAPE,
    POLICY_PLANNER,
    SLOT_CARDS,
    SLOT_CHANCE,
    SLOT_COST,
    SLOT_DRAWS,
    SLOT_POTENTIAL,
    SLOT_THRESHOLD,
)
from strategies.harmonies.planning import (
    NOT_LEGAL,  # noqa: F401 (the expert imports it from here)
    space_search,
    specialise,
    token_score_gain,
    token_steps,
    turn_end,
)

ONE_MORE_TOKEN = 0.5  # a lone yellow or an isolated mountain needs a token on another hex too
SPIRIT_EXPECTED_POINTS = 6.0  # what a spirit's cube is worth before its bonus shows
LATER_CUBE_DECAY = 0.8  # animals: each further cube of a card is a little less likely
HORIZON_TURNS = 4.0  # planner: turns further off than this count as this many


# --------------------------------------------------------------------------------------------
# Chances


@compiled(always_inline=True)
def turns_left_estimate(tables, public):
    """Rough number of turns each player still gets: until the bag cannot refill the central
    board, or the fullest board reaches the end threshold (about 2 empty hexes a turn)."""
    bag_left = 0
    for colour in range(COLOUR_COUNT):
        bag_left += public.bag_counts[colour]
    by_bag = bag_left / (tables.tokens_per_space * tables.players)
    fewest_empty = tables.hex_count
    for player in range(tables.players):
        empty = 0
        for hex_index in range(tables.hex_count):
            if public.heights[player, hex_index] == 0:
                empty += 1
        if empty < fewest_empty:
            fewest_empty = empty
    by_board = (fewest_empty - tables.end_when_empty_hexes_at_most) / 2.0
    return max(0.0, min(by_bag, by_board))


@compiled(refcounts=True)
def estimate_supply(tables, public, fixed_chance, draws_per_turn, supply):
    """Fill ``supply[colour]``: the chance of getting one more token of that colour in time:
    ``fixed_chance`` when it is above 0, else from public information only (bag counts and
    the central board) and the turns left, as if ``draws_per_turn`` tokens were drawn per turn
    left (at most HORIZON_TURNS)."""
    if fixed_chance > 0:
        supply[:] = fixed_chance
        return
    available = np.zeros(COLOUR_COUNT, dtype=np.float64)
    total = 0.0
    for colour in range(COLOUR_COUNT):
        available[colour] += public.bag_counts[colour]
        total += public.bag_counts[colour]
    for space in range(public.central_count.shape[0]):
        for slot in range(public.central_count[space]):
            available[public.central[space, slot]] += 1.0
            total += 1.0
    draws = draws_per_turn * min(turns_left_estimate(tables, public), HORIZON_TURNS)
    for colour in range(COLOUR_COUNT):
        share = available[colour] / total if total > 0 else 0.0
        supply[colour] = 1.0 - (1.0 - share) ** draws


# --------------------------------------------------------------------------------------------
# Partial landscapes


@inlined
def top_at(stacks, heights, player, hex_index):
    """Top colour of a hex, -1 when empty."""
    height = heights[player, hex_index]
    return stacks[player, hex_index, height - 1] if height > 0 else -1


@compiled(always_inline=True)
def hex_potential(neighbours, tree_points, mountain_points, building_points,
                  building_min_colours, stacks, heights, cube_heights, player, hex_index,
                  supply, token_cost):
    """What the stack on ``hex_index`` may still add: the points it would gain, less
    ``token_cost`` per token still needed (those tokens could score elsewhere), times the
    chance of getting them; never below 0. Depends only on the hex and its neighbours, so a
    token changes the potential of its hex and the 6 around it only."""
    height = heights[player, hex_index]
    if height == 0 or cube_heights[player, hex_index] > 0:
        return 0.0  # nothing to grow, or a cube stops all growth
    top = stacks[player, hex_index, height - 1]
    if top == BROWN:
        if height == 2:
            return max(0.0, (tree_points[2] - token_cost) * supply[GREEN])
        return max(0.0, (tree_points[1] - token_cost) * supply[GREEN],
                   (tree_points[2] - 2 * token_cost) * supply[BROWN] * supply[GREEN])
    empty_around = 0
    same_around = 0
    seen = 0
    colours = 0
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour < 0:
            continue
        colour = top_at(stacks, heights, player, neighbour)
        if colour < 0:
            empty_around += 1
        else:
            if colour == top:
                same_around += 1
            if (seen >> colour) & 1 == 0:
                seen |= 1 << colour
                colours += 1
    if top == GRAY:
        growth = 0.0
        if height < 3:
            growth = mountain_points[height] - mountain_points[height - 1] - token_cost
        if same_around > 0:
            return max(0.0, growth * supply[GRAY])
        if empty_around == 0:
            return 0.0
        # Isolated: scores once a neighbour becomes a mountain.
        worth = mountain_points[height - 1] + mountain_points[0] - token_cost + max(0.0, growth)
        return max(0.0, worth * supply[GRAY] * ONE_MORE_TOKEN)
    if top == YELLOW:
        if same_around == 0 and empty_around > 0:
            return max(0.0, (5.0 - token_cost) * supply[YELLOW] * ONE_MORE_TOKEN)
        return 0.0
    if top == RED and is_building_at(stacks, heights, player, hex_index):
        missing = building_min_colours - colours
        if missing <= 0 or empty_around < missing:
            return 0.0
        return max(0.0, (building_points - missing * token_cost) * ONE_MORE_TOKEN ** missing)
    return 0.0


@compiled(always_inline=True)
def area_potential(neighbours, tree_points, mountain_points, building_points,
                   building_min_colours, stacks, heights, cube_heights, player, hex_index,
                   supply, token_cost):
    """Potential of ``hex_index`` and its neighbours (what one token there can change)."""
    total = hex_potential(neighbours, tree_points, mountain_points, building_points,
                          building_min_colours, stacks, heights, cube_heights, player,
                          hex_index, supply, token_cost)
    for direction in range(6):
        neighbour = neighbours[hex_index, direction]
        if neighbour >= 0:
            total += hex_potential(neighbours, tree_points, mountain_points, building_points,
                                   building_min_colours, stacks, heights, cube_heights, player,
                                   neighbour, supply, token_cost)
    return total


# --------------------------------------------------------------------------------------------
# Card targets


REQUIREMENT_LEVELS = 4  # a stack holds 3 tokens at most; level 3 of a code reads -1


def _requirement_colour_table() -> np.ndarray:
    """int8[code, level]: :func:`requirement_colour` of every code of up to 3 levels, worked
    out once (the innermost card-chance loops read it instead of dividing)."""
    codes = np.arange(STACK_CODE_BASE ** (REQUIREMENT_LEVELS - 1))[:, None]
    powers = STACK_CODE_BASE ** np.arange(REQUIREMENT_LEVELS)[None, :]
    return ((codes // powers) % STACK_CODE_BASE - 1).astype(np.int8)


REQUIREMENT_COLOURS = _requirement_colour_table()


@inlined
def requirement_colour(requirement, level):
    """Colour at ``level`` of a stack-code requirement (-1 above its top)."""
    if 0 <= requirement < REQUIREMENT_COLOURS.shape[0] and level < REQUIREMENT_LEVELS:
        return np.int64(REQUIREMENT_COLOURS[requirement, level])
    return (requirement // STACK_CODE_BASE ** level) % STACK_CODE_BASE - 1


@compiled(always_inline=True)
def cell_chance(requirement, stacks, heights, cube_heights, player, hex_index, is_cube_hex,
                supply):
    """Chance that ``hex_index`` comes to hold ``requirement``: 1 when it does, the product of
    the missing tokens' chances when its stack is a start of the one needed, -1 when it can
    never (a wrong stack, or a cube in the way)."""
    height = heights[player, hex_index]
    has_cube = cube_heights[player, hex_index] > 0
    if is_cube_hex and has_cube:
        return -1.0
    if requirement == BUILDING_REQUIREMENT:
        if height == 0:
            base = max(supply[BROWN], max(supply[GRAY], supply[RED]))
            return -1.0 if has_cube else base * supply[RED]
        if height == 1:
            base = stacks[player, hex_index, 0]
            if has_cube or not (base == BROWN or base == GRAY or base == RED):
                return -1.0
            return supply[RED]
        return 1.0 if is_building_at(stacks, heights, player, hex_index) else -1.0
    chance = 1.0
    level = 0
    while True:
        wanted = requirement_colour(requirement, level)
        if wanted < 0:
            break
        if level < height:
            if stacks[player, hex_index, level] != wanted:
                return -1.0
        else:
            if has_cube:
                return -1.0
            chance *= supply[wanted]
        level += 1
    if height > level:
        return -1.0  # taller than the requirement
    return chance


@compiled(always_inline=True)
def fresh_chance(requirements, cell_count, supply):
    """Chance of building a whole habitat on empty hexes."""
    chance = 1.0
    for cell in range(cell_count):
        requirement = requirements[cell]
        if requirement == BUILDING_REQUIREMENT:
            chance *= max(supply[BROWN], max(supply[GRAY], supply[RED])) * supply[RED]
            continue
        level = 0
        while requirement_colour(requirement, level) >= 0:
            chance *= supply[requirement_colour(requirement, level)]
            level += 1
    return chance


@compiled(always_inline=True)
def placement_chance(tables, stacks, heights, cube_heights, player, card, rotation, cube_hex,
                     supply):
    """Chance of completing ``card``'s habitat at (``rotation``, ``cube_hex``), -1 if it can
    never be."""
    if not tables.card_fits[card, rotation, cube_hex]:
        return -1.0
    chance = 1.0
    for cell in range(tables.card_cell_count[card]):
        hex_index = tables.card_cells[card, rotation, cube_hex, cell]
        part = cell_chance(tables.card_requirement[card, cell], stacks, heights, cube_heights,
                           player, hex_index, cell == 0, supply)
        if part < 0:
            return -1.0
        chance *= part
    return chance


@compiled(always_inline=True)
def best_placement(tables, stacks, heights, cube_heights, player, card, supply):
    """(chance, rotation, cube hex) of the spot where ``card``'s habitat is likeliest to be
    completed; chance -1 when there is none."""
    best, best_rotation, best_hex = -1.0, -1, -1
    for cube_hex in range(tables.hex_count):
        for rotation in range(ROTATIONS):
            chance = placement_chance(tables, stacks, heights, cube_heights, player, card,
                                      rotation, cube_hex, supply)
            if chance > best:
                best, best_rotation, best_hex = chance, rotation, cube_hex
    return best, best_rotation, best_hex


@compiled(always_inline=True)
def next_cube_points(tables, public, player, slot, scratch):
    """What the next cube of the card in ``slot`` is worth (a spirit: its bonus now, at least
    the points a spirit bonus usually gives)."""
    card = public.held_cards[player, slot]
    if tables.card_is_spirit[card]:
        bonus = spirit_bonus(tables, public.stacks, public.heights, player, card, scratch)
        return max(float(bonus), SPIRIT_EXPECTED_POINTS)
    placed = public.cubes_placed[player, slot]
    points = tables.card_points[card, placed]
    if placed > 0:
        points -= tables.card_points[card, placed - 1]
    return float(points)


@compiled
def choose_targets(tables, public, player, work):
    """Pick a target habitat for the next cube of every uncompleted held card (the likeliest
    spot, see the module doc). Targets are kept for the whole turn."""
    work.target_slot[:] = -1
    count = 0
    for slot in range(public.held_count[player]):
        card = public.held_cards[player, slot]
        if public.cubes_placed[player, slot] >= tables.card_cube_count[card]:
            continue
        if count >= work.target_slot.shape[0]:
            break
        chance, rotation, cube_hex = best_placement(tables, public.stacks, public.heights,
                                                    public.cube_heights, player, card,
                                                    work.supply)
        if chance < 0:
            continue  # nowhere on this board: the card is dead weight
        work.target_slot[count] = slot
        work.target_value[count] = next_cube_points(tables, public, player, slot, work.scratch)
        cells = tables.card_cell_count[card]
        work.target_cell_count[count] = cells
        for cell in range(cells):
            work.target_cells[count, cell] = tables.card_cells[card, rotation, cube_hex, cell]
            work.target_requirements[count, cell] = tables.card_requirement[card, cell]
        count += 1


@compiled(always_inline=True)
def target_worth(work, target, stacks, heights, cube_heights, player, supply):
    """Expected points of a target on the board as it is: its cube's points times the chance
    of finishing it there, or of building it afresh once spoiled."""
    chance = 1.0
    cells = work.target_cell_count[target]
    for cell in range(cells):
        part = cell_chance(work.target_requirements[target, cell], stacks, heights, cube_heights,
                           player, work.target_cells[target, cell], cell == 0, supply)
        if part < 0:
            chance = fresh_chance(work.target_requirements[target], cells, supply)
            break
        chance *= part
    return work.target_value[target] * chance


@compiled(always_inline=True)
def cards_worth(work, stacks, heights, cube_heights, player, supply):
    """Expected points of every target."""
    total = 0.0
    for target in range(work.target_slot.shape[0]):
        if work.target_slot[target] >= 0:
            total += target_worth(work, target, stacks, heights, cube_heights, player, supply)
    return total


@compiled(always_inline=True)
def targets_touching(work, hex_index):
    """True when some target covers ``hex_index``."""
    for target in range(work.target_slot.shape[0]):
        if work.target_slot[target] < 0:
            continue
        for cell in range(work.target_cell_count[target]):
            if work.target_cells[target, cell] == hex_index:
                return True
    return False


# --------------------------------------------------------------------------------------------
# Cards


@compiled(always_inline=True)
def habitat_token_count(tables, card):
    """Tokens a fresh habitat of ``card`` takes (a building counts 2: its base and the red)."""
    tokens = 0
    for cell in range(tables.card_cell_count[card]):
        requirement = tables.card_requirement[card, cell]
        if requirement == BUILDING_REQUIREMENT:
            tokens += 2
        else:
            level = 0
            while requirement_colour(requirement, level) >= 0:
                level += 1
            tokens += level
    return tokens


@compiled(always_inline=True)
def card_offer_worth(tables, public, player, card, supply, policy, turns_left):
    """Expected points of taking ``card`` now: its first cube at the likeliest spot of the
    board, later cubes on a fresh habitat each (animals: a little less likely each time;
    planner: only as many as the turns left can build)."""
    chance, _, _ = best_placement(tables, public.stacks, public.heights, public.cube_heights,
                                  player, card, supply)
    if chance < 0:
        return 0.0
    cells = tables.card_cell_count[card]
    fresh = fresh_chance(tables.card_requirement[card], cells, supply)
    levels = habitat_token_count(tables, card)
    cubes = tables.card_cube_count[card]
    if tables.card_is_spirit[card]:
        return SPIRIT_EXPECTED_POINTS * chance
    worth = 0.0
    previous = 0
    for cube in range(cubes):
        step = tables.card_points[card, cube] - previous
        previous = tables.card_points[card, cube]
        likely = chance if cube == 0 else fresh * LATER_CUBE_DECAY ** cube
        if policy == POLICY_PLANNER and cube > 0:
            # Tokens are shared with the landscape: about half of 3 a turn go to cards.
            buildable = turns_left * 1.5 / levels
            likely = fresh * min(1.0, max(0.0, buildable - cube))
        worth += step * likely
    return worth


@compiled
def valued_card_choice(tables, public, player, generator, work, policy):
    """Take the face-up card of highest expected points if it reaches the seat's threshold
    (``landscape`` never takes one; ``planner`` wants more when 3 cards are open already);
    True when a card was taken."""
    if policy == POLICY_LANDSCAPE or not may_take_card(tables, public, player):
        return False
    threshold = work.parameters[player, SLOT_THRESHOLD]
    turns_left = turns_left_estimate(tables, public)
    best, best_position, ties = -1.0, -1, 0
    for position in range(public.card_row.shape[0]):
        card = public.card_row[position]
        if card < 0:
            continue
        worth = card_offer_worth(tables, public, player, card, work.supply, policy, turns_left)
        better, ties = keep_if_better(worth, best, ties, generator)
        if better:
            best, best_position = worth, position
    if best_position < 0:
        return False
    if best < threshold or (policy == POLICY_PLANNER
                            and uncompleted_cards(tables, public, player) >= 3
                            and best < 2 * threshold):
        return False
    take_card(tables, public, player, best_position)
    return True


# --------------------------------------------------------------------------------------------
# Tokens


@compiled(always_inline=True)
def token_value(tables, public, player, work, hex_index, colour, w_potential, w_cards,
                spirit_placed, cards_before):
    """Value added by a ``colour`` token on the legal ``hex_index``: its score gain, plus the
    weighted change of potentials and of card progress. The board is left unchanged."""
    stacks, heights, cube_heights = public.stacks, public.heights, public.cube_heights
    neighbours = tables.neighbours
    value = token_score_gain(tables, public, player, work, hex_index, colour, spirit_placed)
    touches_target = w_cards > 0 and targets_touching(work, hex_index)
    token_cost = work.parameters[player, SLOT_COST]
    potential_before = 0.0
    if w_potential > 0:
        potential_before = area_potential(neighbours, tables.tree_points, tables.mountain_points,
                                          tables.building_points, tables.building_min_colours,
                                          stacks, heights, cube_heights, player, hex_index,
                                          work.supply, token_cost)
    if w_potential > 0 or touches_target:
        height = heights[player, hex_index]
        previous = stacks[player, hex_index, height]
        stacks[player, hex_index, height] = colour
        heights[player, hex_index] = height + 1
        if w_potential > 0:
            after = area_potential(neighbours, tables.tree_points, tables.mountain_points,
                                   tables.building_points, tables.building_min_colours, stacks,
                                   heights, cube_heights, player, hex_index, work.supply,
                                   token_cost)
            value += w_potential * (after - potential_before)
        if touches_target:
            value += w_cards * (cards_worth(work, stacks, heights, cube_heights, player,
                                            work.supply) - cards_before)
        heights[player, hex_index] = height
        stacks[player, hex_index, height] = previous
    return value


@compiled(always_inline=True)
def valued_plan_start(tables, public, player, work, policy):
    """What the value reads for the whole plan: (w_potential, w_cards, a placed spirit is
    held)."""
    return (work.parameters[player, SLOT_POTENTIAL], work.parameters[player, SLOT_CARDS],
            holds_placed_spirit(tables, public, player))


@compiled(always_inline=True)
def valued_step_start(tables, public, player, work, step, plan, policy):
    """The plan's weights and the worth of the card targets on the board as it is this step:
    (w_potential, w_cards, spirit placed, cards before)."""
    w_potential, w_cards, spirit_placed = plan
    cards_before = 0.0
    if w_cards > 0:
        cards_before = cards_worth(work, public.stacks, public.heights, public.cube_heights,
                                   player, work.supply)
    return w_potential, w_cards, spirit_placed, cards_before


@compiled(always_inline=True)
def first_values_never_reused(work, colour, step_context):
    """A value reads potentials and card targets beyond what a token changes nearby: after
    the first step every value is worked out again."""
    return False


@compiled(always_inline=True)
def valued_token_step_value(tables, public, player, work, hex_index, colour, step_context):
    """:func:`token_value` with the step's weights and card worth."""
    w_potential, w_cards, spirit_placed, cards_before = step_context
    return token_value(tables, public, player, work, hex_index, colour, w_potential, w_cards,
                       spirit_placed, cards_before)


@compiled(always_inline=True)
def valued_token_planned(tables, work, plan, hex_index, colour, covered_top):
    """The plan's weights do not change with its tokens."""
    return plan


@inlined  # returns a workspace array: pasted in, not a call
def valued_first_value_table(work):
    """The valued strategies' first-step values (floats)."""
    return work.first_step_values


valued_token_steps = specialise(
    token_steps, "valued_token_steps", __name__, plan_start=valued_plan_start,
    step_start=valued_step_start, first_value_table=valued_first_value_table,
    first_values_reusable=first_values_never_reused,
    first_value_holds=first_values_never_reused, token_value=valued_token_step_value,
    token_planned=valued_token_planned)


@compiled(always_inline=True)
def valued_token_plan(tables, public, player, generator, work, token_count, policy):
    """Place ``work.tokens`` one at a time, each step the (token, hex) of largest value (ties
    at random), recording the order in ``work.plan_*``; returns the total value. The tokens
    stay on the board (callers save and restore it)."""
    return valued_token_steps(tables, public, player, generator, work, token_count, 0, policy)


valued_space_search = specialise(space_search, "valued_space_search", __name__,
                                 space_value=valued_token_plan)
valued_turn_end = specialise(turn_end, "valued_turn_end", __name__,
                             card_choice=valued_card_choice, place_cubes=greedy_cube_phase)


@compiled
def valued_turn(tables, public, player, generator, work, policy):
    """One turn of a valued policy (see the module doc); returns (space taken, card taken)."""
    invalidate(work.cache)
    estimate_supply(tables, public, work.parameters[player, SLOT_CHANCE],
                    work.parameters[player, SLOT_DRAWS], work.supply)
    took_card = valued_card_choice(tables, public, player, generator, work, policy)
    if took_card:
        greedy_cube_phase(tables, public, player, generator, work)
    choose_targets(tables, public, player, work)
    space, token_count = valued_space_search(tables, public, player, generator, work, policy)
    return valued_turn_end(tables, public, player, generator, work, policy, space, token_count,
                           took_card)
