"""The ``sim`` command (and ``python -m sim``): the worker pool a batch command will use is
started first (``sim.pool``), so that its processes import while this one loads the command
line."""

import sys


def main() -> None:
    """Entry point of the ``sim`` command."""
    from sim.pool import start_pool_for_arguments

    start_pool_for_arguments(sys.argv[1:])
    from sim.cli import app

    app()


if __name__ == "__main__":
    main()
