# The two commands of the README: `make demo` and `make test`. Both set up .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when the project metadata changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

test: $(STAMP) lint
	$(BIN)/python -m pytest

demo: $(STAMP)
	$(BIN)/sim play --players 4 --seed 1 --strategy greedy --json reports/demo/game-seed-1.json
	$(BIN)/sim bench --games 5000
	@echo "demo results: reports/demo/game-seed-1.json"

bench: $(STAMP)
	$(BIN)/sim bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
