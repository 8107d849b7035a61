"""``random``: uniform among the legal choices at every decision point.

The card options include "no card", the cube options include "stop"; the central space is
uniform among the full ones; the next token is uniform among those with a legal hex, and its
hex uniform among the legal ones. In solo it discards a uniform face-up card or none. A
baseline: it shows what the rules alone give and checks the engine on odd positions.
"""

from __future__ import annotations

from sim.games.harmonies.habitats import list_cube_placements
from sim.games.harmonies.state import full_space_count
from sim.games.harmonies.turn import (
    discard_unplaceable_token,
    has_legal_hex,
    may_take_card,
    place_cube,
    place_token,
    take_card,
    take_central_space,
)
from sim.jit import compiled
from sim.rng import next_below
from strategies.harmonies.common import (
    face_up_count,
    list_legal_hexes,
    nth_face_up,
    nth_full_space,
)


@compiled(always_inline=True)
def random_card_choice(tables, public, player, generator):
    """Uniform among "no card" and each face-up card; returns True when a card was taken."""
    if not may_take_card(tables, public, player):
        return False
    choice = next_below(generator, face_up_count(public) + 1)
    if choice == 0:
        return False
    take_card(tables, public, player, nth_face_up(public, choice - 1))
    return True


@compiled(always_inline=True)
def random_cube_phase(tables, public, player, generator, work):
    """Place cubes while the uniform choice among the legal placements and "stop" is not stop."""
    while True:
        count = list_cube_placements(tables, public, player, work.placement_slots,
                                     work.placement_hexes)
        if count == 0:
            return
        choice = next_below(generator, count + 1)
        if choice == count:
            return
        place_cube(tables, public, player, work.placement_slots[choice],
                   work.placement_hexes[choice])


@compiled
def random_turn(tables, public, player, generator, work):
    """One turn of the ``random`` policy; returns (space taken, card taken as 0/1)."""
    took_card = random_card_choice(tables, public, player, generator)
    random_cube_phase(tables, public, player, generator, work)

    spaces = full_space_count(public)
    space = nth_full_space(public, next_below(generator, spaces))
    token_count = take_central_space(tables, public, space, work.tokens)
    work.token_left[:] = 0
    work.token_left[:token_count] = 1
    for _ in range(token_count):
        # The next token: uniform among those that can go somewhere now.
        placeable = 0
        for token in range(token_count):
            if work.token_left[token] and has_legal_hex(tables, public, player,
                                                        work.tokens[token]):
                placeable += 1
        if placeable == 0:
            break
        pick = next_below(generator, placeable)
        for token in range(token_count):
            if work.token_left[token] and has_legal_hex(tables, public, player,
                                                        work.tokens[token]):
                if pick == 0:
                    colour = work.tokens[token]
                    hexes = list_legal_hexes(tables, public, player, colour, work.legal_hexes)
                    place_token(public, player, work.legal_hexes[next_below(generator, hexes)],
                                colour)
                    work.token_left[token] = 0
                    break
                pick -= 1
        random_cube_phase(tables, public, player, generator, work)
    for token in range(token_count):
        if work.token_left[token]:
            discard_unplaceable_token(tables, public, player, work.tokens[token])

    if not took_card and random_card_choice(tables, public, player, generator):
        took_card = True
        random_cube_phase(tables, public, player, generator, work)
    return space, took_card


@compiled
def random_solo_discard(public, generator):
    """Uniform among "no discard" and each face-up card; returns the row position or -1."""
    choice = next_below(generator, face_up_count(public) + 1)
    return -1 if choice == 0 else nth_face_up(public, choice - 1)

