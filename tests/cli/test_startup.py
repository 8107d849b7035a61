"""Every command imports every command module (typer lists them all): the heavy libraries that
only some commands use load inside those commands, so ``sim --help`` or ``sim run`` does not
wait for them."""

import subprocess
import sys

HEAVY = ("scipy.stats", "statsmodels", "optuna", "matplotlib")


def test_the_command_line_loads_no_statistics_optimiser_or_plotting_library():
    probe = ("import sys, sim.cli; "
             f"print(','.join(name for name in {HEAVY!r} if name in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == ""
