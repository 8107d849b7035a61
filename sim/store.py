"""Storage of batch results: Parquet shards (polars, zstd), the manifest, listing batches.

Layout and columns: ``docs/schema.md``. Every file is written to a temporary name and renamed
when complete (``sim.files``), so a file under its final name is always whole.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.errors import InputError
from sim.files import write_bytes_atomic, write_text_atomic

MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
SHARDS_DIR = "shards"
SUMMARY_DIR = "summary"
NOTABLE_DIR = "notable"
COMPRESSION = "zstd"


def shard_name(index: int) -> str:
    """File name of shard ``index``."""
    return f"shard-{index:06d}.parquet"


def shard_dir(store: str) -> str:
    """Folder of the result shards for a store kind."""
    return SHARDS_DIR if store == "rows" else SUMMARY_DIR


def rows_frame(common: dict[str, np.ndarray], game_columns: dict[str, np.ndarray],
               rules: dict[str, int]) -> pl.DataFrame:
    """One row per player per game: runner columns, then the game's, then rules parameters."""
    columns: dict[str, Any] = dict(common)
    for name, values in game_columns.items():
        if name in columns:
            continue
        columns[name] = values  # a 2-D array becomes a fixed-size Array column
    rows = len(next(iter(common.values())))
    for name, value in rules.items():
        columns[name] = np.full(rows, value, dtype=np.int16)
    return pl.DataFrame(columns)


def summary_frame(rows: pl.DataFrame, rules: dict[str, int]) -> pl.DataFrame:
    """Mergeable aggregates of a rows frame: per (players, seat, strategy, rules, score) the
    count, the sum of wins and the number of shared wins."""
    keys = ["players", "seat", "strategy", *rules, "score"]
    return (
        rows.group_by(keys)
        .agg(count=pl.len().cast(pl.Int64), win_sum=pl.col("win").cast(pl.Float64).sum(),
             shared_wins=((pl.col("win") > 0) & (pl.col("win") < 1)).sum().cast(pl.Int64))
        .sort(keys)
    )


def parquet_bytes(frame: pl.DataFrame) -> bytes:
    """A frame as Parquet bytes (zstd, statistics on): the same frame gives the same bytes."""
    buffer = io.BytesIO()
    frame.write_parquet(buffer, compression=COMPRESSION, statistics=True)
    return buffer.getvalue()


def write_shard(run_dir: Path, folder: str, index: int, data: bytes) -> Path:
    """Write one shard file atomically."""
    path = run_dir / folder / shard_name(index)
    write_bytes_atomic(path, data)
    return path


def finished_shards(run_dir: Path, store: str) -> set[int]:
    """Shards whose result file exists under its final name (only complete files have one)."""
    folder = run_dir / shard_dir(store)
    done = set()
    if folder.is_dir():
        for path in folder.glob("shard-*.parquet"):
            done.add(int(path.stem.split("-")[1]))
    return done


def remove_temporary_files(run_dir: Path) -> int:
    """Delete leftovers of writes interrupted by a crash (never visible as results)."""
    removed = 0
    for path in run_dir.rglob(".*.tmp"):
        path.unlink(missing_ok=True)
        removed += 1
    return removed


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The manifest of a batch folder, or a one-line InputError."""
    path = run_dir / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no manifest here; not a batch folder") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: not valid JSON ({error.msg})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise InputError(f"{path}: field 'format': unknown manifest format")
    return manifest


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest atomically."""
    manifest["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    write_text_atomic(run_dir / MANIFEST, json.dumps(manifest, indent=1, sort_keys=False) + "\n")


def folder_size(path: Path) -> int:
    """Bytes used by the files under ``path``."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def list_batches(folder: Path) -> list[dict[str, Any]]:
    """Every batch under ``folder`` (any depth) with its size and status."""
    batches = []
    for manifest_path in sorted(folder.rglob(MANIFEST)):
        run_dir = manifest_path.parent
        try:
            manifest = read_manifest(run_dir)
        except InputError:
            continue
        done = finished_shards(run_dir, manifest.get("store", "rows"))
        total = manifest.get("shards_total", 0)
        batches.append({
            "path": str(run_dir),
            "name": manifest.get("name", run_dir.name),
            "game": manifest.get("game", "?"),
            "players": manifest.get("config", {}).get("players"),
            "games": manifest.get("games_total", 0),
            "games_done": min(manifest.get("games_total", 0),
                              len(done) * manifest.get("shard_size", 0)),
            "shards_done": len(done),
            "shards_total": total,
            "store": manifest.get("store", "rows"),
            "status": "complete" if total and len(done) == total else
                      manifest.get("status", "?").replace("complete", "damaged"),
            "bytes": folder_size(run_dir),
        })
    return batches
