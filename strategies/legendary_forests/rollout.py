"""The Monte-Carlo Legendary Forests strategy ``rollout``.

For each decision it keeps the few best options by the ``planner``'s static value, then tries each
of them out on a one-player copy of its own planet: it samples an order of the tiles not yet seen
(the draw pile and the removed tiles together, since nobody can tell them apart), plays the rest
of the game with a cheap policy (``greedy`` placements, trees into its biggest zone without one;
the other players' trees are drawn at random from the supply in token order), and scores the
planet. Every option is played out on the same sampled orders, so they are compared on equal
luck; the option with the best mean final score is played.
"""

from __future__ import annotations

import numpy as np

from sim.games.legendary_forests.rules import (
    LEAF_COLOURS,
    PREVIEW_SIZE,
    STATUS_PLAYERS,
    STATUS_TOKEN_HOLDER,
    apply_tree,
    copy_planet,
    legal_placements,
    legal_tree_choices,
    new_groups,
    new_scratch_table,
    place_tile,
    planet_score,
)
from sim.jit import compiled
from sim.rng import next_below, next_u64, seed_state, shuffle_in_place
from strategies.legendary_forests.baseline import greedy_placement
from strategies.legendary_forests.evaluation import (
    CONTEXT_SIZE,
    CONTEXT_TURNS_LEFT,
    game_context,
    pick_best,
    placement_value,
    tree_marginal_value,
)
from strategies.legendary_forests.shapers import rune_hunter_tree

# The planner's default weights, used to shortlist the options worth a rollout.
SHORTLIST_GROWTH = 0.5
SHORTLIST_CLOSING = 2.0
SHORTLIST_HOPE = 0.6


@compiled
def _opponent_takes_tree(sim, rng):
    """A simulated opponent takes one tree, of a colour drawn in proportion to the supply."""
    total = 0
    for colour in range(LEAF_COLOURS):
        total += sim.supply[colour]
    if total <= 0:
        return
    draw = next_below(rng, total)
    for colour in range(LEAF_COLOURS):
        if draw < sim.supply[colour]:
            sim.supply[colour] -= 1
            return
        draw -= sim.supply[colour]


@compiled
def _own_tree(sim, rng, choice_colours, choice_zones):
    count = legal_tree_choices(sim, 0, choice_colours, choice_zones)
    if count > 0:
        pick = rune_hunter_tree(sim, 0, choice_zones, count, rng)
        apply_tree(sim, 0, choice_colours[pick], choice_zones[pick])


@compiled
def _tree_phase(sim, players, holder, me, first_position, own_pick, rng, choice_colours,
                choice_zones):
    """The picks of one simulated tree phase from ``first_position`` in token order."""
    for position in range(first_position, players):
        seat = (holder + position) % players
        if seat == me:
            if own_pick:
                _own_tree(sim, rng, choice_colours, choice_zones)
        else:
            _opponent_takes_tree(sim, rng)


@compiled
def playout(tiles, sim, players, me, holder, draw_order, turns_left, rng, move_cells,
            move_rotations, choice_colours, choice_zones, scratch, preview):
    """Play the rest of the game on the one-player table ``sim`` (planet 0 is ``me``'s) with the
    cheap policy, drawing the first ``turns_left`` tiles of ``draw_order`` (a sampled order of
    the unseen tiles); returns the final score. ``holder`` holds the construction token at the
    next tree phase."""
    for turn in range(turns_left):
        tile = draw_order[turn]
        count = legal_placements(tiles, sim, 0, tile, move_cells, move_rotations)
        if count > 0:
            pick = greedy_placement(tiles, sim, 0, tile, move_cells, move_rotations, count, rng,
                                    scratch, preview)
            place_tile(tiles, sim, 0, tile, move_cells[pick], move_rotations[pick])
        if tiles.light[tile]:
            _tree_phase(sim, players, holder, me, 0, True, rng, choice_colours, choice_zones)
            holder = (holder + 1) % players
    return planet_score(sim, 0)


@compiled(refcounts=True)
def _unseen_tiles(table):
    count = 0
    for tile in range(table.tile_drawn.shape[0]):
        if not table.tile_drawn[tile]:
            count += 1
    unseen = np.empty(count, dtype=np.int16)
    count = 0
    for tile in range(table.tile_drawn.shape[0]):
        if not table.tile_drawn[tile]:
            unseen[count] = tile
            count += 1
    return unseen


@compiled(refcounts=True)
def _shortlist(values, count, size):
    """Indices of the ``size`` largest values (first come first among equals)."""
    size = min(size, count)
    order = np.argsort(-values[:count], kind="mergesort")
    return order[:size]


@compiled(refcounts=True)
def _start_sample(table, player, sim, unseen, sampled_order, local_rng, base, sample):
    """Set up playout ``sample``: its own generator, a fresh order of the unseen tiles, and the
    player's planet and the supply copied into the one-planet scratch table ``sim``."""
    seed_state(local_rng, base, sample)
    sampled_order[:] = unseen
    shuffle_in_place(local_rng, sampled_order)
    copy_planet(table, player, sim, 0)
    sim.supply[:] = table.supply


@compiled(refcounts=True)
def rollout_placement(tiles, table, player, tile, move_cells, move_rotations, move_count, rng,
                      scratch, preview, rollouts, candidates):
    """``rollout``: the shortlisted placement with the best mean final score over ``rollouts``
    playouts (the same sampled tile orders for every candidate)."""
    context = np.empty(CONTEXT_SIZE, dtype=np.float64)
    game_context(tiles, table, tiles.light[tile], context)
    groups = new_groups()
    values = np.empty(move_count, dtype=np.float64)
    for index in range(move_count):
        values[index] = placement_value(tiles, table, player, tile, move_cells[index],
                                        move_rotations[index], scratch, groups, context,
                                        SHORTLIST_GROWTH, SHORTLIST_CLOSING, SHORTLIST_HOPE)
    shortlist = _shortlist(values, move_count, max(1, int(candidates)))
    if shortlist.shape[0] == 1 or rollouts < 1:
        return shortlist[0]
    players = table.status[STATUS_PLAYERS]
    holder = table.status[STATUS_TOKEN_HOLDER]
    turns_left = int(context[CONTEXT_TURNS_LEFT])
    sim = new_scratch_table(table, 1)
    unseen = _unseen_tiles(table)
    sampled_order = unseen.copy()
    moves = move_cells.shape[0]
    sim_cells = np.empty(moves, dtype=np.int16)
    sim_rotations = np.empty(moves, dtype=np.int8)
    choice_colours = np.empty(4 * moves, dtype=np.int8)
    choice_zones = np.empty(4 * moves, dtype=np.int16)
    local_rng = np.empty(4, dtype=np.uint64)
    base = next_u64(rng)
    mean_score = np.zeros(shortlist.shape[0], dtype=np.float64)
    for k in range(shortlist.shape[0]):
        index = shortlist[k]
        for sample in range(int(rollouts)):
            _start_sample(table, player, sim, unseen, sampled_order, local_rng, base, sample)
            place_tile(tiles, sim, 0, tile, move_cells[index], move_rotations[index])
            token = holder
            if tiles.light[tile]:
                _tree_phase(sim, players, token, player, 0, True, local_rng, choice_colours,
                            choice_zones)
                token = (token + 1) % players
            mean_score[k] += playout(tiles, sim, players, player, token, sampled_order,
                                     turns_left,
                                     local_rng, sim_cells, sim_rotations, choice_colours,
                                     choice_zones, scratch, preview)
    return shortlist[pick_best(mean_score, shortlist.shape[0], rng)]


@compiled(refcounts=True)
def rollout_tree(tiles, table, player, choice_colours, choice_zones, choice_count, rng, rollouts,
                 candidates):
    """``rollout``: the shortlisted (colour, zone) with the best mean final score over
    ``rollouts`` playouts; the rest of this tree phase is played first (the seats after it in
    token order take random trees), then the remaining turns."""
    context = np.empty(CONTEXT_SIZE, dtype=np.float64)
    game_context(tiles, table, False, context)
    values = np.empty(choice_count, dtype=np.float64)
    for index in range(choice_count):
        values[index] = tree_marginal_value(table, player, choice_zones[index], context,
                                            SHORTLIST_GROWTH, SHORTLIST_CLOSING, SHORTLIST_HOPE)
    shortlist = _shortlist(values, choice_count, max(1, int(candidates)))
    if shortlist.shape[0] == 1 or rollouts < 1:
        return shortlist[0]
    players = table.status[STATUS_PLAYERS]
    holder = table.status[STATUS_TOKEN_HOLDER]
    position = (player - holder) % players
    turns_left = int(context[CONTEXT_TURNS_LEFT])
    sim = new_scratch_table(table, 1)
    unseen = _unseen_tiles(table)
    sampled_order = unseen.copy()
    moves = 16 * table.placed_cells.shape[1]
    sim_cells = np.empty(moves, dtype=np.int16)
    sim_rotations = np.empty(moves, dtype=np.int8)
    sim_colours = np.empty(choice_colours.shape[0], dtype=np.int8)
    sim_zones = np.empty(choice_zones.shape[0], dtype=np.int16)
    scratch = np.empty(64, dtype=np.int32)
    preview = np.empty(PREVIEW_SIZE, dtype=np.int32)
    local_rng = np.empty(4, dtype=np.uint64)
    base = next_u64(rng)
    mean_score = np.zeros(shortlist.shape[0], dtype=np.float64)
    for k in range(shortlist.shape[0]):
        index = shortlist[k]
        for sample in range(int(rollouts)):
            _start_sample(table, player, sim, unseen, sampled_order, local_rng, base, sample)
            apply_tree(sim, 0, choice_colours[index], choice_zones[index])
            _tree_phase(sim, players, holder, player, position + 1, False, local_rng, sim_colours,
                        sim_zones)
            mean_score[k] += playout(tiles, sim, players, player, (holder + 1) % players,
                                     sampled_order, turns_left, local_rng, sim_cells,
                                     sim_rotations, sim_colours, sim_zones, scratch, preview)
    return shortlist[pick_best(mean_score, shortlist.shape[0], rng)]
