"""Synthetic batches with known true values, for testing and timing the statistics and reports.

``write_synthetic_batch`` writes a RUN_DIR laid out as in ``docs/schema.md`` (manifest, rows or
summary shards, notable drawings) whose scores follow an additive model::

    score = base + strategy_points[strategy] + seat_points[seat]
            + the game's deal points                  (shared by every game of a deal)
            + the game's seat points                  (per player per game)
            + deal effect ~ N(0, deal_sd^2)           (shared by every game of a deal)
            + game effect ~ N(0, game_sd^2)           (shared by the seats of a game)
            + noise ~ N(0, noise_sd^2)                (one per player per game)

rounded to an integer. Ranks and wins follow from the scores as the runner computes them (tied
seats share a rank and the win). ``true_icc`` gives the deal's share the statistics should
recover.

``SyntheticDesign`` holds only what every game has. The game's part (what its deal holds, the
points its deal and seat order give, its own columns) is a ``SyntheticDeals`` model that lives
in the game's rooms (``sim/games/<game>/synthetic.py``) and is given as ``deal_model``; without
one the rows have only the columns every game has.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import polars as pl

from sim.files import write_text_atomic
from sim.games.registry import default_game, get_game
from sim.store import file_record, parquet_bytes, shard_name


class SyntheticDeals(Protocol):
    """A game's part of a synthetic batch. ``generate_rows`` calls ``draw`` before any other
    draw, ``deal_points`` and ``seat_points`` while it builds the scores, and ``columns`` after
    them, all with the same random generator, so a design's rows are a pure function of it."""

    game: str  # the registered name of the game whose rows the model imitates

    def draw(self, design: SyntheticDesign, rng: np.random.Generator) -> Any:
        """What every deal holds (passed back to the other methods as ``drawn``)."""

    def deal_points(self, drawn: Any, common: np.ndarray) -> np.ndarray:
        """Every deal's points: the common deal effect ``common`` plus what the deal adds."""

    def seat_points(self, design: SyntheticDesign, drawn: Any,
                    deal: np.ndarray) -> np.ndarray | None:
        """Points per (game, seat) set by the deal and the seat order (``deal``: each game's
        deal), or None."""

    def columns(self, design: SyntheticDesign, drawn: Any, deal: np.ndarray,
                rng: np.random.Generator, frame: pl.DataFrame) -> pl.DataFrame:
        """``frame`` (the columns every game has) with the game's own columns added."""

    def config(self) -> dict[str, Any]:
        """The model's parameters as the manifest's config records them (JSON-ready)."""


@dataclass(frozen=True)
class SyntheticDesign:
    """What a synthetic batch contains and the true effects behind its scores."""

    name: str = "synthetic"
    # The game the manifest names; "": the deal model's game, else the first registered game.
    game: str = ""
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
    deal_model: SyntheticDeals | None = None  # the game's part (see the module docstring)
    seed: int = 1
    status: str = "complete"

    @property
    def games(self) -> int:
        """Games in the batch: deals times replicates."""
        return self.deals * self.replicates

    @property
    def game_name(self) -> str:
        """The game the batch says it was played with (see ``game``)."""
        return self.game or (self.deal_model.game if self.deal_model is not None
                             else default_game())

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


def competition_ranks(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    model = design.deal_model
    drawn = model.draw(design, rng) if model is not None else None
    deal_points = rng.normal(0.0, design.deal_sd, deals)
    if model is not None:
        deal_points = model.deal_points(drawn, deal_points)

    games = deals * replicates
    game = np.arange(games)
    deal = game // replicates
    seat = np.arange(players)
    strategy_index = design.strategy_at(game[:, None], seat[None, :])
    strategy_points = np.array([design.strategy_points.get(s, 0.0) for s in design.lineup])
    seat_points = np.zeros(players)
    seat_points[:len(design.seat_points)] = design.seat_points
    game_points = rng.normal(0.0, design.game_sd, games) if design.game_sd > 0 else \
        np.zeros(games)
    mean = (design.base + deal_points[deal][:, None] + game_points[:, None]
            + strategy_points[strategy_index] + seat_points[None, :])
    extra = model.seat_points(design, drawn, deal) if model is not None else None
    if extra is not None:
        mean = mean + extra
    scores = np.rint(mean + rng.normal(0.0, design.noise_sd, (games, players)))
    scores = np.clip(scores, 0, 32_000).astype(np.int16)
    ranks, wins = competition_ranks(scores)

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
    return model.columns(design, drawn, deal, rng, frame) if model is not None else frame


def summarise_rows(rows: pl.DataFrame, rules_columns: tuple[str, ...] = ()) -> pl.DataFrame:
    """The summary store's rows for ``rows``: counts per (players, seat, strategy, rules
    parameters, score); ``rules_columns`` names the rules parameters' columns (those ``rows``
    lacks are left out)."""
    keys = ["players", "seat", "strategy", *[c for c in rules_columns if c in rows.columns],
            "score"]
    return (rows.group_by(keys)
            .agg(count=pl.len().cast(pl.Int64), win_sum=pl.col("win").cast(pl.Float64).sum(),
                 shared_wins=((pl.col("win") > 0) & (pl.col("win") < 1)).sum().cast(pl.Int64))
            .sort(keys))


def _drawing(game_id: int, seat: int, score: int) -> str:
    """A small fake drawing (rows of 3 x 5-character cells) that differs per game and seat."""
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


def manifest_config(design: SyntheticDesign) -> dict[str, Any]:
    """The design's fields as the manifest's ``config`` records them: the shared ones (but the
    name, game, store and status, which the manifest records itself), then the deal model's
    parameters, then the seed."""
    config = {key: value for key, value in asdict(design).items()
              if key not in ("name", "game", "store", "status", "deal_model", "seed")}
    model = design.deal_model.config() if design.deal_model is not None else {}
    return {**config, **model, "seed": design.seed}


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
    rules_columns = tuple(parameter.name for parameter in
                          get_game(design.game_name).rules_parameters) \
        if design.store != "rows" else ()
    rows_per_shard = design.games_per_shard * design.players
    shard_count = -(-rows.height // rows_per_shard)
    shard_files = {}
    for shard in range(shard_count):
        part = rows.slice(shard * rows_per_shard, rows_per_shard)
        stored = part if design.store == "rows" else summarise_rows(part, rules_columns)
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
    manifest = {
        "format": 1,
        "name": design.name,
        "game": design.game_name,
        "config": manifest_config(design),
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
