"""sim: statistical simulation of tile-laying board games for balance work."""

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"


def _numba_cache_dir() -> Path:
    """A numba cache folder keyed by the hash of every source file compiled code can reach:
    the games, the loops, the search, the strategies, the random generator and seeding, and
    ``sim.jit`` (how compiled code is compiled).

    numba's on-disk cache checks only the timestamp of the file that defines a compiled
    function, not of the files it calls: after an edit to, say, ``rules.py`` the game loop in
    ``sim/loops/<game>/loop.py`` would load stale machine code. A folder per source hash makes
    any such edit a fresh cache, while an edit to the pure-Python layers above the loops (CLI,
    runner, statistics, reports) keeps loading the kernels instantly."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    sources = [root / "sim" / name
               for name in ("__init__.py", "jit.py", "rng.py", "seeding.py")]
    for folder in ("sim/games", "sim/loops", "sim/search", "strategies"):
        sources.extend((root / folder).rglob("*.py"))
    for path in sorted(sources):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    for name in COMPILE_SETTINGS:
        digest.update(f"{name}={os.environ.get(name, '')}".encode())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "sim-numba" / digest.hexdigest()[:16]


# How LLVM optimises compiled code, set before numba is imported (a user's own values win) and
# part of the cache folder's key. Its loop and SLP vectorizers cost 15% of a cold compile and
# buy nothing measurable on this branchy code (one shipped game's greedy 6% slower without them,
# the other's 3% faster; random and planner the same within noise); optimisation level 2
# instead of 3 compiles the larger game 24% faster (the other the same) at the same speed.
COMPILE_SETTINGS = {"NUMBA_LOOP_VECTORIZE": "0", "NUMBA_SLP_VECTORIZE": "0", "NUMBA_OPT": "2"}
for _name, _value in COMPILE_SETTINGS.items():
    os.environ.setdefault(_name, _value)

# Must happen before numba is imported anywhere; a user's own NUMBA_CACHE_DIR wins.
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(_numba_cache_dir())
