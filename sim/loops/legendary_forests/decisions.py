"""Legendary Forests on the decision interface (``sim.games.decisions``), and its ``search``
strategy (``sim.search.ismcts``).

Search state: ``(table, pile, registers, scratch)``:

* ``table``      a ``rules.Table`` (every planet, the supply, the token holder, the tiles drawn)
* ``pile``       int16[turns] the tile revealed at each turn; the entries after the current
                 turn are the hidden draw order (``determinise`` deals them from the unseen
                 tiles, the rest of which are the tiles removed unseen)
* ``registers``  int64[3] the current turn, the phase (placement, trees, over) and the
                 position in it (the seat placing; the place in the tree phase's token order)
* ``scratch``    the buffers the rules fill (moves, tree choices, ranks, unseen tiles); never
                 copied

Context: the tile set's ``rules.TileArrays``.

Decision codes: a placement of the revealed tile is ``4 * cell + rotation`` (a cell of the
planet's grid, quarter turns clockwise), one per legal placement ``rules.legal_placements``
lists; a tree is ``4 * cells + 4 * zone + colour`` (``cells`` the grid's cell count, so the two
kinds never share a code), one per ``rules.legal_tree_choices``. A seat with no legal
placement discards and a seat with no legal tree takes none, without a decision, as in the
game loop; the order of the steps (every seat places in seat order; on a light tile a tree
phase from the construction-token holder, after which the token passes) is the loop's.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.decisions import decision_functions
from sim.games.legendary_forests.results import rank_scores
from sim.games.legendary_forests.rules import (
    STATUS_LIGHT_DRAWN,
    STATUS_PLAYERS,
    STATUS_TOKEN_HOLDER,
    STATUS_TURN,
    apply_tree,
    copy_planet,
    legal_placements,
    legal_tree_choices,
    new_scratch_table,
    pass_construction_token,
    place_tile,
    planet_score,
    total_turns,
    tree_phase_seat,
)
from sim.jit import compiled
from sim.rng import shuffle_in_place
from sim.search.ismcts import specialise

REGISTER_TURN = 0
REGISTER_PHASE = 1
REGISTER_POSITION = 2
REGISTER_SIZE = 3
PHASE_PLACEMENT = 0
PHASE_TREES = 1
PHASE_OVER = 2
# A typical high score of one planet (a one-seat game's result is its score over this).
SCORE_SCALE = 40.0

Scratch = namedtuple("Scratch", ["move_cells", "move_rotations", "choice_colours",
                                 "choice_zones", "ranks", "unseen"])


@compiled(refcounts=True)
def new_search_state(table):
    """An empty search state shaped for ``table``'s games (planets, status and flags copied
    from it; ``observe`` fills the rest)."""
    players = table.status[STATUS_PLAYERS]
    planet_tiles = table.placed_cells.shape[1]
    tile_count = table.tile_drawn.shape[0]
    copy = new_scratch_table(table, players)
    for player in range(players):
        copy_planet(table, player, copy, player)
    scratch = Scratch(np.zeros(16 * planet_tiles, dtype=np.int16),
                      np.zeros(16 * planet_tiles, dtype=np.int8),
                      np.zeros(4 * planet_tiles, dtype=np.int8),
                      np.zeros(4 * planet_tiles, dtype=np.int16),
                      np.zeros(players, dtype=np.int64),
                      np.zeros(tile_count, dtype=np.int16))
    return (copy, np.zeros(max(total_turns(table), 1), dtype=np.int16),
            np.zeros(REGISTER_SIZE, dtype=np.int64), scratch)


@compiled
def copy_state(tiles, source, target):
    """Copy the table, the pile and the registers of ``source`` into ``target``."""
    table, pile, registers, _ = source
    copy, copy_pile, copy_registers, _ = target
    players = table.status[STATUS_PLAYERS]
    for player in range(players):
        copy_planet(table, player, copy, player)
    for index in range(table.status.shape[0]):
        copy.status[index] = table.status[index]
    for index in range(table.supply.shape[0]):
        copy.supply[index] = table.supply[index]
    for index in range(table.tile_drawn.shape[0]):
        copy.tile_drawn[index] = table.tile_drawn[index]
    for index in range(pile.shape[0]):
        copy_pile[index] = pile[index]
    for index in range(registers.shape[0]):
        copy_registers[index] = registers[index]


@compiled
def determinise(tiles, state, observer, rng):
    """Deal the tiles not revealed yet (the rest of the pile and the removed tiles, which
    nobody can tell apart) in a random order: the first become the coming draws."""
    table, pile, registers, scratch = state
    unseen = 0
    for tile in range(table.tile_drawn.shape[0]):
        if not table.tile_drawn[tile]:
            scratch.unseen[unseen] = tile
            unseen += 1
    shuffle_in_place(rng, scratch.unseen[:unseen])
    first = registers[REGISTER_TURN] + 1
    for index in range(pile.shape[0] - first):
        pile[first + index] = scratch.unseen[index]


@compiled
def is_over(tiles, state):
    """Every tile of the pile revealed and played."""
    return state[2][REGISTER_PHASE] == PHASE_OVER


@compiled
def to_move(tiles, state):
    """The seat placing, or the seat whose tree pick it is."""
    table, _, registers, _ = state
    if registers[REGISTER_PHASE] == PHASE_TREES:
        return tree_phase_seat(table, registers[REGISTER_POSITION])
    return registers[REGISTER_POSITION]


@compiled
def decision_capacity(tiles, state):
    """Placements: at most 16 per tile on the planet (the loop's move buffers)."""
    return 16 * state[0].placed_cells.shape[1]


@compiled
def legal_decisions(tiles, state, out):
    """The codes of the legal placements of the revealed tile or of the legal trees."""
    table, pile, registers, scratch = state
    if registers[REGISTER_PHASE] == PHASE_TREES:
        player = tree_phase_seat(table, registers[REGISTER_POSITION])
        count = legal_tree_choices(table, player, scratch.choice_colours, scratch.choice_zones)
        base = 4 * table.cell_tile.shape[1]
        for index in range(count):
            out[index] = base + 4 * np.int64(scratch.choice_zones[index]) + \
                scratch.choice_colours[index]
        return count
    count = legal_placements(tiles, table, registers[REGISTER_POSITION],
                             pile[registers[REGISTER_TURN]], scratch.move_cells,
                             scratch.move_rotations)
    for index in range(count):
        out[index] = 4 * np.int64(scratch.move_cells[index]) + scratch.move_rotations[index]
    return count


@compiled
def _next_turn(table, pile, registers):
    """End the turn; reveal the next tile, or end the game after the last."""
    turn = registers[REGISTER_TURN] + 1
    table.status[STATUS_TURN] = turn
    if turn >= pile.shape[0]:
        registers[REGISTER_PHASE] = PHASE_OVER
        return
    registers[REGISTER_TURN] = turn
    table.tile_drawn[pile[turn]] = True
    registers[REGISTER_PHASE] = PHASE_PLACEMENT
    registers[REGISTER_POSITION] = -1


@compiled
def _advance(tiles, state):
    """From the decision just made to the next one: the next seat with a legal placement
    (the others discard), the tree phase on a light tile (seats with no legal tree skipped,
    then the token passes), the next turn; or the end."""
    table, pile, registers, scratch = state
    players = table.status[STATUS_PLAYERS]
    while registers[REGISTER_PHASE] != PHASE_OVER:
        turn = registers[REGISTER_TURN]
        if registers[REGISTER_PHASE] == PHASE_PLACEMENT:
            tile = pile[turn]
            for player in range(registers[REGISTER_POSITION] + 1, players):
                if legal_placements(tiles, table, player, tile, scratch.move_cells,
                                    scratch.move_rotations) > 0:
                    registers[REGISTER_POSITION] = player
                    return
                table.discards[player] += 1
            if tiles.light[tile]:
                table.status[STATUS_LIGHT_DRAWN] += 1
                registers[REGISTER_PHASE] = PHASE_TREES
                registers[REGISTER_POSITION] = -1
            else:
                _next_turn(table, pile, registers)
        else:
            for position in range(registers[REGISTER_POSITION] + 1, players):
                player = tree_phase_seat(table, position)
                if legal_tree_choices(table, player, scratch.choice_colours,
                                      scratch.choice_zones) > 0:
                    registers[REGISTER_POSITION] = position
                    return
            pass_construction_token(table)
            _next_turn(table, pile, registers)


@compiled
def apply_decision(tiles, state, code):
    """Place the revealed tile or take the tree ``code`` names (rules.place_tile,
    rules.apply_tree), then run on to the next decision."""
    table, pile, registers, _ = state
    if registers[REGISTER_PHASE] == PHASE_TREES:
        player = tree_phase_seat(table, registers[REGISTER_POSITION])
        rest = code - 4 * table.cell_tile.shape[1]
        apply_tree(table, player, rest % 4, rest // 4)
    else:
        place_tile(tiles, table, registers[REGISTER_POSITION], pile[registers[REGISTER_TURN]],
                   code // 4, code % 4)
    _advance(tiles, state)


@compiled
def final_results(tiles, state, scores, wins):
    """Planet scores, and the win shared among the seats tied on top (``results.rank_scores``,
    as the game's results record it)."""
    table, _, _, scratch = state
    for player in range(table.status[STATUS_PLAYERS]):
        scores[player] = planet_score(table, player)
    rank_scores(scores, scratch.ranks, wins)


def public_arrays(state, observer):
    """What the table shows (status, supply, tiles drawn, discards; each planet's tiles,
    frontier with its needs, trees and zone summary), the pile up to the current turn and the
    registers. Entries past a count and the needs of cells no longer on the frontier are left
    over from earlier moves and mean nothing, so they are not compared."""
    from sim.games.legendary_forests.rules import planet_zone_counts

    table, pile, registers, _ = state
    shown = [table.status, table.supply, table.tile_drawn, table.discards,
             pile[:int(registers[REGISTER_TURN]) + 1], registers]
    counts = np.zeros(4, dtype=np.int64)
    for player in range(int(table.status[STATUS_PLAYERS])):
        frontier = np.sort(table.frontier_cells[player, :table.frontier_count[player]])
        trees = int(table.tree_count[player])
        planet_zone_counts(table, player, counts)
        shown += [table.cell_tile[player], table.cell_rotation[player],
                  table.cell_side_colour[player], frontier,
                  table.cell_need_mask[player, frontier],
                  table.cell_need_colours[player, frontier], table.tree_cell[player, :trees],
                  table.tree_side[player, :trees], table.tree_colour[player, :trees],
                  np.array([planet_score(table, player)]), counts.copy()]
    return shown


def hidden_items(context, state, observer):
    """The coming draws followed by the tiles removed unseen (the unseen tiles not drawn)."""
    table, pile, registers, _ = state
    coming = pile[int(registers[REGISTER_TURN]) + 1:]
    unseen = np.flatnonzero(~table.tile_drawn)
    removed = np.setdiff1d(unseen, coming)
    return np.concatenate([coming.astype(np.int64), removed.astype(np.int64)])


def new_game(data, players, rules, seed):
    """A game of tile set ``data`` dealt from ``seed`` (the loop's deal), at its first
    decision."""
    from sim.games.legendary_forests.rules import (
        deal,
        new_deal_rng,
        new_table,
        reset_table,
        tile_arrays,
    )

    tiles = tile_arrays(data)
    removed = rules["removed_tiles"]
    table = new_table(data.size, players, removed)
    reset_table(tiles, table, rules["trees_per_colour_per_player"])
    state = new_search_state(table)
    pile = state[1]
    removed_tiles = np.zeros(max(removed, 1), dtype=np.int16)
    deal(new_deal_rng(seed), data.size, removed, pile, removed_tiles)
    registers = state[2]
    registers[REGISTER_TURN] = -1
    registers[REGISTER_PHASE] = PHASE_PLACEMENT
    _next_turn(state[0], pile, registers)
    _advance(tiles, state)
    return tiles, state


def reference_scores(data, players, rules, context, state):
    """Every planet scored from scratch from its planet file form (``position.score_planet``),
    checked first by the planet validator (``position.validate_planet``)."""
    from sim.games.legendary_forests.convert import planet_of
    from sim.games.legendary_forests.position import score_planet, validate_planet

    table = state[0]
    scores = []
    for player in range(int(table.status[STATUS_PLAYERS])):
        planet = planet_of(data, table, player)
        validate_planet(planet, data, f"seat {player}")
        scores.append(score_planet(planet, data).total)
    return scores


DECISIONS = decision_functions("legendary-forests", globals(), SCORE_SCALE)
SEARCH = specialise(DECISIONS)


@compiled(refcounts=True)
def _search(tiles, root, seat, rng, params):
    """The decision code the search picks for ``seat`` at ``root``; ``params`` = (playouts,
    exploration)."""
    scratch_state = new_search_state(root[0])
    return SEARCH(tiles, root, scratch_state, np.int64(seat), rng, np.int64(params[0]),
                  params[1], np.int64(root[0].status[STATUS_PLAYERS]))


@compiled(refcounts=True, c_callable=True)
def search_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                     move_count, rng, scratch, preview):
    """``search``: the index of the placement the tree search picks among the loop's
    ``move_count`` legal placements (the table's placement signature)."""
    if move_count == 1:
        return 0
    root = new_search_state(table)
    turn = table.status[STATUS_TURN]
    root[1][turn] = tile
    root[2][REGISTER_TURN] = turn
    root[2][REGISTER_PHASE] = PHASE_PLACEMENT
    root[2][REGISTER_POSITION] = player
    code = _search(tiles, root, player, rng, params)
    for index in range(move_count):
        if 4 * np.int64(move_cells[index]) + move_rotations[index] == code:
            return index
    return 0


@compiled(refcounts=True, c_callable=True)
def search_tree(params, tiles, table, player, choice_colours, choice_zones, choice_count, rng):
    """``search``: the index of the tree the tree search picks among the loop's
    ``choice_count`` legal (colour, zone) choices (the table's tree signature)."""
    if choice_count == 1:
        return 0
    root = new_search_state(table)
    players = table.status[STATUS_PLAYERS]
    root[2][REGISTER_TURN] = table.status[STATUS_TURN]
    root[2][REGISTER_PHASE] = PHASE_TREES
    root[2][REGISTER_POSITION] = (player - table.status[STATUS_TOKEN_HOLDER]) % players
    code = _search(tiles, root, player, rng, params)
    base = 4 * table.cell_tile.shape[1]
    for index in range(choice_count):
        if base + 4 * np.int64(choice_zones[index]) + choice_colours[index] == code:
            return index
    return 0
