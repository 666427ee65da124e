# `make run` starts the bot, `make test` runs every check CI runs. Both create the virtualenv first.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/rules_bench.py
	$(BIN)/python bench/latency.py
	$(BIN)/python bench/latency.py --apart
	$(BIN)/python bench/odds_simulation.py
	$(BIN)/python bench/burst.py
	$(BIN)/python bench/history_cost.py
	$(BIN)/python bench/memory.py
	$(BIN)/python bench/charts.py
	$(BIN)/python bench/dice_stats.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
