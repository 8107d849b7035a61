"""Property tests: after random legal play on random tile sets, the engine's incremental state
equals a from-scratch recomputation by the reference code in ``position.py``."""

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.legendary_forests.convert import cell_to_xy, planet_of, xy_to_cell
from sim.games.legendary_forests.data import TileSet
from sim.games.legendary_forests.position import (
    DIRECTION_OFFSETS,
    PlacedTile,
    board_side_colour,
    score_planet,
    validate_planet,
)
from sim.games.legendary_forests.results import new_log
from sim.games.legendary_forests.rules import (
    STATUS_GRID_SIDE,
    legal_placements,
    new_table,
    placement_is_legal,
    tile_arrays,
)
from sim.loops.legendary_forests.dispatch import GREEDY, PARAMETER_SLOTS, RANDOM, strategy_table
from sim.loops.legendary_forests.loop import new_work, play_game, run_shard
from tests.legendary_forests.examples import engine_zones


@st.composite
def tile_sets(draw):
    """Random valid tile sets: 2..30 tiles, random colours; areas join neighbouring sides of
    one colour (arcs) and sometimes a straight band of opposite sides."""
    size = draw(st.integers(2, 30))
    side_colour = np.zeros((size, 4), np.int8)
    side_area = np.zeros((size, 4), np.int8)
    area_count = np.zeros(size, np.int8)
    area_colour = np.full((size, 4), -1, np.int8)
    light = np.zeros(size, np.bool_)
    for index in range(size):
        colours = draw(st.lists(st.integers(0, 3), min_size=4, max_size=4))
        labels = list(range(4))
        for side in range(4):
            following = (side + 1) % 4
            if colours[side] == colours[following] and draw(st.booleans()):
                old, new = labels[following], labels[side]
                labels = [new if label == old else label for label in labels]
        if colours[0] == colours[2] and labels[1] != labels[3] and draw(st.booleans()):
            old, new = labels[2], labels[0]
            labels = [new if label == old else label for label in labels]
        relabel: dict[int, int] = {}
        for side in range(4):
            side_area[index, side] = relabel.setdefault(labels[side], len(relabel))
            side_colour[index, side] = colours[side]
            area_colour[index, side_area[index, side]] = colours[side]
        area_count[index] = len(relabel)
        light[index] = draw(st.booleans())
    return TileSet("hypothesis", light, side_colour, side_area, area_count, area_colour)


def reference_has_legal_placement(tileset: TileSet, tiles_by_xy: dict, number: int) -> bool:
    """Brute force over the planet's empty neighbours and the four rotations."""
    candidates = set()
    for x, y in tiles_by_xy:
        for dx, dy in DIRECTION_OFFSETS:
            if (x + dx, y + dy) not in tiles_by_xy:
                candidates.add((x + dx, y + dy))
    for x, y in candidates:
        for rotation in range(4):
            placed = PlacedTile(number, x, y, rotation)
            ok = True
            for direction, (dx, dy) in enumerate(DIRECTION_OFFSETS):
                other = tiles_by_xy.get((x + dx, y + dy))
                if other is not None and board_side_colour(tileset, placed, direction) != \
                        board_side_colour(tileset, other, (direction + 2) % 4):
                    ok = False
            if ok:
                return True
    return False


@settings(max_examples=120, deadline=None)
@given(tileset=tile_sets(), players=st.integers(1, 5), removed_share=st.floats(0, 0.5),
       trees_per_colour=st.integers(0, 3), deal_seed=st.integers(0, 2**63),
       strategy_seed=st.integers(0, 2**63), policies=st.lists(st.sampled_from([RANDOM, GREEDY]),
                                                               min_size=5, max_size=5))
def test_random_play_is_legal_and_zones_match_flood_fill(tileset, players, removed_share,
                                                         trees_per_colour, deal_seed,
                                                         strategy_seed, policies):
    removed = int(removed_share * (tileset.size - 1))
    tiles = tile_arrays(tileset)
    table = new_table(tileset.size, players, removed)
    work = new_work(tileset.size, players, removed)
    log = new_log(tileset.size, players, removed)
    seat_policy = np.array(policies[:players], np.int8)
    play_game(tiles, table, work, log, removed, trees_per_colour, np.uint64(deal_seed),
              np.uint64(strategy_seed), seat_policy, np.zeros((players, PARAMETER_SLOTS)),
              strategy_table(seat_policy, tiles, table, work))
    # The deal: tile 1 never shuffled; removed and drawn tiles are disjoint and cover 2..N.
    drawn = [int(t) for t in log.draw_order]
    assert sorted(drawn + [int(t) for t in log.removed[:removed]]) == list(range(1, tileset.size))
    for player in range(players):
        planet = planet_of(tileset, table, player)
        # Every placement made is legal: colour match on all touching sides, connected.
        validate_planet(planet, tileset, "engine")
        # Discards only when no legal placement existed (replayed against the reference).
        tiles_by_xy = {(0, 0): planet.tiles[0]}
        for turn, tile in enumerate(drawn):
            cell = int(log.placement_cell[turn, player])
            can_place = reference_has_legal_placement(tileset, tiles_by_xy, tile + 1)
            assert can_place == (cell >= 0)
            if cell >= 0:
                x, y = cell_to_xy(table, cell)
                tiles_by_xy[(x, y)] = PlacedTile(tile + 1, x, y,
                                                 int(log.placement_rotation[turn, player]))
        # Incremental zones and score equal a from-scratch flood fill.
        reference = score_planet(planet, tileset)
        expected = Counter((z.colour, z.full_runes, z.open_half_runes, z.trees)
                           for z in reference.zones)
        assert Counter(engine_zones(table, player)) == expected
        # The fast frontier masks agree with the rule on every cell.
        # Every cell within two steps of the planet (farther cells cannot touch it).
        xs = [t.x for t in planet.tiles]
        ys = [t.y for t in planet.tiles]
        # Cells on the grid's border are skipped: their neighbours would wrap to the next row
        # (the engine's frontier never gets there, which the grid size guarantees).
        half = int(table.status[STATUS_GRID_SIDE]) // 2
        near_cells = [xy_to_cell(table, x, y) for x in range(min(xs) - 2, max(xs) + 3)
                      for y in range(min(ys) - 2, max(ys) + 3)
                      if abs(x) < half and abs(y) < half]
        cells = np.zeros(4096, np.int16)
        rotations = np.zeros(4096, np.int8)
        for tile in range(tileset.size):
            count = legal_placements(tiles, table, player, tile, cells, rotations)
            fast = {(int(cells[i]), int(rotations[i])) for i in range(count)}
            slow = {(c, r) for c in near_cells for r in range(4)
                    if tiles.rotation_is_distinct[tile, r]
                    and placement_is_legal(tiles, table, player, tile, c, r)}
            assert fast == slow
    # Trees never exceed the supply of a colour.
    taken = Counter(int(c) for c in log.tree_colour.ravel() if c > 0)
    for colour in (1, 2, 3):
        assert taken[colour] <= trees_per_colour * players


def test_same_seeds_give_identical_games():
    from sim.games.legendary_forests.data import load_tileset

    tiles = tile_arrays(load_tileset())
    seats = np.array([[RANDOM, GREEDY, GREEDY, RANDOM]] * 50, np.int8)
    seeds = np.arange(50, dtype=np.uint64) * np.uint64(7919)
    first = run_shard(tiles, 4, 5, 2, seeds, seeds + np.uint64(1), seats)
    second = run_shard(tiles, 4, 5, 2, seeds, seeds + np.uint64(1), seats)
    for name in first._fields:
        assert np.array_equal(getattr(first, name), getattr(second, name)), name
    # A game played inside a shard equals the same game played alone.
    alone = run_shard(tiles, 4, 5, 2, seeds[17:18], seeds[17:18] + np.uint64(1), seats[17:18])
    assert np.array_equal(alone.score[0], first.score[17])
    assert np.array_equal(alone.draw_order[0], first.draw_order[17])
