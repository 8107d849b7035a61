"""The valuation pieces of ``expert`` on hand-made positions with hand-computed answers."""

import numpy as np
import pytest

from sim.games.legendary_forests.data import RED, YELLOW
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
