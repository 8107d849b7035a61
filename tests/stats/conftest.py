"""Synthetic batch folders for the statistics tests (see ``sim.stats.synthetic``)."""

import pytest

from sim.stats.synthetic import write_synthetic_batch


@pytest.fixture(scope="module")
def write_batch(tmp_path_factory):
    """A function (design, rows=None) -> RUN_DIR writing a synthetic batch to a fresh folder."""

    def write(design, rows=None):
        run_dir = tmp_path_factory.mktemp(design.name)
        write_synthetic_batch(run_dir, design, rows)
        return run_dir

    return write
