"""Synthetic batches with known true values, for testing and timing the statistics and reports.

``write_synthetic_batch`` writes a RUN_DIR laid out as in ``docs/schema.md`` (manifest, rows or
summary shards, notable drawings) whose scores follow an additive model::

    score = base + strategy_points[strategy] + seat_points[seat]
            + token_points * (tree phases as token holder)
            + light_tile_points * (light tiles drawn)
            + sum of tile_points[n] over the tiles n removed
            + deal effect ~ N(0, deal_sd^2)           (shared by every game of a deal)
            + game effect ~ N(0, game_sd^2)           (shared by the seats of a game)
            + noise ~ N(0, noise_sd^2)                (one per player per game)

rounded to an integer. Ranks and wins follow from the scores as the runner computes them (tied
seats share a rank and the win). The functions ``true_*`` give the values the statistics should
recover.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from sim.files import write_text_atomic
from sim.store import file_record, parquet_bytes, shard_name

LIGHT_TILES = (2, 8, 10, 12, 15, 19, 22, 25)  # the shipped Legendary Forests set's light tiles


@dataclass(frozen=True)
class SyntheticDesign:
    """What a synthetic batch contains and the true effects behind its scores."""

    name: str = "synthetic"
    game: str = "legendary-forests"
    store: str = "rows"
    players: int = 4
    deals: int = 400
    replicates: int = 1
    games_per_shard: int = 100
    lineup: tuple[str, ...] = ("greedy",)  # one label for every seat, or one per seat
    rotate_lineup: bool = False  # seat s of game g plays lineup[(s + g) % players]
    base: float = 60.0
    deal_sd: float = 0.0
    game_sd: float = 0.0
    noise_sd: float = 8.0
    strategy_points: dict[str, float] = field(default_factory=dict)
    seat_points: tuple[float, ...] = ()
    token_points: float = 0.0
    light_tile_points: float = 0.0
    # Points every player gets when that many light tiles are drawn (a curve, on top of the line).
    light_tile_curve: dict[int, float] = field(default_factory=dict)
    tile_points: dict[int, float] = field(default_factory=dict)
    tile_count: int = 25
    removed_tiles: int = 5
    light_tiles: tuple[int, ...] = LIGHT_TILES
    seed: int = 1
    status: str = "complete"

    @property
    def games(self) -> int:
        """Games in the batch: deals times replicates."""
        return self.deals * self.replicates

    def strategy_at(self, game: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """Index into ``lineup`` of the strategy at ``seat`` of ``game``."""
        if len(self.lineup) == 1:
            return np.zeros(np.broadcast(game, seat).shape, dtype=np.int64)
        if self.rotate_lineup:
            return (seat + game) % self.players
        return np.broadcast_to(seat, np.broadcast(game, seat).shape).astype(np.int64)


def true_icc(design: SyntheticDesign) -> float:
    """The intraclass correlation of one seat's score over deals when only ``deal_sd`` and
    ``noise_sd`` vary the score (rounding to integers adds 1/12 to the within variance)."""
    between = design.deal_sd ** 2
    return between / (between + design.game_sd ** 2 + design.noise_sd ** 2 + 1.0 / 12.0)


def true_tile_effect(design: SyntheticDesign, tile: int) -> float:
    """E[mean score | tile removed] - E[mean score | tile kept] for the game's mean score.

    With k of T candidate tiles removed at random, removing tile n makes each other tile less
    likely removed by 1 / (T - 1); a light tile removed is one light tile less drawn, which
    costs ``light_tile_points`` plus, on average over seats, ``token_points / players``.
    """
    candidates = range(2, design.tile_count + 1)
    per_light = design.light_tile_points + design.token_points / design.players

    def removal_points(n: int) -> float:
        return design.tile_points.get(n, 0.0) - (per_light if n in design.light_tiles else 0.0)

    others = sum(removal_points(m) for m in candidates if m != tile)
    return removal_points(tile) - others / (len(candidates) - 1)


def _competition_ranks(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks (1 = best, ties share) and shared wins for a (games, players) score array."""
    better = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    ranks = 1 + better
    top = scores == scores.max(axis=1, keepdims=True)
    wins = top / top.sum(axis=1, keepdims=True)
    return ranks.astype(np.int8), wins.astype(np.float32)


def generate_rows(design: SyntheticDesign) -> pl.DataFrame:
    """Every row of the batch (one per player per game) as a polars DataFrame."""
    rng = np.random.default_rng(design.seed)
    players, deals, replicates = design.players, design.deals, design.replicates
    candidates = np.arange(2, design.tile_count + 1)
    order = candidates[np.argsort(rng.random((deals, candidates.size)), axis=1)]
    removed, drawn = order[:, :design.removed_tiles], order[:, design.removed_tiles:]
    mask = np.zeros(deals, dtype=np.int64)
    for column in range(removed.shape[1]):
        mask |= np.left_shift(np.int64(1), removed[:, column] - 1)
    light = np.isin(drawn, design.light_tiles).sum(axis=1)
    tile_points = np.zeros(design.tile_count + 1)
    for tile, points in design.tile_points.items():
        tile_points[tile] = points
    deal_points = (rng.normal(0.0, design.deal_sd, deals) + tile_points[removed].sum(axis=1)
                   + design.light_tile_points * light)
    if design.light_tile_curve:
        curve = np.zeros(design.tile_count + 1)
        for count, points in design.light_tile_curve.items():
            curve[count] = points
        deal_points = deal_points + curve[light]

    games = deals * replicates
    game = np.arange(games)
    deal = game // replicates
    seat = np.arange(players)
    # Tree phase k is led by seat k mod players: seat s leads the phases k = s, s + P, ...
    token = np.maximum(0, (light[deal][:, None] - seat[None, :] + players - 1) // players)
    strategy_index = design.strategy_at(game[:, None], seat[None, :])
    strategy_points = np.array([design.strategy_points.get(s, 0.0) for s in design.lineup])
    seat_points = np.zeros(players)
    seat_points[:len(design.seat_points)] = design.seat_points
    game_points = rng.normal(0.0, design.game_sd, games) if design.game_sd > 0 else \
        np.zeros(games)
    mean = (design.base + deal_points[deal][:, None] + game_points[:, None]
            + strategy_points[strategy_index]
            + seat_points[None, :] + design.token_points * token)
    scores = np.rint(mean + rng.normal(0.0, design.noise_sd, (games, players)))
    scores = np.clip(scores, 0, 32_000).astype(np.int16)
    ranks, wins = _competition_ranks(scores)

    def per_game(values: np.ndarray) -> np.ndarray:
        return np.repeat(values, players)

    seed = np.uint64(design.seed)

    columns = {
        "game_id": per_game(game).astype(np.int64),
        "deal_id": per_game(deal).astype(np.int64),
        "replicate": per_game(game % replicates).astype(np.int32),
        # Stand-in seeds: distinct per deal and per game, as the runner's are.
        "deal_seed": per_game(deal.astype(np.uint64) * np.uint64(2654435761) + seed),
        "strategy_seed": per_game(game.astype(np.uint64) * np.uint64(40503) + seed),
        "players": np.full(games * players, players, dtype=np.int8),
        "seat": np.tile(seat, games).astype(np.int8),
        "strategy": np.asarray(design.lineup)[strategy_index.ravel()],
        "score": scores.ravel(),
        "rank": ranks.ravel(),
        "win": wins.ravel(),
    }
    frame = pl.DataFrame(columns)
    if design.game == "legendary-forests":
        size = games * players
        frame = frame.with_columns(
            removed_tiles=pl.lit(design.removed_tiles, dtype=pl.Int16),
            trees_per_colour_per_player=pl.lit(2, dtype=pl.Int16),
            full_runes=pl.Series(rng.poisson(6, size).astype(np.int16)),
            zones=pl.Series(rng.poisson(8, size).astype(np.int16)),
            closed_zones=pl.Series(rng.poisson(3, size).astype(np.int16)),
            zones_with_trees=pl.Series(rng.poisson(4, size).astype(np.int16)),
            trees_pink=pl.Series(rng.integers(0, 3, size).astype(np.int8)),
            trees_red=pl.Series(rng.integers(0, 3, size).astype(np.int8)),
            trees_yellow=pl.Series(rng.integers(0, 3, size).astype(np.int8)),
            tiles_discarded=pl.Series(rng.poisson(0.2, size).astype(np.int8)),
            tree_phases_without_tree=pl.Series(rng.poisson(0.5, size).astype(np.int8)),
            tree_picks_constrained=pl.Series(rng.poisson(1.0, size).astype(np.int8)),
            tree_phases_as_token_holder=pl.Series(token.ravel().astype(np.int8)),
            light_tiles_drawn=pl.Series(per_game(light[deal]).astype(np.int8)),
            removed_tiles_mask=pl.Series(per_game(mask[deal])),
            draw_order=pl.Series(np.repeat(drawn[deal].astype(np.int8), players, axis=0))
            .cast(pl.List(pl.Int8)),
        )
    return frame


def summarise_rows(rows: pl.DataFrame) -> pl.DataFrame:
    """The summary store's rows for ``rows``: counts per (players, seat, strategy, rules
    parameters, score)."""
    keys = ["players", "seat", "strategy", *[c for c in ("removed_tiles",
                                                            "trees_per_colour_per_player")
                                              if c in rows.columns], "score"]
    return (rows.group_by(keys)
            .agg(count=pl.len().cast(pl.Int64), win_sum=pl.col("win").cast(pl.Float64).sum(),
                 shared_wins=((pl.col("win") > 0) & (pl.col("win") < 1)).sum().cast(pl.Int64))
            .sort(keys))


def _drawing(game_id: int, seat: int, score: int) -> str:
    """A small fake planet drawing (3 x 5 characters per tile) that differs per game and seat."""
    letters = ".PRY"
    cells = 2 + (game_id + seat + score) % 3
    lines = []
    for row in range(2):
        top, middle, bottom = [], [], []
        for column in range(cells):
            number = (game_id * 7 + seat * 3 + row * cells + column) % 24 + 2
            side = letters[(number + row) % 4]
            top.append(f" {side}  ")
            middle.append(f"{letters[number % 4]}{number:02d}{'^' if column == row else ' '}"
                          f"{letters[(number + 2) % 4]}")
            bottom.append(f" {letters[(number + 1) % 4]}  ")
        lines += ["".join(top).rstrip(), "".join(middle), "".join(bottom).rstrip()]
    return "\n".join(lines)


def notable_rows(rows: pl.DataFrame) -> pl.DataFrame:
    """The highest- and lowest-scoring game of ``rows`` (by the game's best score), one row per
    seat, with a drawing per seat."""
    best = rows.group_by("game_id").agg(pl.col("score").max().alias("best")).sort("game_id")
    chosen = [("highest", best.sort(["best", "game_id"], descending=[True, False])["game_id"][0]),
              ("lowest", best.sort(["best", "game_id"])["game_id"][0])]
    parts = []
    for kind, game_id in chosen:
        seats = rows.filter(pl.col("game_id") == game_id).select(
            "game_id", "seat", "strategy", "score").sort("seat")
        drawings = [_drawing(game_id, s, v) for s, v in zip(seats["seat"], seats["score"],
                                                            strict=True)]
        parts.append(seats.with_columns(kind=pl.lit(kind), drawing=pl.Series(drawings)))
    return pl.concat(parts).select("game_id", "kind", "seat", "strategy", "score", "drawing")


def write_synthetic_batch(run_dir: str | Path, design: SyntheticDesign,
                          rows: pl.DataFrame | None = None) -> pl.DataFrame:
    """Write a RUN_DIR for ``design`` (manifest, shards, notable) and return its rows.

    ``rows`` may be given to write rows generated earlier (e.g. the same data as both stores).
    """
    run_dir = Path(run_dir)
    rows = generate_rows(design) if rows is None else rows
    store_dir = run_dir / ("shards" if design.store == "rows" else "summary")
    store_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "notable").mkdir(parents=True, exist_ok=True)
    rows_per_shard = design.games_per_shard * design.players
    shard_count = -(-rows.height // rows_per_shard)
    shard_files = {}
    for shard in range(shard_count):
        part = rows.slice(shard * rows_per_shard, rows_per_shard)
        stored = part if design.store == "rows" else summarise_rows(part)
        # Encoded as the runner encodes its shards; a plain write, not the runner's fsynced
        # one, since tests write many synthetic batches and none needs it crash-safe.
        records = []
        for path, frame in ((store_dir / shard_name(shard), stored),
                            (run_dir / "notable" / shard_name(shard), notable_rows(part))):
            data = parquet_bytes(frame)
            path.write_bytes(data)
            # Recorded as the runner records them: only files the manifest lists are read.
            records.append(file_record(run_dir, path, data))
        shard_files[str(shard)] = records
    config = {key: value for key, value in asdict(design).items()
              if key not in ("name", "game", "store", "status")}
    config["tile_points"] = {str(k): v for k, v in design.tile_points.items()}
    config["light_tile_curve"] = {str(k): v for k, v in design.light_tile_curve.items()}
    manifest = {
        "format": 1,
        "name": design.name,
        "game": design.game,
        "config": config,
        "config_hash": "synthetic",
        "data_digest": "synthetic",
        "sim_version": "synthetic",
        "store": design.store,
        "games_total": design.games,
        "shards_total": shard_count,
        "shard_size": design.games_per_shard,
        "shards_done": list(range(shard_count)),
        "shard_files": shard_files,
        "timings": {},
        "status": design.status,
    }
    write_text_atomic(run_dir / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    return rows
