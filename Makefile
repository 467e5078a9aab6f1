# `make run` and `make test` do all the set-up themselves on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT

.PHONY: run test lint bench browser fuzz fault-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-run: $(BIN)/python setup.cfg setup.py
	$(BIN)/python -m pip install -q -e '.[embedded]'
	touch $@

$(VENV)/.installed-test: $(BIN)/python setup.cfg setup.py
	$(BIN)/python -m pip install -q -e '.[embedded,test]'
	touch $@

run: $(VENV)/.installed-run
	$(BIN)/gunicorn -c gunicorn.conf.py wsgi:app

# The docs page is tested in a real browser: Debian's chromium and its driver, installed when missing.
browser:
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver)

test: $(VENV)/.installed-test browser
	$(BIN)/python -m pytest

# wrk from Debian drives the load; installed when missing (CI and developer machines run as root).
bench: $(VENV)/.installed-test
	command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	$(BIN)/python bench/run.py

# A longer contract-fuzzing run than the one in `make test`, with a random seed.
fuzz: $(VENV)/.installed-test
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-300} $(BIN)/python -m pytest -q tests/test_contract_fuzzing.py

# kill -9 the database and the service under write load, restart, retry; prints the counts.
fault-test: $(VENV)/.installed-test
	$(BIN)/python bench/fault.py

lint: $(VENV)/.installed-test
	$(BIN)/ruff check app tests bench wsgi.py gunicorn.conf.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache
