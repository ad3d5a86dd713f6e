# boardlab: the two commands of the README's quick start.
#   make run   creates .venv, installs boardlab, runs the main job
#   make test  creates .venv if needed, installs, runs the whole test suite
#   make docs        builds the documentation site (docs/, mkdocs.yml) into build/site
#   make notebooks   installs the notebook extra (JupyterLab) and opens notebooks/ in Jupyter
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BASE   := $(VENV)/.installed-base
DOCS   := $(VENV)/.installed-docs
NOTEBOOK := $(VENV)/.installed-notebook
UV     := $(VENV)/bin/uv

.PHONY: run test test-quick test-lowest bench lint clean docs notebooks

# The virtual environment with uv, the installer both targets use (it installs the base
# dependencies in about 3 s from its cache where pip took 15-22 s; pip is installed too).
# `venv --without-pip` plus Python's own bundled pip wheel to fetch uv skips ensurepip's
# 7 s; a Python whose ensurepip has no bundled wheel (Debian's) runs ensurepip instead.
define BOOTSTRAP_UV
import ensurepip, pathlib, subprocess, sys
wheels = sorted(pathlib.Path(ensurepip.__file__).parent.glob("_bundled/pip-*.whl"))
if wheels:
    pip = [sys.executable, str(wheels[-1]) + "/pip"]
else:
    subprocess.check_call([sys.executable, "-m", "ensurepip"])
    pip = [sys.executable, "-m", "pip"]
subprocess.check_call(pip + ["install", "--quiet", "--disable-pip-version-check", "uv>=0.9,<0.11"])
endef
export BOOTSTRAP_UV

$(UV):
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PY) -c "$$BOOTSTRAP_UV"

# The main job needs only boardlab's own dependencies; the tests add the extras. Neither install
# byte-compiles the dependencies (uv's default): the first process that imports a module writes
# its bytecode, even where PYTHONDONTWRITEBYTECODE is set (both targets unset it), so later
# processes start as fast. For the tests' extras that is 11.5 s of install (byte-compiling all
# of jax, scipy, pandas... on the 2-core machine) against about 5.5 s the first time the tests
# import what they use.
$(BASE): pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(PY) pip -e .
	touch $(BASE)

$(STAMP): pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(PY) pip -e ".[dev,cluster,interop,learn,docs]"
	touch $(STAMP) $(BASE) $(DOCS)

install: $(STAMP)

# The oldest releases boardlab supports: every direct dependency at the lower bound of its range
# in pyproject.toml (uv's --resolution lowest-direct), in a virtual environment of its own with a
# kernel cache of its own (another Numba), for the quick lane of CI.
LOWEST := .venv-lowest
LOWEST_STAMP := $(LOWEST)/.installed

$(LOWEST_STAMP): pyproject.toml | $(UV)
	$(UV) venv --quiet --allow-existing --python $(PYTHON) $(LOWEST)
	$(UV) pip install --quiet --python $(LOWEST)/bin/python --resolution lowest-direct \
		-e ".[dev,cluster,interop,learn,docs]"
	touch $(LOWEST_STAMP)

# The documentation site and the notebooks each install their own extras (docs: mkdocs-material
# and mkdocstrings; notebook: JupyterLab, with interop for notebooks/interop_training.ipynb)
# on top of boardlab.
$(DOCS): pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(PY) pip -e ".[docs]"
	touch $(DOCS)

$(NOTEBOOK): pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(PY) pip -e ".[notebook,interop]"
	touch $(NOTEBOOK)

# The main job: River Rats win rate per Rat pair at 1-4 players with the best heuristic, with
# enough games that every 95% interval is at most +-1 point wide (writes results/river_rats/quick)
run: $(BASE)
	env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/boardlab river-rats pairs --players 1..4 \
		--agents heuristic --games 4000 --batch-size 2000 --ci-width 0.02 --max-games 40000 \
		--round-batches 2 --jobs -1 --seed 2026 --out results/river_rats/quick \
		--compare results/river_rats/pairs_net

# --dist worksteal: a worker that runs out of tests takes some of the other's (the suite's
# tests take 0.01-40 s, the slow ones compiling kernels): 276 s against 291 s with the default
# --dist load, fresh clones with an empty kernel cache on the 2-core VM (docs/benchmarks.md).
test: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 2 --dist worksteal -q --durations=20

test-quick: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 2 --dist worksteal -q -m "not slow"

# The quick lane (no slow tests) on the lowest supported releases (CI runs it after make test).
test-lowest: $(LOWEST_STAMP)
	env -u PYTHONDONTWRITEBYTECODE BOARDLAB_CACHE_DIR=$(CURDIR)/$(LOWEST)/kernel-cache \
		$(LOWEST)/bin/python -m pytest -n 2 --dist worksteal -q -m "not slow"

bench: $(STAMP)
	$(PY) benchmarks/poker_eval.py

lint: $(STAMP)
	$(VENV)/bin/ruff check engines agents experiments tests benchmarks

# The documentation site: mkdocs.yml, pages under docs/, API pages from the docstrings; --strict
# fails on a broken link or a missing page (as tests/test_docs.py does). Output: build/site/.
docs: $(DOCS)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The notebooks in JupyterLab (it prints the address to open; Ctrl-C stops it). Jupyter refuses
# to run as root unless told, so in a container running as root the target says --allow-root.
notebooks: $(NOTEBOOK)
	$(VENV)/bin/jupyter lab notebooks/ $(if $(filter 0,$(shell id -u)),--allow-root)

clean:
	rm -rf $(VENV) $(LOWEST) .pytest_cache .hypothesis
