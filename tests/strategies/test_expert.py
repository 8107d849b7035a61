"""The valuation pieces of ``expert`` on hand-made positions with hand-computed answers."""

import numpy as np
import pytest

from sim.games.legendary_forests.data import GRASS, RED, YELLOW
from sim.games.legendary_forests.rules import tile_arrays
from strategies.legendary_forests.expert import (
    fill_chances,
    fitting_tiles,
    pick_chances,
    ranked_hope,
)

NORTH, SOUTH = 0, 2


def test_fitting_and_sealing_tiles_of_a_cell_needing_red_north_and_yellow_south(tileset):
    """A cell between a red side (north) and a yellow side (south). With every tile but 1 and
    13 unseen, the tiles showing red and yellow on opposite sides are 10, 21, 23, 24 and 25;
    only 24 (red, grass, yellow, grass) shows grass on both free sides, so only it seals."""
    tiles = tile_arrays(tileset)
    unseen = np.array([number - 1 for number in range(2, 26) if number != 13], dtype=np.int64)
    mask = np.uint8((3 << 2 * NORTH) | (3 << 2 * SOUTH))
    colours = np.uint8((RED << 2 * NORTH) | (YELLOW << 2 * SOUTH))
    assert fitting_tiles(tiles, unseen, unseen.shape[0], mask, colours) == (5, 1)
    # Without tile 24 nothing seals the cell; the others still fit.
    without = unseen[unseen != 23]
    assert fitting_tiles(tiles, without, without.shape[0], mask, colours) == (4, 0)


def test_fill_chance_is_the_chance_of_drawing_one_of_the_fitting_tiles():
    """4 unseen tiles, 2 draws left: one given tile is drawn with chance 1 - 3/4 x 2/3 = 1/2,
    one of two with 1 - 2/4 x 1/3 = 5/6; none fitting, never; three or four, surely."""
    out = np.empty(5)
    fill_chances(4, 2, out)
    assert out == pytest.approx([0.0, 1 / 2, 5 / 6, 1.0, 1.0])


def test_pick_chances_count_the_sure_pick_and_the_light_tiles_to_come():
    """4 unseen tiles, 2 of them light, 2 draws left, a tree phase right after this placement:
    the draws hold 0, 1 or 2 light tiles with chances 1/6, 4/6, 1/6, so the picks to come are at
    least 1 surely, at least 2 with 5/6, at least 3 with 1/6, never 4."""
    out = np.empty(5)
    pick_chances(4, 2, 2, 1, out)
    assert out == pytest.approx([1.0, 5 / 6, 1 / 6, 0.0, 0.0])
    pick_chances(4, 2, 2, 0, out)
    assert out == pytest.approx([5 / 6, 1 / 6, 0.0, 0.0, 0.0])


def test_ranked_hope_weights_the_best_zones_without_a_tree_by_rank():
    """Zones worth 5, 3, 1 (the 3 joins the placement's new zone, so it is left out) and a new
    zone worth 4: ranked 5, 4, 1 against weights 1, 1/2, 1/4: 5 + 2 + 1/4."""
    values = np.array([5.0, 3.0, 1.0])
    weights = np.array([1.0, 0.5, 0.25, 0.0])
    total = ranked_hope(values, 3, np.array([4.0]), 1, np.array([1]), 1, weights)
    assert total == pytest.approx(7.25)
    # Fewer weights than zones: only the best ones count.
    assert ranked_hope(values, 3, np.array([4.0]), 1, np.array([1]), 0,
                       weights[:2]) == pytest.approx(5 + 2)


def _position(tileset):
    """Tile 1 at (0, 0) (pink N, red E, yellow S, pink W, four areas) and the all-red tile 3 east
    of it; a tree on the pink zone facing (0, -1) and one on the red zone, whose open half-runes
    face (1, -1), (2, 0) and (1, 1). Turn 12 of 19 (6 draws after this one); every tile but 1, 3
    and the revealed 6 (grass N, pink E/S/W in one area) is unseen."""
    from sim.games.legendary_forests.convert import xy_to_cell
    from sim.games.legendary_forests.data import PINK
    from sim.games.legendary_forests.rules import (
        STATUS_TURN,
        apply_tree,
        find_zone,
        new_table,
        place_tile,
        reset_table,
    )

    tiles = tile_arrays(tileset)
    table = new_table(tileset.size, 1, 5)
    reset_table(tiles, table, 2)
    place_tile(tiles, table, 0, 0, xy_to_cell(table, 0, 0), 0)
    place_tile(tiles, table, 0, 2, xy_to_cell(table, 1, 0), 0)
    for x, colour in ((0, PINK), (1, RED)):
        node = table.cell_side_node[0, xy_to_cell(table, x, 0), NORTH]
        apply_tree(table, 0, colour, find_zone(table, 0, node))
    table.tile_drawn[:] = False
    table.tile_drawn[[0, 2, 5]] = True
    table.status[STATUS_TURN] = 12
    return tiles, table


def _planet_value(params, tiles, table, sure):
    """The expert's value of the whole planet from scratch: its zones with a tree, plus the
    ranked hope of those without; and the points of each zone with a tree, by root."""
    from sim.games.legendary_forests.rules import GRASS
    from strategies.legendary_forests.evaluation import (
        CONTEXT_SIZE,
        CONTEXT_TURNS_LEFT,
        game_context,
    )
    from strategies.legendary_forests.expert import (
        RANKED_PICKS,
        _hope_weights,
        _points,
        _prepare,
        _zones_without_tree,
    )

    context = np.empty(CONTEXT_SIZE)
    game_context(tiles, table, sure > 0, context)
    nodes, frontier = table.node_parent.shape[1], table.frontier_cells.shape[1]
    unseen = np.empty(tiles.light.shape[0], np.int64)
    chances = np.empty(tiles.light.shape[0] + 1)
    root_sum, root_log = np.empty(nodes), np.empty(nodes)
    cell_fill, cell_close = np.empty(frontier), np.empty(frontier)
    cell_roots = np.empty((frontier, 4, 2), np.int64)
    cell_root_count = np.empty(frontier, np.int64)
    turns_left = int(context[CONTEXT_TURNS_LEFT])
    unseen_count, light_unseen = _prepare(tiles, table, 0, unseen, chances, root_sum, root_log,
                                          cell_fill, cell_close, cell_roots, cell_root_count,
                                          np.empty(4), np.empty(4), turns_left, params)
    weights = np.empty(RANKED_PICKS)
    _hope_weights(unseen_count, light_unseen, turns_left, sure, params, weights)
    roots, values = np.empty(nodes, np.int64), np.empty(nodes)
    count = _zones_without_tree(table, 0, root_sum, root_log, context, params, roots, values)
    treed = {node: _points(table.zone_full_runes[0, node], table.zone_open_half_runes[0, node],
                           root_sum[node], root_log[node], params)
             for node in range(table.node_count[0])
             if table.node_parent[0, node] == node and table.node_colour[0, node] != GRASS
             and table.zone_trees[0, node] > 0}
    hope = ranked_hope(values, count, np.empty(1), 0, np.empty(1, np.int64), 0, weights)
    return sum(treed.values()) + hope, treed


def test_a_placement_values_the_open_cells_it_borders_for_the_zones_facing_them(tileset):
    """Tile 6 goes north of tile 1 (its pink joins the treed pink zone) in three rotations; its
    east side, grass or pink, borders (1, -1), the red zone's open cell, and changes which
    unseen tiles can fill it. The values the expert compares (changes of the zones touched,
    computed incrementally) differ exactly as the from-scratch values of the planets after the
    moves do, red zone included; and ``compact`` charges each move for the two empty cells it
    adds to the planet's edge."""
    from sim.games.legendary_forests.convert import xy_to_cell
    from sim.games.legendary_forests.observation import table_copy
    from sim.games.legendary_forests.rules import find_zone, place_tile
    from strategies.legendary_forests.catalogue import ExpertStrategy
    from strategies.legendary_forests.expert import P_COMPACT, placement_values

    tiles, table = _position(tileset)
    params = np.array([parameter.default for parameter in ExpertStrategy.parameters])
    params[P_COMPACT] = 0.0  # a move-only term, not part of the planet's value
    cell = xy_to_cell(table, 0, -1)
    rotations = np.array([0, 1, 3], np.int8)  # east pink, east grass, east pink (west grass)
    cells = np.full(3, cell, np.int16)
    incremental = placement_values(params, tiles, table, 0, 5, cells, rotations, 3)
    after, red_points = [], []
    red = find_zone(table, 0, table.cell_side_node[0, xy_to_cell(table, 1, 0), NORTH])
    for rotation in rotations:
        moved = table_copy(table)
        place_tile(tiles, moved, 0, 5, cell, rotation)
        value, treed = _planet_value(params, tiles, moved, 0)
        after.append(value)
        red_points.append(treed[red])
    assert incremental - incremental[0] == pytest.approx(np.array(after) - after[0], abs=1e-9)
    # The red zone is not joined, yet its cell (1, -1) is harder to fill: of the 22 unseen tiles
    # 12 show red to the south, 6 of them also grass to the west (rotation 1), 4 pink (0 and 3).
    assert fitting_tiles(tiles, np.array([t for t in range(25) if t not in (0, 2, 5)]), 22,
                         np.uint8(0b11110000), np.uint8((GRASS << 6) | (RED << 4))) == (6, 0)
    before = _planet_value(params, tiles, table, 0)[1][red]
    assert red_points[0] == pytest.approx(red_points[2])
    assert before > red_points[1] > red_points[0]
    # Each of these moves adds two empty cells to the planet's edge, (0, -2) and (-1, -1) ((1, -1)
    # is there already): 2 x compact x the share of the game left, 6 draws of 19.
    params[P_COMPACT] = 0.5
    compact = placement_values(params, tiles, table, 0, 5, cells, rotations, 3)
    assert compact - incremental == pytest.approx(np.full(3, -2 * 0.5 * 6 / 19))


def test_hope_weights_decay_by_rank():
    """4 unseen tiles, 2 light, 2 draws, no tree phase now: the chances of 1, 2 picks to come
    are 5/6 and 1/6; times hope 0.5 and decay 0.8 per rank: 5/12 and 0.8/12."""
    from strategies.legendary_forests.expert import P_DECAY, P_HOPE, _hope_weights

    params = np.zeros(8)
    params[P_HOPE] = 0.5
    params[P_DECAY] = 0.8
    weights = np.empty(4)
    _hope_weights(4, 2, 2, 0, params, weights)
    assert weights == pytest.approx([5 / 12, 0.8 / 12, 0.0, 0.0])


def _state(seed: int) -> np.ndarray:
    from sim.rng import seed_state

    state = np.zeros(4, dtype=np.uint64)
    seed_state(state, np.uint64(seed), np.uint64(0))
    return state


def test_spread_zero_picks_as_pick_best_with_the_same_draws():
    """At spread 0 the choice and the generator's state after it are pick_best's: games of
    the default are unchanged."""
    from strategies.legendary_forests.evaluation import pick_best, pick_near_best

    values = np.array([1.0, 3.0, 3.0, 2.0, 3.0])
    for seed in range(20):
        first, second = _state(seed), _state(seed)
        assert pick_near_best(values, 5, 0.0, first) == pick_best(values, 5, second)
        assert np.array_equal(first, second)


def test_spread_picks_uniformly_among_the_values_within_it_of_the_best():
    """Values 5, 4.6, 4.0, 4.75 with spread 0.5: only 5, 4.6 and 4.75 (indices 0, 1, 3) are
    within it, each chosen a third of the time; 4.0 never."""
    from strategies.legendary_forests.evaluation import pick_near_best

    values = np.array([5.0, 4.6, 4.0, 4.75])
    counts = np.zeros(4)
    state = _state(7)
    for _ in range(6000):
        counts[pick_near_best(values, 4, 0.5, state)] += 1
    assert counts[2] == 0
    assert counts[[0, 1, 3]] / 6000 == pytest.approx([1 / 3] * 3, abs=0.025)
