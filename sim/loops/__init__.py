"""The game loops: the layer above a game's rules and its strategies.

``sim/loops/<game>/`` holds, for every game, the same four modules:

* ``dispatch``  the built-in strategies, dispatched by id inside compiled code
* ``loop``      the compiled game loop (a shard of games in one call) and ``compiled_variant``
* ``driver``    the game driven from Python, one step at a time, with the loop's own code
* ``game``      the registered ``Game`` (``sim.games.base``) the runner and the CLI talk to

It is the only layer that imports both ``sim.games.<game>`` (rules and state) and
``strategies.<game>``: numba must see the dispatcher when it compiles the loop to keep one
on-disk cached kernel for every lineup of built-ins.
"""
