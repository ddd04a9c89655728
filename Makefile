# ptl: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
VENV := $(CURDIR)/.venv
export PATH := $(VENV)/bin:$(PATH)
# eerie-sys builds IREE's runtime with CMake >= 3.26 (from the venv) and finds the compiler
# library through this Python.
export EERIE_PYTHON := $(VENV)/bin/python
CARGO ?= cargo

.PHONY: setup build run test test-rust test-python bench clean-cache

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --workspace
	@bash scripts/keep-eerie-fresh.sh

run: build
	./target/debug/ptl run examples/axpy.ptl

test: setup
	$(CARGO) test --workspace
	@bash scripts/keep-eerie-fresh.sh
	@if [ -d tests/python ] && ls tests/python/test_*.py >/dev/null 2>&1; then $(MAKE) --no-print-directory test-python; fi

test-python:
	$(VENV)/bin/python -m pytest -q tests/python

clean-cache:
	rm -rf "$${PTL_CACHE_DIR:-$${XDG_CACHE_HOME:-$$HOME/.cache}/ptl}"
