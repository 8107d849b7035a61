"""A table of bad inputs: each one gives exit code 2, exactly one line on stderr naming the
file, field or option, no traceback, and leaves the files of an earlier batch in the same
folder byte for byte as they were."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config import load_config
from sim.games.legendary_forests.data import DEFAULT_TILES_PATH
from sim.runner import run_batch
from sim.sweep import load_sweep, run_sweep
from tests.reliability.helpers import TINY_CONFIG, fingerprint, write_config

NOT_UTF8 = b"name = \"caf\xe9\"\n\xff\xfe\n"
DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"


def config_with(line: str, drop: tuple[str, ...] = ()) -> str:
    """The tiny config with ``line`` added (and the fields in ``drop`` left out)."""
    kept = [row for row in TINY_CONFIG.strip().splitlines()
            if row.split("=")[0].strip() not in drop]
    return line + "\n" + "\n".join(kept) + "\n"


# (category, id, how the case is set up, expected part of the one line)
# Setups: ("config", text) writes a config and runs it into the earlier batch's folder;
# ("args", [...]) runs those arguments ({work}, {batch}, {files} are filled in).
CONFIG_CASES = [
    ("unknown-field", config_with('colour = "red"'), "unknown field 'colour'"),
    ("players-string", config_with('players = "two"', ("players",)), "field 'players'"),
    ("players-zero", config_with("players = 0", ("players",)), "players"),
    ("players-many", config_with("players = 99", ("players",)), "players"),
    ("games-string", config_with('games = "ten"', ("games",)), "field 'games'"),
    ("games-zero", config_with("games = 0", ("games",)), "field 'games'"),
    ("games-negative", config_with("games = -5", ("games",)), "field 'games'"),
    ("games-float", config_with("games = 10.5", ("games",)), "field 'games'"),
    ("games-huge", config_with("games = 9223372036854775807", ("games",)), "field 'games'"),
    ("games-10e15", config_with("games = 1_000_000_000_000_000", ("games",)), "field 'games'"),
    ("deals-huge", config_with("deals = 9223372036854775807\nreplicates_per_deal = 4",
                               ("games",)), "field 'deals'"),
    ("deals-times-replicates", config_with("deals = 100000000000\nreplicates_per_deal = 1000",
                                           ("games",)), "field 'games'"),
    ("games-vs-deals", config_with("deals = 3\nreplicates_per_deal = 2"), "field 'games'"),
    ("replicates-zero", config_with("replicates_per_deal = 0"), "replicates_per_deal"),
    ("seed-negative", config_with("seed = -1", ("seed",)), "field 'seed'"),
    ("seed-too-big", config_with("seed = 18446744073709551616", ("seed",)), "field 'seed'"),
    ("seed-string", config_with('seed = "x"', ("seed",)), "field 'seed'"),
    ("seed-bool", config_with("seed = true", ("seed",)), "field 'seed'"),
    ("shard-zero", config_with("shard_size = 0", ("shard_size",)), "field 'shard_size'"),
    ("shard-huge", config_with("shard_size = 1_000_000_000_000", ("shard_size",)),
     "field 'shard_size'"),
    ("store-unknown", config_with('store = "cols"', ("store",)), "field 'store'"),
    ("store-number", config_with("store = 3", ("store",)), "field 'store'"),
    ("strategy-unknown", config_with('strategies = ["greedy", "gredy"]', ("strategies",)),
     "unknown strategy 'gredy'"),
    ("strategy-count", config_with('strategies = ["greedy", "random", "greedy"]',
                                   ("strategies",)), "field 'strategies'"),
    ("strategy-empty", config_with("strategies = []", ("strategies",)), "field 'strategies'"),
    ("strategy-number", config_with("strategies = 3", ("strategies",)), "field 'strategies'"),
    ("strategy-param", config_with('strategies = ["greedy:depth=2"]', ("strategies",)),
     "no parameter 'depth'"),
    ("strategy-no-equals", config_with('strategies = ["greedy:hope"]', ("strategies",)),
     "name:key=value"),
    ("strategy-table-no-name", config_with("strategies = [{depth = 2}]", ("strategies",)),
     "field 'strategies[0]'"),
    ("strategy-and-pool", config_with('pool = ["greedy"]'), "'strategies' and 'pool'"),
    ("pool-empty", config_with("pool = []", ("strategies",)), "field 'pool'"),
    ("game-unknown", config_with('game = "chess"', ("game",)), "field 'game'"),
    ("game-number", config_with("game = 7", ("game",)), "field 'game'"),
    ("rules-not-table", config_with("rules = 3"), "field 'rules'"),
    ("rules-unknown", config_with("[rules]\nnope = 1", ()), "nope"),
    ("rules-range", config_with("[rules]\nremoved_tiles = 999", ()), "removed_tiles"),
    ("name-dotdot", config_with('name = "../../escaped"'), "field 'name'"),
    ("name-slash", config_with('name = "a/b"'), "field 'name'"),
    ("name-empty", config_with('name = ""'), "field 'name'"),
    ("name-number", config_with("name = 5"), "field 'name'"),
    ("output-absolute", config_with('output = "/tmp/elsewhere"'), "field 'output'"),
    ("output-dotdot", config_with('output = "../elsewhere"'), "field 'output'"),
    ("output-number", config_with("output = 5"), "field 'output'"),
    ("config-tiles-missing", config_with('tiles = "nowhere.toml"'), "field 'tiles'"),
    ("tiles-number", config_with("tiles = 5"), "field 'tiles'"),
    ("data-of-other-game", config_with('data = "x"'), "field 'data'"),
    ("invalid-toml", "players = = 2\n", "not valid TOML"),
    ("not-utf8", NOT_UTF8, "not UTF-8"),
    ("deep-toml", DEEP_TOML, "nested too deeply"),
    ("name-spaces", config_with('name = " x"'), "field 'name'"),
    ("output-nested-dotdot", config_with('output = "runs/../../x"'), "field 'output'"),
    ("output-empty", config_with('output = ""'), "field 'output'"),
    ("strategy-table-number-name", config_with("strategies = [{name = 3}]", ("strategies",)),
     "field 'strategies[0]'"),
    ("pool-number", config_with("pool = 3", ("strategies",)), "field 'pool'"),
    ("replicates-string", config_with('replicates_per_deal = "x"'), "replicates_per_deal"),
    ("tiles-folder", config_with('tiles = "."'), "is a folder"),
]

# Configs that name code the user did not ask for: refused before anything of it is imported.
CODE_CONFIG_CASES = [
    ("config-module", config_with('strategies = ["this:X"]', ("strategies",)), "--allow-code"),
    ("config-file-outside", config_with('strategies = ["../evil.py:X"]', ("strategies",)),
     "--allow-code"),
    ("config-file-absolute", config_with('strategies = ["/tmp/evil.py:X"]', ("strategies",)),
     "--allow-code"),
    ("config-file-subfolder", config_with('strategies = ["sub/evil.py:X"]', ("strategies",)),
     "--allow-code"),
    ("config-pool-module", config_with('pool = ["os.path:X", "greedy"]', ("strategies",)),
     "--allow-code"),
    ("config-table-module", config_with('strategies = [{name = "this:X"}]', ("strategies",)),
     "--allow-code"),
    ("config-module-with-settings", config_with('strategies = ["this:X:a=1"]', ("strategies",)),
     "--allow-code"),
]

ARG_CASES = [
    # command-line options
    ("options", "run-unknown-option", ["run", "{config}", "--nope"], "--nope"),
    ("options", "play-unknown-option", ["play", "--nope"], "--nope"),
    ("options", "score-unknown-option", ["score", "{planet_empty}", "--nope"], "--nope"),
    ("options", "report-unknown-option", ["report", "{batch}", "--nope"], "--nope"),
    ("options", "runs-unknown-option", ["runs", "{work}", "--nope"], "--nope"),
    ("options", "bench-unknown-option", ["bench", "--nope"], "--nope"),
    ("options", "tournament-unknown-option", ["tournament", "--nope"], "--nope"),
    ("options", "strategies-unknown-option", ["strategies", "--nope"], "--nope"),
    ("options", "sweep-unknown-option", ["sweep", "{sweep}", "--nope"], "--nope"),
    ("options", "tune-trees-unknown-option", ["tune-trees", "--nope"], "--nope"),
    ("options", "unknown-command", ["nope"], "nope"),
    ("options", "play-seed-abc", ["play", "--seed", "abc"], "--seed"),
    ("options", "play-seed-negative", ["play", "--seed", "-1"], "--seed"),
    ("options", "play-seed-too-big", ["play", "--seed", str(2**64)], "--seed"),
    ("options", "run-seed-abc", ["run", "{config}", "--seed", "abc"], "--seed"),
    ("options", "run-seed-negative", ["run", "{config}", "--seed", "-1"], "seed"),
    ("options", "run-seed-too-big", ["run", "{config}", "--seed", str(2**64)], "seed"),
    ("options", "tournament-seed-negative", ["tournament", "--seed", "-1"], "--seed"),
    ("options", "tournament-seed-too-big", ["tournament", "--seed", str(2**64)], "--seed"),
    ("options", "tune-trees-seed-negative", ["tune-trees", "--seed", "-1"], "--seed"),
    ("options", "run-games-abc", ["run", "{config}", "--games", "abc"], "--games"),
    ("options", "run-games-zero", ["run", "{config}", "--games", "0"], "games"),
    ("options", "run-games-10e15", ["run", "{config}", "--games", str(10**15)], "--games"),
    ("options", "run-games-2e63", ["run", "{config}", "--games", str(2**63 - 1)], "--games"),
    ("options", "run-shard-size-huge", ["run", "{config}", "--shard-size", str(10**12)],
     "--shard-size"),
    ("options", "run-workers-negative", ["run", "{config}", "--workers", "-1"], "--workers"),
    ("options", "run-backend", ["run", "{config}", "--backend", "mpi"], "--backend"),
    ("options", "run-store", ["run", "{config}", "--store", "cols"], "store"),
    ("options", "run-rule-no-equals", ["run", "{config}", "--rule", "removed_tiles"], "--rule"),
    ("options", "run-rule-unknown", ["run", "{config}", "--rule", "nope=1"], "nope"),
    ("options", "run-config-is-folder", ["run", "{work}"], "CONFIG_FILE"),
    ("options", "run-config-missing", ["run", "{work}/none.toml"], "config file not found"),
    ("options", "run-no-config", ["run"], "config file"),
    ("options", "run-players-zero", ["run", "{config}", "--players", "0"], "players"),
    ("options", "play-players-zero", ["play", "--players", "0"], "players"),
    ("options", "play-players-many", ["play", "--players", "99"], "players"),
    ("options", "play-strategy-unknown", ["play", "--strategy", "gredy"], "gredy"),
    ("options", "play-strategy-no-equals", ["play", "--strategy", "planner:hope"],
     "name:key=value"),
    ("options", "play-strategy-bad-number", ["play", "--strategy", "greedy:patience=x"],
     "patience"),
    ("options", "play-strategy-count", ["play", "-p", "3", "--strategy", "greedy",
                                        "--strategy", "random"], "--strategy"),
    ("options", "play-game-unknown", ["play", "--game", "chess"], "chess"),
    ("options", "play-tiles-folder", ["play", "--tiles", "{work}"], "{work}"),
    ("options", "play-rule-range", ["play", "--rule", "removed_tiles=999"], "removed_tiles"),
    ("options", "strategies-game-unknown", ["strategies", "--game", "chess"], "chess"),
    ("options", "tournament-games-zero", ["tournament", "--games", "0"], "--games"),
    ("options", "runs-on-file", ["runs", "{config}"], "{config}"),
    ("options", "runs-missing", ["runs", "{work}/none"], "none"),
    # tile sets
    ("tiles", "tiles-not-utf8", ["play", "--tiles", "{tiles_not_utf8}"], "tiles_not_utf8"),
    ("tiles", "tiles-invalid-toml", ["play", "--tiles", "{tiles_invalid}"], "tiles_invalid"),
    ("tiles", "tiles-empty", ["play", "--tiles", "{tiles_empty}"], "tiles_empty"),
    ("tiles", "tiles-missing", ["play", "--tiles", "{work}/none.toml"], "none.toml"),
    ("tiles", "tiles-not-utf8-score", ["score", "{planet_empty}", "--tiles", "{tiles_not_utf8}"],
     "tiles_not_utf8"),
    ("tiles", "tiles-not-utf8-run", ["run", "{config}", "--tiles", "{tiles_not_utf8}"],
     "tiles_not_utf8"),
    ("tiles", "tiles-invalid-tournament", ["tournament", "--tiles", "{tiles_invalid}"],
     "tiles_invalid"),
    # planets
    ("planets", "planet-not-utf8", ["score", "{planet_not_utf8}"], "planet_not_utf8"),
    ("planets", "planet-invalid-json", ["score", "{planet_invalid}"], "planet_invalid"),
    ("planets", "planet-deep", ["score", "{planet_deep}"], "planet_deep"),
    ("planets", "planet-deep-object", ["score", "{planet_deep_object}"], "planet_deep_object"),
    ("planets", "planet-list", ["score", "{planet_list}"], "planet_list"),
    ("planets", "planet-empty-object", ["score", "{planet_empty}"], "planet_empty"),
    ("planets", "planet-missing", ["score", "{work}/none.json"], "none.json"),
    ("planets", "planet-folder", ["score", "{work}"], "{work}"),
    ("planets", "planet-number", ["score", "{planet_number}"], "planet_number"),
    # Harmonies boards
    ("boards", "board-not-utf8", ["score", "--game", "harmonies", "{board_not_utf8}"],
     "board_not_utf8"),
    ("boards", "board-invalid-json", ["score", "--game", "harmonies", "{board_invalid}"],
     "board_invalid"),
    ("boards", "board-deep", ["score", "--game", "harmonies", "{board_deep}"], "board_deep"),
    ("boards", "board-list", ["score", "--game", "harmonies", "{board_list}"], "board_list"),
    ("boards", "board-empty", ["score", "--game", "harmonies", "{board_empty}"],
     "board_empty"),
    ("boards", "board-colour", ["score", "--game", "harmonies", "{board_colour}"], "purple"),
    ("boards", "board-missing", ["score", "--game", "harmonies", "{work}/none.json"],
     "none.json"),
    ("boards", "board-folder", ["score", "--game", "harmonies", "{work}"], "{work}"),
    ("boards", "harmonies-data-missing", ["play", "--game", "harmonies", "--data",
                                          "{work}/none"], "none"),
    # reports
    ("reports", "report-missing", ["report", "{work}/none"], "none"),
    ("reports", "report-file", ["report", "{config}"], "{config}"),
    ("reports", "report-no-manifest", ["report", "{empty_dir}"], "manifest.json"),
    ("reports", "report-manifest-not-json", ["report", "{copy_not_json}"], "manifest.json"),
    ("reports", "report-manifest-not-utf8", ["report", "{copy_not_utf8}"], "manifest.json"),
    ("reports", "report-manifest-format", ["report", "{copy_format}"], "format"),
    ("reports", "report-manifest-name", ["report", "{copy_name}"], "name"),
    ("reports", "report-unknown-game", ["report", "{copy_game}"], "game"),
    ("reports", "report-no-shards", ["report", "{copy_no_shards}"], "shard"),
    # resumes
    ("resumes", "resume-no-manifest", ["run", "--resume", "{empty_dir}"], "manifest.json"),
    ("resumes", "resume-missing", ["run", "--resume", "{work}/none"], "none"),
    ("resumes", "resume-a-file", ["run", "--resume", "{config}"], "--resume"),
    ("resumes", "resume-not-json", ["run", "--resume", "{copy_not_json}"], "manifest.json"),
    ("resumes", "resume-not-utf8", ["run", "--resume", "{copy_not_utf8}"], "manifest.json"),
    ("resumes", "resume-format", ["run", "--resume", "{copy_format}"], "format"),
    ("resumes", "resume-config-not-object", ["run", "--resume", "{copy_config_list}"],
     "field 'config'"),
    ("resumes", "resume-config-missing-key", ["run", "--resume", "{copy_config_key}"],
     "config.seed"),
    ("resumes", "resume-config-bad-type", ["run", "--resume", "{copy_config_type}"],
     "config.games"),
    ("resumes", "resume-config-unknown-game", ["run", "--resume", "{copy_config_game}"],
     "config.game"),
    ("resumes", "resume-config-bad-store", ["run", "--resume", "{copy_config_store}"],
     "config.store"),
    ("resumes", "resume-config-no-config", ["run", "--resume", "{copy_no_config}"],
     "field 'config'"),
    ("resumes", "resume-with-override", ["run", "--resume", "{batch}", "--games", "5"],
     "--resume"),
    ("resumes", "resume-other-config", ["run", "{other_config}", "--resume", "{batch}"],
     "another config"),
    ("resumes", "run-into-existing-batch", ["run", "{config}", "--out", "{batch}"],
     "already here"),
    ("resumes", "run-out-is-a-file", ["run", "{config}", "--out", "{config}"], "{config}"),
    # sweeps
    ("sweeps", "sweep-missing", ["sweep", "{work}/none.toml"], "none.toml"),
    ("sweeps", "sweep-not-utf8", ["sweep", "{sweep_not_utf8}"], "sweep_not_utf8"),
    ("sweeps", "sweep-no-grid", ["sweep", "{config}"], "field 'sweep'"),
    ("sweeps", "sweep-bad-axis", ["sweep", "{sweep_bad_axis}"], "sweep.colour"),
    ("sweeps", "sweep-empty-axis", ["sweep", "{sweep_empty_axis}"], "sweep.players"),
    ("sweeps", "sweep-name-escape", ["sweep", "{sweep_name}"], "field 'name'"),
    ("sweeps", "sweep-resume-missing", ["sweep", "{sweep}", "--resume", "--out",
                                        "{empty_dir}"], "{empty_dir}"),
    ("sweeps", "sweep-seed-negative", ["sweep", "{sweep}", "--seed", "-1"], "seed"),
    ("sweeps", "sweep-folder", ["sweep", "{work}"], "{work}"),
    # more command-line options
    ("options", "bench-games-huge", ["bench", "--games", str(10**15)], "--games"),
    ("options", "tournament-games-huge", ["tournament", "--games", str(10**15)], "--games"),
    ("options", "play-seed-float", ["play", "--seed", "1.5"], "--seed"),
    ("options", "tournament-seed-abc", ["tournament", "--seed", "abc"], "--seed"),
    ("options", "sweep-seed-too-big", ["sweep", "{sweep}", "--seed", str(2**64)], "--seed"),
    ("options", "tune-trees-seed-too-big", ["tune-trees", "--seed", str(2**64)], "--seed"),
    ("options", "tune-trees-players-range", ["tune-trees", "--players", "0-9"], "--players"),
    ("options", "tune-trees-supply-abc", ["tune-trees", "--supply", "abc"], "--supply"),
    ("options", "tune-trees-one-strategy", ["tune-trees", "--strategies", "planner"],
     "--strategies"),
    ("options", "tune-trees-config-missing", ["tune-trees", "--config", "{work}/none.toml"],
     "none.toml"),
    ("options", "tune-trees-resume-nothing", ["tune-trees", "--resume", "--out", "{empty_dir}",
                                              "--players", "2", "--supply", "1"], "sweep.json"),
    ("options", "run-config-device", ["run", "/dev/null"], "/dev/null"),
    ("tiles", "tiles-deep", ["play", "--tiles", "{tiles_deep}"], "tiles_deep"),
    ("tiles", "tiles-device", ["play", "--tiles", "/dev/null"], "/dev/null"),
    ("planets", "planet-device", ["score", "/dev/null"], "/dev/null"),
    ("boards", "board-deep-object", ["score", "--game", "harmonies", "{board_deep_object}"],
     "board_deep_object"),
    # reports: the shards come from the manifest only
    ("reports", "report-all-shards-damaged", ["report", "{copy_all_damaged}"],
     "shards/shard-000000.parquet (size differs"),
    ("reports", "report-only-stray-shards", ["report", "{copy_strays_only}"],
     "not recorded in manifest.json"),
    ("reports", "report-records-escape", ["report", "{copy_records_escape}"], "damaged record"),
    ("reports", "report-recorded-not-parquet", ["report", "{copy_recorded_not_parquet}"],
     "not a readable Parquet file"),
    ("reports", "report-shards-total", ["report", "{copy_shards_total}"], "shards_total"),
    ("reports", "report-manifest-deep", ["report", "{copy_deep}"], "nested too deeply"),
    ("reports", "report-manifest-folder", ["report", "{copy_manifest_folder}"], "manifest.json"),
    ("reports", "report-config-not-object", ["report", "{copy_config_list}"], "field 'config'"),
    ("reports", "report-config-tags", ["report", "{copy_config_tags}"], "config.tags"),
    # resumes of damaged manifests
    ("resumes", "resume-manifest-deep", ["run", "--resume", "{copy_deep}"], "nested too deeply"),
    ("resumes", "resume-manifest-folder", ["run", "--resume", "{copy_manifest_folder}"],
     "manifest.json"),
    ("resumes", "resume-config-rules-range", ["run", "--resume", "{copy_config_rules}"],
     "removed_tiles"),
    ("resumes", "resume-config-rules-missing", ["run", "--resume", "{copy_config_rules_missing}"],
     "config.rules"),
    ("resumes", "resume-config-players", ["run", "--resume", "{copy_config_players}"],
     "players"),
    ("resumes", "resume-config-lineup-unknown", ["run", "--resume", "{copy_config_lineup}"],
     "gredy"),
    ("resumes", "resume-config-lineup-count", ["run", "--resume", "{copy_config_lineup_count}"],
     "config.lineup"),
    ("resumes", "resume-config-name-escape", ["run", "--resume", "{copy_config_name}"],
     "config.name"),
    ("resumes", "resume-config-seed-big", ["run", "--resume", "{copy_config_seed}"],
     "config.seed"),
    ("resumes", "resume-config-tags", ["run", "--resume", "{copy_config_tags}"], "config.tags"),
    ("resumes", "resume-config-strategy-files", ["run", "--resume", "{copy_config_files}"],
     "config.strategy_files"),
    ("resumes", "resume-config-rotate", ["run", "--resume", "{copy_config_rotate}"],
     "config.rotate"),
    ("resumes", "resume-config-unknown-field", ["run", "--resume", "{copy_config_unknown}"],
     "config.colour"),
    ("resumes", "resume-data-digest", ["run", "--resume", "{copy_data_digest}"], "tiles"),
    # code the user did not ask for, named in a manifest or a sweep file
    ("code", "resume-module", ["run", "--resume", "{copy_code_module}"], "--allow-code"),
    ("code", "resume-file-outside", ["run", "--resume", "{copy_code_file}"], "--allow-code"),
    ("code", "sweep-module", ["sweep", "{sweep_code_module}", "--out", "{batch}"],
     "--allow-code"),
    ("code", "sweep-file-outside", ["sweep", "{sweep_code_file}", "--out", "{batch}"],
     "--allow-code"),
    ("code", "tune-trees-config-module", ["tune-trees", "--config", "{sweep_code_module}",
                                          "--out", "{batch}"], "--allow-code"),
    ("code", "tune-trees-config-file-outside", ["tune-trees", "--config", "{sweep_code_file}",
                                                "--out", "{batch}"], "--allow-code"),
    ("code", "sweep-folder-resume-module", ["sweep", "--resume", "{sweep_copy_code}"],
     "--allow-code"),
    # sweeps: files that would write outside the output root, damaged sweep folders
    ("sweeps", "sweep-output-dotdot", ["sweep", "{sweep_output_dotdot}"], "field 'output'"),
    ("sweeps", "sweep-output-absolute", ["sweep", "{sweep_output_absolute}"], "field 'output'"),
    ("sweeps", "sweep-output-nested", ["sweep", "{sweep_output_nested}"], "field 'output'"),
    ("sweeps", "sweep-output-number", ["sweep", "{sweep_output_number}"], "field 'output'"),
    ("sweeps", "sweep-name-slash", ["sweep", "{sweep_name_slash}"], "field 'name'"),
    ("sweeps", "sweep-name-dotdot", ["sweep", "{sweep_name_dotdot}"], "field 'name'"),
    ("sweeps", "sweep-same-tile-stems", ["sweep", "{sweep_same_stem}", "--out", "{batch}"],
     "share the folder"),
    ("sweeps", "sweep-deep-toml", ["sweep", "{sweep_deep}"], "nested too deeply"),
    ("sweeps", "sweep-folder-without-resume", ["sweep", "{sweep_dir}"], "--resume"),
    ("sweeps", "sweep-into-existing", ["sweep", "{sweep_ok}", "--out", "{sweep_dir}"],
     "already here"),
    ("sweeps", "sweep-resume-other-config", ["sweep", "{sweep_other}", "--resume", "--out",
                                             "{sweep_dir}"], "another config"),
    ("sweeps", "sweep-out-is-a-file", ["sweep", "{sweep}", "--out", "{config}"], "{config}"),
    ("sweeps", "sweep-resume-folder-with-override", ["sweep", "--resume", "{sweep_dir}",
                                                     "--games", "5"], "--resume"),
    ("sweeps", "sweep-resume-empty-folder", ["sweep", "--resume", "{empty_dir}"], "sweep.json"),
    ("sweeps", "sweep-resume-not-json", ["sweep", "--resume", "{sweep_copy_not_json}"],
     "sweep.json"),
    ("sweeps", "sweep-resume-not-utf8", ["sweep", "--resume", "{sweep_copy_not_utf8}"],
     "sweep.json"),
    ("sweeps", "sweep-resume-deep", ["sweep", "--resume", "{sweep_copy_deep}"],
     "nested too deeply"),
    ("sweeps", "sweep-resume-kind", ["sweep", "--resume", "{sweep_copy_kind}"],
     "not a sweep manifest"),
    ("sweeps", "sweep-resume-digest", ["sweep", "--resume", "{sweep_copy_digest}"], "digest"),
    ("sweeps", "sweep-resume-points-not-list", ["sweep", "--resume", "{sweep_copy_points}"],
     "points"),
    ("sweeps", "sweep-resume-label-escape", ["sweep", "--resume", "{sweep_copy_label}"],
     "label"),
    ("sweeps", "sweep-resume-point-missing", ["sweep", "--resume", "{sweep_copy_no_point}"],
     "manifest.json"),
    ("sweeps", "sweep-resume-point-damaged", ["sweep", "--resume", "{sweep_copy_point_config}"],
     "config.seed"),
]

# A config's own `output` is checked when no --out overrides it; every other config case runs
# into the earlier batch's folder, so a mistake the checks missed would show in its hashes.
CASES = [("configs", case_id,
          ["run", "{case_config}"] if case_id.startswith("output-")
          else ["run", "{case_config}", "--out", "{batch}"], expected, text)
         for case_id, text, expected in CONFIG_CASES]
CASES += [("code", case_id, ["run", "{case_config}", "--out", "{batch}"], expected, text)
          for case_id, text, expected in CODE_CONFIG_CASES]
CASES += [(category, case_id, args, expected, None)
          for category, case_id, args, expected in ARG_CASES]

SWEEP = TINY_CONFIG.replace('["greedy", "random"]', '["greedy"]') + '\n[sweep]\nplayers = [2, 3]\n'
SWEEP_WITHOUT_OUTPUT = SWEEP.replace("games = 40", "games = 10")


def sweep_with(line: str, drop: str = "") -> str:
    """The tiny sweep with ``line`` first (and the line ``drop`` left out)."""
    return line + "\n" + (SWEEP_WITHOUT_OUTPUT.replace(drop, "") if drop else SWEEP_WITHOUT_OUTPUT)


def edit_sweep_manifest(edit):
    def change(folder: Path) -> None:
        path = folder / "sweep.json"
        manifest = json.loads(path.read_text())
        edit(manifest)
        path.write_text(json.dumps(manifest))
    return change


def edit_point_manifest(edit):
    def change(folder: Path) -> None:
        edit_manifest(edit)(folder / "points" / "players=2")
    return change


def damaged_copy(batch: Path, target: Path, change) -> Path:
    shutil.copytree(batch, target)
    change(target)
    return target


def edit_manifest(edit):
    def change(folder: Path) -> None:
        path = folder / "manifest.json"
        manifest = json.loads(path.read_text())
        edit(manifest)
        path.write_text(json.dumps(manifest))
    return change


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """One earlier batch and every bad file the table names."""
    work = tmp_path_factory.mktemp("bad-inputs")
    config = write_config(work)
    run_batch(load_config(config, {"output": str(work / "batch")}), workers=1)
    batch = work / "batch"
    sweep_file = write_config(work, SWEEP_WITHOUT_OUTPUT, "sweep-ok.toml")
    run_sweep(load_sweep(sweep_file, {"output": str(work / "sweep-dir")}), workers=1)
    bad = work / "bad"
    bad.mkdir()
    paths: dict[str, Path] = {"work": work, "batch": batch, "config": config,
                              "sweep_dir": work / "sweep-dir", "sweep_ok": sweep_file}
    tiles = Path(DEFAULT_TILES_PATH).read_text()
    contents: dict[str, str | bytes] = {
        "tiles_not_utf8.toml": NOT_UTF8, "tiles_invalid.toml": "[[tile]\n", "tiles_empty.toml": "",
        "planet_not_utf8.json": b'{"tiles": "\xff"}', "planet_invalid.json": "{",
        "planet_deep.json": DEEP_JSON, "planet_deep_object.json": '{"a":' * 100_000 + "1" +
        "}" * 100_000, "planet_list.json": "[]", "planet_empty.json": "{}",
        "planet_number.json": "3",
        "board_not_utf8.json": b'{"side": "\xff"}', "board_invalid.json": "{",
        "board_deep.json": DEEP_JSON, "board_list.json": "[]", "board_empty.json": "{}",
        "sweep.toml": SWEEP, "sweep_not_utf8.toml": NOT_UTF8,
        "sweep_bad_axis.toml": TINY_CONFIG + "\n[sweep]\ncolour = [1]\n",
        "sweep_empty_axis.toml": TINY_CONFIG + "\n[sweep]\nplayers = []\n",
        "sweep_name.toml": 'name = "../../up"\n' + SWEEP,
        "other.toml": TINY_CONFIG.replace("seed = 5", "seed = 6"),
        "tiles_deep.toml": DEEP_TOML, "board_deep_object.json": '{"a":' * 100_000 + "1" +
        "}" * 100_000,
        "sweep_other.toml": SWEEP_WITHOUT_OUTPUT.replace("seed = 5", "seed = 6"),
        "sweep_code_module.toml": sweep_with('pool = ["this:X", "greedy"]',
                                             'strategies = ["greedy"]'),
        "sweep_code_file.toml": sweep_with('pool = ["../evil.py:X", "greedy"]',
                                           'strategies = ["greedy"]'),
        "sweep_output_dotdot.toml": sweep_with('output = "../escaped"'),
        "sweep_output_absolute.toml": sweep_with('output = "/tmp/escaped"'),
        "sweep_output_nested.toml": sweep_with('output = "runs/../../escaped"'),
        "sweep_output_number.toml": sweep_with("output = 5"),
        "sweep_name_slash.toml": sweep_with('name = "a/b"'),
        "sweep_name_dotdot.toml": sweep_with('name = ".."'),
        "sweep_same_stem.toml": SWEEP_WITHOUT_OUTPUT.replace(
            "players = [2, 3]", 'tiles = ["a/t.toml", "b/t.toml"]'),
        "sweep_deep.toml": DEEP_TOML,
    }
    for folder in ("a", "b"):
        (bad / folder).mkdir(parents=True)
        (bad / folder / "t.toml").write_text(tiles)
    for name, content in contents.items():
        path = bad / name
        (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
        paths[name.rsplit(".", 1)[0]] = path
    paths["other_config"] = paths["other"]
    paths["board_colour"] = bad / "board_colour.json"
    paths["board_colour"].write_text(json.dumps(
        {"game": "harmonies", "side": "A", "cells": [{"q": 0, "r": 0, "stack": ["purple"]}]}))
    paths["empty_dir"] = bad / "empty_dir"
    paths["empty_dir"].mkdir()
    copies = bad / "copies"
    copies.mkdir()
    damage = {
        "copy_not_json": lambda f: (f / "manifest.json").write_text("{"),
        "copy_not_utf8": lambda f: (f / "manifest.json").write_bytes(b'{"format": "\xff"}'),
        "copy_format": edit_manifest(lambda m: m.update(format=99)),
        "copy_name": edit_manifest(lambda m: m.update(name="../x")),
        "copy_game": edit_manifest(lambda m: m.update(game="chess")),
        "copy_no_shards": lambda f: [p.unlink() for p in (f / "shards").iterdir()],
        "copy_config_list": edit_manifest(lambda m: m.update(config=[1, 2])),
        "copy_config_key": edit_manifest(lambda m: m["config"].pop("seed")),
        "copy_config_type": edit_manifest(lambda m: m["config"].update(games="many")),
        "copy_config_game": edit_manifest(lambda m: m["config"].update(game="chess")),
        "copy_config_store": edit_manifest(lambda m: m["config"].update(store="cols")),
        "copy_no_config": edit_manifest(lambda m: m.pop("config")),
        "copy_all_damaged": lambda f: [p.write_bytes(p.read_bytes()[:-3])
                                       for p in (f / "shards").iterdir()],
        "copy_strays_only": edit_manifest(lambda m: m.update(shard_files={})),
        "copy_records_escape": edit_manifest(lambda m: [
            record.update(path="../../elsewhere.parquet")
            for files in m["shard_files"].values() for record in files]),
        "copy_recorded_not_parquet": not_parquet_but_recorded,
        "copy_shards_total": edit_manifest(lambda m: m.update(shards_total="many")),
        "copy_deep": lambda f: (f / "manifest.json").write_text(DEEP_JSON),
        "copy_manifest_folder": lambda f: ((f / "manifest.json").unlink(),
                                           (f / "manifest.json").mkdir()),
        "copy_config_tags": edit_manifest(lambda m: m["config"].update(tags=[1])),
        "copy_config_rules": edit_manifest(lambda m: m["config"]["rules"].update(
            removed_tiles=999)),
        "copy_config_rules_missing": edit_manifest(lambda m: m["config"]["rules"].pop(
            "removed_tiles")),
        "copy_config_players": edit_manifest(lambda m: m["config"].update(players=99)),
        "copy_config_lineup": edit_manifest(lambda m: m["config"].update(
            lineup=["gredy", "random"])),
        "copy_config_lineup_count": edit_manifest(lambda m: m["config"].update(
            lineup=["greedy", "random", "greedy"])),
        "copy_config_name": edit_manifest(lambda m: m["config"].update(name="../../x")),
        "copy_config_seed": edit_manifest(lambda m: m["config"].update(seed=2**70)),
        "copy_config_files": edit_manifest(lambda m: m["config"].update(strategy_files=[1])),
        "copy_config_rotate": edit_manifest(lambda m: m["config"].update(rotate="yes")),
        "copy_config_unknown": edit_manifest(lambda m: m["config"].update(colour="red")),
        "copy_data_digest": edit_manifest(lambda m: m["config"].update(data_digest="0" * 16)),
        "copy_code_module": edit_manifest(lambda m: m["config"].update(
            lineup=["this:X", "random"])),
        "copy_code_file": edit_manifest(lambda m: m["config"].update(
            lineup=["../evil.py:X", "random"], strategy_files={"../evil.py": "../evil.py"})),
    }
    for name, change in damage.items():
        paths[name] = damaged_copy(batch, copies / name, change)
    sweep_damage = {
        "sweep_copy_not_json": lambda f: (f / "sweep.json").write_text("{"),
        "sweep_copy_not_utf8": lambda f: (f / "sweep.json").write_bytes(b'{"name": "\xff"}'),
        "sweep_copy_deep": lambda f: (f / "sweep.json").write_text(DEEP_JSON),
        "sweep_copy_kind": edit_sweep_manifest(lambda m: m.update(kind="batch")),
        "sweep_copy_digest": edit_sweep_manifest(lambda m: m.update(digest="0" * 64)),
        "sweep_copy_points": edit_sweep_manifest(lambda m: m.update(points="all")),
        "sweep_copy_label": edit_sweep_manifest(lambda m: m["points"][0].update(label="..")),
        "sweep_copy_no_point": lambda f: (f / "points" / "players=3" / "manifest.json").unlink(),
        "sweep_copy_point_config": edit_point_manifest(lambda m: m["config"].pop("seed")),
        "sweep_copy_code": edit_point_manifest(lambda m: m["config"].update(
            lineup=["this:X", "this:X"])),
    }
    for name, change in sweep_damage.items():
        paths[name] = damaged_copy(paths["sweep_dir"], copies / name, change)
    return {name: str(path) for name, path in paths.items()}


def not_parquet_but_recorded(folder: Path) -> None:
    """A shard the manifest records with its size and hash, whose bytes are not Parquet (a batch
    written by another program)."""
    data = b"not parquet"
    (folder / "shards" / "shard-000000.parquet").write_bytes(data)
    edit_manifest(lambda m: m["shard_files"]["0"][0].update(
        bytes=len(data), sha256=hashlib.sha256(data).hexdigest()))(folder)


def test_the_table_covers_every_category_with_at_least_100_inputs():
    categories = {case[0] for case in CASES}
    assert {"configs", "tiles", "planets", "boards", "options", "reports", "resumes",
            "sweeps", "code"} <= categories
    assert len(CASES) >= 155
    assert len({case[1] for case in CASES}) == len(CASES), "case ids are unique"


@pytest.mark.parametrize("category, case_id, args, expected, text", CASES,
                         ids=[f"{case[0]}:{case[1]}" for case in CASES])
def test_bad_input_is_one_line_and_exit_2(files, tmp_path, category, case_id, args, expected,
                                          text):
    before = fingerprint(Path(files["work"]), skip=("manifest.json",))
    manifest_before = (Path(files["batch"]) / "manifest.json").read_bytes()
    values = dict(files)
    if text is not None:
        case_config = tmp_path / f"{case_id}.toml"
        (case_config.write_bytes if isinstance(text, bytes) else case_config.write_text)(text)
        values["case_config"] = str(case_config)
    arguments = [arg.format(**values) for arg in args]
    result = CliRunner().invoke(app, arguments)
    stderr = result.stderr
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert stderr.startswith("error: "), stderr
    assert expected.format(**values) in stderr, stderr
    assert fingerprint(Path(files["work"]), skip=("manifest.json",)) == before
    assert (Path(files["batch"]) / "manifest.json").read_bytes() == manifest_before
