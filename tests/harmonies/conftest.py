"""Shared fixtures for the Harmonies tests: the shipped data, compiled tables per side and small
helpers to write boards by hand."""

from __future__ import annotations

import pytest

from sim.games.harmonies.colours import COLOUR_CODES
from sim.games.harmonies.data import load_game_data
from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.position import Board, score_board, score_board_compiled
from sim.games.harmonies.tables import build_tables


@pytest.fixture(scope="session")
def data():
    """The shipped data files."""
    return load_game_data()


@pytest.fixture(scope="session")
def tables_a(data):
    """Compiled tables for side A, 4 players, default options."""
    return build_tables(data, HarmoniesRules(players=4, side="A"))


@pytest.fixture(scope="session")
def tables_b(data):
    """Compiled tables for side B, 4 players, default options."""
    return build_tables(data, HarmoniesRules(players=4, side="B"))


def make_board(side: str, stacks: dict, cubes=(), cards=()) -> Board:
    """A board from ``{(q, r): "brown+green"}`` (colour names joined by '+')."""
    board = Board(side=side)
    for position, text in stacks.items():
        board.stacks[position] = tuple(COLOUR_CODES[name] for name in text.split("+"))
    board.cubes = set(cubes)
    board.cards = list(cards)
    return board


def scores(board: Board, data, tables, rules: HarmoniesRules | None = None) -> dict:
    """Score with the reference scorer, check the compiled engine agrees, return the scores."""
    reference = score_board(board, data, rules)
    compiled = score_board_compiled(board, tables, data)
    assert compiled == reference, f"compiled {compiled} != reference {reference}"
    return reference
