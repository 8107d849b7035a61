"""``sim`` that pauses between the files of every shard it writes, for crash tests run in a
subprocess: ``python -m tests.reliability.sim_pausing_between_shard_files MARKER ARGS...`` runs
``sim ARGS...`` (the normal entry point, ``sim.__main__.main``) with a hook
(``sim.runner.set_between_shard_files``) that, once a shard's result file is written and before
its notable-games file and its manifest record, creates the file MARKER and waits
``PAUSE_SECONDS``: the test sees MARKER and kills the run exactly there."""

from __future__ import annotations

import sys
import time
from pathlib import Path

# Long enough for a test to see the marker and kill the run; a run nobody kills goes on after.
PAUSE_SECONDS = 60


def pausing_at(marker: Path):
    """The hook: create ``marker``, then wait ``PAUSE_SECONDS``."""

    def pause(result_path: Path) -> None:
        marker.touch()
        time.sleep(PAUSE_SECONDS)

    return pause


def main() -> None:
    """Install the pause at the marker given first, then run ``sim`` with the other arguments."""
    from sim.__main__ import main as sim_main
    from sim.runner import set_between_shard_files

    marker, *arguments = sys.argv[1:]
    set_between_shard_files(pausing_at(Path(marker)))
    sys.argv = [sys.argv[0], *arguments]
    sim_main()


if __name__ == "__main__":
    main()
