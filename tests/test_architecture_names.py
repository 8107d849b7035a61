"""Game knowledge lives in the game's rooms: no shared module names a registered game or one of
its own columns.

A shared module is every ``.py`` under ``sim/`` outside ``sim/games/<game>/`` and
``sim/loops/<game>/``, and under ``strategies/`` outside ``strategies/<game>/``. A game's words
are its ``name``, its ``title``, its folder name (case-insensitive) and its declared columns
(``Game.column_docs()`` keys) that not every registered game shares. The whole source counts,
comments and docstrings too: a reader looking for a game's knowledge finds it in the game's rooms.

A column name that is one plain word ("turns", "zones") is also ordinary English, so for it only
its written-as-code forms count: quoted (``"turns"``, ``'turns'``), in double backticks, or as a
keyword argument (``turns=``). Underscored names (``light_tiles_drawn``) count wherever they stand.

The places not yet moved are in one allow-list, ``NOT_YET_MOVED``, each with its reason; the test
fails on any occurrence not listed and on any listed entry that no longer occurs, so the list
only shrinks.
"""

from __future__ import annotations

import re
from importlib.metadata import entry_points
from pathlib import Path

from sim.games.base import Game
from sim.games.registry import ENTRY_POINT_GROUP, get_game

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "strategies")


def games() -> dict[str, Game]:
    """The games installed through the ``sim.games`` entry points, by name (the toy game that
    tests register at run time lives under ``tests/``, outside the packages checked here)."""
    return {entry.name: get_game(entry.name) for entry in entry_points(group=ENTRY_POINT_GROUP)}


def game_folder(game: Game) -> str:
    """The folder (package) name of a game's rooms, read from its Game class's module
    (``sim.loops.<folder>.game`` for this project's games)."""
    parts = type(game).__module__.split(".")
    return parts[2] if parts[:2] in (["sim", "loops"], ["sim", "games"]) else parts[0]


def game_folders() -> set[str]:
    """The folder names of every installed game."""
    return {game_folder(game) for game in games().values()}


NAME, COLUMN = "name", "column"  # the two kinds of game word, found differently


def game_words() -> dict[str, tuple[str, str]]:
    """Every installed game's words -> (the game's name, NAME or COLUMN): its name, title and
    folder name (lower-cased), and the columns particular to it (not every game has them)."""
    registered = games()
    shared_columns = set.intersection(*(set(game.column_docs()) for game in registered.values()))
    words: dict[str, tuple[str, str]] = {}
    for name, game in registered.items():
        for column in set(game.column_docs()) - shared_columns:
            words[column] = (name, COLUMN)
    for name, game in registered.items():
        # One word per spelling: "legendary-forests", "Legendary Forests" and "legendary_forests"
        # are found by the same pattern (any separator), so they are one word.
        for word in (name, game.title, game_folder(game)):
            words[" ".join(re.split(r"[\s_-]+", word.lower()))] = (name, NAME)
    return words


def word_pattern(word: str, kind: str) -> re.Pattern:
    """How a game word is found in a source text (see the module docstring)."""
    edge_before, edge_after = r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])"
    if kind == NAME:
        # Any case, any separator between its parts ("Legendary Forests" across a line break).
        separated = r"[\s_-]+".join(re.escape(part) for part in re.split(r"[\s_-]+", word))
        return re.compile(edge_before + separated + edge_after, re.IGNORECASE)
    if "_" in word:
        return re.compile(edge_before + re.escape(word) + edge_after)
    # A one-word column is also English: only where it is written as code.
    return re.compile(rf"""(["'`]){re.escape(word)}\1|{edge_before}{re.escape(word)}=""")


def shared_module_files() -> dict[str, Path]:
    """Every shared module, by its path relative to the project root."""
    folders = game_folders()
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            inside_game = (parts[0] == "sim" and len(parts) > 3
                           and parts[1] in ("games", "loops") and parts[2] in folders) or (
                parts[0] == "strategies" and len(parts) > 2 and parts[1] in folders)
            if not inside_game:
                found[path.relative_to(ROOT).as_posix()] = path
    return found


def game_knowledge(sources: dict[str, str]) -> set[tuple[str, str]]:
    """(module, word) for every game word that occurs in the source text of a module
    (``sources``: module path -> its text)."""
    patterns = {word: word_pattern(word, kind) for word, (_, kind) in game_words().items()}
    return {(module, word) for module, text in sources.items()
            for word, pattern in patterns.items() if pattern.search(text)}


# (module, word) -> why it is still there. The list only shrinks: an entry that no longer
# occurs fails the test too (delete it).
NOT_YET_MOVED: dict[tuple[str, str], str] = {
}


def _sources(files: dict[str, Path]) -> dict[str, str]:
    return {module: path.read_text(encoding="utf-8") for module, path in files.items()}


def test_no_shared_module_names_a_game_or_its_columns_beyond_the_allow_list():
    found = game_knowledge(_sources(shared_module_files()))
    unlisted = sorted(found - NOT_YET_MOVED.keys())
    gone = sorted(NOT_YET_MOVED.keys() - found)
    assert not unlisted, ("game knowledge in shared modules (move it to the game's rooms): "
                          f"{unlisted}")
    assert not gone, f"allow-list entries that no longer occur (delete them): {gone}"


def test_a_planted_column_name_in_a_shared_module_is_reported(tmp_path):
    column = sorted(word for word, (_, kind) in game_words().items()
                    if kind == COLUMN and "_" in word)[0]
    original = ROOT / "sim" / "stats" / "scores.py"
    planted = tmp_path / "scores.py"
    planted.write_text(original.read_text(encoding="utf-8") + f"\n# see {column}\n",
                       encoding="utf-8")
    assert ("sim/stats/scores.py", column) not in game_knowledge(
        {"sim/stats/scores.py": original.read_text(encoding="utf-8")})
    assert ("sim/stats/scores.py", column) in game_knowledge(
        {"sim/stats/scores.py": planted.read_text(encoding="utf-8")})


def test_a_planted_game_title_and_a_quoted_plain_word_column_are_reported():
    title = next(iter(games().values())).title
    assert game_knowledge({"m.py": f'"""Works for\n{title}."""\n'}) == {("m.py", title.lower())}
    plain = sorted(word for word, (_, kind) in game_words().items()
                   if kind == COLUMN and "_" not in word)
    if plain:
        word = plain[0]
        assert game_knowledge({"m.py": f"# the {word} of it\n"}) == set()  # English prose
        assert game_knowledge({"m.py": f"frame['{word}']\n"}) == {("m.py", word)}


def test_the_shared_modules_are_found_and_the_games_rooms_left_out():
    files = shared_module_files()
    assert "sim/stats/scores.py" in files and "sim/report/build.py" in files
    for folder in game_folders():
        assert not any(f"/{folder}/" in module for module in files), folder
