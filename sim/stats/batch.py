"""A batch folder as the reports see it: the manifest and lazy scans of its Parquet files.

The layout and columns are fixed by ``docs/schema.md``. The shards read are the ones the
manifest records as finished, each file checked against its recorded size and SHA-256
(``sim.store.check_shards``), never the files a folder happens to hold: a stray copy or a
damaged file is left out and named in ``Batch.ignored_note``. Code of your own that reads a
batch should do the same: ``open_batch(RUN_DIR).scan()`` (polars), ``.to_pandas()`` or the
verified file list ``.shard_files``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from sim.errors import InputError
from sim.files import link_refusal, read_user_json
from sim.games.registry import games
from sim.store import (
    DEAL_SUM_COLUMNS,
    DEAL_SUMS_DIR,
    INPUT_DIR,
    NOTABLE_DIR,
    SHARDS_DIR,
    SUMMARY_DIR,
    check_shards,
    shard_dir,
)

STORES = ("rows", "summary")

# Columns the runner writes for every game (docs/schema.md); each game documents its own extras
# (``Game.column_docs`` in the game registry).
COMMON_ROW_COLUMNS = ("game_id", "deal_id", "replicate", "deal_seed", "strategy_seed", "players",
                      "seat", "strategy", "score", "rank", "win")
REQUIRED_ROW_COLUMNS = ("game_id", "deal_id", "replicate", "players", "seat", "strategy", "score",
                        "rank", "win")
SUMMARY_VALUE_COLUMNS = ("count", "win_sum", "shared_wins")
REQUIRED_SUMMARY_COLUMNS = ("players", "seat", "strategy", "score", *SUMMARY_VALUE_COLUMNS)
NOTABLE_COLUMNS = ("game_id", "kind", "seat", "strategy", "score", "drawing")

# The kind of value each column the reports read holds (docs/schema.md gives the exact types;
# the kind is what a report relies on, so a batch from a sim that stored a narrower or wider
# integer still reads, and a text or float column where integers belong is refused).
_COLUMN_KINDS = {
    "game_id": "integer", "deal_id": "integer", "replicate": "integer", "deal_seed": "integer",
    "strategy_seed": "integer", "players": "integer", "seat": "integer", "strategy": "text",
    "score": "integer", "rank": "integer", "win": "number", "count": "integer",
    "win_sum": "number", "shared_wins": "integer", "player_games": "integer",
    "score_sum": "integer", "win_units": "integer",
}
# Shards whose contents are checked at once (one polars query each): bounds the files open.
_CHECK_CHUNK_FILES = 64

# polars' out-of-core engine (the spelling of polars >= 1.23's ``collect(engine=...)``).
STREAMING_ENGINE = "streaming"

# Games read at once by the sections that stream a batch chunk by chunk (``Batch.chunks``):
# 400,000 player rows of a 4-player batch (a few hundred MB at most while polars reads them),
# whatever the batch's size.
CHUNK_GAMES = 100_000

# Group columns every statistic is split by; ``rules`` is a label of the rules parameters that
# vary within the batch (empty when they are all fixed).
GROUP_COLUMNS = ("players", "rules", "strategy", "seat")


@dataclass(frozen=True)
class Batch:
    """An opened batch: its folder, manifest fields and the files of its finished shards (in
    shard order; checked against the manifest), with a line saying what was left out."""

    run_dir: Path
    manifest: dict[str, Any]
    name: str
    game: str
    store: str
    shard_files: tuple[Path, ...]
    notable_files: tuple[Path, ...]
    columns: tuple[str, ...]
    rules_parameters: tuple[str, ...]
    varying_rules: tuple[str, ...]
    ignored_note: str | None = None
    # The summary store's per-deal sums, one file per finished shard (empty for the rows store
    # and for summary batches written before they existed).
    deal_sum_files: tuple[Path, ...] = ()
    # Shards manifest.json records as finished whose files are missing or damaged: the report
    # covers the batch without them (``partial_note``).
    damaged_shards: tuple[int, ...] = ()

    @property
    def partial_note(self) -> str | None:
        """One line saying the report covers only part of the batch (None when every shard
        manifest.json records as finished is there, whole): which shards are missing and how to
        play them again."""
        if not self.damaged_shards:
            return None
        count = len(self.damaged_shards)
        listed = ", ".join(str(index) for index in self.damaged_shards[:10])
        more = f" and {count - 10} more" if count > 10 else ""
        return (f"PARTIAL: {count} of the {count + len(self.shard_files)} shards "
                f"manifest.json records as finished {'is' if count == 1 else 'are'} missing or "
                f"damaged (shard{'s' if count != 1 else ''} {listed}{more}) and left out; "
                f"`sim run --resume {self.run_dir}` plays {'it' if count == 1 else 'them'} "
                f"again")

    @property
    def is_rows(self) -> bool:
        """True for the rows store (one row per player per game)."""
        return self.store == "rows"

    @property
    def has_deal_sums(self) -> bool:
        """True for a summary store that keeps per-deal sums (its clusters are deals)."""
        return not self.is_rows and bool(self.deal_sum_files)

    @property
    def cluster_unit(self) -> str:
        """The independent unit of every interval: ``deal``, or ``shard`` for a summary store
        from before per-deal sums were kept."""
        return "deal" if self.is_rows or self.has_deal_sums else "shard"

    @property
    def status(self) -> str:
        """``running``, ``interrupted`` or ``complete`` as the manifest says."""
        return str(self.manifest.get("status", "unknown"))

    @property
    def pool_design(self) -> str | None:
        """How the batch seated its strategies, from the recorded config: ``"mirror"`` (one
        strategy in every seat), ``"fixed"`` (one strategy per seat, not all the same),
        ``"repeated"`` (a rotating pool no larger than the table, repeated to fill it), or for a
        pool larger than the table its ``pool_design`` (``"balanced"``, ``"every-order"``, or
        ``"rotation"`` for a manifest written before pool designs existed). None when the
        manifest records no config."""
        config = self.manifest.get("config")
        if not isinstance(config, dict) or not isinstance(config.get("lineup"), list):
            return None
        lineup, players = config["lineup"], config.get("players")
        # Synthetic batches (sim.stats.synthetic) call the rotation ``rotate_lineup``.
        if not config.get("rotate", config.get("rotate_lineup", False)):
            return "mirror" if len(set(lineup)) == 1 else "fixed"
        if not isinstance(players, int) or len(lineup) <= players or players < 2:
            return "repeated"
        design = config.get("pool_design", "rotation")
        return design if isinstance(design, str) else None

    def has_columns(self, *names: str) -> bool:
        """True when every one of ``names`` is a column of the shards."""
        return all(name in self.columns for name in names)

    def scan(self, columns: list[str] | None = None,
             files: tuple[Path, ...] | None = None) -> pl.LazyFrame:
        """Lazy scan of the store's shards with a ``rules`` label column added.

        ``columns`` limits what is read (``rules`` is added whenever asked for or when no list is
        given); ``files`` limits it to some of ``shard_files`` (a chunk, ``chunks``). The scan
        reads nothing until collected.
        """
        frame = pl.scan_parquet(list(self.shard_files if files is None else files))
        wanted = list(self.columns) if columns is None else list(columns)
        needs_rules = columns is None or "rules" in wanted
        base = [c for c in wanted if c != "rules"]
        if needs_rules:
            base += [c for c in self.varying_rules if c not in base]
        frame = frame.select(base)
        if needs_rules:
            frame = frame.with_columns(rules_label(self.varying_rules))
        return frame

    def to_pandas(self, columns: list[str] | None = None):
        """The finished shards as one pandas DataFrame (``columns`` as in ``scan``)."""
        return self.scan(columns).collect().to_pandas()

    def scan_by_shard(self, columns: list[str]) -> pl.LazyFrame:
        """The ``columns`` of every shard with a ``shard`` column: the file's position in shard
        order (shards are played in that order). No ``rules`` label is added."""
        frames = [
            pl.scan_parquet(path).select(columns).with_columns(pl.lit(index).alias("shard"))
            for index, path in enumerate(self.shard_files)
        ]
        return pl.concat(frames, how="vertical_relaxed")

    def scan_deal_sums(self, files: tuple[Path, ...] | None = None) -> pl.LazyFrame:
        """Lazy scan of the summary store's per-deal sums: per (players, seat, strategy, rules
        parameters..., ``deal_id``) the integer sums of ``DEAL_SUM_COLUMNS``, with a ``rules``
        label added (``files``: some of ``deal_sum_files``, default all). A deal's replicates
        may fall in two shards: sum over ``deal_id``."""
        files = self.deal_sum_files if files is None else files
        frame = pl.scan_parquet(list(files)).select(
            "players", "seat", "strategy", *self.varying_rules, "deal_id", *DEAL_SUM_COLUMNS)
        return frame.with_columns(rules_label(self.varying_rules))

    def chunks(self, files: tuple[Path, ...] | None = None,
               games: int | None = None) -> list[tuple[Path, ...]]:
        """``files`` (default ``shard_files``; or ``deal_sum_files``, one per shard) cut into runs
        of consecutive shards of about ``games`` games each (default ``CHUNK_GAMES``; at least one
        shard): what a section that streams the batch reads at once. Shards hold consecutive
        game ids in shard order, so a deal can span two chunks only at their common edge."""
        files = self.shard_files if files is None else files
        games = CHUNK_GAMES if games is None else games
        size = (self.manifest.get("config") or {}).get("shard_size")
        per_chunk = max(1, games // size) if isinstance(size, int) and size > 0 else 1
        return [tuple(files[start:start + per_chunk])
                for start in range(0, len(files), per_chunk)]

    def scan_notable(self) -> pl.LazyFrame | None:
        """Lazy scan of ``notable/*.parquet``, or None when the batch has none."""
        if not self.notable_files:
            return None
        return pl.scan_parquet(list(self.notable_files)).select(NOTABLE_COLUMNS)


def collect_streaming(frame: pl.LazyFrame) -> pl.DataFrame:
    """Collect ``frame`` with polars' streaming engine: the shards are read in morsels and only
    the result is held, so an aggregate over millions of rows needs memory for the aggregate,
    not for the rows."""
    return frame.collect(engine=STREAMING_ENGINE)


def rules_label(varying_rules: tuple[str, ...]) -> pl.Expr:
    """An expression ``name=value, ...`` over the varying rules parameters ("" when none)."""
    if not varying_rules:
        return pl.lit("").alias("rules")
    parts = [pl.format(f"{name}={{}}", pl.col(name)) for name in varying_rules]
    return pl.concat_str(parts, separator=", ").alias("rules")


def _manifest_field(manifest: dict, path: Path, key: str, kind: type, allowed=None):
    if key not in manifest:
        raise InputError(f"{path}: field '{key}': missing")
    value = manifest[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError(f"{path}: field '{key}': expected {kind.__name__}, got {value!r}")
    if allowed is not None and value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise InputError(f"{path}: field '{key}': must be one of {choices}, got {value!r}")
    return value


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The parsed ``manifest.json`` of ``run_dir``, with the fields the reports use checked."""
    if not run_dir.exists():
        raise InputError(f"{run_dir}: batch folder does not exist")
    if not run_dir.is_dir():
        raise InputError(f"{run_dir}: not a folder (give the batch folder RUN_DIR)")
    path = run_dir / "manifest.json"
    if not path.is_file():
        raise InputError(f"{path}: missing (is {run_dir} a batch folder written by sim run?)")
    manifest = read_user_json(path, "batch manifest")
    if not isinstance(manifest, dict):
        raise InputError(f"{path}: expected a JSON object at the top level")
    format_version = _manifest_field(manifest, path, "format", int)
    if format_version != 1:
        raise InputError(f"{path}: field 'format': version {format_version} is not supported "
                         f"(this sim reads version 1)")
    name = _manifest_field(manifest, path, "name", str)
    if not name.strip() or "/" in name or name in (".", ".."):
        raise InputError(f"{path}: field 'name': {name!r} cannot name a report folder")
    _manifest_field(manifest, path, "game", str, tuple(games()))
    _manifest_field(manifest, path, "store", str, STORES)
    total = _manifest_field(manifest, path, "shards_total", int)
    if total < 1:
        raise InputError(f"{path}: field 'shards_total': must be at least 1, got {total}")
    _check_config(manifest, path)
    return manifest


# The config fields a report shows, with their types (a synthetic batch records others).
_CONFIG_TYPES: dict[str, type | tuple[type, ...]] = {
    "name": str, "game": str, "players": int, "lineup": list, "rotate": bool, "games": int,
    "deals": int, "replicates_per_deal": int, "replicates": int, "seed": int,
    "shard_size": int, "output": str, "store": str, "rules": dict,
    "data_file": (str, type(None)), "data_digest": str, "tags": dict,
}


def _check_config(manifest: dict[str, Any], path: Path) -> None:
    """The recorded config, when there is one, holds what the report reads from it."""
    config = manifest.get("config")
    if config is None:
        return
    if not isinstance(config, dict):
        raise InputError(f"{path}: field 'config': expected an object, got {config!r:.60}")
    for key, kind in _CONFIG_TYPES.items():
        if key not in config:
            continue
        value = config[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise InputError(f"{path}: field 'config.{key}': damaged (got {value!r:.60})")
    if not all(isinstance(label, str) for label in config.get("lineup", [])):
        raise InputError(f"{path}: field 'config.lineup': damaged (labels must be strings)")
    for key in ("rules", "tags"):
        for name, value in config.get(key, {}).items():
            if not isinstance(value, int | float | str) or (key == "rules" and (
                    not isinstance(value, int) or isinstance(value, bool))):
                raise InputError(f"{path}: field 'config.{key}.{name}': damaged "
                                 f"(got {value!r:.60})")


def _read_schema(path: Path) -> pl.Schema:
    try:
        return pl.read_parquet_schema(path)
    except Exception as error:  # polars raises several kinds for a damaged file
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(f"{path}: not a readable Parquet file ({reason})") from None


def _resume_hint(run_dir: Path) -> str:
    return f"remove the file and run `sim run --resume {run_dir}` to play the shard again"


def _column_kind(dtype: pl.DataType) -> str:
    if dtype.is_integer():
        return "integer"
    if dtype.is_float():
        return "number"
    return "text" if dtype == pl.String else str(dtype)


def _check_columns(path: Path, schema: pl.Schema, required: tuple[str, ...],
                   run_dir: Path | None = None) -> None:
    """Every ``required`` column present, and every column the reports read of its kind
    (``_COLUMN_KINDS``; an integer column may hold any integer type, ``number`` any integer or
    float)."""
    for column in required:
        if column not in schema:
            raise InputError(f"{path}: column '{column}': missing")
    for column, kind in _COLUMN_KINDS.items():
        if column not in schema:
            continue
        found = _column_kind(schema[column])
        if found != kind and not (kind == "number" and found == "integer"):
            hint = f"; {_resume_hint(run_dir)}" if run_dir is not None else ""
            raise InputError(f"{path}: column '{column}': holds {schema[column]}, not "
                             f"{'an' if kind == 'integer' else 'a'} {kind} column as in "
                             f"docs/schema.md{hint}")


def _refuse_linked_folders(run_dir: Path) -> None:
    """A batch's own folders are real folders: a link there would make the report read (and a
    resume write) files outside the batch."""
    for name in (SHARDS_DIR, SUMMARY_DIR, DEAL_SUMS_DIR, NOTABLE_DIR, INPUT_DIR):
        if (run_dir / name).is_symlink():
            raise InputError(link_refusal(run_dir / name, run_dir))


def _shard_aggregates(files: tuple[Path, ...], columns: dict[str, list[str]]) -> pl.DataFrame:
    """Per file of ``files`` (one row each, in order): ``rows`` and, per column of ``columns``
    (column -> aggregates among ``min``, ``max``, ``sum``, ``nulls``), ``<column>_<aggregate>``.
    Reads those columns only, a few files at a time."""
    expressions = [pl.len().alias("rows")]
    for column, wanted in columns.items():
        values = pl.col(column)
        made = {"min": values.min(), "max": values.max(),
                "sum": values.cast(pl.Int64).sum(), "nulls": values.null_count()}
        expressions += [made[aggregate].alias(f"{column}_{aggregate}") for aggregate in wanted]
    parts = [pl.concat([pl.scan_parquet(path).select(expressions)
                        for path in files[start:start + _CHECK_CHUNK_FILES]]).collect()
             for start in range(0, len(files), _CHECK_CHUNK_FILES)]
    return pl.concat(parts)


def _shard_games(manifest: dict[str, Any], index: int) -> tuple[int, int] | None:
    """The first game id and the number of games of shard ``index`` (the runner plays shard
    i as games i * shard_size onwards), or None when the manifest does not say."""
    size, total = manifest.get("shard_size"), manifest.get("games_total")
    if not isinstance(size, int) or not isinstance(total, int) or size < 1:
        return None
    first = index * size
    return first, min(size, total - first)


def _check_contents(run_dir: Path, manifest: dict[str, Any], store: str,
                    indices: list[int], files: tuple[Path, ...],
                    rules_parameters: tuple[str, ...], count_column: str | None
                    ) -> pl.DataFrame:
    """Check what each shard holds against the batch (one-line ``InputError`` naming the first
    shard that does not fit, with the fix): some rows, the ``players`` column equal to the
    config's player count, seats within 0..players-1 and, in the rows store, exactly the
    shard's own games, each once per seat (counts, ranges and sums of ``game_id`` and
    ``seat``), so game ids are unique across shards; ``count_column`` (summary stores: the
    player-games a row stands for) must sum to the shard's games times the players. Reads only
    those columns; returns the per-shard aggregates (with min and max of ``rules_parameters``)
    for ``_varying_columns``.

    These are consistency checks against copying, truncating and mixing files, not a proof
    against a forger who rewrites a shard's contents and its manifest entry alike."""
    columns: dict[str, list[str]] = {"players": ["min", "max", "nulls"],
                                     "seat": ["min", "max", "nulls"]}
    if count_column is None:
        columns["seat"].append("sum")
        columns["game_id"] = ["min", "max", "sum", "nulls"]
    else:
        columns[count_column] = ["sum"]
    for name in rules_parameters:
        columns.setdefault(name, []).extend(["min", "max"])
    aggregates = _shard_aggregates(files, columns)
    config_players = (manifest.get("config") or {}).get("players")
    previous: tuple[Path, int] | None = None
    for index, path, row in zip(indices, files, aggregates.iter_rows(named=True), strict=True):
        players = config_players if isinstance(config_players, int) else row["players_max"]
        problem = _content_problem(manifest, index, row, players, count_column)
        if problem is None and count_column is None:
            low, high = row["game_id_min"], row["game_id_max"]
            games = _shard_games(manifest, index)
            if games is not None and (low, high) != (games[0], games[0] + games[1] - 1):
                owner = _shard_holding(manifest, low, files, indices)
                whose = f" (those of {owner})" if owner not in (None, path) else ""
                problem = (f"game ids {low}..{high}{whose}, but shard {index} holds games "
                           f"{games[0]}..{games[0] + games[1] - 1}")
            elif games is None and previous is not None and low <= previous[1]:
                problem = f"game ids {low}..{high} overlap those of {previous[0]}"
            previous = (path, high)
        if problem is not None:
            raise InputError(f"{path}: {problem}; {_resume_hint(run_dir)}")
    return aggregates


def _content_problem(manifest: dict[str, Any], index: int, row: dict[str, Any], players: int,
                     count_column: str | None) -> str | None:
    """What is wrong with shard ``index`` by its aggregates ``row`` (``_check_contents``),
    other than game ids of another shard; None when nothing is."""
    if row["rows"] == 0:
        return "no rows (an empty shard)"
    if row["players_nulls"] or row["seat_nulls"] or row.get("game_id_nulls"):
        return "missing values in its players, seat or game_id column"
    if row["players_min"] != players or row["players_max"] != players:
        held = (f"{row['players_min']}" if row["players_min"] == row["players_max"]
                else f"{row['players_min']} to {row['players_max']}")
        return f"column 'players' holds {held}, but the batch was played with {players} players"
    if row["seat_min"] < 0 or row["seat_max"] > players - 1:
        return (f"column 'seat' holds {row['seat_min']} to {row['seat_max']}, outside "
                f"0..{players - 1} for {players} players")
    games = _shard_games(manifest, index)
    if games is None:
        return None
    first, count = games
    if count_column is not None:
        total = row[f"{count_column}_sum"]
        if total != count * players:
            return (f"its {count_column} sum to {total}, not the {count * players} "
                    f"player-games of its {count} games")
        return None
    last = first + count - 1
    if (row["game_id_min"], row["game_id_max"]) != (first, last):
        return None  # named with the shard they belong to by the caller
    expected = (count * players, players * count * (first + last) // 2,
                count * players * (players - 1) // 2)
    if (row["rows"], row["game_id_sum"], row["seat_sum"]) != expected:
        return (f"{row['rows']} rows for games {first}..{last}, not each of its {count} games "
                f"once per seat ({count * players} rows; game ids or seats repeated or missing)")
    return None


def _shard_holding(manifest: dict[str, Any], game_id: int, files: tuple[Path, ...],
                   indices: list[int]) -> Path | None:
    """The file of the shard whose games include ``game_id`` (None when none of ``files``)."""
    for index, path in zip(indices, files, strict=True):
        games = _shard_games(manifest, index)
        if games is not None and games[0] <= game_id < games[0] + games[1]:
            return path
    return None


def open_batch(run_dir: str | Path, check_hash: bool = True) -> Batch:
    """Open the batch in ``run_dir``: check the manifest and take its finished shards from it.

    Every file of a shard is checked against the size (and, with ``check_hash``, the SHA-256)
    the manifest records; a shard with a missing or damaged file and a file the manifest does not
    record are left out, and ``Batch.ignored_note`` says so in one line (``Batch.partial_note``
    when a shard the manifest records as finished is among them: the report is partial). Raises
    ``InputError`` (one line: file, field, reason) when the folder, the manifest, a field or a
    required column is missing or invalid, when no shard is finished, when one of the batch's
    folders is a symbolic link, and when a shard's contents do not fit the batch
    (``_check_contents``: an empty shard, a column of the wrong type, players or seats outside
    the design, game ids of another shard or repeated), naming the shard and the fix.
    """
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    store = manifest["store"]
    _refuse_linked_folders(run_dir)
    checked = check_shards(run_dir, manifest, check_hash)
    shard_files = tuple(checked.result_files(run_dir, store))
    if not shard_files:
        note = checked.note(limit=1)
        raise InputError(f"{run_dir / shard_dir(store)}: no finished shard recorded in "
                         f"manifest.json for the {store} store" + (f" ({note})" if note else ""))
    required = REQUIRED_ROW_COLUMNS if store == "rows" else REQUIRED_SUMMARY_COLUMNS
    # Footers only: cheap even for hundreds of shards, and a damaged file is named here rather
    # than failing halfway through the statistics.
    schemas = [_read_schema(path) for path in shard_files]
    schema = schemas[0]
    for path, shard_schema in zip(shard_files, schemas, strict=True):
        _check_columns(path, shard_schema, required, run_dir)
        if shard_schema != schema:
            differing = next(name for name in {*schema, *shard_schema}
                             if schema.get(name) != shard_schema.get(name))
            raise InputError(f"{path}: column '{differing}': {shard_schema.get(differing)} "
                             f"here, {schema.get(differing)} in {shard_files[0]} (shards of "
                             f"one batch have the same columns); {_resume_hint(run_dir)}")
    config_rules = (manifest.get("config") or {}).get("rules")
    if isinstance(config_rules, dict):
        # The runner records the game's rules parameters in the resolved config.
        rules_parameters = tuple(c for c in config_rules if c in schema)
    else:
        known = (set(COMMON_ROW_COLUMNS) | set(games()[manifest["game"]].column_docs())
                 | set(SUMMARY_VALUE_COLUMNS))
        rules_parameters = tuple(c for c in schema if c not in known and schema[c].is_integer())
    indices = sorted(checked.finished)
    aggregates = _check_contents(run_dir, manifest, store, indices, shard_files,
                                 rules_parameters, None if store == "rows" else "count")
    varying = _varying_columns(aggregates, rules_parameters)
    notable_files = tuple(checked.notable_files(run_dir))
    deal_sum_files = tuple(checked.deal_sum_files(run_dir)) if store == "summary" else ()
    for path in deal_sum_files:
        _check_columns(path, _read_schema(path), ("players", "seat", "strategy", "deal_id",
                                                  *DEAL_SUM_COLUMNS), run_dir)
    if deal_sum_files:
        _check_contents(run_dir, manifest, store, indices, deal_sum_files, (), "player_games")
    return Batch(run_dir=run_dir, manifest=manifest, name=manifest["name"],
                 game=manifest["game"], store=store, shard_files=shard_files,
                 notable_files=notable_files, columns=tuple(schema),
                 rules_parameters=rules_parameters, varying_rules=varying,
                 ignored_note=checked.note(), deal_sum_files=deal_sum_files,
                 damaged_shards=checked.damaged)


def _varying_columns(aggregates: pl.DataFrame, columns: tuple[str, ...]) -> tuple[str, ...]:
    """The ``columns`` (integer rules parameters) that take more than one value across the
    shards, from the shards' minima and maxima (``_check_contents``)."""
    return tuple(c for c in columns
                 if aggregates[f"{c}_min"].min() != aggregates[f"{c}_max"].max())
