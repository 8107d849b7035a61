"""Opening a batch folder: manifest checks, shards taken from the manifest (stray and damaged
files left out and named), rules parameters."""

import hashlib
import json
import shutil

import polars as pl
import pytest

from sim.errors import InputError
from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats.batch import open_batch
from sim.stats.synthetic import SyntheticDesign, generate_rows

SMALL = SyntheticDesign(name="small", deals=40, games_per_shard=10, deal_model=ForestDeals())


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


def _record(run_dir, relative):
    """Make the manifest record the file at ``relative`` as it is now (a batch whose shard was
    written this way by the runner)."""
    data = (run_dir / relative).read_bytes()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    for files in manifest["shard_files"].values():
        for record in files:
            if record["path"] == relative:
                record.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    (run_dir / "manifest.json").write_text(json.dumps(manifest))


def test_a_stray_shard_file_is_left_out_and_named(write_batch):
    run_dir = write_batch(SMALL)
    shutil.copy(run_dir / "shards" / "shard-000000.parquet",
                run_dir / "shards" / "shard-000009.parquet")
    shutil.copy(run_dir / "shards" / "shard-000001.parquet", run_dir / "shards" / "extra.parquet")
    batch = open_batch(run_dir)
    assert [p.name for p in batch.shard_files] == [f"shard-{i:06d}.parquet" for i in range(4)]
    assert batch.scan(["score"]).collect().height == 160
    assert len(batch.to_pandas(["score"])) == 160
    note = batch.ignored_note
    assert note.startswith("ignored 2 shard files: ") and "\n" not in note
    assert "shards/shard-000009.parquet (not recorded in manifest.json)" in note
    assert "shards/extra.parquet (not recorded in manifest.json)" in note


@pytest.mark.parametrize("damage, reason", [
    ("truncate", "size differs from manifest.json"),
    ("flip", "content differs from manifest.json (SHA-256)"),
    ("delete", "missing"),
])
def test_a_damaged_shard_is_left_out_and_named(write_batch, damage, reason):
    run_dir = write_batch(SMALL)
    path = run_dir / "shards" / "shard-000002.parquet"
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        path.write_bytes(bytes(data[:-5]))
    elif damage == "flip":
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    else:
        path.unlink()
    batch = open_batch(run_dir)
    assert [p.name for p in batch.shard_files] == [
        "shard-000000.parquet", "shard-000001.parquet", "shard-000003.parquet"]
    assert len(batch.notable_files) == 3
    assert batch.scan(["score"]).collect().height == 120
    assert batch.ignored_note == f"ignored 1 shard file: shards/shard-000002.parquet ({reason})"


def test_without_the_hash_check_a_same_size_change_is_not_seen(write_batch):
    run_dir = write_batch(SMALL)
    path = run_dir / "notable" / "shard-000001.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    assert len(open_batch(run_dir, check_hash=False).shard_files) == 4
    assert len(open_batch(run_dir).shard_files) == 3


def test_a_batch_from_before_manifests_recorded_files_is_read_by_name(write_batch):
    run_dir = write_batch(SMALL)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    del manifest["shard_files"]
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    shutil.copy(run_dir / "shards" / "shard-000000.parquet",
                run_dir / "shards" / "shard-000007.parquet")
    batch = open_batch(run_dir)
    assert len(batch.shard_files) == 4
    assert "records no shard files" in batch.ignored_note
    assert "shards/shard-000007.parquet (not a shard of this batch)" in batch.ignored_note


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
    with pytest.raises(InputError, match=r"manifest\.json: batch manifest is not valid JSON"):
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
    with pytest.raises(InputError, match="no finished shard recorded in manifest.json") as caught:
        open_batch(batch_dir)
    assert "shards/shard-000000.parquet (missing)" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_summary_store_without_summary_folder(batch_dir):
    _edit_manifest(batch_dir, store="summary")
    with pytest.raises(InputError, match=r"summary: no finished shard"):
        open_batch(batch_dir)


def test_missing_column(batch_dir):
    shard = batch_dir / "shards" / "shard-000000.parquet"
    pl.read_parquet(shard).drop("win").write_parquet(shard)
    _record(batch_dir, "shards/shard-000000.parquet")
    with pytest.raises(InputError, match="column 'win': missing"):
        open_batch(batch_dir)


@pytest.mark.parametrize("shard", [0, 3])
def test_recorded_shard_that_is_not_parquet(batch_dir, shard):
    # Recorded with its size and hash (a batch written by another program), but not Parquet.
    path = batch_dir / "shards" / f"shard-{shard:06d}.parquet"
    path.write_bytes(b"not parquet")
    _record(batch_dir, f"shards/shard-{shard:06d}.parquet")
    with pytest.raises(InputError, match="not a readable Parquet file") as caught:
        open_batch(batch_dir)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)
