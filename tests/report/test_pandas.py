"""The outputs open with pandas, as docs/schema.md promises (pyarrow is the Parquet engine)."""

import pandas

from sim.stats.batch import open_batch


def test_pandas_reads_a_batch_shard_and_a_summary(forest_dir, tmp_path):
    from sim.report import build_report

    batch = open_batch(forest_dir)
    frame = pandas.read_parquet(batch.shard_files[0])
    assert {"seat", "score", "win"} <= set(frame.columns) and len(frame) > 0
    whole = pandas.read_parquet(batch.shard_files[0].parent)  # the whole dataset at once
    assert len(whole) == sum(len(pandas.read_parquet(path)) for path in batch.shard_files)
    summary = pandas.read_parquet(build_report(forest_dir, tmp_path / "out").summary_parquet)
    assert "section" in summary.columns and len(summary) > 0
