"""The layers, read from the code's own imports (``ast``, every import, also those inside
functions): rules and state (``sim/games/<game>/``) import no strategy and no game loop;
strategies (``strategies/<game>/``) import only their game's rules and the shared strategy
model; only the game loops (``sim/loops/<game>/``) import both; nothing outside a game's folders
imports a game's modules; and no module imports itself through a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "strategies")
GAME_PACKAGES = ("legendary_forests", "harmonies")


def module_files() -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = module_files()


def imports_of(name: str) -> set[str]:
    """The project modules ``name`` imports (``from package import submodule`` counts as the
    submodule, so a package importing its own modules is no cycle)."""
    path = MODULES[name]
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                targets.add(submodule if submodule in MODULES else source)
    return {target for target in targets if target.split(".")[0] in PACKAGES}


GRAPH = {name: imports_of(name) for name in MODULES}


def reachable(start: str) -> set[str]:
    seen, stack = set(), [start]
    while stack:
        for target in GRAPH.get(stack.pop(), ()):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def test_every_import_resolves_to_a_module_of_the_project():
    unknown = {(name, target) for name, targets in GRAPH.items() for target in targets
               if target not in MODULES}
    assert not unknown


def test_no_module_under_sim_games_imports_strategies_or_a_game_loop():
    for name in MODULES:
        if name.startswith("sim.games"):
            bad = {t for t in reachable(name) if t.startswith(("strategies", "sim.loops"))}
            assert not bad, f"{name} reaches {sorted(bad)}"


def test_strategies_import_only_their_game_rules_and_the_shared_model():
    shared = {"sim.errors", "sim.jit", "sim.rng", "sim.games.base", "sim.games.strategy"}
    for name in MODULES:
        if not name.startswith("strategies."):
            continue
        game = name.split(".")[1]
        allowed = (f"sim.games.{game}", f"strategies.{game}")
        for target in GRAPH[name]:
            assert target in shared or target.startswith(allowed), f"{name} imports {target}"


def test_only_the_game_loops_import_strategies():
    for name, targets in GRAPH.items():
        if name.startswith(("strategies", "sim.loops")):
            continue
        assert not {t for t in targets if t.startswith("strategies")}, name


def test_nothing_outside_a_games_folders_imports_its_modules():
    for name, targets in GRAPH.items():
        for game in GAME_PACKAGES:
            folders = (f"sim.games.{game}", f"sim.loops.{game}", f"strategies.{game}")
            if name.startswith(folders):
                continue
            assert not {t for t in targets if t.startswith(folders)}, f"{name} imports {game}"


def test_no_import_cycles():
    for name in MODULES:
        assert name not in reachable(name), f"{name} imports itself through a cycle"


def test_the_graph_sees_the_layers_it_checks():
    # The checks above would pass on an empty graph; make sure they see the real imports.
    assert "sim.games.legendary_forests.rules" in GRAPH["sim.loops.legendary_forests.loop"]
    assert "sim.loops.legendary_forests.dispatch" in GRAPH["sim.loops.legendary_forests.loop"]
    assert any(t.startswith("strategies.harmonies") for t in GRAPH["sim.loops.harmonies.dispatch"])
    assert "sim.games.registry" in GRAPH["sim.runner.shards"]


def test_the_shared_file_reader_sits_below_the_games():
    # The games' loaders read users' files through sim.files: it must import nothing above them.
    assert GRAPH["sim.files"] <= {"sim.errors"}
    assert GRAPH["sim.errors"] == set()
    for loader in ("sim.games.legendary_forests.data", "sim.games.legendary_forests.position",
                   "sim.games.harmonies.data", "sim.games.harmonies.position", "sim.config"):
        assert "sim.files" in GRAPH[loader], loader


def test_asking_for_one_game_loads_no_other_games_modules():
    # A run's worker processes ask the registry for their batch's game only: they must not pay
    # for importing (and, in a fresh process, loading the kernels of) every other game.
    import subprocess
    import sys
    from importlib.metadata import entry_points

    from sim.games.registry import ENTRY_POINT_GROUP

    entries = {entry.name: entry.module for entry in entry_points(group=ENTRY_POINT_GROUP)}
    assert len(entries) >= 2, entries
    for name in entries:
        # A game's modules: every module with its loop's package name among its parts
        # (``sim.games.<package>``, ``sim.loops.<package>``, ``strategies.<package>``).
        others = sorted({other.rsplit(".", 2)[-2] for other_name, other in entries.items()
                         if other_name != name})
        probe = ("import sys; from sim.games.registry import get_game; "
                 f"game = get_game({name!r}); assert game.name == {name!r}; "
                 f"print(','.join(m for m in sys.modules if set(m.split('.')) & set({others!r})))")
        loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                check=True).stdout.strip()
        assert loaded == "", f"get_game({name!r}) imported {loaded}"


# The floors of the shared rooms, lowest first: a room imports only rooms on lower floors (or
# its own modules). A game's rooms sit with their kind: ``sim.games.<game>`` with the rules,
# ``strategies.<game>`` with the strategies, ``sim.loops.<game>`` with the loops.
FLOORS = (
    ("sim", "sim.errors", "sim.jit", "sim.seating", "sim.seeding", "sim.signals"),
    ("sim.files", "sim.rng", "sim.distributed"),
    ("sim.games", "sim.store"),
    ("sim.games.<game>", "sim.strategy_spec", "sim.fields", "sim.compiling"),
    ("strategies", "strategies.<game>", "sim.search", "sim.config"),
    ("sim.loops",),
    ("sim.loops.<game>",),
    ("sim.stats", "sim.pool"),
    ("sim.report", "sim.profile", "sim.runner"),
    ("sim.tournament", "sim.sweep"),
    ("sim.ladder", "sim.league", "sim.tune_rules", "sim.tune_strategy", "sim.bench_suite"),
    ("sim.cli",),
    ("sim.__main__",),
)
# (importing module, imported module) -> why it still runs up a floor. The list only shrinks:
# an entry that no longer occurs fails the test (delete it).
UPWARD_IMPORTS_NOT_YET_MOVED: dict[tuple[str, str], str] = {}


def room_of(name: str) -> str:
    """The room (floor entry) of a module, read from its folder: a game's folder as
    ``<kind>.<game>``, a shared package (``sim.stats``), or a top-level module itself."""
    folders = MODULES[name].relative_to(ROOT).parts[:-1]
    if folders[:1] == ("strategies",) and len(folders) > 1:
        return "strategies.<game>"
    if folders[:2] in (("sim", "games"), ("sim", "loops")) and len(folders) > 2:
        return f"sim.{folders[1]}.<game>"
    if len(folders) > 1:
        return ".".join(folders[:2])
    return name


def floor_of(room: str) -> int:
    return next(number for number, rooms in enumerate(FLOORS) if room in rooms)


def upward_imports() -> set[tuple[str, str]]:
    """(importing module, imported module) for every import that reaches a higher floor."""
    return {(name, target) for name, targets in GRAPH.items() for target in targets
            if room_of(target) != room_of(name)
            and floor_of(room_of(target)) >= floor_of(room_of(name))}


def test_every_room_has_a_floor():
    missing = sorted({room_of(name) for name in MODULES} - {r for rooms in FLOORS for r in rooms})
    assert not missing, f"rooms without a floor (add them to FLOORS): {missing}"


def test_no_import_runs_up_a_floor_beyond_the_allow_list():
    found = upward_imports()
    assert not found - UPWARD_IMPORTS_NOT_YET_MOVED.keys(), sorted(
        found - UPWARD_IMPORTS_NOT_YET_MOVED.keys())
    gone = sorted(UPWARD_IMPORTS_NOT_YET_MOVED.keys() - found)
    assert not gone, f"allow-list entries that no longer occur (delete them): {gone}"


def test_a_planted_upward_import_is_reported(monkeypatch):
    monkeypatch.setitem(GRAPH, "sim.stats.scores", GRAPH["sim.stats.scores"] | {"sim.runner"})
    assert ("sim.stats.scores", "sim.runner") in upward_imports()
