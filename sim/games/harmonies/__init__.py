"""Harmonies rules and state: an exact, compiled engine (data, rules, scoring). No strategy is
known here; the strategies are in ``strategies/harmonies/`` and the game loop that plays them,
with the registered ``Game``, in ``sim/loops/harmonies/``.

Module map (one concern each; the modules every game has are marked *):

* ``data`` *      the TOML data files (bag, set-up, board shapes, scoring tables, cards) -> values
* ``options``     rules options (players, side, mountain_points, spirits)
* ``colours``     token colour codes and stack codes
* ``tables``      data + options -> read-only arrays for compiled code (board geometry, habitats)
* ``state``       the game state arrays (public / hidden), the deal, bag and deck draws
* ``stacking``    which token may go on which stack
* ``habitats``    where a card's next cube may go
* ``turn``        the actions of a turn, end-of-turn refills and end triggers
* ``scoring``     final scoring per category, compiled
* ``gains``       immediate score gains of a token or a cube (for the greedy policy)
* ``results`` *   what a finished game records (ranks, wins, counts) and the state audit
* ``position`` *  the board JSON format and the from-scratch reference scorer
* ``drawing`` *   text drawings of a board
"""

# The files a Harmonies data folder may hold (``Game.data_files``): each replaces the shipped
# file of its name (``data.load_data_folder``); only these are read and copied into a batch.
DATA_FOLDER_FILES = ("bag.toml", "setup.toml", "boards.toml", "scoring.toml", "animals.toml",
                     "spirits.toml")
