"""Legendary Forests rules and state. No strategy is known here; the strategies are in
``strategies/legendary_forests/`` and the game loop that plays them, with the registered
``Game``, in ``sim/loops/legendary_forests/``.

Module map (the modules every game has are marked *):

* ``data`` *         the tile-set format and its validation
* ``rules``          every rule as a compiled step function over the table's arrays (the state)
* ``observation``    what a Python strategy is shown: public information only
* ``results`` *      the game log, per-seat counters and what a finished game records
* ``position`` *     the planet format, validation and the from-scratch reference scorer
* ``convert``        planets <-> the engine's table
* ``drawing`` *      ASCII drawings of a planet
"""

# The data option names one tile-set TOML file (``Game.data_files``: what a data folder may
# hold, were one given; the game reads a single file).
DATA_FILES = ("*.toml",)
