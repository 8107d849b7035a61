"""Strategies written once for every game, on the decision interface of ``sim.games.decisions``
(``ismcts``: an information-set Monte Carlo tree search)."""
