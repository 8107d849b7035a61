"""Variable-length result columns: numpy arrays with a length per row turned into Parquet list
columns (Arrow ``list<...>``), for the games' ``play_shard``.

A list column is given as the flat values of every row one after the other and each row's
length; nothing is copied per row, so a shard of a million rows costs a few array operations.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

# The score trace column every game with ``Game.supports_trace`` writes when traced.
TRACE_COLUMN = "score_trace"


def _offsets(lengths: np.ndarray) -> pa.Array:
    offsets = np.zeros(lengths.size + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.array(offsets, type=pa.int32())


def list_column(values: np.ndarray, lengths: np.ndarray) -> pl.Series:
    """A list column: row ``i`` holds the next ``lengths[i]`` items of ``values``."""
    lengths = np.asarray(lengths, dtype=np.int64).ravel()
    array = pa.ListArray.from_arrays(_offsets(lengths), pa.array(np.ascontiguousarray(values)))
    return pl.Series(pl.from_arrow(array))


def nested_list_column(values: np.ndarray, inner_lengths: np.ndarray,
                       outer_lengths: np.ndarray) -> pl.Series:
    """A list of lists: row ``i`` holds the next ``outer_lengths[i]`` inner lists, inner list
    ``j`` the next ``inner_lengths[j]`` items of ``values``."""
    inner_lengths = np.asarray(inner_lengths, dtype=np.int64).ravel()
    outer_lengths = np.asarray(outer_lengths, dtype=np.int64).ravel()
    inner = pa.ListArray.from_arrays(_offsets(inner_lengths),
                                     pa.array(np.ascontiguousarray(values)))
    return pl.Series(pl.from_arrow(pa.ListArray.from_arrays(_offsets(outer_lengths), inner)))


def score_trace_column(scores: np.ndarray, lengths: np.ndarray | None = None) -> pl.Series:
    """The ``score_trace`` column from ``scores[row, step]`` (int16): row ``i`` keeps its first
    ``lengths[i]`` steps (all of them when ``lengths`` is None)."""
    scores = np.asarray(scores, dtype=np.int16)
    rows, steps = scores.shape
    if lengths is None:
        lengths = np.full(rows, steps, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    keep = np.arange(steps)[None, :] < lengths[:, None]
    return list_column(scores[keep], lengths).alias(TRACE_COLUMN)
