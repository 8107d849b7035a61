"""Harmonies game data: the TOML files of ``data/`` (formats in their headers and in
``data/README.md``), validated on load into plain Python values and numpy arrays.

Every violation raises :class:`sim.errors.InputError` with one line naming the file, the field
and the reason. Each file can be replaced by a user's own (a variant bag, a new card); the
defaults are the files shipped beside this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from sim.errors import InputError
from sim.files import read_user_toml
from sim.games.harmonies.colours import (
    BUILDING_REQUIREMENT,
    COLOUR_CODES,
    COLOUR_COUNT,
    COLOUR_NAMES,
    RED,
    stack_code,
    stack_name,
)
from sim.games.harmonies.stacking import is_legal_stack

DATA_DIRECTORY = Path(str(resources.files("sim.games.harmonies") / "data"))
DEFAULT_PATHS = {
    "bag": DATA_DIRECTORY / "bag.toml",
    "setup": DATA_DIRECTORY / "setup.toml",
    "boards": DATA_DIRECTORY / "boards.toml",
    "scoring": DATA_DIRECTORY / "scoring.toml",
    "animals": DATA_DIRECTORY / "animals.toml",
    "spirits": DATA_DIRECTORY / "spirits.toml",
}
SIDE_NAMES = ("A", "B")
WATER_KINDS = ("river", "islands")
BONUS_KINDS = (
    "field_groups",
    "water_groups",
    "building_groups",
    "trees",
    "mountains",
    "blue_tokens",
)
AXIAL_DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
MAX_PLAYERS = 4
_REPEAT = re.compile(r"^([a-z]+)\s*[×x]\s*(\d+)$")


@dataclass(frozen=True)
class PlayerCountSetup:
    """Central board and card row for one player count."""

    players: int
    central_spaces: int
    card_row: int
    solo_rules: bool


@dataclass(frozen=True)
class BoardShape:
    """One side of the personal board: its hexes (axial ``[q, r]`` rows) and its water scoring."""

    side: str
    water: str  # "river" or "islands"
    hexes: np.ndarray  # int16[H, 2]

    @property
    def hex_count(self) -> int:
        """Number of hexes on this side."""
        return int(self.hexes.shape[0])


@dataclass(frozen=True)
class HabitatCell:
    """One hex of a card's habitat: its offset from the cube's hex and the stack it needs."""

    dq: int
    dr: int
    requirement: int  # a stack code, or BUILDING_REQUIREMENT
    text: str  # as written in the file, for messages


@dataclass(frozen=True)
class Card:
    """An animal card (``points`` track, one cube per value) or a nature spirit (one cube and an
    end ``bonus``). ``habitat[0]`` is always the cube's hex at offset (0, 0)."""

    id: int
    name: str
    is_spirit: bool
    points: tuple[int, ...]  # animals: track bottom to top; spirits: empty
    habitat: tuple[HabitatCell, ...]
    bonus_kind: str  # spirits only, one of BONUS_KINDS; "" for animals
    bonus_points: tuple[int, ...]

    @property
    def cube_count(self) -> int:
        """Cubes the card holds when taken."""
        return 1 if self.is_spirit else len(self.points)


@dataclass(frozen=True)
class ScoringTables:
    """The landscape scoring tables of ``scoring.toml``."""

    tree_points: tuple[int, int, int]
    mountain_points: tuple[int, int, int]
    mountain_points_presets: dict[str, tuple[int, int, int]]
    field_group_points: int
    field_min_group: int
    building_points: int
    building_min_colours: int
    river_points: tuple[int, ...]
    river_points_per_extra_token: int
    island_points: int


@dataclass(frozen=True)
class GameData:
    """Everything the files say: bag, setup, board shapes, scoring tables and cards."""

    sources: dict[str, str]
    bag: np.ndarray  # int16[COLOUR_COUNT], tokens per colour code
    tokens_per_space: int
    card_limit: int
    end_when_empty_hexes_at_most: int
    player_counts: dict[int, PlayerCountSetup]
    sides: dict[str, BoardShape]
    scoring: ScoringTables
    animals: tuple[Card, ...]
    spirits: tuple[Card, ...]

    def card_by_id(self) -> dict[int, Card]:
        """All cards (animals and spirits) by id."""
        return {card.id: card for card in (*self.animals, *self.spirits)}


# --------------------------------------------------------------------------------------------
# Small validators: each raises a one-line InputError naming the file and the field.


def _read_toml(path: Path) -> dict:
    return read_user_toml(path, "data file")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _integer(table: dict, key: str, where: str, minimum: int, maximum: int | None = None) -> int:
    value = table.get(key)
    if not _is_int(value):
        raise InputError(f"{where}: field '{key}' must be an integer")
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f"{minimum}..{maximum}" if maximum is not None else f"{minimum} or more"
        raise InputError(f"{where}: field '{key}' is {value}, must be {bounds}")
    return value


def _integer_list(
    table: dict, key: str, where: str, minimum: int, length: int | None = None
) -> tuple[int, ...]:
    value = table.get(key)
    if not isinstance(value, list) or not value or not all(_is_int(v) for v in value):
        raise InputError(f"{where}: field '{key}' must be a non-empty list of integers")
    if length is not None and len(value) != length:
        raise InputError(f"{where}: field '{key}' must list exactly {length} integers")
    if any(v < minimum for v in value):
        raise InputError(f"{where}: field '{key}' has a value below {minimum}")
    return tuple(value)


def _no_unknown_fields(table: dict, known: set[str], where: str) -> None:
    unknown = set(table) - known
    if unknown:
        raise InputError(f"{where}: unknown field '{sorted(unknown)[0]}'")


# --------------------------------------------------------------------------------------------
# One parser per file.


def parse_bag(document: dict, source: str) -> np.ndarray:
    """Validate ``bag.toml``: the number of tokens of each colour."""
    _no_unknown_fields(document, {"bag"}, source)
    bag = document.get("bag")
    if not isinstance(bag, dict):
        raise InputError(f"{source}: field 'bag': expected a [bag] table")
    _no_unknown_fields(bag, set(COLOUR_NAMES), f"{source}: [bag]")
    counts = np.zeros(COLOUR_COUNT, dtype=np.int16)
    for colour, name in enumerate(COLOUR_NAMES):
        if name not in bag:
            raise InputError(f"{source}: field 'bag.{name}' is missing")
        counts[colour] = _integer(bag, name, f"{source}: [bag]", 0, 10_000)
    if counts.sum() == 0:
        raise InputError(f"{source}: field 'bag': the bag holds no token")
    return counts


def parse_setup(document: dict, source: str) -> tuple[int, int, int, dict[int, PlayerCountSetup]]:
    """Validate ``setup.toml``: tokens per space, card limit, end threshold, player counts."""
    _no_unknown_fields(
        document,
        {"tokens_per_space", "card_limit", "end_when_empty_hexes_at_most", "player_counts"},
        source,
    )
    tokens_per_space = _integer(document, "tokens_per_space", source, 1, 9)
    card_limit = _integer(document, "card_limit", source, 1, 30)
    end_threshold = _integer(document, "end_when_empty_hexes_at_most", source, 0)
    tables = document.get("player_counts")
    if not isinstance(tables, list) or not tables:
        raise InputError(f"{source}: field 'player_counts': expected [[player_counts]] tables")
    counts: dict[int, PlayerCountSetup] = {}
    for position, table in enumerate(tables):
        where = f"{source}: player_counts #{position + 1}"
        if not isinstance(table, dict):
            raise InputError(f"{where}: expected a table")
        _no_unknown_fields(table, {"players", "central_spaces", "card_row", "solo_rules"}, where)
        players = _integer(table, "players", where, 1, MAX_PLAYERS)
        if players in counts:
            raise InputError(f"{where}: field 'players': {players} is listed twice")
        solo_rules = table.get("solo_rules")
        if not isinstance(solo_rules, bool):
            raise InputError(f"{where}: field 'solo_rules' must be true or false")
        if solo_rules and players != 1:
            raise InputError(f"{where}: field 'solo_rules' is only for 1 player")
        central_spaces = _integer(table, "central_spaces", where, 1, 20)
        if not solo_rules and central_spaces < players + 1:
            # The last round after the bag runs dry needs one full space per remaining turn.
            raise InputError(
                f"{where}: field 'central_spaces' must be at least players + 1 ({players + 1})"
            )
        counts[players] = PlayerCountSetup(
            players=players,
            central_spaces=central_spaces,
            card_row=_integer(table, "card_row", where, 1, 20),
            solo_rules=solo_rules,
        )
    return tokens_per_space, card_limit, end_threshold, counts


def parse_boards(document: dict, source: str) -> dict[str, BoardShape]:
    """Validate ``boards.toml``: the hexes of side A and side B."""
    _no_unknown_fields(document, {"sides"}, source)
    sides = document.get("sides")
    if not isinstance(sides, dict):
        raise InputError(f"{source}: field 'sides': expected [sides.A] and [sides.B] tables")
    _no_unknown_fields(sides, set(SIDE_NAMES), f"{source}: [sides]")
    shapes = {}
    for side in SIDE_NAMES:
        where = f"{source}: [sides.{side}]"
        table = sides.get(side)
        if not isinstance(table, dict):
            raise InputError(f"{where}: missing table")
        _no_unknown_fields(table, {"water", "hexes"}, where)
        water = table.get("water")
        if water not in WATER_KINDS:
            raise InputError(f"{where}: field 'water' must be one of {', '.join(WATER_KINDS)}")
        hexes = table.get("hexes")
        if not isinstance(hexes, list) or not hexes:
            raise InputError(f"{where}: field 'hexes' must be a non-empty list of [q, r]")
        seen: set[tuple[int, int]] = set()
        for hex_position in hexes:
            if (
                not isinstance(hex_position, list)
                or len(hex_position) != 2
                or not all(_is_int(v) for v in hex_position)
                or not all(-50 <= v <= 50 for v in hex_position)
            ):
                raise InputError(
                    f"{where}: field 'hexes': {hex_position!r} is not [q, r] with |q|, |r| <= 50"
                )
            if tuple(hex_position) in seen:
                raise InputError(f"{where}: field 'hexes': {hex_position} is listed twice")
            seen.add(tuple(hex_position))
        if len(hexes) > 127:
            raise InputError(f"{where}: field 'hexes': at most 127 hexes")
        _require_connected(seen, f"{where}: field 'hexes'")
        shapes[side] = BoardShape(side=side, water=water, hexes=np.array(hexes, dtype=np.int16))
    return shapes


def _require_connected(cells: set[tuple[int, int]], where: str) -> None:
    start = next(iter(cells))
    reached = {start}
    frontier = [start]
    while frontier:
        q, r = frontier.pop()
        for dq, dr in AXIAL_DIRECTIONS:
            neighbour = (q + dq, r + dr)
            if neighbour in cells and neighbour not in reached:
                reached.add(neighbour)
                frontier.append(neighbour)
    if len(reached) != len(cells):
        stray = sorted(cells - reached)[0]
        raise InputError(f"{where}: the board is not connected ({list(stray)} is cut off)")


def parse_scoring(document: dict, source: str) -> ScoringTables:
    """Validate ``scoring.toml``: the landscape scoring tables."""
    _no_unknown_fields(
        document,
        {
            "tree_points",
            "mountain_points",
            "mountain_points_presets",
            "field_group_points",
            "field_min_group",
            "building_points",
            "building_min_colours",
            "river_points",
            "river_points_per_extra_token",
            "island_points",
        },
        source,
    )
    presets_table = document.get("mountain_points_presets", {})
    if not isinstance(presets_table, dict):
        raise InputError(f"{source}: field 'mountain_points_presets' must be a table")
    presets = {
        name: _integer_list(presets_table, name, f"{source}: [mountain_points_presets]", 0, 3)
        for name in presets_table
    }
    return ScoringTables(
        tree_points=_integer_list(document, "tree_points", source, 0, 3),
        mountain_points=_integer_list(document, "mountain_points", source, 0, 3),
        mountain_points_presets=presets,
        field_group_points=_integer(document, "field_group_points", source, 0),
        field_min_group=_integer(document, "field_min_group", source, 1),
        building_points=_integer(document, "building_points", source, 0),
        building_min_colours=_integer(document, "building_min_colours", source, 0, 6),
        river_points=_integer_list(document, "river_points", source, 0),
        river_points_per_extra_token=_integer(document, "river_points_per_extra_token", source, 0),
        island_points=_integer(document, "island_points", source, 0),
    )


def parse_stack_requirement(text: object, where: str) -> int:
    """Turn a habitat stack text ("brown+green", "gray×2", "BLD", "blue") into a requirement
    code: a stack code, or ``BUILDING_REQUIREMENT``."""
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where}: field 'stack' must be a text such as \"brown+green\"")
    if text.strip() == "BLD":
        return BUILDING_REQUIREMENT
    colours: list[int] = []
    for part in text.split("+"):
        part = part.strip()
        repeat = _REPEAT.match(part)
        name, count = (repeat.group(1), int(repeat.group(2))) if repeat else (part, 1)
        if name not in COLOUR_CODES:
            raise InputError(
                f"{where}: field 'stack': {name!r} in {text!r} is not one of "
                f"{', '.join(COLOUR_NAMES)} (or BLD)"
            )
        colours.extend([COLOUR_CODES[name]] * count)
    if not is_legal_stack(colours):
        raise InputError(f"{where}: field 'stack': {text!r} can never be built")
    if colours[-1] == RED and len(colours) == 2:
        # A two-high red stack is a building; say BLD so the base does not matter.
        raise InputError(f"{where}: field 'stack': write a building as \"BLD\", not {text!r}")
    return stack_code(colours)


def _parse_habitat(table: dict, where: str) -> tuple[HabitatCell, ...]:
    habitat = table.get("habitat")
    if not isinstance(habitat, list) or not habitat:
        raise InputError(f"{where}: field 'habitat' must be a non-empty list of {{at, stack}}")
    cells: list[HabitatCell] = []
    offsets: set[tuple[int, int]] = set()
    for position, cell in enumerate(habitat):
        cell_where = f"{where}: habitat #{position + 1}"
        if not isinstance(cell, dict):
            raise InputError(f"{cell_where}: expected {{ at = [q, r], stack = \"...\" }}")
        _no_unknown_fields(cell, {"at", "stack"}, cell_where)
        at = cell.get("at")
        if (
            not isinstance(at, list)
            or len(at) != 2
            or not all(_is_int(v) and -6 <= v <= 6 for v in at)
        ):
            raise InputError(f"{cell_where}: field 'at' must be [q, r] with |q|, |r| <= 6")
        if tuple(at) in offsets:
            raise InputError(f"{cell_where}: field 'at': {at} is listed twice")
        offsets.add(tuple(at))
        requirement = parse_stack_requirement(cell.get("stack"), cell_where)
        cells.append(HabitatCell(at[0], at[1], requirement, cell["stack"]))
    if (0, 0) not in offsets:
        raise InputError(f"{where}: field 'habitat': no cell at [0, 0] (the cube's hex)")
    if len(cells) > 7:
        raise InputError(f"{where}: field 'habitat': at most 7 cells")
    # The cube's hex first: the engine tests it before turning the rest of the pattern.
    cells.sort(key=lambda c: (c.dq, c.dr) != (0, 0))
    return tuple(cells)


def parse_cards(document: dict, source: str, spirits: bool) -> tuple[Card, ...]:
    """Validate ``animals.toml`` (``spirits=False``) or ``spirits.toml`` (``spirits=True``)."""
    _no_unknown_fields(document, {"cards"}, source)
    tables = document.get("cards")
    if not isinstance(tables, list) or (not tables and not spirits):
        raise InputError(f"{source}: field 'cards': expected [[cards]] tables")
    known = {"id", "name", "habitat"} | ({"bonus", "rule"} if spirits else {"points"})
    cards: list[Card] = []
    ids: set[int] = set()
    for position, table in enumerate(tables):
        if not isinstance(table, dict):
            raise InputError(f"{source}: card #{position + 1}: expected a table")
        card_id = table.get("id")
        if not _is_int(card_id) or not 1 <= card_id <= 9999:
            raise InputError(f"{source}: card #{position + 1}: field 'id' must be 1..9999")
        where = f"{source}: card {card_id}"
        if card_id in ids:
            raise InputError(f"{where}: field 'id': duplicate id")
        ids.add(card_id)
        _no_unknown_fields(table, known, where)
        name = table.get("name", f"nature spirit {card_id}" if spirits else None)
        if not isinstance(name, str) or not name:
            raise InputError(f"{where}: field 'name' must be a non-empty text")
        habitat = _parse_habitat(table, where)
        if spirits:
            if not isinstance(table.get("rule", ""), str):
                raise InputError(f"{where}: field 'rule' must be a text")
            bonus = table.get("bonus")
            if not isinstance(bonus, dict):
                raise InputError(f"{where}: field 'bonus' must be {{ count = ..., points = ... }}")
            _no_unknown_fields(bonus, {"count", "points"}, f"{where}: bonus")
            if bonus.get("count") not in BONUS_KINDS:
                raise InputError(
                    f"{where}: field 'bonus.count' must be one of {', '.join(BONUS_KINDS)}"
                )
            bonus_points = _integer_list(bonus, "points", f"{where}: bonus", 0)
            if len(bonus_points) > 8:
                raise InputError(f"{where}: field 'bonus.points': at most 8 values")
            cards.append(Card(card_id, name, True, (), habitat, bonus["count"], bonus_points))
        else:
            points = _integer_list(table, "points", where, 0)
            if len(points) > 8:
                raise InputError(f"{where}: field 'points': at most 8 values (cubes)")
            cards.append(Card(card_id, name, False, points, habitat, "", ()))
    return tuple(cards)


def load_game_data(
    bag: str | Path | None = None,
    setup: str | Path | None = None,
    boards: str | Path | None = None,
    scoring: str | Path | None = None,
    animals: str | Path | None = None,
    spirits: str | Path | None = None,
) -> GameData:
    """Load and validate the Harmonies data files; ``None`` for a file means the shipped one.

    Raises :class:`sim.errors.InputError` (one line: file, field, reason) on any error."""
    given = {
        "bag": bag,
        "setup": setup,
        "boards": boards,
        "scoring": scoring,
        "animals": animals,
        "spirits": spirits,
    }
    paths = {key: Path(value) if value is not None else DEFAULT_PATHS[key] for key, value in
             given.items()}
    documents = {key: _read_toml(path) for key, path in paths.items()}
    sources = {key: str(path) for key, path in paths.items()}
    tokens_per_space, card_limit, end_threshold, player_counts = parse_setup(
        documents["setup"], sources["setup"]
    )
    animal_cards = parse_cards(documents["animals"], sources["animals"], spirits=False)
    spirit_cards = parse_cards(documents["spirits"], sources["spirits"], spirits=True)
    animal_ids = {card.id for card in animal_cards}
    for card in spirit_cards:
        if card.id in animal_ids:
            raise InputError(
                f"{sources['spirits']}: card {card.id}: field 'id' is also an animal card's id"
            )
    return GameData(
        sources=sources,
        bag=parse_bag(documents["bag"], sources["bag"]),
        tokens_per_space=tokens_per_space,
        card_limit=card_limit,
        end_when_empty_hexes_at_most=end_threshold,
        player_counts=player_counts,
        sides=parse_boards(documents["boards"], sources["boards"]),
        scoring=parse_scoring(documents["scoring"], sources["scoring"]),
        animals=animal_cards,
        spirits=spirit_cards,
    )


def describe_requirement(requirement: int) -> str:
    """A habitat requirement code written back as text (for messages and docs)."""
    if requirement == BUILDING_REQUIREMENT:
        return "BLD"
    from sim.games.harmonies.colours import stack_from_code

    return stack_name(stack_from_code(requirement))


DATA_FILES = tuple(f"{name}.toml" for name in DEFAULT_PATHS)


def load_data_folder(path: str | None) -> GameData:
    """The shipped data (``None``) or a folder holding any of the data files (bag.toml,
    setup.toml, boards.toml, scoring.toml, animals.toml, spirits.toml): each file present
    replaces the shipped one. One-line InputError for a bad folder or file."""
    if path is None:
        return load_game_data()
    folder = Path(path)
    if not folder.exists():
        raise InputError(f"{folder}: data folder not found")
    if not folder.is_dir():
        raise InputError(f"{folder}: expected a folder holding Harmonies data files "
                         f"({', '.join(DATA_FILES)})")
    strays = sorted(p.name for p in folder.glob("*.toml") if p.name not in DATA_FILES)
    if strays:
        raise InputError(f"{folder / strays[0]}: not a Harmonies data file (known: "
                         f"{', '.join(DATA_FILES)})")
    given = {name: folder / f"{name}.toml" for name in DEFAULT_PATHS
             if (folder / f"{name}.toml").is_file()}
    return load_game_data(**given)
