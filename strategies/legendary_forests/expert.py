"""The strong, fast Legendary Forests strategy ``expert``.

It values a planet by the expected final points of its zones, like ``planner``, but it knows
where each zone is open and how many trees it can still expect.

Open cells. Every open half-rune faces an empty cell of the planet, and that cell can only be
filled by an unseen tile that fits every side touching it (the colours the cell's neighbours
show). For every such cell it counts the unseen tiles (the draw pile and the removed tiles
together: public) that fit, and among them the ones that *seal* it (a rotation that fits and
shows grass on every side facing an empty cell, so it opens no new half-rune); each count turns
into the chance that at least one such tile is drawn in the turns left (hypergeometric: the tiles
left to draw are a uniform sample of the unseen ones). That is the shallow expectation over the
public unseen tiles: a zone's expected new runes are ``fill`` x the sum of the fill chances of
its open half-runes, and its chance to close is the product over the cells it faces of (seal
chance + ``unsealed`` x the chance of a fill that opens new half-runes). A half-rune facing a
cell no unseen tile fits is dead: its zone can never close and is valued so.

Trees. A zone without a tree is worth nothing unless one of its owner's picks still to come goes
to it, and picks are few: the zones without a tree are ranked by their expected points (times
the chance their colour is still in the supply for a pick) and the r-th best counts with the
chance that at least r own picks are still to come (the light tiles among the draws left,
hypergeometric over the unseen tiles) times ``hope``; the pick that follows a light tile's
placement is sure and counts ``now``. A tree pick is worth what it adds to its zone plus what the
other zones without a tree are then worth with the picks left, plus ``denial`` x the opponents'
expected need of the colour before its next pick (token order).

Bordered cells. A placement's sides that face empty cells of the frontier change which unseen
tiles can fill those cells: every zone already facing such a cell gets the cell's new fill
chance and closing factor (a grass side counts too: it can leave no unseen tile that fits, and
the half-runes facing the cell are then dead).

Shape. Two terms fitted to what ``rollout``'s playouts reward (catalogue, ``ExpertStrategy``):
each empty cell a placement adds to the planet's edge costs ``compact`` x the share of the game
left (a sprawling planet ends lower than its zones' chances say), and the r-th best zone without
a tree counts ``decay`` ^ r on top of its pick chance (the first picks go to the best zones;
the later ones are less sure than their count says).

Speed. A decision's work arrays are views of one buffer (``ExpertWork``): a placement's are the
loop's scratch array (``scratch_slots``), so it allocates nothing and runs without reference
counting; a tree choice allocates its buffer. The fill chances come from a table made once per
process by the same compiled code (``FILL_CHANCES``); a frontier cell touching one tile takes
the chances of a fresh cell needing that colour (the same tiles fit it); the unseen tiles that
fit a cell are counted from bit sets of the unseen tiles per listed side and colour
(``_fit_bits``); the log-factorials come from a table
made once per process by the same compiled ``lgamma`` (``LOG_FACTORIALS``); the fill chances, logs
of the closing factors and points of the zones as they are now are each computed once per decision
and looked up by every move; the ranked hope stops at the last rank with a weight; a tree choice
skips the cells only zones with a tree face; the per-decision helpers are pasted into their callers
(a call would pass the table's arrays one by one). Every floating-point sum is taken in the order
of the plain computation, so the games are exactly those of the code before
(``tests/legendary_forests/test_expert_identity.py``).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from sim.games.legendary_forests.rules import (
    EMPTY,
    GRASS,
    LEAF_COLOURS,
    STATUS_PLAYERS,
    find_zone,
    neighbour_cell,
    shown_side,
)
from sim.jit import compiled
from strategies.legendary_forests.evaluation import (
    CONTEXT_GAME_LEFT,
    CONTEXT_PLAYERS,
    CONTEXT_SIZE,
    CONTEXT_SUPPLY,
    CONTEXT_TURNS_LEFT,
    game_context,
    pick_best,
    pick_near_best,
)
from strategies.legendary_forests.planner import opponent_colour_demand

# Slots of the parameter row (the order of ``ExpertStrategy.parameters`` in the catalogue).
P_FILL = 0
P_UNSEALED = 1
P_NOW = 2
P_HOPE = 3
P_DENIAL = 4
P_COMPACT = 5
P_DECAY = 6
P_SPREAD = 7

# Own picks still to come that the ranking of zones without a tree looks at.
RANKED_PICKS = 12

# Rows of a placement's item table (``_placement_value``): the tile's areas (4 at most), the
# zones it joins (4) and the zones facing its empty neighbours (3 cells x 3 other sides).
ITEM_ROWS = 20
# Columns of an item row.
ITEM_COLOUR = 0
ITEM_FULL_RUNES = 1
ITEM_OPEN_HALF_RUNES = 2
ITEM_TREES = 3
ITEM_FILL_SUM = 4  # sum of the fill chances of its open half-runes' cells
ITEM_CLOSE_LOG = 5  # sum of the logs of the closing factors of those cells
ITEM_ROOT = 6  # zone root node (-1 for an area of the new tile)
ITEM_JOINED = 7  # 1 once the new tile joins the zone (its cell's closing factor is then spent)
ITEM_COLUMNS = 8
# Columns of a group (the items a placement merges into one zone).
GROUP_FULL_RUNES = 0
GROUP_OPEN_HALF_RUNES = 1
GROUP_TREES = 2
GROUP_FILL_SUM = 3
GROUP_CLOSE_LOG = 4
GROUP_COLUMNS = 5

# Unseen tiles a word of bits holds: with more, fitting tiles are counted tile by tile.
BIT_TILES = 64
# The bit sets of ``_fit_bits``: listed side x colour.
FIT_BIT_SETS = 16
# Below every chance and every log-factorial: not computed yet.
NOT_YET = -1.0

# Counts whose log-factorial ``LOG_FACTORIALS`` holds (every tile set so far has fewer tiles).
LOG_FACTORIAL_TABLE = 256

# Leading int32 slots of the loop's scratch array that the other strategies use (a preview's
# zone groups); ``expert_placement`` works past them (``scratch_slots``).
SCRATCH_SHARED = 64


@compiled(refcounts=True)
def _log_factorial_table(size):
    """``lgamma(n + 1)`` for n below ``size``, by compiled code: numba's ``lgamma`` and
    Python's differ in the last bit for some n, and the decisions take compiled code's."""
    table = np.empty(size, dtype=np.float64)
    for n in range(size):
        table[n] = math.lgamma(n + 1)
    return table


# Read by compiled code as a constant: the same numbers a decision computed before, without an
# ``lgamma`` call (about 20 ns each, a few dozen a decision early in the game).
LOG_FACTORIALS = _log_factorial_table(LOG_FACTORIAL_TABLE)

# What every option of a decision shares besides its work arrays (``_decision``): unseen tiles,
# draws left, zones without a tree (``work.roots[:count_without]``) and the ranks with a weight
# (``_weighted_ranks``).
Decision = namedtuple("Decision", ["unseen_count", "turns_left", "count_without", "ranks"])

# Work arrays of one decision, views of three buffers (``_new_buffers``, ``_work``) passed as one
# argument.
ExpertWork = namedtuple("ExpertWork", [
    "context", "unseen", "fit_bits", "chances", "log_factorials", "root_sum", "root_log",
    "root_points", "cell_fill", "cell_close", "cell_log", "cell_roots", "cell_root_count",
    "single_fill", "single_close", "single_log", "weights", "roots", "values", "index_of",
    "memo", "memo_ready", "items", "parent", "group", "group_colour", "fresh", "skip", "demand",
    "moves"])


@compiled(always_inline=True)
def _work_sizes_of(tile_count, nodes, frontier, options):
    """(floats, integers) the views of ``_work`` take for a tile set of ``tile_count`` tiles
    and a table of ``nodes`` zone nodes and ``frontier`` frontier slots per planet;
    ``options``: the moves or tree choices to value."""
    floats = (CONTEXT_SIZE + (tile_count + 1) + (tile_count + 2) + 4 * nodes + 1 + 3 * frontier
              + 3 * 4 + RANKED_PICKS + frontier * 32 + ITEM_ROWS * ITEM_COLUMNS
              + ITEM_ROWS * GROUP_COLUMNS + ITEM_ROWS + LEAF_COLOURS + options)
    integers = tile_count + frontier * 10 + 2 * (nodes + 1) + 3 * ITEM_ROWS
    return floats, integers


@compiled(always_inline=True)
def _work_sizes(tiles, table, options):
    """``_work_sizes_of`` the tile set ``tiles`` and the table ``table``."""
    return _work_sizes_of(tiles.light.shape[0], table.node_parent.shape[1],
                          table.frontier_cells.shape[1], options)


def scratch_slots(tile_count: int, nodes: int, frontier: int, options: int) -> int:
    """int32 slots a scratch array needs for ``expert_placement`` to work in it (its first
    ``SCRATCH_SHARED`` slots, then the buffers of ``_work``; arguments as ``_work_sizes_of``,
    ``options`` the most moves a decision can have)."""
    floats, integers = _work_sizes_of.py_func(tile_count, nodes, frontier, options)
    return SCRATCH_SHARED + 2 * (floats + integers + FIT_BIT_SETS)


@compiled(always_inline=True)
def fits_scratch(tiles, table, options, scratch):
    """Whether the int32 array ``scratch`` can hold the work of a decision with ``options``
    moves (``scratch_slots``)."""
    floats, integers = _work_sizes(tiles, table, options)
    return scratch.shape[0] >= SCRATCH_SHARED + 2 * (floats + integers + FIT_BIT_SETS)


@compiled(always_inline=True)
def _scratch_buffers(tiles, table, options, scratch):
    """The three buffers of ``_new_buffers`` as views of the int32 array ``scratch`` past its
    first ``SCRATCH_SHARED`` slots (which must hold them: ``fits_scratch``). Nothing is
    allocated and nothing counted: code compiled without reference counting may call it."""
    floats, integers = _work_sizes(tiles, table, options)
    # Two int32 slots per 8-byte element; the scratch is numpy's allocation (16-byte aligned)
    # and the shared slots keep 8-byte alignment.
    whole = scratch[SCRATCH_SHARED:SCRATCH_SHARED + 2 * (floats + integers + FIT_BIT_SETS)]
    whole = whole.view(np.float64)
    return (whole[:floats], whole[floats:floats + integers].view(np.int64),
            whole[floats + integers:].view(np.uint64))


@compiled(refcounts=True)
def _buffers_of(floats, integers):
    """The three buffers of a decision's work arrays (``_work``) for ``floats`` and
    ``integers`` slots (``_work_sizes``): float64, int64 and uint64 views of one allocation (one
    instead of one per array). It takes the sizes, not the tables: a call passes a tuple
    argument field by field."""
    # Every element is 8 bytes: the int64 and uint64 views reinterpret float64 slots.
    buffer = np.empty(floats + integers + FIT_BIT_SETS, dtype=np.float64)
    return (buffer[:floats], buffer[floats:floats + integers].view(np.int64),
            buffer[floats + integers:].view(np.uint64))


@compiled(refcounts=True, always_inline=True)
def _new_buffers(tiles, table, options):
    """``_buffers_of`` the sizes of ``_work_sizes``."""
    floats, integers = _work_sizes(tiles, table, options)
    return _buffers_of(floats, integers)


@compiled(always_inline=True)
def _work(tiles, table, options, floats, ints, bits):
    """The work arrays of one decision (``ExpertWork``) as views of the buffers of
    ``_new_buffers``. Only code compiled without reference counting may call it: the views
    are not counted (the caller that allocated the buffers keeps them alive)."""
    tile_count = tiles.light.shape[0]
    nodes = table.node_parent.shape[1]
    frontier = table.frontier_cells.shape[1]
    at = 0
    context = floats[at:at + CONTEXT_SIZE]
    at += CONTEXT_SIZE
    chances = floats[at:at + tile_count + 1]
    at += tile_count + 1
    log_factorials = floats[at:at + tile_count + 2]
    at += tile_count + 2
    root_sum = floats[at:at + nodes]
    at += nodes
    root_log = floats[at:at + nodes]
    at += nodes
    root_points = floats[at:at + nodes]
    at += nodes
    values = floats[at:at + nodes + 1]
    at += nodes + 1
    cell_fill = floats[at:at + frontier]
    at += frontier
    cell_close = floats[at:at + frontier]
    at += frontier
    cell_log = floats[at:at + frontier]
    at += frontier
    single_fill = floats[at:at + 4]
    at += 4
    single_close = floats[at:at + 4]
    at += 4
    single_log = floats[at:at + 4]
    at += 4
    weights = floats[at:at + RANKED_PICKS]
    at += RANKED_PICKS
    memo = floats[at:at + frontier * 32].reshape((frontier * 16, 2))
    at += frontier * 32
    items = floats[at:at + ITEM_ROWS * ITEM_COLUMNS].reshape((ITEM_ROWS, ITEM_COLUMNS))
    at += ITEM_ROWS * ITEM_COLUMNS
    group = floats[at:at + ITEM_ROWS * GROUP_COLUMNS].reshape((ITEM_ROWS, GROUP_COLUMNS))
    at += ITEM_ROWS * GROUP_COLUMNS
    fresh = floats[at:at + ITEM_ROWS]
    at += ITEM_ROWS
    demand = floats[at:at + LEAF_COLOURS]
    at += LEAF_COLOURS
    moves = floats[at:at + options]
    at = 0
    unseen = ints[at:at + tile_count]
    at += tile_count
    cell_roots = ints[at:at + frontier * 8].reshape((frontier, 4, 2))
    at += frontier * 8
    cell_root_count = ints[at:at + frontier]
    at += frontier
    memo_ready = ints[at:at + frontier]
    at += frontier
    roots = ints[at:at + nodes + 1]
    at += nodes + 1
    index_of = ints[at:at + nodes + 1]
    at += nodes + 1
    parent = ints[at:at + ITEM_ROWS]
    at += ITEM_ROWS
    group_colour = ints[at:at + ITEM_ROWS]
    at += ITEM_ROWS
    skip = ints[at:at + ITEM_ROWS]
    return ExpertWork(context, unseen, bits, chances, log_factorials, root_sum, root_log,
                      root_points, cell_fill, cell_close, cell_log, cell_roots,
                      cell_root_count, single_fill, single_close, single_log, weights, roots,
                      values, index_of, memo, memo_ready, items, parent, group, group_colour,
                      fresh, skip, demand, moves)


@compiled(always_inline=True)
def _unseen(tiles, table, out):
    """The tiles not drawn yet (the pile and the removed tiles: nobody can tell them apart)
    into ``out``; returns (how many, how many of them are light)."""
    count = 0
    light = 0
    for tile in range(table.tile_drawn.shape[0]):
        if not table.tile_drawn[tile]:
            out[count] = tile
            count += 1
            if tiles.light[tile]:
                light += 1
    return count, light


@compiled
def fitting_tiles(tiles, unseen, unseen_count, mask, colours):
    """Unseen tiles that fit a cell whose touching sides need ``colours`` under ``mask`` (2-bit
    slots N, E, S, W), and how many of them can also seal it: a fitting rotation that shows
    grass on every side facing no tile. Returns (fitting, sealing)."""
    fitting = 0
    sealing = 0
    free = np.uint8(~mask)
    for k in range(unseen_count):
        tile = unseen[k]
        fits = False
        seals = False
        for rotation in range(4):
            pattern = tiles.rotation_pattern[tile, rotation]
            if (pattern & mask) == colours:
                fits = True
                # Grass is colour 0: a side facing no tile opens nothing when its slot is 0.
                if (pattern & free) == 0:
                    seals = True
        if fits:
            fitting += 1
        if seals:
            sealing += 1
    return fitting, sealing


@compiled(always_inline=True)
def _fit_bits(tiles, unseen, unseen_count, bits):
    """``bits[side x 4 + colour]``: the set of unseen tiles (bit k for ``unseen[k]``) whose
    listed side ``side`` is ``colour`` (slot ``side`` of the unturned pattern). A tile turned by
    r shows at slot s its listed side ``shown_side(s, r)``, so these 16 sets answer for every
    rotation; built once per decision, so that each cell's fitting tiles are a few word
    operations (``_fitting``) instead of a pass over the unseen tiles."""
    for index in range(FIT_BIT_SETS):
        bits[index] = np.uint64(0)
    for k in range(unseen_count):
        bit = np.uint64(1) << np.uint64(k)
        pattern = tiles.rotation_pattern[unseen[k], 0]
        for side in range(4):
            colour = int((pattern >> np.uint8(2 * side)) & np.uint8(3))
            bits[side * 4 + colour] |= bit


@compiled(always_inline=True)
def _bit_count(word):
    """Set bits of a uint64 (the classic parallel sum; the byte sums by shifts rather than a
    wrapping multiply, so that plain Python, ``NUMBA_DISABLE_JIT=1``, never overflows)."""
    word = word - ((word >> np.uint64(1)) & np.uint64(0x5555555555555555))
    word = ((word & np.uint64(0x3333333333333333))
            + ((word >> np.uint64(2)) & np.uint64(0x3333333333333333)))
    word = (word + (word >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    word = word + (word >> np.uint64(8))
    word = word + (word >> np.uint64(16))
    word = word + (word >> np.uint64(32))
    return np.int64(word & np.uint64(0x7F))


@compiled(always_inline=True)
def _fitting(tiles, work, unseen_count, mask, colours):
    """``fitting_tiles`` of the unseen tiles of the decision: from the bit sets of
    ``_fit_bits`` while the unseen tiles fit in a word, else tile by tile (the same counts).
    Returns (fitting, sealing)."""
    if unseen_count > BIT_TILES:
        return fitting_tiles(tiles, work.unseen, unseen_count, mask, colours)
    if (colours & ~mask) != 0:
        return 0, 0  # a colour where nothing is needed: no rotation matches
    bits = work.fit_bits
    everyone = np.uint64(0xFFFFFFFFFFFFFFFF)
    if unseen_count < BIT_TILES:
        everyone = (np.uint64(1) << np.uint64(unseen_count)) - np.uint64(1)
    fits = np.uint64(0)
    seals = np.uint64(0)
    for rotation in range(4):
        matching = everyone
        grass_free = everyone
        for slot in range(4):
            base = shown_side(slot, rotation) * 4
            if (mask >> np.uint8(2 * slot)) & np.uint8(3):
                matching &= bits[base + int((colours >> np.uint8(2 * slot)) & np.uint8(3))]
            else:
                grass_free &= bits[base + GRASS]
        fits |= matching
        seals |= matching & grass_free
    return _bit_count(fits), _bit_count(seals)


@compiled(always_inline=True)
def _fill_chance(chances, fitting, unseen_count, turns_left):
    """``chances[fitting]`` of ``fill_chances``, computed the first time it is asked for (a
    decision needs a few of them)."""
    if chances[fitting] == NOT_YET:
        none = 1.0
        for i in range(turns_left):
            left = unseen_count - i
            if left <= 0:
                break
            none *= max(0.0, (unseen_count - fitting - i) / left)
        chances[fitting] = 1.0 - none
    return chances[fitting]


@compiled
def fill_chances(unseen_count, turns_left, out):
    """``out[f]``: the chance that at least one of ``f`` given tiles among the unseen ones is
    drawn in the ``turns_left`` draws left (a uniform sample of the unseen tiles)."""
    for fitting in range(unseen_count + 1):
        out[fitting] = NOT_YET
        _fill_chance(out, fitting, unseen_count, turns_left)


@compiled(refcounts=True)
def _fill_chance_table(unseen_limit):
    """``fill_chances(unseen, draws)`` for every count of unseen tiles and draws up to
    ``unseen_limit``: row ``[unseen, draws]`` (entries past ``unseen`` are ``NOT_YET``)."""
    table = np.full((unseen_limit + 1, unseen_limit + 1, unseen_limit + 1), NOT_YET)
    for unseen in range(unseen_limit + 1):
        for draws in range(unseen_limit + 1):
            fill_chances(unseen, draws, table[unseen, draws])
    return table


# Read by compiled code as a constant: every decision's fill chances (``_fill_chance``), computed
# once per process by the same compiled code, so the same numbers (a chance took a product over
# the draws left, about 100 ns early in the game, a few per decision). More draws than unseen
# tiles are as many draws as tiles (a draw beyond the last unseen tile changes nothing).
FILL_CHANCE_TILES = 32
FILL_CHANCES = _fill_chance_table(FILL_CHANCE_TILES)


@compiled(always_inline=True)
def _log_factorial(log_factorials, n):
    """``lgamma(n + 1)``: from ``LOG_FACTORIALS`` below its size, else computed the first time
    it is asked for (``log_factorials``)."""
    if n < LOG_FACTORIAL_TABLE:
        return LOG_FACTORIALS[n]
    if log_factorials[n] == NOT_YET:
        log_factorials[n] = math.lgamma(n + 1)
    return log_factorials[n]


@compiled
def _pick_chances(unseen_count, light_unseen, turns_left, sure, log_factorials, out):
    """``pick_chances`` with the log-factorials kept in ``log_factorials`` (``NOT_YET`` where
    not computed yet; every count up to ``unseen_count``)."""
    out[:] = 0.0
    draws = min(turns_left, unseen_count)
    dark_unseen = unseen_count - light_unseen
    log_all = (_log_factorial(log_factorials, unseen_count)
               - _log_factorial(log_factorials, draws)
               - _log_factorial(log_factorials, unseen_count - draws))
    for light in range(min(draws, light_unseen) + 1):
        dark = draws - light
        if dark > dark_unseen:
            continue
        log_ways = (_log_factorial(log_factorials, light_unseen)
                    - _log_factorial(log_factorials, light)
                    - _log_factorial(log_factorials, light_unseen - light)
                    + _log_factorial(log_factorials, dark_unseen)
                    - _log_factorial(log_factorials, dark)
                    - _log_factorial(log_factorials, dark_unseen - dark))
        chance = math.exp(log_ways - log_all)
        # This many picks or more: every rank up to it gains the chance.
        for rank in range(min(light + sure, out.shape[0])):
            out[rank] += chance


@compiled(refcounts=True)
def pick_chances(unseen_count, light_unseen, turns_left, sure, out):
    """``out[r]``: the chance of at least r + 1 own tree picks still to come: ``sure`` picks
    (1 when a tree phase follows this placement) plus one per light tile among the
    ``turns_left`` draws left, a hypergeometric count (``light_unseen`` of the ``unseen_count``
    unseen tiles are light)."""
    log_factorials = np.full(unseen_count + 1, NOT_YET)
    _pick_chances(unseen_count, light_unseen, turns_left, sure, log_factorials, out)


@compiled(always_inline=True)
def _close_factor(fill, seal, params):
    """A cell's share of its zone's closing chance: a sealing tile drawn closes it whole (chance
    ``seal``); a tile that fits but opens new half-runes counts ``unsealed``."""
    return seal + params[P_UNSEALED] * (fill - seal)


@compiled(always_inline=True)
def _one_side(mask):
    """Whether the 2-bit slots ``mask`` (N, E, S, W) hold exactly one side."""
    return mask == np.uint8(3) or mask == np.uint8(12) or mask == np.uint8(48) or \
        mask == np.uint8(192)


@compiled(always_inline=True)
def _one_side_colour(colours):
    """The colour of the one side set in the 2-bit slots ``colours`` (the others are 0)."""
    return int((colours | (colours >> np.uint8(2)) | (colours >> np.uint8(4))
                | (colours >> np.uint8(6))) & np.uint8(3))


@compiled(always_inline=True)
def _prepare_decision(tiles, table, player, work, turns_left, params, placing):
    """Per decision: the fill chance and closing factor of every frontier cell (``cell_fill``,
    ``cell_close`` by frontier index), and per zone root the sum of the fill chances and the
    log-product of the closing factors of the cells its open half-runes face (``root_sum``,
    ``root_log``); ``cell_roots[i, :cell_root_count[i]]``: the (root, half-runes) pairs that
    face frontier cell i; ``single_*[c]``: a fresh cell that needs colour c on one side (only
    when ``placing``: a tree choice borders no cell, and reads only the zones without a tree,
    so it skips the cells only zones with a tree face). Returns (unseen count, light unseen
    count)."""
    unseen_count, light_unseen = _unseen(tiles, table, work.unseen)
    if unseen_count <= BIT_TILES:
        _fit_bits(tiles, work.unseen, unseen_count, work.fit_bits)
    chances = work.chances
    if unseen_count <= FILL_CHANCE_TILES:
        known = FILL_CHANCES[unseen_count, max(0, min(turns_left, unseen_count))]
        for fitting in range(unseen_count + 1):
            chances[fitting] = known[fitting]
    else:
        for fitting in range(unseen_count + 1):
            chances[fitting] = NOT_YET
    for n in range(LOG_FACTORIAL_TABLE, unseen_count + 1):
        work.log_factorials[n] = NOT_YET
    for colour in range(4 if placing else 0):
        fitting, sealing = _fitting(tiles, work, unseen_count, np.uint8(3), np.uint8(colour))
        fill = _fill_chance(chances, fitting, unseen_count, turns_left)
        work.single_fill[colour] = fill
        work.single_close[colour] = _close_factor(
            fill, _fill_chance(chances, sealing, unseen_count, turns_left), params)
        work.single_log[colour] = math.log(max(work.single_close[colour], 1e-3))
    root_sum = work.root_sum
    root_log = work.root_log
    for node in range(table.node_count[player]):
        root_sum[node] = 0.0
        root_log[node] = 0.0
        work.root_points[node] = NOT_YET
    cell_roots = work.cell_roots
    cell_root_count = work.cell_root_count
    for index in range(table.frontier_count[player]):
        cell = table.frontier_cells[player, index]
        colours = table.cell_need_colours[player, cell]
        cell_root_count[index] = 0
        if colours == 0:
            work.cell_fill[index] = 1.0
            work.cell_close[index] = 1.0
            work.cell_log[index] = math.log(1.0)
            continue
        # The zones facing the cell, each with the half-runes it has there.
        needed = placing
        for direction in range(4):
            other = neighbour_cell(table, cell, direction)
            if table.cell_tile[player, other] == EMPTY:
                continue
            back = (direction + 2) & 3
            if table.cell_side_colour[player, other, back] == GRASS:
                continue
            root = find_zone(table, player, table.cell_side_node[player, other, back])
            listed = -1
            for k in range(cell_root_count[index]):
                if cell_roots[index, k, 0] == root:
                    listed = k
            if listed < 0:
                listed = cell_root_count[index]
                cell_roots[index, listed, 0] = root
                cell_roots[index, listed, 1] = 0
                cell_root_count[index] += 1
            cell_roots[index, listed, 1] += 1
            if table.zone_trees[player, root] == 0:
                needed = True
        if not needed:
            continue  # a tree choice reads the sums of the zones without a tree only
        mask = table.cell_need_mask[player, cell]
        if placing and _one_side(mask):
            # One side touches a tile: a rotation turns any listed side to it, so the tiles that
            # fit and seal are those of a fresh cell needing that colour (the same counts, so
            # the same numbers), ``single_*``.
            colour = _one_side_colour(colours)
            chance = work.single_fill[colour]
            close = work.single_close[colour]
            log_close = work.single_log[colour]
        else:
            fitting, sealing = _fitting(tiles, work, unseen_count, mask, colours)
            chance = _fill_chance(chances, fitting, unseen_count, turns_left)
            close = _close_factor(chance,
                                  _fill_chance(chances, sealing, unseen_count, turns_left),
                                  params)
            log_close = math.log(max(close, 1e-3))
        work.cell_fill[index] = chance
        work.cell_close[index] = close
        work.cell_log[index] = log_close
        for k in range(cell_root_count[index]):
            root = cell_roots[index, k, 0]
            # Each half-rune facing the cell adds its fill chance (a zone's sum takes them in
            # the order of the cells, as one pass over the sides would); one tile fills the
            # cell, so the zone's closing needs it once however many half-runes face it.
            for _ in range(cell_roots[index, k, 1]):
                root_sum[root] += chance
            root_log[root] += log_close
    return unseen_count, light_unseen


@compiled
def _prepare_into(tiles, table, player, floats, ints, bits, unseen, chances, root_sum,
                  root_log, cell_fill, cell_close, cell_roots, cell_root_count, single_fill,
                  single_close, turns_left, params):
    """``_prepare`` on the buffers of ``_new_buffers``."""
    work = _work(tiles, table, 0, floats, ints, bits)
    unseen_count, light_unseen = _prepare_decision(tiles, table, player, work, turns_left,
                                                   params, True)
    for k in range(unseen_count):
        unseen[k] = work.unseen[k]
    fill_chances(unseen_count, turns_left, chances)
    for node in range(table.node_count[player]):
        root_sum[node] = work.root_sum[node]
        root_log[node] = work.root_log[node]
    for index in range(table.frontier_count[player]):
        cell_fill[index] = work.cell_fill[index]
        cell_close[index] = work.cell_close[index]
        cell_root_count[index] = work.cell_root_count[index]
        for k in range(4):
            cell_roots[index, k, 0] = work.cell_roots[index, k, 0]
            cell_roots[index, k, 1] = work.cell_roots[index, k, 1]
    for colour in range(4):
        single_fill[colour] = work.single_fill[colour]
        single_close[colour] = work.single_close[colour]
    return unseen_count, light_unseen


@compiled(refcounts=True)
def _prepare(tiles, table, player, unseen, chances, root_sum, root_log, cell_fill, cell_close,
             cell_roots, cell_root_count, single_fill, single_close, turns_left, params):
    """``_prepare_decision`` into separate arrays (for a from-scratch valuation outside a
    decision, as the tests make): ``unseen``, every one of ``chances`` (``fill_chances``) and
    the arrays named as the fields of ``ExpertWork``. Returns (unseen count, light unseen
    count)."""
    floats, ints, bits = _new_buffers(tiles, table, 0)
    return _prepare_into(tiles, table, player, floats, ints, bits, unseen, chances, root_sum,
                         root_log, cell_fill, cell_close, cell_roots, cell_root_count,
                         single_fill, single_close, turns_left, params)


@compiled(always_inline=True)
def _points(full_runes, open_half_runes, chance_sum, close_log, params):
    """Expected final points of a zone with a tree: a closed zone keeps 2 x its full runes; an
    open one expects ``fill`` new runes per open half-rune times the chance its cell is filled
    (``chance_sum``), and closes with the product of its cells' closing factors
    (``exp(close_log)``)."""
    if open_half_runes <= 0:
        return 2.0 * full_runes
    runes = full_runes + params[P_FILL] * chance_sum
    return runes * (1.0 + min(1.0, math.exp(close_log)))


@compiled(always_inline=True)
def _root_points(table, player, root, work, params):
    """``_points`` of zone ``root`` as it is now, computed the first time a decision asks."""
    if work.root_points[root] == NOT_YET:
        work.root_points[root] = _points(table.zone_full_runes[player, root],
                                         table.zone_open_half_runes[player, root],
                                         work.root_sum[root], work.root_log[root], params)
    return work.root_points[root]


@compiled(always_inline=True)
def _availability(colour, context):
    """How likely a tree of ``colour`` is still in the supply at one's pick: whole while the
    supply covers a round of picks, less below."""
    supply = context[CONTEXT_SUPPLY + colour - 1]
    if supply <= 0.0:
        return 0.0
    return min(1.0, supply / context[CONTEXT_PLAYERS])


@compiled(always_inline=True)
def _zones_without_tree(table, player, root_sum, root_log, context, params, roots, values):
    """The player's zones without a tree, best first: ``roots`` and ``values`` (expected points
    with a tree x the chance their colour is still there for a pick); returns how many."""
    count = 0
    for node in range(table.node_count[player]):
        if table.node_parent[player, node] != node:
            continue
        colour = table.node_colour[player, node]
        if colour == GRASS or table.zone_trees[player, node] > 0:
            continue
        value = (_points(table.zone_full_runes[player, node],
                         table.zone_open_half_runes[player, node], root_sum[node],
                         root_log[node], params) * _availability(colour, context))
        slot = count - 1
        while slot >= 0 and values[slot] < value:
            values[slot + 1] = values[slot]
            roots[slot + 1] = roots[slot]
            slot -= 1
        values[slot + 1] = value
        roots[slot + 1] = node
        count += 1
    return count


@compiled(always_inline=True)
def ranked_hope(values, count, fresh, fresh_count, skip, skip_count, weights):
    """What zones without a tree are worth with the picks to come: the r-th best of
    ``values[:count]`` (best first) without the entries ``skip[:skip_count]`` (indices into
    ``values``), merged with ``fresh[:fresh_count]`` (best first too), times ``weights[r]``."""
    return _ranked_hope(values, count, fresh, fresh_count, skip, skip_count, weights,
                        weights.shape[0])


@compiled(always_inline=True)
def _weighted_ranks(weights):
    """How many of ``weights`` count: all but the trailing zeros (no own pick can reach those
    ranks)."""
    ranks = weights.shape[0]
    while ranks > 0 and weights[ranks - 1] == 0.0:
        ranks -= 1
    return ranks


@compiled(always_inline=True)
def _ranked_hope(values, count, fresh, fresh_count, skip, skip_count, weights, ranks):
    """``ranked_hope`` over the first ``ranks`` weights (``_weighted_ranks``). The ranks left
    out weigh 0: each would add a zero to the total, which never changes it (the total is
    never -0: it starts at +0 and an exact cancellation gives +0), so the sum is the same."""
    total = 0.0
    rank = 0
    base = 0
    new = 0
    while rank < ranks:
        while base < count:
            left_out = False
            for k in range(skip_count):
                if skip[k] == base:
                    left_out = True
            if not left_out:
                break
            base += 1
        if base < count and (new >= fresh_count or values[base] >= fresh[new]):
            total += weights[rank] * values[base]
            base += 1
        elif new < fresh_count:
            total += weights[rank] * fresh[new]
            new += 1
        else:
            break
        rank += 1
    return total


@compiled(always_inline=True)
def _root_item(table, player, work, areas, count, root):
    """The row of zone ``root`` in the item table (added, as it is now, when missing); returns
    (row, rows used)."""
    items = work.items
    for k in range(areas, count):
        if items[k, ITEM_ROOT] == root:
            return k, count
    work.parent[count] = count
    items[count, ITEM_COLOUR] = table.node_colour[player, root]
    items[count, ITEM_FULL_RUNES] = table.zone_full_runes[player, root]
    items[count, ITEM_OPEN_HALF_RUNES] = table.zone_open_half_runes[player, root]
    items[count, ITEM_TREES] = table.zone_trees[player, root]
    items[count, ITEM_FILL_SUM] = work.root_sum[root]
    items[count, ITEM_CLOSE_LOG] = work.root_log[root]
    items[count, ITEM_ROOT] = root
    items[count, ITEM_JOINED] = 0.0
    return count, count + 1


@compiled(always_inline=True)
def _top(parent, item):
    """The item its group is merged into (union-find root)."""
    while parent[item] != item:
        item = parent[item]
    return item


@compiled(always_inline=True)
def _placement_value(tiles, table, player, tile, cell, rotation, work, decision, params):
    """The planet's value if ``tile`` went to ``cell`` with ``rotation``, up to a constant: the
    change of the zones with a tree it touches or whose open cells it borders, plus the ranked
    hope of every zone without a tree afterwards (``decision``: the ``Decision``)."""
    unseen_count = decision.unseen_count
    turns_left = decision.turns_left
    areas = tiles.area_count[tile]
    items = work.items
    parent = work.parent
    context = work.context
    # Items: the areas of the new tile first, then the zones it joins or borders, as they are
    # now; ``parent`` merges them into the zones the placement leaves.
    count = areas
    for area in range(areas):
        parent[area] = area
        items[area, ITEM_COLOUR] = tiles.area_colour[tile, area]
        items[area, ITEM_FULL_RUNES] = 0.0
        items[area, ITEM_OPEN_HALF_RUNES] = tiles.area_half_runes[tile, area]
        items[area, ITEM_TREES] = 0.0
        items[area, ITEM_FILL_SUM] = 0.0
        items[area, ITEM_CLOSE_LOG] = 0.0
        items[area, ITEM_ROOT] = -1.0
    position = table.frontier_position[player, cell]
    here_fill = work.cell_fill[position] if position >= 0 else 1.0
    # The logs of the closing factors are the decision's (``cell_log``, ``single_log``,
    # ``memo``): the same numbers, taken once instead of once per move.
    here_log = work.cell_log[position] if position >= 0 else math.log(1.0)
    # Empty cells the tile adds to the frontier.
    new_cells = 0
    for direction in range(4):
        listed = shown_side(direction, rotation)
        colour = tiles.side_colour[tile, listed]
        other = neighbour_cell(table, cell, direction)
        if table.cell_tile[player, other] == EMPTY:
            back = (direction + 2) & 3
            slot = 2 * back
            other_position = table.frontier_position[player, other]
            if other_position < 0:
                new_cells += 1
                if colour == GRASS:
                    continue
                fill = work.single_fill[colour]
                close_log = work.single_log[colour]
            else:
                # The tiles that can fill ``other`` once this side (grass too) borders it; the
                # cell's bit ``side x 4 + colour`` of ``memo_ready`` says its memo row is set.
                side_colour = back * 4 + colour
                key = other_position * 16 + side_colour
                ready = work.memo_ready[other_position]
                if (ready >> side_colour) & 1:
                    fill = work.memo[key, 0]
                    close_log = work.memo[key, 1]
                else:
                    mask = table.cell_need_mask[player, other] | np.uint8(3 << slot)
                    need = table.cell_need_colours[player, other] | np.uint8(colour << slot)
                    fitting, sealing = _fitting(tiles, work, unseen_count, mask, need)
                    fill = _fill_chance(work.chances, fitting, unseen_count, turns_left)
                    close = _close_factor(
                        fill, _fill_chance(work.chances, sealing, unseen_count, turns_left),
                        params)
                    close_log = math.log(max(close, 1e-3))
                    work.memo[key, 0] = fill
                    work.memo[key, 1] = close_log
                    work.memo_ready[other_position] = ready | (1 << side_colour)
                # The zones already facing ``other`` see its chances change: a side that no
                # unseen tile can match next to theirs kills their half-runes there.
                change_fill = fill - work.cell_fill[other_position]
                change_log = close_log - work.cell_log[other_position]
                for k in range(work.cell_root_count[other_position]):
                    found, count = _root_item(table, player, work, areas, count,
                                              work.cell_roots[other_position, k, 0])
                    items[found, ITEM_FILL_SUM] += (work.cell_roots[other_position, k, 1]
                                                    * change_fill)
                    items[found, ITEM_CLOSE_LOG] += change_log
            if colour == GRASS:
                continue
            # A new open half-rune, facing ``other``: its chances once this tile is there.
            area = tiles.side_area[tile, listed]
            items[area, ITEM_FILL_SUM] += fill
            items[area, ITEM_CLOSE_LOG] += close_log
            continue
        if colour == GRASS:
            continue
        area = tiles.side_area[tile, listed]
        root = find_zone(table, player, table.cell_side_node[player, other, (direction + 2) & 3])
        found, count = _root_item(table, player, work, areas, count, root)
        if items[found, ITEM_JOINED] == 0.0:
            # This cell, which the root's closing needed once, is filled now.
            items[found, ITEM_JOINED] = 1.0
            items[found, ITEM_CLOSE_LOG] -= here_log
        # The pair becomes a full rune: the root's half-rune facing this cell is closed.
        items[found, ITEM_FULL_RUNES] += 1.0
        items[found, ITEM_OPEN_HALF_RUNES] -= 2.0
        items[found, ITEM_FILL_SUM] -= here_fill
        a = _top(parent, area)
        b = _top(parent, found)
        if a != b:
            parent[b] = a
    # Each group's sums, its items added in item order (the order of the sums is part of the
    # values compared, so of the moves chosen).
    group = work.group
    group_colour = work.group_colour
    for k in range(count):
        group_colour[k] = 0
        for column in range(GROUP_COLUMNS):
            group[k, column] = 0.0
    for j in range(count):
        top = _top(parent, j)
        if items[j, ITEM_COLOUR] != GRASS:
            group_colour[top] = int(items[j, ITEM_COLOUR])
        group[top, GROUP_FULL_RUNES] += items[j, ITEM_FULL_RUNES]
        group[top, GROUP_OPEN_HALF_RUNES] += items[j, ITEM_OPEN_HALF_RUNES]
        group[top, GROUP_TREES] += items[j, ITEM_TREES]
        group[top, GROUP_FILL_SUM] += items[j, ITEM_FILL_SUM]
        group[top, GROUP_CLOSE_LOG] += items[j, ITEM_CLOSE_LOG]
    value = 0.0
    fresh = work.fresh
    fresh_count = 0
    for k in range(count):
        if parent[k] != k:
            continue
        colour = group_colour[k]
        if colour == GRASS:
            continue
        points = _points(group[k, GROUP_FULL_RUNES], group[k, GROUP_OPEN_HALF_RUNES],
                         group[k, GROUP_FILL_SUM], group[k, GROUP_CLOSE_LOG], params)
        if group[k, GROUP_TREES] > 0:
            value += points
        else:
            # Best first, for the ranking.
            points *= _availability(colour, context)
            slot = fresh_count - 1
            while slot >= 0 and fresh[slot] < points:
                fresh[slot + 1] = fresh[slot]
                slot -= 1
            fresh[slot + 1] = points
            fresh_count += 1
    # A sprawling planet (more empty cells around it) fares worse than its zones' chances say,
    # the more so the more of the game is left.
    value -= params[P_COMPACT] * context[CONTEXT_GAME_LEFT] * new_cells
    skip_count = 0
    for k in range(areas, count):
        root = int(items[k, ITEM_ROOT])
        if table.zone_trees[player, root] > 0:
            value -= _root_points(table, player, root, work, params)
        else:
            work.skip[skip_count] = work.index_of[root]
            skip_count += 1
    return value + _ranked_hope(work.values, decision.count_without, fresh, fresh_count,
                                work.skip, skip_count, work.weights, decision.ranks)


@compiled(always_inline=True)
def _hope_weights_from(unseen_count, light_unseen, turns_left, sure, params, log_factorials,
                       weights):
    """``_hope_weights`` with the log-factorials of the decision (``_pick_chances``)."""
    _pick_chances(unseen_count, light_unseen, turns_left, sure, log_factorials, weights)
    for rank in range(weights.shape[0]):
        weights[rank] *= params[P_HOPE] * params[P_DECAY] ** rank
    if sure > 0:
        weights[0] = params[P_NOW]


@compiled(refcounts=True)
def _hope_weights(unseen_count, light_unseen, turns_left, sure, params, weights):
    """Weight of the r-th best zone without a tree: ``hope`` x the chance of r + 1 picks to
    come, the sure pick after a light tile's placement ``now``."""
    log_factorials = np.full(unseen_count + 1, NOT_YET)
    _hope_weights_from(unseen_count, light_unseen, turns_left, sure, params, log_factorials,
                       weights)


@compiled(always_inline=True)
def _decision(params, tiles, table, player, sure, placing, work):
    """What every option of a decision shares, into ``work``: the public context, the frontier
    cells' chances and the zones' sums (``_prepare_decision``; ``placing``: a placement
    decision), the rank weights, and the zones without a tree best first (``roots``,
    ``values``). Returns the ``Decision``."""
    context = work.context
    game_context(tiles, table, sure > 0, context)
    turns_left = int(context[CONTEXT_TURNS_LEFT])
    unseen_count, light_unseen = _prepare_decision(tiles, table, player, work, turns_left,
                                                   params, placing)
    _hope_weights_from(unseen_count, light_unseen, turns_left, sure, params,
                       work.log_factorials, work.weights)
    count_without = _zones_without_tree(table, player, work.root_sum, work.root_log, context,
                                        params, work.roots, work.values)
    return Decision(unseen_count, turns_left, count_without, _weighted_ranks(work.weights))


@compiled(always_inline=True)
def _placement_values_into(params, tiles, table, player, tile, move_cells, move_rotations,
                           move_count, work):
    """``placement_values`` into ``work.moves[:move_count]``."""
    decision = _decision(params, tiles, table, player, 1 if tiles.light[tile] else 0, True,
                         work)
    for node in range(table.node_count[player] + 1):
        work.index_of[node] = -1
    for k in range(decision.count_without):
        work.index_of[work.roots[k]] = k
    for position in range(table.frontier_count[player]):
        work.memo_ready[position] = 0
    for index in range(move_count):
        work.moves[index] = _placement_value(tiles, table, player, tile, move_cells[index],
                                             move_rotations[index], work, decision, params)


@compiled
def _placement_values_out(params, tiles, table, player, tile, move_cells, move_rotations,
                          move_count, floats, ints, bits, out):
    """``placement_values`` on the buffers of ``_new_buffers``, into ``out``."""
    work = _work(tiles, table, move_count, floats, ints, bits)
    _placement_values_into(params, tiles, table, player, tile, move_cells, move_rotations,
                           move_count, work)
    for index in range(move_count):
        out[index] = work.moves[index]


@compiled(refcounts=True)
def placement_values(params, tiles, table, player, tile, move_cells, move_rotations, move_count):
    """The value of every legal placement (``_placement_value``: the planet's expected final
    value after it, up to a constant shared by all of them)."""
    floats, ints, bits = _new_buffers(tiles, table, move_count)
    out = np.empty(move_count, dtype=np.float64)
    _placement_values_out(params, tiles, table, player, tile, move_cells, move_rotations,
                          move_count, floats, ints, bits, out)
    return out


@compiled(always_inline=True)
def _placement_choice(params, tiles, table, player, tile, move_cells, move_rotations,
                      move_count, rng, floats, ints, bits):
    """``expert_placement`` on the buffers of ``_new_buffers``."""
    work = _work(tiles, table, move_count, floats, ints, bits)
    _placement_values_into(params, tiles, table, player, tile, move_cells, move_rotations,
                           move_count, work)
    return pick_near_best(work.moves, move_count, params[P_SPREAD], rng)


@compiled(always_inline=True)
def expert_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                     move_count, rng, scratch, preview):
    """``expert``: the placement that most raises the planet's expected final value (one at
    random among those within ``spread`` points of it). It works in ``scratch``, which must
    hold a decision's work (``fits_scratch``; else ``allocating_expert_placement``), so it
    allocates nothing and needs no reference counting."""
    floats, ints, bits = _scratch_buffers(tiles, table, move_count, scratch)
    return _placement_choice(params, tiles, table, player, tile, move_cells, move_rotations,
                             move_count, rng, floats, ints, bits)


@compiled(refcounts=True, always_inline=True)
def allocating_expert_placement(params, tiles, table, player, tile, move_cells,
                                move_rotations, move_count, rng, scratch, preview):
    """``expert_placement`` on work arrays it allocates (for a ``scratch`` too small to hold
    them); the same choice."""
    floats, ints, bits = _new_buffers(tiles, table, move_count)
    return _placement_choice(params, tiles, table, player, tile, move_cells, move_rotations,
                             move_count, rng, floats, ints, bits)


@compiled(always_inline=True)
def _tree_choice(params, tiles, table, player, choice_colours, choice_zones, choice_count, rng,
                 floats, ints, bits):
    """``expert_tree`` on the buffers of ``_new_buffers``."""
    work = _work(tiles, table, choice_count, floats, ints, bits)
    decision = _decision(params, tiles, table, player, 0, False, work)
    count_without = decision.count_without
    demand = work.demand
    opponent_colour_demand(tiles, table, player, work.context, 0.5, 2.0, demand)
    players = table.status[STATUS_PLAYERS]
    skip = work.skip
    for index in range(choice_count):
        colour = choice_colours[index]
        root = find_zone(table, player, choice_zones[index])
        gain = 0.0
        skip_count = 0
        if table.zone_trees[player, root] == 0:
            gain = _points(table.zone_full_runes[player, root],
                           table.zone_open_half_runes[player, root], work.root_sum[root],
                           work.root_log[root], params)
            for k in range(count_without):
                if work.roots[k] == root:
                    skip[0] = k
                    skip_count = 1
        work.moves[index] = (gain + _ranked_hope(work.values, count_without, work.fresh, 0, skip,
                                                 skip_count, work.weights, decision.ranks)
                             + params[P_DENIAL] * demand[colour - 1]
                             / max(1.0, float(table.supply[colour - 1])) / players)
    return pick_best(work.moves, choice_count, rng)


@compiled(refcounts=True, always_inline=True)
def expert_tree(params, tiles, table, player, choice_colours, choice_zones, choice_count, rng):
    """``expert``: what the tree adds to its zone, plus what the other zones without a tree are
    worth with the picks left, plus a little denial of the colours the opponents need before
    its next pick."""
    floats, ints, bits = _new_buffers(tiles, table, choice_count)
    return _tree_choice(params, tiles, table, player, choice_colours, choice_zones, choice_count,
                        rng, floats, ints, bits)
