"""sim: statistical simulation of tile-laying board games for balance work."""

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"


def _numba_cache_dir() -> Path:
    """A numba cache folder keyed by the hash of every source file of ``sim`` and
    ``strategies``.

    numba's on-disk cache checks only the timestamp of the file that defines a compiled
    function, not of the files it calls: after an edit to, say, ``rules.py`` the game loop in
    ``sim/loops/<game>/loop.py`` would load stale machine code. A folder per source hash makes
    any edit a fresh cache, while an unchanged checkout keeps loading its kernels instantly."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for package in ("sim", "strategies"):
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "sim-numba" / digest.hexdigest()[:16]


# Must happen before numba is imported anywhere; a user's own NUMBA_CACHE_DIR wins.
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(_numba_cache_dir())
