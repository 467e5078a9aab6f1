# `make run` and `make test` do all the set-up themselves on a fresh machine.
# The virtualenv's Python: 3.12 where the machine has it (on PATH, else among pyenv's versions), since
# coverage measures 3.12 through sys.monitoring at a fraction of the tracer's cost (setup.cfg); else
# python3, 3.11 or newer.
PYTHON ?= $(or $(shell python3.12 -c 'import sys; print(sys.executable)' 2>/dev/null),$(lastword $(sort \
	$(wildcard $(shell pyenv root 2>/dev/null)/versions/3.12.*/bin/python3.12))),python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT
# The suite covers at least this share of app/ (96 % when this was set).
COVERAGE_FLOOR := 94
BROWSER_PACKAGES := chromium chromium-driver curl jq nginx openssl fcgiwrap openssh-server docker.io busybox-static
ORACLES := support/oracles

.PHONY: run engine test test-fast lint bench profile instructions browser fuzz oracle pod-security fault-test openapi prices clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-run: $(BIN)/python setup.cfg setup.py
	$(BIN)/python -m pip install -q -e '.[embedded]'
	touch $@

$(VENV)/.installed-test: $(BIN)/python setup.cfg setup.py
	$(BIN)/python -m pip install -q -e '.[embedded,test]'
	touch $@

$(VENV)/.installed-bench: $(BIN)/python setup.cfg setup.py
	$(BIN)/python -m pip install -q -e '.[embedded,test,bench]'
	touch $@

run: $(VENV)/.installed-run
	$(BIN)/gunicorn -c gunicorn.conf.py wsgi:app

# A Docker Engine to deliver to while trying the service (as root: Debian's docker.io and
# busybox-static, installed as `browser` does): its data and socket under ./var/engine, an image
# busybox:local built on it, the host's firewall untouched; Ctrl-C stops it.
engine: $(VENV)/.installed-test browser
	$(BIN)/python -m support.docker_engine var/engine

# The pages are tested in a real browser (Debian's chromium and its driver), the deployment behind
# Debian's nginx with TLS (openssl makes its certificate), sources followed from git served by git
# http-backend behind it (fcgiwrap) and by sshd, deliveries on a real Docker Engine (docker.io,
# its images built from busybox-static), and the README's curl tour with curl and jq:
# installed when missing and this runs as root (CI does); otherwise those tests are skipped, saying
# why.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null && command -v curl >/dev/null \
		&& command -v jq >/dev/null && [ -x /usr/sbin/nginx ] && command -v openssl >/dev/null \
		&& [ -x /usr/sbin/fcgiwrap ] && [ -x /usr/sbin/sshd ] && [ -x /usr/sbin/dockerd ] && [ -x /bin/busybox ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES); \
	else echo "not root: the browser and curl-tour tests will be skipped; install the Debian packages $(BROWSER_PACKAGES) to run them"; fi

# The suite on TEST_WORKERS processes (the tests are hermetic: any port, any order), a test file to
# a worker so that a file's servers start once, the tests on a Docker Engine to one worker one after
# another, in the order support/scheduling.py gives; its ten slowest tests printed last. Three on
# two cores: a third of a worker's time is spent waiting on servers, engines and browsers.
TEST_WORKERS ?= 3
test: $(VENV)/.installed-test browser $(ORACLES)/node_modules/.installed
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=10 \
		--cov=app --cov-report=term:skip-covered --cov-fail-under=$(COVERAGE_FLOOR)

# Everything but what starts servers, databases or a browser: under a minute.
test-fast: $(VENV)/.installed-test $(ORACLES)/node_modules/.installed
	$(BIN)/python -m pytest -m "not slow and not socket and not browser"

# wrk from Debian drives the load; installed when missing (CI and developer machines run as root).
bench: $(VENV)/.installed-bench
	command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	$(BIN)/python bench/run.py $(if $(AGAINST),--against $(AGAINST))

# Where the app CPU of one POST /blueprints goes, part by part (cProfile, the shared body).
profile: $(VENV)/.installed-test
	$(BIN)/python bench/profile_post.py

# What one create costs in CPU instructions (callgrind), the same on every run where `make bench`
# is noisy; AGAINST=REVISION counts that revision too, in the same way.
instructions: $(VENV)/.installed-bench
	command -v valgrind >/dev/null || (apt-get update -qq && apt-get install -y -qq valgrind)
	$(BIN)/python bench/instructions.py $(if $(AGAINST),--against $(AGAINST))

# Docker Compose as the judge, longer than in `make test`: 20,000 generated files and 5,000 mutants
# of each kind of real file, with a new seed each run (MUTATION_SEED=N runs one again; docs/decisions/05-compose-as-docker-compose-judges-it.md,
# "Against a newer Compose", says how to move to a newer Compose).
oracle: $(VENV)/.installed-test
	@seed=$${MUTATION_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; echo "mutation seed $$seed"; \
	ORACLE_BATCHES=$${ORACLE_BATCHES:-400} MUTANTS=$${MUTANTS:-5000} MUTATION_SEED=$$seed \
		$(BIN)/python -m pytest -q tests/definitions/test_compose_oracle.py tests/definitions/test_compose_rules.py tests/definitions/test_mutation_oracle.py

# checkov's Kubernetes checks (PyPI, in a virtualenv of its own: its pins are not the service's) as a
# second reading of pod security over the corpus at each level; prints what it reads otherwise.
CHECKOV_VENV := .venv-checkov
$(CHECKOV_VENV)/bin/checkov:
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install -q checkov==3.3.30

pod-security: $(VENV)/.installed-test $(CHECKOV_VENV)/bin/checkov
	CHECKOV=$(CHECKOV_VENV)/bin/checkov $(BIN)/python -m pytest -q -s tests/definitions/test_pod_security.py -k checkov

# A longer contract-fuzzing run than the one in `make test`, with a random seed.
fuzz: $(VENV)/.installed-test
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-300} $(BIN)/python -m pytest -q tests/http/test_contract_fuzzing.py

# kill -9 the database and the service under write load, restart, retry; prints the counts.
fault-test: $(VENV)/.installed-test
	$(BIN)/python bench/fault.py

# Rewrites the committed copy of the served OpenAPI document (docs/openapi.json), which a test
# compares with what the app serves: run it when a change to the document is meant.
openapi: $(VENV)/.installed-test
	$(BIN)/python -m tests.test_repository

# docs/prices.md: what every corpus template costs a month at a profile's defaults (about a minute).
prices: $(VENV)/.installed-test
	$(BIN)/python -m support.prices

# The web page's scripts are laid out by Prettier and checked by ESLint, pinned in
# app/web/package.json (and its lock), installed from the npm registry with the machine's Node.js.
WEB := app/web
$(WEB)/node_modules/.installed: $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# What the tests judge written objects with beside the Python ones (the Gateway API's types), and
# the OpenID provider they sign in through (node-oidc-provider), pinned in
# support/oracles/package.json and its lock.
$(ORACLES)/node_modules/.installed: $(ORACLES)/package.json $(ORACLES)/package-lock.json
	cd $(ORACLES) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

lint: $(VENV)/.installed-test $(WEB)/node_modules/.installed
	$(BIN)/ruff check app bpctl tests bench support wsgi.py gunicorn.conf.py
	$(BIN)/ruff format --check app bpctl tests bench support wsgi.py gunicorn.conf.py
	cd $(WEB) && node node_modules/prettier/bin/prettier.cjs --check static eslint.config.mjs ../../tests/web/pure
	cd $(WEB) && node node_modules/eslint/bin/eslint.js --max-warnings 0

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) *.egg-info .pytest_cache .ruff_cache .coverage $(WEB)/node_modules $(ORACLES)/node_modules
