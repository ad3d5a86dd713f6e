# boardlab: the two commands of the README's quick start.
#   make run   creates .venv, installs boardlab with its extras, runs the main job
#   make test  creates .venv if needed, installs, runs the whole test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BASE   := $(VENV)/.installed-base

.PHONY: run test test-quick bench lint clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The main job needs only boardlab's own dependencies; the tests add the extras. The main job's
# install skips byte-compiling every module of every dependency (half the install time): its
# first run writes the bytecode of what it imports, even where PYTHONDONTWRITEBYTECODE is set,
# so later runs start as fast. The tests' install compiles everything (they start hundreds of
# processes).
$(BASE): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --no-compile -e .
	touch $(BASE)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[dev,cluster,interop]"
	touch $(STAMP) $(BASE)

install: $(STAMP)

# The main job: River Rats win rate per Rat pair at 1-4 players with the best heuristic, with
# enough games that every 95% interval is at most +-1 point wide (writes results/river_rats/quick)
run: $(BASE)
	env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/boardlab river-rats pairs --players 1..4 \
		--agents heuristic --games 4000 --batch-size 2000 --ci-width 0.02 --max-games 40000 \
		--round-batches 2 --jobs -1 --seed 2026 --out results/river_rats/quick

test: $(STAMP)
	$(PY) -m pytest -n 2 -q

test-quick: $(STAMP)
	$(PY) -m pytest -n 2 -q -m "not slow"

bench: $(STAMP)
	$(PY) benchmarks/poker_eval.py

lint: $(STAMP)
	$(VENV)/bin/ruff check engines agents experiments tests benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
