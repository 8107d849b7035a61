"""Opening a batch folder: manifest checks, shard discovery, rules parameters."""

import json

import polars as pl
import pytest

from sim.errors import InputError
from sim.stats.batch import open_batch
from sim.stats.synthetic import SyntheticDesign, generate_rows

SMALL = SyntheticDesign(name="small", deals=40, games_per_shard=10)


@pytest.fixture
def batch_dir(write_batch):
    return write_batch(SMALL)


def _edit_manifest(run_dir, **changes):
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            manifest.pop(key)
        else:
            manifest[key] = value
    path.write_text(json.dumps(manifest))
    return path


def test_opens_a_rows_batch(batch_dir):
    batch = open_batch(batch_dir)
    assert (batch.name, batch.game, batch.store, batch.is_rows) == (
        "small", "legendary-forests", "rows", True)
    assert len(batch.shard_files) == 4 and len(batch.notable_files) == 4
    assert batch.rules_parameters == ("removed_tiles", "trees_per_colour_per_player")
    assert batch.varying_rules == ()
    frame = batch.scan(["score", "rules"]).collect()
    assert frame.height == 160 and set(frame["rules"]) == {""}


def test_ignores_files_being_written(batch_dir):
    (batch_dir / "shards" / ".shard-000004.parquet.123.tmp").write_bytes(b"partial")
    assert len(open_batch(batch_dir).shard_files) == 4


def test_varying_rules_parameter_becomes_a_label(write_batch):
    rows = generate_rows(SMALL)
    rows = rows.with_columns(removed_tiles=pl.when(pl.col("game_id") >= 20).then(6)
                             .otherwise(5).cast(pl.Int16))
    batch = open_batch(write_batch(SMALL, rows))
    assert batch.varying_rules == ("removed_tiles",)
    labels = batch.scan(["rules"]).collect()["rules"]
    assert set(labels) == {"removed_tiles=5", "removed_tiles=6"}


def test_missing_folder(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        open_batch(tmp_path / "nowhere")


def test_file_instead_of_folder(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="not a folder"):
        open_batch(tmp_path / "file")


def test_missing_manifest(tmp_path):
    with pytest.raises(InputError, match=r"manifest\.json: missing"):
        open_batch(tmp_path)


def test_invalid_json(batch_dir):
    (batch_dir / "manifest.json").write_text("{not json")
    with pytest.raises(InputError, match=r"manifest\.json: not valid JSON"):
        open_batch(batch_dir)


@pytest.mark.parametrize("changes, message", [
    ({"store": "csv"}, r"field 'store': must be one of 'rows', 'summary', got 'csv'"),
    ({"game": "chess"}, "field 'game': must be one of"),
    ({"name": None}, "field 'name': missing"),
    ({"name": "../x"}, "field 'name': '../x' cannot name a report folder"),
    ({"format": 2}, "field 'format': version 2 is not supported"),
    ({"format": "1"}, "field 'format': expected int"),
])
def test_invalid_manifest_fields(batch_dir, changes, message):
    path = _edit_manifest(batch_dir, **changes)
    with pytest.raises(InputError, match=message) as caught:
        open_batch(batch_dir)
    assert str(caught.value).startswith(str(path))
    assert "\n" not in str(caught.value)


def test_no_finished_shard(batch_dir):
    for shard in (batch_dir / "shards").iterdir():
        shard.unlink()
    with pytest.raises(InputError, match="no finished shard"):
        open_batch(batch_dir)


def test_summary_store_without_summary_folder(batch_dir):
    _edit_manifest(batch_dir, store="summary")
    with pytest.raises(InputError, match=r"summary: no finished shard"):
        open_batch(batch_dir)


def test_missing_column(batch_dir):
    shard = batch_dir / "shards" / "shard-000000.parquet"
    pl.read_parquet(shard).drop("win").write_parquet(shard)
    with pytest.raises(InputError, match="column 'win': missing"):
        open_batch(batch_dir)


@pytest.mark.parametrize("shard", [0, 3])
def test_damaged_shard(batch_dir, shard):
    path = batch_dir / "shards" / f"shard-{shard:06d}.parquet"
    path.write_bytes(b"not parquet")
    with pytest.raises(InputError, match="not a readable Parquet file") as caught:
        open_batch(batch_dir)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)
