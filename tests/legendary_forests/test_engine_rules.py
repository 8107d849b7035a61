"""Each rule of the compiled engine by a hand-made position with a hand-computed answer."""

import numpy as np
import pytest

from sim.games.legendary_forests.convert import planet_of, table_from_planet, xy_to_cell
from sim.games.legendary_forests.data import GRASS, PINK, RED, YELLOW
from sim.games.legendary_forests.position import score_planet
from sim.games.legendary_forests.results import new_log
from sim.games.legendary_forests.rules import (
    STATUS_TOKEN_HOLDER,
    apply_tree,
    find_zone,
    legal_placements,
    legal_tree_choices,
    new_table,
    pass_construction_token,
    place_tile,
    placement_is_legal,
    planet_score,
    reset_table,
    tile_arrays,
    tree_phase_seat,
)
from sim.loops.legendary_forests.dispatch import GREEDY, PARAMETER_SLOTS, RANDOM, strategy_table
from sim.loops.legendary_forests.loop import new_work, play_game
from tests.legendary_forests.examples import EXAMPLE_TILES, engine_zones, example_planet

N, E, S, W = 0, 1, 2, 3

# Tile 1: pink N, red E, yellow S, grass W, four areas. Tile 2: all grass. Tile 3: a pink/red
# corner tile with distinct sides so rotations are tellable. Tile 4: all pink, one area.
# Tile 5: all yellow, one area. Tile 6: pink N, grass E, red S, yellow W (four areas).
BASIC_TILES = """
tiles = [
  {number=1, light=false, sides=["pink","red","yellow","grass"], areas=[[0],[1],[2],[3]]},
  {number=2, light=true,  sides=["grass","grass","grass","grass"], areas=[[0,1,2,3]]},
  {number=3, light=true,  sides=["pink","pink","red","red"], areas=[[0,1],[2,3]]},
  {number=4, light=true,  sides=["pink","pink","pink","pink"], areas=[[0,1,2,3]]},
  {number=5, light=false, sides=["yellow","yellow","yellow","yellow"], areas=[[0,1,2,3]]},
  {number=6, light=true,  sides=["pink","grass","red","yellow"], areas=[[0],[1],[2],[3]]},
]
"""


@pytest.fixture
def basic(tileset_from_toml):
    tileset = tileset_from_toml(BASIC_TILES)
    tiles = tile_arrays(tileset)
    table = new_table(tileset.size, 2, 0)
    reset_table(tiles, table, 2)
    return tileset, tiles, table


def legal_set(tiles, table, player, tile):
    cells = np.zeros(512, np.int16)
    rotations = np.zeros(512, np.int8)
    count = legal_placements(tiles, table, player, tile, cells, rotations)
    return {(int(cells[i]), int(rotations[i])) for i in range(count)}


def brute_force_legal(tiles, table, player, tile):
    """Every distinct-rotation placement that ``placement_is_legal`` accepts, over every cell."""
    found = set()
    for cell in range(table.cell_tile.shape[1]):
        for rotation in range(4):
            if tiles.rotation_is_distinct[tile, rotation] and placement_is_legal(
                tiles, table, player, tile, cell, rotation
            ):
                found.add((cell, rotation))
    return found


def test_rotation_mapping_shows_listed_side_d_minus_r(basic):
    tileset, tiles, table = basic
    cell = xy_to_cell(table, 0, -1)
    # Tile 6 lists pink N, grass E, red S, yellow W; turned once clockwise its yellow (W) is up.
    place_tile(tiles, table, 0, 5, cell, 1)
    shown = [int(c) for c in table.cell_side_colour[0, cell]]
    assert shown == [YELLOW, PINK, GRASS, RED]
    for rotation in range(4):
        expected = [int(tileset.side_colour[5, (d - rotation) % 4]) for d in range(4)]
        other = xy_to_cell(table, 5, 5)
        place_tile(tiles, table, 1, 5, other, rotation)
        assert [int(c) for c in table.cell_side_colour[1, other]] == expected


def test_adjacency_only_cells_touching_the_planet(basic):
    _, tiles, table = basic
    legal = legal_set(tiles, table, 0, 3)  # all-pink tile: must touch tile 1's pink north side
    assert legal == {(xy_to_cell(table, 0, -1), 0)}  # one area, all rotations look the same
    assert not placement_is_legal(tiles, table, 0, 3, xy_to_cell(table, 0, -2), 0)
    assert not placement_is_legal(tiles, table, 0, 3, xy_to_cell(table, 0, 0), 0)  # occupied


def test_colour_match_on_every_touching_side(basic):
    _, tiles, table = basic
    # Build a corner: pink tile 4 north of tile 1, so cell (1, -1) touches tile 4 (W side pink)
    # and tile 1? No: (1, -1) touches (0, -1) to the west and (1, 0) to the south (empty).
    place_tile(tiles, table, 0, 3, xy_to_cell(table, 0, -1), 0)
    place_tile(tiles, table, 0, 4, xy_to_cell(table, 1, 0), 0)  # yellow tile east of tile 1?
    # Tile 5 (all yellow) east of tile 1 faces tile 1's red side: the position is illegal, which
    # placement_is_legal reports; place_tile itself does not check (it is the caller's job).
    assert not placement_is_legal(tiles, table, 1, 4, xy_to_cell(table, 1, 0), 0)
    # Cell (1, -1) now touches pink (west, tile 4) and yellow (south, tile 5). Tile 3 (pink N,
    # pink E, red S, red W) can match pink on its W side only in rotations that show pink at W,
    # and yellow at S never: so no rotation is legal although one touching side could match.
    cell = xy_to_cell(table, 1, -1)
    assert all(not placement_is_legal(tiles, table, 0, 2, cell, r) for r in range(4))
    # Tile 6 shows pink at W and yellow at S with rotation 2? Rotation r shows listed (d - r):
    # W (3) shows listed (3 - r) and S (2) shows listed (2 - r). Pink is listed 0, yellow 3:
    # need 3 - r = 0 and 2 - r = 3 (mod 4) -> r = 3 for both.
    assert [r for r in range(4) if placement_is_legal(tiles, table, 0, 5, cell, r)] == [3]


def test_fast_legal_placements_equal_the_rule_on_every_cell(basic):
    _, tiles, table = basic
    place_tile(tiles, table, 0, 2, xy_to_cell(table, 0, -1), 3)
    place_tile(tiles, table, 0, 5, xy_to_cell(table, 0, 1), 0)
    for tile in range(1, 6):
        assert legal_set(tiles, table, 0, tile) == brute_force_legal(tiles, table, 0, tile)


def test_symmetric_rotations_are_listed_once(basic):
    _, tiles, _ = basic
    assert list(tiles.rotation_is_distinct[1]) == [True, False, False, False]  # all grass
    assert list(tiles.rotation_is_distinct[2]) == [True, True, True, True]


def run_one_game(tileset, players, removed, trees_per_colour, policy, deal_seed=1, seed=2):
    tiles = tile_arrays(tileset)
    table = new_table(tileset.size, players, removed)
    work = new_work(tileset.size, players, removed)
    log = new_log(tileset.size, players, removed)
    policies = np.full(players, policy, np.int8)
    params = np.zeros((players, PARAMETER_SLOTS))
    play_game(tiles, table, work, log, removed, trees_per_colour, np.uint64(deal_seed),
              np.uint64(seed), policies, params, strategy_table(policies, tiles, table, work))
    return tiles, table, log


def test_discard_only_when_no_legal_placement(tileset_from_toml):
    # Tile 1 shows no grass, so the all-grass tile 2 can never be placed: always discarded.
    # Tile 3 (all pink) always fits north of tile 1: it must be placed, never discarded.
    tileset = tileset_from_toml("""
tiles = [
  {number=1, light=false, sides=["pink","red","yellow","red"], areas=[[0],[1],[2],[3]]},
  {number=2, light=false, sides=["grass","grass","grass","grass"], areas=[[0,1,2,3]]},
  {number=3, light=false, sides=["pink","pink","pink","pink"], areas=[[0,1,2,3]]},
]""")
    for seed in range(10):
        _, table, log = run_one_game(tileset, 2, 0, 2, RANDOM, deal_seed=seed, seed=seed)
        for turn in range(2):
            tile = int(log.draw_order[turn])
            for player in range(2):
                if tile == 1:
                    assert log.placement_cell[turn, player] == -1
                else:
                    assert log.placement_cell[turn, player] == xy_to_cell(table, 0, -1)
        assert list(table.discards) == [1, 1]
        assert list(table.placed_count) == [2, 2]


def test_forced_placement_with_a_single_legal_spot(tileset_from_toml):
    # Tile 2 fits only south of tile 1 (the only yellow side), in exactly one rotation.
    tileset = tileset_from_toml("""
tiles = [
  {number=1, light=false, sides=["pink","red","yellow","red"], areas=[[0],[1],[2],[3]]},
  {number=2, light=false, sides=["yellow","grass","grass","grass"], areas=[[0],[1,2,3]]},
]""")
    for policy in (RANDOM, GREEDY):
        _, table, log = run_one_game(tileset, 3, 0, 2, policy)
        assert list(log.placement_cell[0]) == [xy_to_cell(table, 0, 1)] * 3
        assert list(log.placement_rotation[0]) == [0] * 3  # yellow listed N must face N


def test_grass_never_forms_a_zone(basic):
    tileset, tiles, table = basic
    place_tile(tiles, table, 0, 1, xy_to_cell(table, -1, 0), 0)  # grass tile by the grass side
    colours = np.zeros(64, np.int8)
    zones = np.zeros(64, np.int16)
    count = legal_tree_choices(table, 0, colours, zones)
    assert sorted(int(c) for c in colours[:count]) == [PINK, RED, YELLOW]
    planet = planet_of(tileset, table, 0)
    assert len(score_planet(planet, tileset).zones) == 3


def test_tree_colour_exhaustion(basic):
    _, tiles, table = basic
    colours = np.zeros(64, np.int8)
    zones = np.zeros(64, np.int16)
    table.supply[:] = [1, 0, 2]  # pink 1, red gone, yellow 2
    count = legal_tree_choices(table, 0, colours, zones)
    assert sorted(int(c) for c in colours[:count]) == [PINK, YELLOW]
    pink_zone = int(zones[list(colours[:count]).index(PINK)])
    apply_tree(table, 0, PINK, pink_zone)
    assert list(table.supply) == [0, 0, 2]
    count = legal_tree_choices(table, 1, colours, zones)
    assert [int(c) for c in colours[:count]] == [YELLOW]
    table.supply[:] = 0
    assert legal_tree_choices(table, 1, colours, zones) == 0


def test_several_trees_in_one_zone_score_once(basic):
    _, tiles, table = basic
    # Pink tile 4 north of tile 1 joins tile 1's pink area: one open zone with 1 full rune.
    place_tile(tiles, table, 0, 3, xy_to_cell(table, 0, -1), 0)
    root = find_zone(table, 0, table.cell_side_node[0, xy_to_cell(table, 0, 0), N])
    assert table.zone_full_runes[0, root] == 1
    apply_tree(table, 0, PINK, root)
    assert planet_score(table, 0) == 1
    apply_tree(table, 0, PINK, root)
    assert table.zone_trees[0, root] == 2
    assert planet_score(table, 0) == 1


def test_tree_phase_order_starts_with_token_holder_and_token_passes(basic):
    _, _, table = basic
    table.status[2] = 3  # three players, as seen by the seat-order functions
    table.status[STATUS_TOKEN_HOLDER] = 2
    assert [tree_phase_seat(table, k) for k in range(3)] == [2, 0, 1]
    pass_construction_token(table)
    assert table.status[STATUS_TOKEN_HOLDER] == 0
    assert [tree_phase_seat(table, k) for k in range(3)] == [0, 1, 2]


def test_worked_examples_through_the_engine(tileset_from_toml):
    """RULES.md: closed L pink zone with 4 runes and a tree -> 8; open pink zone without runes
    -> 0; two yellow trees in one open zone with 2 runes -> 2; total 10. The same position as
    the reference scorer's test, here built tile by tile with the engine's incremental zones."""
    tileset = tileset_from_toml(EXAMPLE_TILES)
    tiles = tile_arrays(tileset)
    planet = example_planet()
    table = table_from_planet(tiles, tileset, planet)
    assert planet_score(table, 0) == 10
    zones = sorted(engine_zones(table, 0))
    # (colour, full runes, open half-runes, trees) of every leaf zone
    assert zones == sorted([(PINK, 4, 0, 1), (PINK, 0, 1, 1), (YELLOW, 2, 1, 2)])
    for keep, points in ((0, 8), (1, 0), (2, 2)):
        single = example_planet()
        single.trees = [planet.trees[i] for i in ((0,), (1,), (2, 3))[keep]]
        assert planet_score(table_from_planet(tiles, tileset, single), 0) == points
