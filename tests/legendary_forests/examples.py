"""Hand-built positions shared by the planet and engine tests (the RULES.md examples), and a
reader of the engine's zone table."""

from sim.games.legendary_forests.data import GRASS, PINK, YELLOW
from sim.games.legendary_forests.position import PlacedTile, Planet, Tree

N, E, S, W = 0, 1, 2, 3

# Canonical shapes (rotation 0): a cap has its leaf side at N; a band runs N-S; a corner joins
# N and E. Rotation r turns index i to board direction (i + r) mod 4.
EXAMPLE_TILES = """
tiles = [
  {number=1, light=false, sides=["pink","grass","grass","grass"], areas=[[0],[1,2,3]]},
  {number=2, light=false, sides=["pink","grass","pink","grass"], areas=[[0,2],[1],[3]]},
  {number=3, light=false, sides=["pink","pink","grass","grass"], areas=[[0,1],[2,3]]},
  {number=4, light=false, sides=["pink","grass","pink","grass"], areas=[[0,2],[1],[3]]},
  {number=5, light=false, sides=["grass","pink","grass","pink"], areas=[[0,2],[1],[3]]},
  {number=6, light=true, sides=["yellow","grass","grass","grass"], areas=[[0],[1,2,3]]},
  {number=7, light=true, sides=["yellow","grass","yellow","grass"], areas=[[0,2],[1],[3]]},
  {number=8, light=true, sides=["yellow","yellow","grass","grass"], areas=[[0,1],[2,3]]},
]
"""


def example_planet() -> Planet:
    """RULES.md examples in one planet.

    Pink L (closed, 4 full runes, 1 tree -> 8):  (0,0) cap S, (0,1) band N-S, (0,2) corner N+E,
    (1,2) band E-W, (2,2) west pink area of tile 5. Tile 5's east pink area is a separate open
    pink zone with 0 full runes and a tree (-> 0): it must not merge with the L, or the L would
    be open. Yellow line (1,0) cap E, (2,0) band E-W, (3,0) corner S+W: 2 full runes, open at
    (3,0) S, two trees (-> 2 together). The two parts touch only through grass.
    """
    return Planet(
        tiles=[
            PlacedTile(1, 0, 0, 2),
            PlacedTile(2, 0, 1, 0),
            PlacedTile(3, 0, 2, 0),
            PlacedTile(4, 1, 2, 1),
            PlacedTile(5, 2, 2, 0),
            PlacedTile(6, 1, 0, 1),
            PlacedTile(7, 2, 0, 1),
            PlacedTile(8, 3, 0, 2),
        ],
        trees=[
            Tree(0, 0, S, PINK),
            Tree(2, 2, E, PINK),
            Tree(1, 0, E, YELLOW),
            Tree(3, 0, W, YELLOW),
        ],
    )


def engine_zones(table, player) -> list[tuple[int, int, int, int]]:
    """(colour, full runes, open half-runes, trees) of every leaf zone on an engine table."""
    zones = []
    for node in range(int(table.node_count[player])):
        if table.node_parent[player, node] == node and table.node_colour[player, node] != GRASS:
            zones.append((int(table.node_colour[player, node]),
                          int(table.zone_full_runes[player, node]),
                          int(table.zone_open_half_runes[player, node]),
                          int(table.zone_trees[player, node])))
    return zones
