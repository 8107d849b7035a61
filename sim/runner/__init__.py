"""The batch runner: plays a ``BatchConfig`` in shards, in parallel, into Parquet, resumably.

One module per job:

- ``sim.runner.shards``: a shard's task, playing its games and encoding its files (and the
  design of experiments: which deal, replicate and lineup each game plays);
- ``sim.runner.batch_folder``: the batch folder, its manifest and its kept copies, checked and
  prepared before a run writes;
- ``sim.runner.backends``: where the shards are played (one worker pipelined, a pool of
  processes, a dask cluster) and the last shards cut into pieces;
- ``sim.runner.batch``: the run itself (``run_batch``), under the folder's writer lock.

The names other modules use are imported here, so ``from sim.runner import run_batch`` and the
like keep working.
"""

from sim.runner.backends import TAIL_PIECES_PER_WORKER, join_pieces_as_they_come, split_tail
from sim.runner.batch import (
    ManifestKeeper,
    RunSummary,
    check_workers,
    run_batch,
    set_between_shard_files,
)
from sim.runner.batch_folder import (
    check_run_dir,
    config_from_manifest,
    finished_shard_records,
    new_manifest,
    prepare_run_dir,
)
from sim.runner.shards import (
    PlayedShard,
    ShardOutput,
    ShardTask,
    encode_shard,
    game_design,
    join_pieces,
    notable_games,
    play_shard_games,
    play_shard_task,
    shard_games,
    shard_tasks,
)

__all__ = [
    "TAIL_PIECES_PER_WORKER",
    "ManifestKeeper",
    "PlayedShard",
    "RunSummary",
    "ShardOutput",
    "ShardTask",
    "check_run_dir",
    "check_workers",
    "config_from_manifest",
    "encode_shard",
    "finished_shard_records",
    "game_design",
    "join_pieces",
    "join_pieces_as_they_come",
    "new_manifest",
    "notable_games",
    "play_shard_games",
    "play_shard_task",
    "prepare_run_dir",
    "run_batch",
    "set_between_shard_files",
    "shard_games",
    "shard_tasks",
    "split_tail",
]
