"""Pick Two, a toy two-player tile game that lives only under ``tests/``.

It exists to prove the architecture: a game added by adding files, with no edit to shared code.
It has the same layers and file names as the shipped games:

* ``rules``       rules and state (flat arrays, pure step functions), data file loading; no
                  strategy is known here
* ``strategies``  the ``Strategy`` base class, the built-in strategies (compiled) and their
                  registry; imports only ``rules``
* ``decisions``   the game on the decision interface (``sim.games.decisions``) and its
                  ``search`` strategy (``sim.search.ismcts``, written once for every game)
* ``dispatch``    the built-in strategies dispatched by id inside compiled code
* ``loop``        the compiled game loop and ``compiled_variant`` for compiled user strategies
* ``driver``      the game driven from Python with the loop's own code (Python strategies)
* ``game``        the ``Game`` the registry holds (``tests/conftest.py`` registers it)

The rules: a deck of numbered tiles (``data/deck.toml``) is shuffled. Each round two tiles are
revealed; the round's chooser (seat 0 in even rounds, seat 1 in odd ones) takes one and the
other seat gets the other. After ``rounds`` rounds each seat scores the sum of its tiles plus
``pair_bonus`` for every pair of equal tiles it holds. The deck order is hidden.
"""
