"""What a Legendary Forests game records: the per-seat counters and the game log kept while it
is played, the result arrays of a shard, and ``record_game``, which writes a finished game into
them (scores, ranks and shared wins, zone counts, trees, the deal as played).

No strategy is known here: the game loop (``sim.loops.legendary_forests.loop``) fills the log
and calls ``record_game``; the Python driver does the same.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.legendary_forests.rules import (
    GRASS,
    LEAF_COLOURS,
    STATUS_LIGHT_DRAWN,
    STATUS_PLAYERS,
    planet_score,
    planet_zone_counts,
)
from sim.jit import compiled

COUNTER_TREE_PHASES_WITHOUT_TREE = 0  # tree phases where no colour left had a zone to go to
COUNTER_TREE_PICKS_CONSTRAINED = 1  # tree picks made while a colour the seat had zones of was gone
COUNTER_SIZE = 2

NO_TREE_PHASE = -1
NO_TREE_TAKEN = 0

GameLog = namedtuple(
    "GameLog",
    [
        "draw_order",  # int16[turns] tile indices, top of the pile first
        "removed",  # int16[removed] tile indices out of the game
        "placement_cell",  # int16[turns, P] cell, -1 when the tile was discarded
        "placement_rotation",  # int8[turns, P]
        "tree_colour",  # int8[turns, P] -1 no tree phase, 0 no tree possible, 1..3 colour taken
        "seat_counters",  # int32[P, COUNTER_SIZE]
        "score_trace",  # int16[turns, P] every seat's score after each turn; [0, P] untraced
    ],
)

ShardResults = namedtuple(
    "ShardResults",
    [
        "score",  # int16[G, P]
        "rank",  # int8[G, P] 1 = best; tied seats share a rank
        "win",  # float32[G, P] 1 / number of seats tied on top, 0 otherwise
        "full_runes",  # int16[G, P]
        "zones",  # int16[G, P]
        "closed_zones",  # int16[G, P]
        "zones_with_trees",  # int16[G, P]
        "trees",  # int8[G, P, 3] trees placed per leaf colour
        "discards",  # int8[G, P]
        "tree_phases_without_tree",  # int8[G, P]
        "tree_picks_constrained",  # int8[G, P]
        "light_drawn",  # int8[G]
        "removed_mask",  # int64[G] bit (number - 1) set for each removed tile
        "draw_order",  # int8[G, turns] tile numbers in draw order
        "score_trace",  # int16[G, turns, P] score after each turn; [0, turns, P] untraced
    ],
)


def new_log(tile_count: int, players: int, removed_tiles: int, trace: bool = False) -> GameLog:
    """An empty log for one game; ``trace`` keeps every seat's score after each turn."""
    turns = tile_count - 1 - removed_tiles
    return GameLog(
        draw_order=np.zeros(turns, dtype=np.int16),
        removed=np.zeros(max(removed_tiles, 1), dtype=np.int16),
        placement_cell=np.zeros((turns, players), dtype=np.int16),
        placement_rotation=np.zeros((turns, players), dtype=np.int8),
        tree_colour=np.zeros((turns, players), dtype=np.int8),
        seat_counters=np.zeros((players, COUNTER_SIZE), dtype=np.int32),
        score_trace=np.zeros((turns if trace else 0, players), dtype=np.int16),
    )


def new_shard_results(games: int, players: int, turns: int,
                      trace: bool = False) -> ShardResults:
    """Output arrays for ``play_games`` (``trace``: with the per-turn score trace)."""
    per_seat = (games, players)
    return ShardResults(
        score=np.zeros(per_seat, dtype=np.int16),
        rank=np.zeros(per_seat, dtype=np.int8),
        win=np.zeros(per_seat, dtype=np.float32),
        full_runes=np.zeros(per_seat, dtype=np.int16),
        zones=np.zeros(per_seat, dtype=np.int16),
        closed_zones=np.zeros(per_seat, dtype=np.int16),
        zones_with_trees=np.zeros(per_seat, dtype=np.int16),
        trees=np.zeros((games, players, LEAF_COLOURS), dtype=np.int8),
        discards=np.zeros(per_seat, dtype=np.int8),
        tree_phases_without_tree=np.zeros(per_seat, dtype=np.int8),
        tree_picks_constrained=np.zeros(per_seat, dtype=np.int8),
        light_drawn=np.zeros(games, dtype=np.int8),
        removed_mask=np.zeros(games, dtype=np.int64),
        draw_order=np.zeros((games, turns), dtype=np.int8),
        score_trace=np.zeros((games if trace else 0, turns, players), dtype=np.int16),
    )


@compiled(always_inline=True)
def colour_gone_with_zone(table, player):
    """True when some leaf colour is exhausted while the player has a zone of that colour."""
    for node in range(table.node_count[player]):
        if table.node_parent[player, node] != node:
            continue
        colour = table.node_colour[player, node]
        if colour != GRASS and table.supply[colour - 1] <= 0:
            return True
    return False



@compiled
def rank_scores(scores, out_rank, out_win):
    """Rank 1 for the best score, tied scores share a rank; the win is shared among the seats
    tied on top (each gets 1 / their number)."""
    players = scores.shape[0]
    best = scores[0]
    for player in range(players):
        if scores[player] > best:
            best = scores[player]
    top = 0
    for player in range(players):
        better = 0
        for other in range(players):
            if scores[other] > scores[player]:
                better += 1
        out_rank[player] = better + 1
        if scores[player] == best:
            top += 1
    for player in range(players):
        out_win[player] = 1.0 / top if scores[player] == best else 0.0


@compiled
def record_game(table, work, log, removed_tiles, game, scores, results):
    """Write the finished game on ``table`` into row ``game`` of ``results`` (scores, ranks,
    wins, zone counts, trees, counters, the deal as played); ``scores`` is int64[P] scratch."""
    players = table.status[STATUS_PLAYERS]
    for player in range(players):
        scores[player] = planet_score(table, player)
        results.score[game, player] = scores[player]
        planet_zone_counts(table, player, work.zone_counts)
        results.zones[game, player] = work.zone_counts[0]
        results.closed_zones[game, player] = work.zone_counts[1]
        results.full_runes[game, player] = work.zone_counts[2]
        results.zones_with_trees[game, player] = work.zone_counts[3]
        for colour in range(LEAF_COLOURS):
            results.trees[game, player, colour] = 0
        for index in range(table.tree_count[player]):
            results.trees[game, player, table.tree_colour[player, index] - 1] += 1
        results.discards[game, player] = table.discards[player]
        results.tree_phases_without_tree[game, player] = log.seat_counters[
            player, COUNTER_TREE_PHASES_WITHOUT_TREE
        ]
        results.tree_picks_constrained[game, player] = log.seat_counters[
            player, COUNTER_TREE_PICKS_CONSTRAINED
        ]
    rank_scores(scores, results.rank[game], results.win[game])
    results.light_drawn[game] = table.status[STATUS_LIGHT_DRAWN]
    mask = np.int64(0)
    for index in range(removed_tiles):
        mask |= np.int64(1) << np.int64(log.removed[index])
    results.removed_mask[game] = mask
    for turn in range(log.draw_order.shape[0]):
        results.draw_order[game, turn] = log.draw_order[turn] + 1
    if results.score_trace.shape[0] > 0:
        # Element by element: an array copy could allocate (compiled without reference
        # counting).
        for turn in range(log.score_trace.shape[0]):
            for player in range(log.score_trace.shape[1]):
                results.score_trace[game, turn, player] = log.score_trace[turn, player]
