"""What a command says besides its results: the first-run compile line (and silence when the
cache is warm), help texts that show only what an option takes, and errors that stay one line
with no progress bar above them."""

import importlib.util
import re
import sys

import numba
import pytest
from typer.testing import CliRunner

from sim.cli import COMMANDS, app
from sim.compiling import compile_notice, kernel_is_cached, kernels_are_cached
from sim.games.registry import games, get_game

runner = CliRunner()
KERNEL_SOURCE = '''
from numba import njit


@njit(cache=True)
def add_one(value):
    return value + 1
'''


@pytest.fixture
def fresh_kernel(tmp_path, monkeypatch):
    """A tiny cached kernel whose on-disk cache is an empty temp folder (NUMBA_CACHE_DIR), and
    a function that imports the module again (a new process would see the same cache)."""
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "tiny_kernel.py"
    source.write_text(KERNEL_SOURCE)

    def load(name="tiny_kernel", own_file=False):
        # ``own_file``: a kernel of another source file, with a cache of its own.
        path = source
        if own_file:
            path = tmp_path / f"{name}.py"
            path.write_text(KERNEL_SOURCE)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module.add_one

    yield load
    for name in [n for n in sys.modules if n.startswith("tiny_kernel")]:
        del sys.modules[name]


def test_a_cold_cache_is_told_from_a_warm_one_without_compiling(fresh_kernel):
    kernel = fresh_kernel()
    assert not kernel_is_cached(kernel)
    assert kernel.overloads == {}  # looking did not compile
    assert kernel(1) == 2  # compiles (a trivial function) and writes the cache
    assert kernel_is_cached(fresh_kernel("tiny_kernel_again"))
    assert kernels_are_cached([])


def test_the_compile_line_names_the_game_and_its_wait(fresh_kernel, monkeypatch):
    game = get_game("pick-two")
    kernel = fresh_kernel()
    monkeypatch.setattr(type(game), "cached_kernels", lambda self, method: (kernel,))
    monkeypatch.setattr(type(game), "compile_seconds", 1.0)
    assert compile_notice(game, ["play_one"]) == \
        "compiling the Pick Two kernels (first run only, about 5 s)..."
    cold = runner.invoke(app, ["play", "--game", "pick-two", "--players", "2"])
    assert cold.exit_code == 0, cold.output
    assert cold.stderr == "compiling the Pick Two kernels (first run only, about 5 s)...\n"
    assert "compiling" not in cold.stdout
    kernel(1)
    warm = runner.invoke(app, ["play", "--game", "pick-two", "--players", "2"])
    assert warm.exit_code == 0 and warm.stderr == "" and warm.stdout == cold.stdout


def test_the_compile_line_names_a_strategy_compiled_on_its_own(fresh_kernel, monkeypatch):
    game = get_game("pick-two")
    loop, strategy = fresh_kernel(), fresh_kernel("tiny_kernel_strategy", own_file=True)
    monkeypatch.setattr(type(game), "cached_kernels", lambda self, method: (loop,))
    monkeypatch.setattr(type(game), "strategy_kernels",
                        lambda self, name: (strategy,) if name in ("random", "greedy") else ())
    monkeypatch.setattr(type(game), "compile_seconds", 30.0)
    # Two strategies compiled together (the same functions) count once.
    monkeypatch.setattr(type(game), "strategy_compile_seconds", {"greedy": 60.0, "random": 60.0})
    assert compile_notice(game, ["play_one"], ["random", "greedy", "greedy"]) == (
        "compiling the Pick Two kernels and the random, greedy strategies (first run only, "
        "about a minute and a half)...")
    monkeypatch.setattr(type(game), "strategy_kernels",
                        lambda self, name: (strategy,) if name == "greedy" else ())
    assert compile_notice(game, ["play_one"], ["random"]) == \
        "compiling the Pick Two kernels (first run only, about 30 s)..."
    loop(1)
    assert compile_notice(game, ["play_one"], ["random"]) is None
    assert compile_notice(game, ["play_one"], ["greedy"]) == \
        "compiling the Pick Two greedy strategy (first run only, about a minute)..."
    strategy(1)
    assert compile_notice(game, ["play_one"], ["greedy"]) is None


def test_every_game_names_cached_kernels_for_what_compiles():
    """The shipped games name their kernels (checked without compiling: each has an on-disk
    cache to read)."""
    for name in ("legendary-forests", "harmonies"):
        game = get_game(name)
        assert game.compile_seconds
        for method in ("play_shard", "play_one", "final_drawings"):
            kernels = game.cached_kernels(method)
            assert kernels and all(hasattr(k._cache, "_cache_file") for k in kernels)
        # Each strategy compiled on its own has a cache and a wait to announce.
        assert game.strategy_kernels("expert")
        for strategy in game.strategies():
            kernels = game.strategy_kernels(strategy)
            assert all(hasattr(k._cache, "_cache_file") for k in kernels)
            assert bool(kernels) == (strategy in game.strategy_compile_seconds), strategy


def _help(command: str) -> str:
    result = runner.invoke(app, [*([command] if command else []), "--help"],
                           env={"COLUMNS": "240", "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("command", ["", *[name for name, _ in COMMANDS]])
def test_help_shows_what_each_option_takes(command):
    text = _help(command)
    assert "<bool>" not in text and "list[" not in text and " range>" not in text
    flags = [line for line in text.splitlines() if re.search(r"--help\s", line)]
    assert flags and all("<" not in line for line in flags), flags


def test_help_states_rule_names_defaults_and_player_ranges():
    # Help is wrapped to the terminal (at most 120 columns): read it as one line of words.
    play = " ".join(_help("play").split())
    for game in games().values():
        assert f"{game.title} {game.min_players} to {game.max_players}" in play
        for parameter in game.rules_parameters:
            assert f"{parameter.name} (" in play
    assert "side (A or B, default A)" in play
    assert re.search(r"--removed-tiles\s+<int>.*default 5", play)
    assert re.search(r"--trees-per-colour-per-player\s+<int>.*default", play, flags=re.S)
    assert "<strategy>" in play and "<name=value>" in play


def test_an_error_found_before_playing_is_one_line_with_no_bar(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('players = 2\nstrategies = ["greedy"]\ngames = 20\nshard_size = 10\n')
    (tmp_path / "a-file").write_text("")
    result = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "a-file"),
                                 "--workers", "1"])
    assert result.exit_code == 2
    assert result.output == f"error: {tmp_path / 'a-file'}: output is a file, not a folder\n"


def test_an_error_during_the_run_removes_the_bar(tmp_path):
    (tmp_path / "bad.py").write_text(
        "from strategies.legendary_forests.base import Strategy\n\n\n"
        "class Bad(Strategy):\n"
        "    name = 'bad'\n"
        "    description = 'picks a placement that does not exist'\n\n"
        "    def choose_placement(self, observation, placements):\n"
        "        return 10 ** 6\n\n"
        "    def choose_tree(self, observation, choices):\n"
        "        return 0\n")
    config = tmp_path / "c.toml"
    config.write_text('players = 2\nstrategies = ["bad.py:Bad", "greedy"]\ngames = 20\n'
                      'shard_size = 10\n')
    result = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "run"),
                                 "--workers", "1"])
    assert result.exit_code == 2
    # A cold cache adds its one status line before the run starts (run alone, first), and the
    # strategy file beside the config is announced before it runs.
    lines = [line for line in result.output.splitlines()
             if not line.startswith(("compiling ", "note: running strategy code from "))]
    assert len(lines) == 1 and lines[0].startswith("error: strategy 'bad' returned 1000000"), \
        result.output


def test_a_sweep_point_folder_of_another_batch_is_refused_before_any_play(tmp_path):
    sweep = tmp_path / "grid.toml"
    sweep.write_text('players = 2\nstrategies = ["random"]\ngames = 20\nshard_size = 10\n'
                     '[sweep]\ntrees_per_colour_per_player = [1, 2]\n')
    other = tmp_path / "other.toml"
    other.write_text('players = 3\nstrategies = ["random"]\ngames = 20\nshard_size = 10\n')
    taken = tmp_path / "out" / "points" / "trees_per_colour_per_player=2"
    assert runner.invoke(app, ["run", str(other), "--out", str(taken), "--workers", "1",
                               "-q"]).exit_code == 0
    result = runner.invoke(app, ["sweep", str(sweep), "--out", str(tmp_path / "out"),
                                 "--workers", "1"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "another config" in result.output
    # Nothing was played at the first point either.
    assert not (tmp_path / "out" / "points" / "trees_per_colour_per_player=1").exists()


def test_small_messages_a_new_user_meets(tmp_path):
    """A resumed finished batch says there was nothing to play (not "0 games/s"); a folder of
    batches given to `sim report` points to `sim runs`; a sweep file given to `sim run` points
    to `sim sweep`."""
    config = tmp_path / "tiny.toml"
    config.write_text('game = "legendary-forests"\nplayers = 2\nstrategies = ["random"]\n'
                      'games = 20\nshard_size = 10\n')
    runs = tmp_path / "runs"
    first = runner.invoke(app, ["run", str(config), "--out", str(runs / "tiny"), "--workers", "1"])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["run", "--resume", str(runs / "tiny"), "--workers", "1"])
    assert again.exit_code == 0, again.output
    assert "nothing to play; batch complete: 2/2 shards" in again.output
    assert "games/s" not in again.output
    report = runner.invoke(app, ["report", str(runs)])
    assert report.exit_code == 2
    assert f"a folder of batches, not a batch; `sim runs {runs}` lists them" in report.output
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(config.read_text() + "[sweep]\nplayers = [2, 3]\n")
    refused = runner.invoke(app, ["run", str(sweep)])
    assert refused.exit_code == 2 and refused.output.count("\n") == 1
    assert "a sweep file" in refused.output and "sim sweep" in refused.output
