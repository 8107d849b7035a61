"""Shared fixtures for the strategy tests: the game, the shipped tile set, default rules."""

import pytest

from sim.games.registry import get_game


@pytest.fixture(scope="session")
def game():
    """The Legendary Forests ``Game``."""
    return get_game("legendary-forests")


@pytest.fixture(scope="session")
def tileset(game):
    """The shipped tile set."""
    return game.load_data(None)


@pytest.fixture(scope="session")
def rules(game):
    """Default rules parameters."""
    return game.default_rules()
