"""Shards: what a worker plays and sends back. A shard is a contiguous range of a batch's games,
played in one compiled call that returns arrays (``play_shard_games``) and turned into its files
as bytes (``encode_shard``: the rows or the summary, the notable games' drawings, Parquet); a
piece of a shard is played apart and joined with the others before it is encoded
(``join_pieces``).

Design of experiments: game ``g`` of a batch is replicate ``g % R`` of deal ``g // R``
(``R = replicates_per_deal``). The deal seed depends on the deal only and the strategy seed on
(deal, replicate), both from the master seed through SeedSequence (``sim.seeding``), so every
lineup, rules setting or replicate can be played on the same deals. With a rotating pool of K
strategies and P players, rotation ``r = deal + replicate`` gives seat ``s`` the strategy
``pool[((r + s) % P) % K]`` when K <= P: every game has the same mix (the pool repeated to fill
the seats) and over P rotations each strategy sits in every seat equally often, so seats stay
comparable. With more strategies than seats (K > P >= 2) game ``g`` plays lineup ``g mod L`` of
``sim.seating.pool_lineups`` for the config's ``pool_design``: ``"balanced"`` (every combination
of P strategies in its seat rotations, L = C(K, P) * (P if P == 2 else 2P)) or ``"every-order"``
(every ordered lineup, L = K! / (K - P)!). Both are balanced by construction: with no seat effect
every seat faces the same opponents on average, which rotating the whole pool does not give (a
seat's results would then depend on who it tends to face). With ``replicates_per_deal`` a
multiple of L (the default) every deal is played by every lineup. A batch whose manifest has no
``pool_design`` (started before it existed) plays ``"rotation"``, the cyclic and mirrored
rotations of the whole pool, lineup ``(deal + replicate) mod 2K``, so it resumes unchanged.

Every game depends only on its own seeds, so results never depend on the worker count, the shard
size or the backend, only on the config.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import polars as pl

from sim.config import BatchConfig
from sim.games.registry import get_game
from sim.seating import LEGACY_POOL_DESIGN, pool_lineups
from sim.seeding import deal_seeds, strategy_seeds
from sim.store import deal_sums_frame, parquet_bytes, rows_frame, summary_frame
from sim.strategy_spec import parse_strategy


@dataclass(frozen=True)
class ShardTask:
    """Everything a worker needs to play one shard (picklable; carries the loaded data so remote
    workers need no access to the config's files)."""

    index: int
    first_game: int
    games: int
    config: BatchConfig
    data: Any
    # More than 1: this task is one of that many pieces of shard ``index`` (its own range of
    # games); the pieces are played apart and joined into the shard before it is encoded.
    pieces: int = 1


@dataclass(frozen=True)
class ShardOutput:
    """What a worker sends back: the shard's files as bytes, and how long it took."""

    index: int
    games: int
    result_bytes: bytes
    notable_bytes: bytes | None
    seconds: float
    # The summary store's per-deal sums (``sim.store.deal_sums_frame``); None for rows.
    deal_bytes: bytes | None = None


def game_design(config: BatchConfig, first_game: int, games: int):
    """Game ids, deal ids, replicates and per-seat lineup indices of a range of games."""
    game_ids = np.arange(first_game, first_game + games, dtype=np.int64)
    deal_ids = game_ids // config.replicates_per_deal
    replicates = game_ids % config.replicates_per_deal
    seats = np.arange(config.players, dtype=np.int64)
    if config.rotate:
        pool = len(config.lineup)
        players = config.players
        rotation = deal_ids[:, None] + replicates[:, None] + seats[None, :]
        if pool <= players:
            # Every game has the same mix (the pool repeated to fill the seats) and its
            # rotations move each strategy through every seat: seats stay comparable.
            seat_lineup = (rotation % players) % pool
        elif (config.pool_design or LEGACY_POOL_DESIGN) == LEGACY_POOL_DESIGN:
            # A batch started before pool designs: cyclic and mirrored rotations of the whole
            # pool, kept so that it resumes byte-identically.
            schedule = pool_lineups(pool, players, LEGACY_POOL_DESIGN)
            seat_lineup = schedule[(deal_ids + replicates) % len(schedule)]
        else:
            # A design balanced by construction (sim.seating.pool_lineups): game g plays
            # lineup g mod L, so R a multiple of L gives every deal every lineup.
            schedule = pool_lineups(pool, players, config.pool_design)
            seat_lineup = schedule[game_ids % len(schedule)]
    else:
        seat_lineup = np.broadcast_to(seats, (games, config.players))
    return game_ids, deal_ids, replicates, np.ascontiguousarray(seat_lineup)


@dataclass(frozen=True)
class PlayedShard:
    """A shard whose games are played, before its files are encoded (``encode_shard``)."""

    task: ShardTask
    specs: list
    game_ids: np.ndarray
    deal_ids: np.ndarray
    replicates: np.ndarray
    seat_lineup: np.ndarray
    deals: np.ndarray
    strategies: np.ndarray
    columns: dict
    start: float


def play_shard_games(task: ShardTask) -> PlayedShard:
    """Play the games of one shard (the compiled kernel; it releases the GIL meanwhile)."""
    start = time.perf_counter()
    config = task.config
    game = get_game(config.game)
    specs = [parse_strategy(config.loadable(label), game.strategies(), "config")
             for label in config.lineup]
    game_ids, deal_ids, replicates, seat_lineup = game_design(config, task.first_game, task.games)
    deals = deal_seeds(config.seed, deal_ids)
    strategies = strategy_seeds(config.seed, deal_ids, replicates)
    # Only a traced batch passes ``trace``: a game without the trace never sees the option.
    traced = {"trace": True} if config.trace else {}
    columns = game.play_shard(task.data, config.players, config.rules, specs, seat_lineup,
                              deals, strategies, **traced)
    return PlayedShard(task, specs, game_ids, deal_ids, replicates, seat_lineup, deals,
                       strategies, columns, start)


def encode_shard(played: PlayedShard) -> ShardOutput:
    """The files of a played shard as bytes: its rows (or summary) and its notable games."""
    task, config, columns = played.task, played.task.config, played.columns
    game = get_game(config.game)
    players = config.players
    labels = pl.Series("strategy", list(config.lineup), dtype=pl.String)
    common = {
        "game_id": np.repeat(played.game_ids, players),
        "deal_id": np.repeat(played.deal_ids, players),
        "replicate": np.repeat(played.replicates, players).astype(np.int32),
        "deal_seed": np.repeat(played.deals, players),
        "strategy_seed": np.repeat(played.strategies, players),
        "players": np.full(task.games * players, players, dtype=np.int8),
        "seat": columns["seat"].astype(np.int8),
        "strategy": labels.gather(played.seat_lineup.reshape(-1)),
        "score": columns["score"].astype(np.int16),
        "rank": columns["rank"].astype(np.int8),
        "win": columns["win"].astype(np.float32),
    }
    rows = rows_frame(common, columns, config.rules)
    if config.tags:
        rows = rows.with_columns(pl.lit(value).alias(name) for name, value in config.tags.items())
    notable = notable_games(game, task, rows, played.specs, played.seat_lineup, played.deals,
                            played.strategies)
    deal_sums = None
    if config.store == "rows":
        result = parquet_bytes(rows)
    else:
        result = parquet_bytes(summary_frame(rows, config.rules))
        deal_sums = parquet_bytes(deal_sums_frame(rows, config.rules))
    return ShardOutput(task.index, task.games, result, notable,
                       time.perf_counter() - played.start, deal_sums)


def play_shard_task(task: ShardTask) -> ShardOutput | PlayedShard:
    """What a worker runs: a shard played and its files encoded; a piece of a shard
    (``task.pieces`` > 1) only played (``join_pieces`` encodes the shard once all its pieces
    are in)."""
    played = play_shard_games(task)
    return encode_shard(played) if task.pieces == 1 else played


def _concatenated(parts: list) -> Any:
    """The pieces of one result column (numpy arrays or polars Series), end to end."""
    if isinstance(parts[0], pl.Series):
        return pl.concat(parts, rechunk=True)
    return np.concatenate(parts)


def join_pieces(pieces: list[PlayedShard]) -> PlayedShard:
    """The played pieces of one shard as that shard played whole (every game depends only on
    its own seeds, so the rows, and the files encoded from them, are the same)."""
    pieces = sorted(pieces, key=lambda piece: piece.task.first_game)
    first = pieces[0]
    task = replace(first.task, games=sum(piece.task.games for piece in pieces), pieces=1)
    arrays = {name: np.concatenate([getattr(piece, name) for piece in pieces])
              for name in ("game_ids", "deal_ids", "replicates", "seat_lineup", "deals",
                           "strategies")}
    columns = {name: _concatenated([piece.columns[name] for piece in pieces])
               for name in first.columns}
    return PlayedShard(task, first.specs, columns=columns,
                       start=min(piece.start for piece in pieces), **arrays)


def notable_games(game, task, rows, specs, seat_lineup, deals, strategies) -> bytes | None:
    """Drawings of the shard's highest- and lowest-scoring games (by the best score of the
    game), replayed from their seeds, for the report: the text drawing of each seat's final
    position and its SVG (``Game.final_svgs``; null when the game draws none)."""
    # Rows come game by game, one per seat (numpy here: polars' group-by and filters cost
    # more than a shard of fast games takes to play).
    players = task.config.players
    game_ids = rows["game_id"].to_numpy()[::players]
    scores = rows["score"].to_numpy().reshape(-1, players)
    seats = rows["seat"].to_numpy().reshape(-1, players)
    by_score = np.lexsort((game_ids, scores.max(axis=1)))  # ties: the lower game id first
    records = []
    for kind, offset in (("lowest", int(by_score[0])), ("highest", int(by_score[-1]))):
        game_id = int(game_ids[offset])
        lineup = [specs[i] for i in seat_lineup[offset]]
        labels = [task.config.lineup[i] for i in seat_lineup[offset]]
        drawings = game.final_drawings(task.data, task.config.players, task.config.rules,
                                       lineup, deals[offset], strategies[offset])
        if drawings is None:
            return None  # the game draws no positions
        svgs = game.final_svgs(task.data, task.config.players, task.config.rules, lineup,
                               deals[offset], strategies[offset], labels=labels)
        seat_scores = scores[offset][np.argsort(seats[offset])]
        for seat, drawing in enumerate(drawings):
            records.append({"game_id": game_id, "kind": kind, "seat": seat,
                            "strategy": labels[seat],
                            "score": int(seat_scores[seat]), "drawing": drawing,
                            "svg": None if svgs is None else svgs[seat]})
    frame = pl.DataFrame(records, schema={"game_id": pl.Int64, "kind": pl.String,
                                          "seat": pl.Int8, "strategy": pl.String,
                                          "score": pl.Int16, "drawing": pl.String,
                                          "svg": pl.String})
    return parquet_bytes(frame)



def shard_tasks(config: BatchConfig, data: Any, pending: Iterable[int]) -> Iterator[ShardTask]:
    """Tasks for the pending shards, in shard order (lazily: a huge batch is never listed)."""
    for index in pending:
        first = index * config.shard_size
        yield ShardTask(index, first, min(config.shard_size, config.games - first), config, data)


def shard_games(config: BatchConfig, index: int) -> int:
    """Number of games in shard ``index``."""
    return min(config.shard_size, config.games - index * config.shard_size)

