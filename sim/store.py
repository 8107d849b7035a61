"""Storage of batch results: Parquet shards (polars, zstd), the manifest, listing batches.

Layout and columns: ``docs/schema.md``. Every file is written to a temporary name and renamed
when complete (``sim.files``), so a file under its final name is always whole.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.errors import InputError
from sim.files import (
    may_remove_temporary,
    read_user_json,
    write_bytes_atomic,
    write_text_atomic,
)

# Win shares are 1/k for a win shared by k seats; scaled by lcm(1..12) they sum exactly as
# integers, so every reduction of them (the summary store's per-deal sums, every statistic)
# gives the same bits whatever the order.
WIN_SCALE = 27720
MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
SHARDS_DIR = "shards"
SUMMARY_DIR = "summary"
# The summary store's per-deal sums (one file per shard beside its histogram), so that its
# independent units are deals, as in the rows store, not the few shards.
DEAL_SUMS_DIR = "summary_deals"
DEAL_SUM_COLUMNS = ("player_games", "score_sum", "win_units", "shared_wins")
NOTABLE_DIR = "notable"
INPUT_DIR = "input"
# Copies of the lineup's strategy files, so a moved batch resumes with the code it started with.
STRATEGY_COPIES = f"{INPUT_DIR}/strategies"
COMPRESSION = "zstd"
# zstd's fastest level, and no column statistics: nothing here reads them (every report scans
# whole columns), and together they cut a 10,000-game shard's Parquet writing by about a
# fifth (about 3 ms of a core); of the two shipped games' files one comes out about 6%
# bigger, the other about 3% smaller. Encoding is the share of a shard that one worker hides on
# another core and several workers cannot.
COMPRESSION_LEVEL = 1
# The manifest field that records, per finished shard, each of its files with size and hash.
SHARD_FILES = "shard_files"
# Temporary names our atomic writer (``sim.files``) gives the files a batch writes: the only
# ``.tmp`` files a batch ever deletes.
_SHARD_TEMPORARY = re.compile(r"^\.shard-\d{6}\.parquet\..+\.tmp$")
_MANIFEST_TEMPORARY = re.compile(r"^\.manifest\.json\..+\.tmp$")
_INPUT_TEMPORARY = re.compile(r"^\..+\..+\.tmp$")


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


def deal_sums_frame(rows: pl.DataFrame, rules: dict[str, int]) -> pl.DataFrame:
    """Exact integer sums of a rows frame per (players, seat, strategy, rules, deal): the
    player-games, the score sum, the win shares in units of 1 / WIN_SCALE (a win shared by k
    seats is WIN_SCALE / k, exact for k up to 12) and the shared wins. Every cluster-robust
    interval of the summary store is computed from these, with the deal as the cluster."""
    keys = ["players", "seat", "strategy", *rules, "deal_id"]
    return (
        rows.group_by(keys)
        .agg(player_games=pl.len().cast(pl.Int64),
             score_sum=pl.col("score").cast(pl.Int64).sum(),
             win_units=(pl.col("win").cast(pl.Float64) * WIN_SCALE).round().cast(pl.Int64).sum(),
             shared_wins=((pl.col("win") > 0) & (pl.col("win") < 1)).sum().cast(pl.Int64))
        .sort(keys)
    )


def parquet_bytes(frame: pl.DataFrame) -> bytes:
    """A frame as Parquet bytes (zstd level 1, no statistics): the same frame gives the same
    bytes."""
    buffer = io.BytesIO()
    frame.write_parquet(buffer, compression=COMPRESSION, compression_level=COMPRESSION_LEVEL,
                        statistics=False)
    return buffer.getvalue()


def write_shard(run_dir: Path, folder: str, index: int, data: bytes) -> Path:
    """Write one shard file atomically."""
    path = run_dir / folder / shard_name(index)
    write_bytes_atomic(path, data)
    return path


def file_record(run_dir: Path, path: Path, data: bytes) -> dict[str, Any]:
    """What the manifest keeps of one written file: its path relative to the batch folder, its
    size and its SHA-256."""
    return {"path": path.relative_to(run_dir).as_posix(), "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest()}


def _inside(run_dir: Path, relative: Any) -> Path | None:
    """``relative`` as a path inside ``run_dir``, or None when it is not a plain relative path
    (a damaged or hostile manifest must not point the runner elsewhere)."""
    if not isinstance(relative, str) or not relative:
        return None
    parts = Path(relative).parts
    if Path(relative).is_absolute() or ".." in parts or "\\" in relative:
        return None
    return run_dir / relative


def record_problem(run_dir: Path, record: Any, check_hash: bool = True) -> str | None:
    """Why the file a manifest record names does not match it (missing, another size, other
    content), or None when it does (size, and SHA-256 when ``check_hash``)."""
    if not isinstance(record, dict):
        return "damaged record in manifest.json"
    path = _inside(run_dir, record.get("path"))
    size = record.get("bytes")
    digest = record.get("sha256")
    if path is None or not isinstance(size, int) or not isinstance(digest, str):
        return "damaged record in manifest.json"
    try:
        if not path.is_file():
            return "missing"
        if path.stat().st_size != size:
            return "size differs from manifest.json"
        if check_hash:
            hasher = hashlib.sha256()
            with path.open("rb") as stream:
                for block in iter(lambda: stream.read(1 << 20), b""):
                    hasher.update(block)
            if hasher.hexdigest() != digest:
                return "content differs from manifest.json (SHA-256)"
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    return None


def record_matches(run_dir: Path, record: Any, check_hash: bool = True) -> bool:
    """True when the file a record names exists with the recorded size (and hash)."""
    return record_problem(run_dir, record, check_hash) is None


def expected_shard_paths(store: str, index: int) -> tuple[str, ...]:
    """The paths (relative to the batch folder) the runner gives shard ``index``'s result file,
    its notable-games file and, in the summary store, its per-deal sums (the result file
    first)."""
    paths = (f"{shard_dir(store)}/{shard_name(index)}", f"{NOTABLE_DIR}/{shard_name(index)}")
    if store == "summary":
        paths += (f"{DEAL_SUMS_DIR}/{shard_name(index)}",)
    return paths


def _shard_folders(store: str) -> tuple[str, ...]:
    """The folders holding a store's shard files."""
    return (shard_dir(store), NOTABLE_DIR) + ((DEAL_SUMS_DIR,) if store == "summary" else ())


@dataclass(frozen=True)
class ShardCheck:
    """A batch folder's shard files checked against its manifest.

    ``finished`` maps each finished shard (every file the manifest records for it present and
    whole) to its file records; ``ignored`` lists, as (path relative to the batch folder,
    reason), every shard file found or recorded that does not count: a damaged or missing file
    of a recorded shard, and a file the manifest does not record (a stray copy). ``legacy`` is
    True for a batch written before manifests recorded files (its shards are found by name).
    ``damaged`` lists the shards the manifest records as finished that do not count (a file
    missing or not as recorded): a report of the rest covers only part of the batch."""

    finished: dict[int, list[dict[str, Any]]]
    ignored: tuple[tuple[str, str], ...] = ()
    legacy: bool = False
    damaged: tuple[int, ...] = ()

    def result_files(self, run_dir: Path, store: str) -> list[Path]:
        """The result file of every finished shard, in shard order."""
        return [run_dir / expected_shard_paths(store, index)[0] for index in sorted(self.finished)]

    def deal_sum_files(self, run_dir: Path) -> list[Path]:
        """The per-deal sums of the finished shards of a summary store, in shard order; empty
        when any finished shard has none (a batch from before they were written), so that the
        reports then fall back to shards as their independent units."""
        files = []
        for index in sorted(self.finished):
            paths = [record["path"] for record in self.finished[index]
                     if record["path"].startswith(f"{DEAL_SUMS_DIR}/")]
            if not paths:
                return []
            files.append(run_dir / paths[0])
        return files

    def notable_files(self, run_dir: Path) -> list[Path]:
        """The notable-games files of the finished shards, in shard order."""
        return [run_dir / record["path"] for index in sorted(self.finished)
                for record in self.finished[index]
                if record["path"].startswith(f"{NOTABLE_DIR}/")]

    def note(self, limit: int = 3) -> str | None:
        """One line saying what was ignored (None when nothing was)."""
        parts = []
        if self.legacy:
            parts.append("manifest.json records no shard files (a batch from an older sim): "
                         "shards found by file name")
        if self.ignored:
            listed = ", ".join(f"{path} ({reason})" for path, reason in self.ignored[:limit])
            more = len(self.ignored) - limit
            count = len(self.ignored)
            parts.append(f"ignored {count} shard file{'s' if count != 1 else ''}: {listed}"
                         + (f" and {more} more" if more > 0 else ""))
        return "; ".join(parts) if parts else None


def _shard_index(key: Any, shards_total: int) -> int | None:
    try:
        index = int(key)
    except (TypeError, ValueError):
        return None
    return index if 0 <= index < shards_total and str(index) == str(key) else None


def check_shards(run_dir: Path, manifest: dict[str, Any], check_hash: bool = True) -> ShardCheck:
    """The finished shards of a batch, taken from its manifest only (see ``ShardCheck``).

    A shard counts when the manifest records it with its result file under the runner's name for
    it, and every file it records is present with the recorded size (and SHA-256 when
    ``check_hash``). A shard file the manifest does not record never counts, whatever its name."""
    store = manifest.get("store", "rows")
    store = store if store in ("rows", "summary") else "rows"
    total = manifest.get("shards_total")
    total = total if isinstance(total, int) and not isinstance(total, bool) else 0
    records = manifest.get(SHARD_FILES)
    if SHARD_FILES not in manifest:
        return _legacy_check(run_dir, store, total)
    finished: dict[int, list[dict[str, Any]]] = {}
    ignored: list[tuple[str, str]] = []
    damaged: list[int] = []
    counted: set[str] = set()
    for key, files in (records.items() if isinstance(records, dict) else ()):
        index = _shard_index(key, total)
        expected = expected_shard_paths(store, index) if index is not None else ()
        if index is None or not isinstance(files, list) or not files or not all(
                isinstance(r, dict) and r.get("path") in expected for r in files) \
                or not any(r.get("path") == expected[0] for r in files):
            ignored.append((f"manifest.json shard_files[{key!r}]", "damaged record"))
            if index is not None:
                damaged.append(index)
            continue
        problems = [(r["path"], record_problem(run_dir, r, check_hash)) for r in files]
        bad = [(path, reason) for path, reason in problems if reason is not None]
        counted.update(r["path"] for r in files)
        if bad:
            ignored.extend(bad)
            damaged.append(index)
        else:
            finished[index] = files
    for folder in _shard_folders(store):
        if (run_dir / folder).is_dir():
            for path in sorted((run_dir / folder).glob("*.parquet")):
                relative = path.relative_to(run_dir).as_posix()
                if relative not in counted:
                    ignored.append((relative, "not recorded in manifest.json"))
    return ShardCheck(finished, tuple(ignored), damaged=tuple(sorted(damaged)))


def _legacy_check(run_dir: Path, store: str, shards_total: int) -> ShardCheck:
    finished: dict[int, list[dict[str, Any]]] = {}
    ignored: list[tuple[str, str]] = []
    for index in sorted(legacy_finished_shards(run_dir, store, shards_total)):
        finished[index] = [{"path": path} for path in expected_shard_paths(store, index)
                           if (run_dir / path).is_file()]
    for folder in _shard_folders(store):
        if (run_dir / folder).is_dir():
            for path in sorted((run_dir / folder).glob("*.parquet")):
                relative = path.relative_to(run_dir).as_posix()
                if not any(relative == r["path"] for files in finished.values() for r in files):
                    ignored.append((relative, "not a shard of this batch"))
    return ShardCheck(finished, tuple(ignored), legacy=True)


def verified_shards(run_dir: Path, manifest: dict[str, Any], shards_total: int,
                    check_hash: bool = True) -> dict[int, list[dict[str, Any]]]:
    """The shards the manifest records as finished whose every file is still there, whole
    (size, and SHA-256 when ``check_hash``): shard index -> its file records.

    Only the manifest makes a shard finished: a shard file it does not record (a stray copy, or
    a result whose notable-games file was never written) never counts."""
    manifest = {**manifest, "shards_total": shards_total, SHARD_FILES:
                manifest.get(SHARD_FILES) if isinstance(manifest.get(SHARD_FILES), dict) else {}}
    return check_shards(run_dir, manifest, check_hash).finished


def finished_shards(run_dir: Path, store: str) -> set[int]:
    """Shards the batch's manifest records as finished whose files are all present with their
    recorded sizes (a cheap check; ``--resume`` also compares hashes)."""
    try:
        manifest = read_manifest(run_dir)
    except InputError:
        return set()
    return set(check_shards(run_dir, {**manifest, "store": store}, check_hash=False).finished)


def legacy_finished_shards(run_dir: Path, store: str, shards_total: int) -> set[int]:
    """Shards of a batch written before the manifest recorded files: the result files present
    under their final names, within the batch's shard count."""
    folder = run_dir / shard_dir(store)
    done = set()
    if folder.is_dir():
        for path in folder.glob("shard-*.parquet"):
            try:
                index = int(path.stem.split("-")[1])
            except (IndexError, ValueError):
                continue
            if 0 <= index < shards_total and path.name == shard_name(index):
                done.add(index)
    return done


def remove_temporary_files(run_dir: Path) -> int:
    """Delete leftovers of writes interrupted by a crash: only the temporary names the batch's
    own writes use, in the batch's own folders (never other ``.tmp`` files of the user's), and
    of those only this process's own or a dead process's (``sim.files.may_remove_temporary``:
    another live process's file is its own business). The caller holds the batch's writer
    lock."""
    removed = 0
    candidates = [(run_dir, _MANIFEST_TEMPORARY)]
    candidates += [(run_dir / folder, _SHARD_TEMPORARY)
                   for folder in (SHARDS_DIR, SUMMARY_DIR, NOTABLE_DIR, DEAL_SUMS_DIR)]
    candidates.append((run_dir / INPUT_DIR, _INPUT_TEMPORARY))
    candidates.append((run_dir / STRATEGY_COPIES, _INPUT_TEMPORARY))
    for folder, pattern in candidates:
        if not folder.is_dir():
            continue
        for path in folder.glob(".*.tmp"):
            if pattern.match(path.name) and may_remove_temporary(path.name) and path.is_file():
                path.unlink(missing_ok=True)
                removed += 1
    return removed


def manifest_stamp(run_dir: Path) -> tuple[int, int, int] | None:
    """What tells whether a batch's manifest was rewritten: its inode, size and modification
    time (None when there is none). Every write replaces the file, so a new inode."""
    try:
        status = (run_dir / MANIFEST).stat()
    except OSError:
        return None
    return (status.st_ino, status.st_size, status.st_mtime_ns)


def adopt_recorded_shards(run_dir: Path, manifest: dict[str, Any],
                          shards_total: int) -> dict[int, list[dict[str, Any]]]:
    """The finished shards the manifest on disk records and ``manifest`` does not (every file
    present with its recorded size), copied into ``manifest``; returns them by index.

    A writer calls this before writing a manifest that someone else rewrote since it last wrote
    it, so a manifest is only ever advanced: it never records fewer finished shards than the
    one on disk (shards are a pure function of the config, so another writer's shard is the
    same bytes this one would write)."""
    try:
        on_disk = read_manifest(run_dir)
    except InputError:
        return {}
    if on_disk.get("config_hash") != manifest.get("config_hash"):
        return {}
    theirs = verified_shards(run_dir, on_disk, shards_total, check_hash=False)
    mine = manifest.setdefault(SHARD_FILES, {})
    adopted = {index: files for index, files in theirs.items() if str(index) not in mine}
    for index, files in adopted.items():
        mine[str(index)] = files
    if adopted:
        manifest[SHARD_FILES] = dict(sorted(mine.items(), key=lambda item: int(item[0])))
    return adopted


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The manifest of a batch folder, or a one-line InputError."""
    path = run_dir / MANIFEST
    if not path.exists():
        if run_dir.is_file():
            raise InputError(f"{run_dir}: a file, not a batch folder")
        raise InputError(f"{path}: no manifest here; not a batch folder")
    manifest = read_user_json(path, "batch manifest")
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
