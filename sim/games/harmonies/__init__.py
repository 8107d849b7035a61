"""Harmonies: an exact, compiled engine (rules, data, scoring) behind the ``Game`` interface.

Module map (one concern each):

* ``colours``   token colour codes and stack codes
* ``data``      the TOML data files (bag, set-up, board shapes, scoring tables, cards) -> values
* ``rules``     rules options (players, side, mountain_points, spirits)
* ``tables``    data + options -> read-only arrays for compiled code (board geometry, habitats)
* ``state``     the game state arrays (public / hidden), the deal, bag and deck draws
* ``stacking``  which token may go on which stack
* ``habitats``  where a card's next cube may go
* ``turn``      the actions of a turn, end-of-turn refills and end triggers
* ``scoring``   final scoring per category, compiled
* ``gains``     immediate score gains of a token or a cube (for the greedy policy)
* ``recording`` one game turn by turn with a log of every move (for ``sim play``)
* ``drawing``   text drawings of a board
* ``game_interface``  the ``Harmonies`` game of the registry (``sim`` commands, the runner)

The strategies live in ``strategies/harmonies/`` and are called by policy id.
* ``game``      whole games: ``play_game`` and the batch ``play_games``
* ``board``     the Board JSON format and the from-scratch reference scorer
"""
