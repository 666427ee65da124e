# `make run` starts the bot, `make test` runs every check CI runs. Both create the virtualenv first:
# `make run` installs Pommel alone, `make test` adds the test tools (each has its own stamp).
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test lint bench bench-quick clean venv

# A PYTHON older than 3.11 is refused in one line before anything is built, and a virtualenv made earlier
# with an older Python (or one that no longer runs) is made anew instead of being reused.
venv:
	@sh deploy/require-python.sh $(PYTHON)
	@if [ -e $(BIN)/python ] && ! sh deploy/require-python.sh $(BIN)/python 2>/dev/null; then \
		echo "$(VENV) was made with an older Python: making it anew with $(PYTHON)"; rm -rf $(VENV); fi
	@[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

$(TEST_STAMP): pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(TEST_STAMP)

# The stamps are made by a second make, which looks at them after `venv` may have removed them.
run: venv
	@$(MAKE) --no-print-directory $(RUN_STAMP)
	$(BIN)/python -m bot

lint: venv
	@$(MAKE) --no-print-directory $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -q

bench: venv
	@$(MAKE) --no-print-directory $(TEST_STAMP)
	$(BIN)/python bench/rules_bench.py
	$(BIN)/python bench/latency.py
	$(BIN)/python bench/latency.py --apart
	$(BIN)/python bench/cpu.py
	$(BIN)/python bench/odds_simulation.py
	$(BIN)/python bench/burst.py
	$(BIN)/python bench/history_cost.py
	$(BIN)/python bench/memory.py
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/store_cpu.py
	$(BIN)/python bench/charts.py
	$(BIN)/python bench/dice_stats.py
	$(BIN)/python bench/goals.py

# Issue 29's goals alone, each figure beside its target, small sizes and one run: a few minutes.
bench-quick: venv
	@$(MAKE) --no-print-directory $(TEST_STAMP)
	BENCH_QUICK=1 $(BIN)/python bench/goals.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis build dist
