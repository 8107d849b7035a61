"""What a Python strategy sees: an ``Observation`` of public information and the legal options.

The observation is frozen and holds no deal: not the draw order, not the removed tiles. The tiles
not yet seen (``unseen_tiles``) are the draw pile and the removed tiles together, as nobody at the
table can tell them apart. ``table`` is a private copy of the public game state (every planet,
the supply, the token holder, the turn, the tiles drawn) made for this decision, for strategies
that want to call the compiled rules helpers (``rules.preview_placement``,
``rules.legal_placements``, ``rules.place_tile`` to try a move out, ...): changing it changes
nothing in the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from sim.games.legendary_forests.convert import planet_of
from sim.games.legendary_forests.data import TileSet
from sim.games.legendary_forests.position import Planet
from sim.games.legendary_forests.rules import (
    STATUS_PLAYERS,
    STATUS_TOKEN_HOLDER,
    STATUS_TURN,
    Table,
    planet_score,
    total_turns,
)

PHASE_PLACEMENT = "placement"
PHASE_TREES = "trees"


def table_copy(table) -> Table:
    """A deep copy of ``table`` (every array copied)."""
    return Table(*(np.array(array, copy=True) for array in table))


@dataclass(frozen=True)
class Placement:
    """A legal placement of the revealed tile, with what it would change on the planet."""

    x: int  # planet coordinates, tile 1 at (0, 0), y grows to the south
    y: int
    rotation: int  # quarter turns clockwise
    cell: int  # grid cell on ``observation.table``
    score_change: int  # change of the planet's current score (zones holding trees)
    full_runes_created: int
    zones_closed: int  # zones (after joining) this placement closes
    treed_zones_closed: int  # of those, zones holding a tree


@dataclass(frozen=True)
class TreeChoice:
    """A legal tree: a leaf colour still in the supply and a zone of that colour."""

    colour: int  # 1 pink, 2 red, 3 yellow
    colour_name: str
    zone: int  # zone root on ``observation.table``
    x: int  # a tile of the zone and a board side of it
    y: int
    side: int
    full_runes: int
    open_half_runes: int
    trees: int  # trees the zone holds already
    closed: bool
    points_now: int  # what the zone scores now
    points_gain: int  # what this tree adds to the score now


@dataclass(frozen=True)
class Observation:
    """Public information at a decision of ``seat``. No field holds the deal."""

    seat: int
    phase: str  # "placement" or "trees"
    tile: int  # number of the tile revealed this turn
    tile_light: bool
    tileset: TileSet
    table: Table  # a private copy of the public state

    @property
    def players(self) -> int:
        """Seats at the table."""
        return int(self.table.status[STATUS_PLAYERS])

    @property
    def turn(self) -> int:
        """Turns completed before this one (0 on the first turn)."""
        return int(self.table.status[STATUS_TURN])

    @property
    def turns(self) -> int:
        """Turns in the whole game (tiles drawn in a game)."""
        return int(total_turns(self.table))

    @property
    def tiles_left_to_draw(self) -> int:
        """Tiles still to be revealed after this turn's."""
        return self.turns - self.turn - 1

    @property
    def token_holder(self) -> int:
        """Seat holding the construction token (first to take a tree in a tree phase)."""
        return int(self.table.status[STATUS_TOKEN_HOLDER])

    @property
    def supply(self) -> tuple[int, int, int]:
        """Trees left per leaf colour (pink, red, yellow)."""
        return tuple(int(v) for v in self.table.supply)

    @cached_property
    def drawn_tiles(self) -> frozenset[int]:
        """Numbers of the tiles revealed so far, this turn's and tile 1 included."""
        return frozenset(int(i) + 1 for i in np.flatnonzero(self.table.tile_drawn))

    @cached_property
    def unseen_tiles(self) -> tuple[int, ...]:
        """Numbers of the tiles not revealed yet: the rest of the pile and the removed tiles,
        indistinguishable (in increasing order, not in draw order)."""
        return tuple(int(i) + 1 for i in np.flatnonzero(~self.table.tile_drawn))

    @cached_property
    def planets(self) -> tuple[Planet, ...]:
        """Every seat's planet in the planet-file form (``planets[self.seat]`` is one's own)."""
        return tuple(planet_of(self.tileset, self.table, p) for p in range(self.players))

    @cached_property
    def scores(self) -> tuple[int, ...]:
        """Every seat's score if the game ended now."""
        return tuple(int(planet_score(self.table, p)) for p in range(self.players))
