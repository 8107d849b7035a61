# The two commands of the README: `make demo` and `make test`. Both set up .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean league-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when the project metadata changes.
$(STAMP): pyproject.toml | $(BIN)/python
	@echo "installing sim and its dependencies into $(VENV) (a first install takes about 2 minutes)..."
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

# One pytest worker per core (pytest-xdist); a test module's tests stay on one worker, so its
# module-scoped fixtures (batches played once for many tests) are built once.
test: $(STAMP) lint
	$(BIN)/python -m pytest -n auto --dist loadscope --durations=25

DEMO_RUN := runs/demo-legendary-forests-4p

# The demo batch resumes (or just re-reads) its folder when it is already there.
demo: $(STAMP)
	$(BIN)/sim play --players 4 --seed 1 --strategy greedy --json reports/demo/game-seed-1.json > /dev/null
	@# Harmonies too, so that its kernels (one game, and a shard of games) are compiled and cached
	@# before a first Harmonies command.
	$(BIN)/sim play --game harmonies --players 3 --seed 1 --strategy greedy --json reports/demo/harmonies-seed-1.json > /dev/null
	$(BIN)/sim bench --game harmonies --players 3 --strategy greedy --games 10 > /dev/null
	$(BIN)/sim run configs/legendary-forests-4p.toml --out $(DEMO_RUN) \
		$$(test -f $(DEMO_RUN)/manifest.json && echo --resume $(DEMO_RUN))
	$(BIN)/sim report $(DEMO_RUN)
	@echo "demo games (turn log and final positions): reports/demo/game-seed-1.json, reports/demo/harmonies-seed-1.json"
	@echo "demo batch (Parquet, one row per player per game): $(DEMO_RUN)"

# Every built-in strategy of every game at 2 and 4 players, one core: a Markdown table (minutes).
# More options through BENCH_ARGS, e.g. make bench BENCH_ARGS="--json reports/bench.json".
BENCH_ARGS ?=
bench: $(STAMP)
	$(BIN)/sim bench --suite $(BENCH_ARGS)

# The stored leagues (reports/league/*/league.json): the shipped default of each game's strongest
# strategy must top them (sim league --check; no games are played).
league-check: $(STAMP)
	@for file in reports/league/*/league.json; do printf '%s: ' $$file; $(BIN)/sim league --check $$file || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
