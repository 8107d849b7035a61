"""Shared helpers for the Legendary Forests tests: tiny hand-written tile sets."""

import tomllib

import pytest

from sim.games.legendary_forests.data import TileSet, parse_tileset


@pytest.fixture
def tileset_from_toml():
    """A function that parses tile-set TOML text into a TileSet (source name ``test.toml``)."""

    def build(text: str) -> TileSet:
        return parse_tileset(tomllib.loads(text), "test.toml")

    return build
