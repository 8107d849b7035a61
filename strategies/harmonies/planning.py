"""The turn search the Harmonies strategies share: try every central space, place its tokens one
at a time (each step the (token, hex) worth most), keep the space whose tokens are worth most,
then play it, place cubes and take a card if one may still be taken.

A strategy differs in what a token placement is worth and in a few steps around that; the
search itself is written once here, as *templates*: plain functions that name the strategy's
steps (``token_value``, ``card_choice``, …) as globals. :func:`specialise` re-binds a template
to one strategy's compiled steps (``sim.jit.rebind``, as the loops and the ISMCTS search are
specialised) and compiles it under a name of the strategy's own. numba then calls each step
directly and LLVM pastes the small ones in, as if the strategy had written the search itself;
a compiled function passed as an argument instead would be specialised per function and could
not be cached on disk.

Templates and the steps each names (every step is a compiled function of the strategy):

* :func:`token_steps` (the token-by-token plan of one space): ``plan_start``, ``step_start``,
  ``first_value_table``, ``first_values_reusable``, ``first_value_holds``, ``token_value``,
  ``token_planned`` (and the constant ``NOT_LEGAL``, of the values' type: ``greedy`` keeps
  whole points as integers; with floats it played about 4% slower);
* :func:`space_search` (every central space tried from the same board): ``space_value``;
* :func:`turn_end` (play the best space, cubes, a late card): ``card_choice``, ``place_cubes``.

``context`` arguments are passed through the templates to the steps untouched: whatever a
strategy's steps need beyond the board and the workspace (``valued``: its policy id).

Also here: what every strategy's token value starts from, the score a token adds now
(:func:`token_score_gain`), and :func:`start_token_plan`.
"""

from __future__ import annotations

from sim.games.harmonies.colours import BLUE, YELLOW
from sim.games.harmonies.gains import (
    copy_gain_cache,
    copy_local_view,
    fast_local_gain,
    field_gain,
    invalidate,
    island_gain,
    note_token_in_view,
    note_token_placed,
    prepare_local_view,
    refresh,
    river_gain,
    spirit_gain,
)
from sim.games.harmonies.stacking import can_place_token
from sim.games.harmonies.turn import place_token
from sim.jit import compiled, rebind
from strategies.harmonies.common import (
    keep_if_better,
    plan_rest_to_box,
    play_remembered_plan,
    remember_plan,
    restore_board,
    save_board,
)

NOT_LEGAL = -1.0e18  # a hex where a token may not go, in cached first-step values; below any value
# (a specialisation whose values are whole points stored as integers names its own)


# --------------------------------------------------------------------------------------------
# Shared pieces (compiled once, called by every strategy)


@compiled(always_inline=True)
def token_score_gain(tables, public, player, work, hex_index, colour, spirit_placed):
    """What a ``colour`` token on the legal ``hex_index`` adds to the score now (landscapes,
    water, and a placed spirit's bonus), from ``work``'s local view (``work.trial_view``) and
    gain cache. The board is left unchanged. An integer (whole points): ``greedy`` keeps its
    gains as integers (as floats it played about 4% slower); a value adding weighted terms
    to it becomes a float, exactly."""
    stacks, heights = public.stacks, public.heights
    neighbours = tables.neighbours
    scratch, cache = work.scratch, work.cache
    value = fast_local_gain(neighbours, tables.tree_points, tables.mountain_points,
                            tables.building_points, tables.building_min_colours, heights,
                            player, work.trial_view, hex_index, colour)
    if colour == YELLOW:
        value += field_gain(neighbours, cache.yellow_labels, cache.yellow_sizes,
                            tables.field_min_group, tables.field_group_points, hex_index)
    elif colour == BLUE:
        if tables.water_is_river:
            heights[player, hex_index] = 1  # blue only goes on empty hexes
            stacks[player, hex_index, 0] = BLUE
            value += river_gain(neighbours, cache.blue_labels, cache.blue_diameters,
                                cache.numbers, tables.river_points,
                                tables.river_points_per_extra_token, scratch.member,
                                scratch.distance, scratch.queue, hex_index)
            heights[player, hex_index] = 0
        else:
            value += island_gain(neighbours, tables.island_points, cache.numbers, stacks,
                                 heights, player, scratch.member, scratch.labels,
                                 scratch.sizes, scratch.queue, hex_index)
    if spirit_placed:
        value += spirit_gain(tables, public, player, hex_index, colour, scratch, cache)
    return value


@compiled(always_inline=True)
def start_token_plan(work, token_count):
    """Before planning the ``token_count`` tokens of ``work.tokens`` from the board of
    ``work.start_view``: every token in hand, the trial view that board's."""
    work.token_left[:] = 0
    work.token_left[:token_count] = 1
    copy_local_view(work.start_view, work.trial_view)


# --------------------------------------------------------------------------------------------
# Templates (see the module doc; compiled only through ``specialise``)


def _unbound(*args):
    """What a template's strategy steps are until ``specialise`` re-binds them."""
    raise NotImplementedError("strategies.harmonies.planning: call specialise(...) first")


# The strategy's steps, as the templates below name them (re-bound by ``specialise``).
plan_start = step_start = first_value_table = first_values_reusable = first_value_holds = \
    token_value = token_planned = space_value = card_choice = place_cubes = _unbound


def token_steps(tables, public, player, generator, work, token_count, first_step, context):
    """Place the ``token_count`` tokens of ``work.tokens`` one at a time, each step the (token,
    hex) of largest ``token_value`` (ties at random), recording the order in ``work.plan_*``;
    returns the plan's total value. The tokens stay on the board (callers save and restore it);
    a token that fits nowhere goes to the box with the rest of the hand. From ``first_step``
    0 the whole hand is planned (:func:`start_token_plan`); from a later step, the tokens
    still in hand (``work.token_left``), the caller having placed the earlier ones itself.

    Every space of a turn starts from the same board, so step 0's values are worked out once
    per turn into the strategy's ``first_value_table(work)`` (colour x hex, ``NOT_LEGAL`` where
    a token may not go; ``work.first_step_ready`` per colour, cleared by the caller when the
    board changes). A later step reads a first-step value where the strategy says the tokens
    placed so far cannot have changed it:
    ``first_values_reusable(work, colour, step_context)`` for a colour, then
    ``first_value_holds(work, hex_index, step_context)`` for a hex.

    The strategy's steps: ``plan_start(tables, public, player, work, context)`` returns what it
    keeps across steps (``plan``); ``step_start(tables, public, player, work, step, plan,
    context)`` is called after the gain cache is refreshed and returns what its value reads
    this step (``step_context``); ``token_value(tables, public, player, work, hex_index,
    colour, step_context)`` values a legal placement, leaving the board unchanged;
    ``token_planned(tables, work, plan, hex_index, colour, covered_top)`` returns ``plan``
    after the step's token went on ``hex_index`` over ``covered_top`` (the view is updated)."""
    stacks, heights, cube_heights = public.stacks, public.heights, public.cube_heights
    first_values = first_value_table(work)
    if first_step == 0:
        start_token_plan(work, token_count)
    plan = plan_start(tables, public, player, work, context)
    total = NOT_LEGAL * 0  # 0 of the values' type (a float, or greedy's integer points)
    for step in range(first_step, token_count):
        best_value = NOT_LEGAL
        best_token = -1
        best_hex = -1
        ties = 0
        refresh(tables, public, player, work.scratch, work.cache)
        step_context = step_start(tables, public, player, work, step, plan, context)
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
            cached = step == 0 and work.first_step_ready[colour] == 1
            reusable = step > 0 and first_values_reusable(work, colour, step_context)
            for hex_index in range(tables.hex_count):
                if cached or (reusable and first_value_holds(work, hex_index, step_context)):
                    value = first_values[colour, hex_index]
                    if value == NOT_LEGAL:
                        continue
                elif not can_place_token(stacks, heights, cube_heights, player, hex_index,
                                         colour):
                    if step == 0:
                        first_values[colour, hex_index] = NOT_LEGAL
                    continue
                else:
                    value = token_value(tables, public, player, work, hex_index, colour,
                                        step_context)
                    if step == 0:
                        first_values[colour, hex_index] = value
                better, ties = keep_if_better(value, best_value, ties, generator)
                if better:
                    best_value, best_token, best_hex = value, token, hex_index
            if step == 0:
                work.first_step_ready[colour] = 1
        if best_token < 0:
            plan_rest_to_box(work, step, token_count)
            return total
        colour = work.tokens[best_token]
        covered_top = work.trial_view.tops[best_hex]
        place_token(public, player, best_hex, colour)
        note_token_placed(work.cache, colour)
        note_token_in_view(tables.neighbours, stacks, heights, player, work.trial_view, best_hex)
        plan = token_planned(tables, work, plan, best_hex, colour, covered_top)
        work.token_left[best_token] = 0
        work.plan_colours[step] = colour
        work.plan_hexes[step] = best_hex
        total += best_value
    return total


def space_search(tables, public, player, generator, work, context):
    """Try every central space holding tokens from the board as it is, by the strategy's
    ``space_value(tables, public, player, generator, work, token_count, context)`` (its tokens
    in ``work.tokens``; it leaves its plan in ``work.plan_*``); the board and gain cache are put
    back after each. Returns (space of highest value, ties at random; its token count) with its
    plan remembered (``common.remember_plan``); (-1, tokens per space) when none holds tokens.
    Clears the first-step values (the board may have changed since they were worked out)."""
    work.first_step_ready[:] = 0
    prepare_local_view(tables.neighbours, public.stacks, public.heights, player,
                       work.start_view)
    save_board(tables, public, player, work)
    # Every space is tried from this board: its gain cache is worked out once and put back
    # after each trial (the same contents a fresh refresh would give).
    refresh(tables, public, player, work.scratch, work.cache)
    copy_gain_cache(work.cache, work.start_cache)
    best_value = NOT_LEGAL
    best_space = -1
    token_count = tables.tokens_per_space
    ties = 0
    for space in range(tables.central_spaces):
        count = public.central_count[space]
        if count == 0:
            continue
        for slot in range(count):
            work.tokens[slot] = public.central[space, slot]
        value = space_value(tables, public, player, generator, work, count, context)
        restore_board(tables, public, player, work)
        copy_gain_cache(work.start_cache, work.cache)
        better, ties = keep_if_better(value, best_value, ties, generator)
        if better:
            best_value = value
            best_space = space
            token_count = count
            remember_plan(work, count)
    return best_space, token_count


def turn_end(tables, public, player, generator, work, context, space, token_count, took_card):
    """Play the remembered plan of central ``space``, place cubes (``place_cubes(tables,
    public, player, generator, work)``), and when no card was taken yet this turn and
    ``card_choice(tables, public, player, generator, work, context)`` takes one (a card
    completed this turn may make room), place cubes again. Returns (space, card taken)."""
    play_remembered_plan(tables, public, player, work, space, token_count)
    place_cubes(tables, public, player, generator, work)
    if not took_card and card_choice(tables, public, player, generator, work, context):
        took_card = True
        place_cubes(tables, public, player, generator, work)
    invalidate(work.cache)
    return space, took_card


# The steps each template names: ``specialise`` wants exactly these.
TEMPLATE_STEPS = {
    token_steps: ("plan_start", "step_start", "first_value_table", "first_values_reusable",
                  "first_value_holds", "token_value", "token_planned"),
    space_search: ("space_value",),
    turn_end: ("card_choice", "place_cubes"),
}


def specialise(template, name: str, module: str, *, always_inline: bool = True,
               not_legal=NOT_LEGAL, **steps):
    """``template`` (:func:`token_steps`, :func:`space_search` or :func:`turn_end`) with the
    strategy's compiled ``steps`` (keyword: the name the template uses), compiled (cached on
    disk) as ``module.name``: ``name`` must be unique among specialisations (numba names a
    function's cache files by its file and qualified name). Inlined into its callers unless
    ``always_inline`` is False (e.g. a plan called from many places of a big strategy).
    ``not_legal``: the value below any value, of the values' type (an integer for integer
    values)."""
    wanted = set(TEMPLATE_STEPS[template])
    if set(steps) != wanted:
        raise TypeError(f"{template.__name__} takes the steps {sorted(wanted)}, "
                        f"not {sorted(steps)}")
    bound = rebind(template, name, {**steps, "NOT_LEGAL": not_legal})
    bound.__qualname__ = name
    bound.__module__ = module
    bound.__doc__ = template.__doc__
    return compiled(always_inline=always_inline)(bound)
