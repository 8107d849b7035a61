"""The actions of a turn and the end of a turn, compiled (RULES.md, "A turn" and "End").

Each action checks its own legality and raises ``ValueError`` when a caller (a policy) asks for
something illegal, so a policy bug cannot silently bend the rules. Policies choose; these
functions change the state.
"""

from __future__ import annotations

from sim.games.harmonies.habitats import card_is_completed, cube_placement_is_legal
from sim.games.harmonies.stacking import can_place_token
from sim.games.harmonies.state import (
    PROGRESS_END_TRIGGERED,
    fill_card_row,
    fill_central_space,
)
from sim.jit import compiled


@compiled(always_inline=True)
def take_central_space(tables, public, space, out_tokens):
    """Take all tokens of a full central space into ``out_tokens``; returns how many."""
    count = public.central_count[space]
    if count == 0:
        raise ValueError("take_central_space: the space is empty")
    for slot in range(count):
        out_tokens[slot] = public.central[space, slot]
        public.central[space, slot] = -1
    public.central_count[space] = 0
    return count


@compiled(always_inline=True)
def place_token(public, player, hex_index, colour):
    """Put a token of ``colour`` on top of ``player``'s hex (it must be allowed there)."""
    if not can_place_token(public.stacks, public.heights, public.cube_heights, player,
                           hex_index, colour):
        raise ValueError("place_token: stacking rules forbid this token here")
    height = public.heights[player, hex_index]
    public.stacks[player, hex_index, height] = colour
    public.heights[player, hex_index] = height + 1


@compiled(always_inline=True)
def has_legal_hex(tables, public, player, colour):
    """True when a token of ``colour`` can go somewhere on ``player``'s board."""
    for hex_index in range(tables.hex_count):
        if can_place_token(public.stacks, public.heights, public.cube_heights, player,
                           hex_index, colour):
            return True
    return False


@compiled(always_inline=True)
def discard_unplaceable_token(tables, public, player, colour):
    """Send a token that fits nowhere on ``player``'s board to the box (a reading: the rules
    require placing every token and are silent when no hex can take it)."""
    if has_legal_hex(tables, public, player, colour):
        raise ValueError("discard_unplaceable_token: the token has a legal hex")
    public.box_counts[colour] += 1


@compiled(always_inline=True)
def uncompleted_cards(tables, public, player):
    """Cards the player holds with cubes still on them (an unplaced spirit counts)."""
    count = 0
    for slot in range(public.held_count[player]):
        if not card_is_completed(tables, public, player, slot):
            count += 1
    return count


@compiled(always_inline=True)
def may_take_card(tables, public, player):
    """True when the player holds fewer uncompleted cards than the limit and a card is face up."""
    if uncompleted_cards(tables, public, player) >= tables.card_limit:
        return False
    for position in range(public.card_row.shape[0]):
        if public.card_row[position] >= 0:
            return True
    return False


@compiled(always_inline=True)
def add_card(public, player, card):
    """Put ``card`` in front of the player with all its cubes on it; returns its slot."""
    slot = public.held_count[player]
    public.held_cards[player, slot] = card
    public.cubes_placed[player, slot] = 0
    public.held_count[player] = slot + 1
    return slot


@compiled(always_inline=True)
def take_card(tables, public, player, row_position):
    """Take the face-up card at ``row_position`` (the slot stays empty until the end of turn)."""
    if not may_take_card(tables, public, player):
        raise ValueError("take_card: the player may not take a card now")
    card = public.card_row[row_position]
    if card < 0:
        raise ValueError("take_card: no card at this position of the row")
    public.card_row[row_position] = -1
    return add_card(public, player, card)


@compiled
def keep_spirit(hidden, public, player, choice):
    """Nature spirit variant: keep offered spirit ``choice`` (0 or 1); the other goes back."""
    card = hidden.spirit_offers[player, choice]
    if card < 0:
        raise ValueError("keep_spirit: no spirit offered")
    hidden.spirit_offers[player, 0] = -1
    hidden.spirit_offers[player, 1] = -1
    return add_card(public, player, card)


@compiled(always_inline=True)
def place_cube(tables, public, player, slot, cube_hex):
    """Move the bottom-most cube of the card in ``slot`` onto ``cube_hex``."""
    if not cube_placement_is_legal(tables, public, player, slot, cube_hex):
        raise ValueError("place_cube: the habitat does not match here")
    public.cube_heights[player, cube_hex] = public.heights[player, cube_hex]
    public.cubes_placed[player, slot] += 1


@compiled(always_inline=True)
def empty_hexes(tables, public, player):
    """Hexes of the player's board holding no token."""
    count = 0
    for hex_index in range(tables.hex_count):
        if public.heights[player, hex_index] == 0:
            count += 1
    return count


@compiled
def refill_after_turn(tables, public, hidden, player, space_taken):
    """End of turn, before any solo discard: refill the central board and the card row, then
    check the end triggers (bag cannot refill; the player has few empty hexes left).

    Several players: only the emptied space is refilled. Solo: the tokens left on the central
    board go to the box and every space is refilled."""
    if tables.solo_rules:
        for space in range(tables.central_spaces):
            for slot in range(public.central_count[space]):
                public.box_counts[public.central[space, slot]] += 1
                public.central[space, slot] = -1
            public.central_count[space] = 0
        for space in range(tables.central_spaces):
            if not fill_central_space(tables, public, hidden, space):
                public.progress[PROGRESS_END_TRIGGERED] = 1
    elif space_taken >= 0:
        if not fill_central_space(tables, public, hidden, space_taken):
            public.progress[PROGRESS_END_TRIGGERED] = 1
    fill_card_row(public, hidden)
    if empty_hexes(tables, public, player) <= tables.end_when_empty_hexes_at_most:
        public.progress[PROGRESS_END_TRIGGERED] = 1
    public.turns_played[player] += 1


@compiled
def solo_discard_from_row(public, hidden, row_position):
    """Solo, when no card was taken this turn: discard a face-up card (it leaves the game) and
    replace it from the deck."""
    if public.card_row[row_position] < 0:
        raise ValueError("solo_discard_from_row: no card at this position")
    public.card_row[row_position] = -1
    fill_card_row(public, hidden)
