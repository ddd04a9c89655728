# ptl: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
VENV := $(CURDIR)/.venv
export PATH := $(VENV)/bin:$(PATH)
# eerie-sys builds IREE's runtime with CMake >= 3.26 (from the venv) and finds the compiler
# library through this Python.
export EERIE_PYTHON := $(VENV)/bin/python
CARGO ?= cargo

.PHONY: setup build release run test test-rust test-python memcheck bench clean-cache

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --workspace
	@bash scripts/keep-eerie-fresh.sh

# Users get an optimised `ptl` (target/release/ptl); tests use the faster-to-build debug profile.
release: setup
	$(CARGO) build --release -p ptl-cli
	@CARGO_TARGET_DIR=target bash scripts/keep-eerie-fresh.sh

run: release
	./target/release/ptl run examples/axpy.ptl

test: setup
	$(CARGO) test --workspace
	@bash tests/robustness/memcheck.sh
	@bash scripts/keep-eerie-fresh.sh
	@if [ -d tests/python ] && ls tests/python/test_*.py >/dev/null 2>&1; then $(MAKE) --no-print-directory test-python; fi

# The hostile-index tests under valgrind's memcheck (compiled kernels included); part of `test`.
memcheck: setup
	@bash tests/robustness/memcheck.sh

# One test process per core (pytest-xdist), then the tests marked `serial` alone.
test-python:
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider -n auto -m "not serial" tests/python
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider -m serial tests/python

# Benchmarks: criterion (crates/rt/benches), the memory soak and bench/run.py (NumPy, PyTensor,
# iree.runtime); prints one table, writes bench/results/latest.{json,png}. About 10 minutes.
bench: setup
	@$(VENV)/bin/pip install -q --disable-pip-version-check -r bench/requirements.txt
	$(VENV)/bin/python bench/run.py
	@bash scripts/keep-eerie-fresh.sh

# The book (book/src) as HTML in book/book; installs mdbook on first use. Its code blocks are
# tested by `make test` (crates/rt/tests/it/book.rs, tests/python/test_book.py).
.PHONY: book
book:
	@bash scripts/setup.sh --book
	PATH="$$HOME/.cargo/bin:$$PATH" mdbook build book

clean-cache:
	rm -rf "$${PTL_CACHE_DIR:-$${XDG_CACHE_HOME:-$$HOME/.cache}/ptl}"
