#!/usr/bin/env bash
# Installs everything ptl needs on a fresh Debian 12 machine. Idempotent and quiet when done.
set -euo pipefail
cd "$(dirname "$0")/.."

# libvulkan1 and mesa-vulkan-drivers: the Vulkan loader and Mesa's lavapipe, a Vulkan device on
# the CPU (`--device vulkan`). libopenblas-dev: OpenBLAS, the runtime's f64 matrix products.
APT_PACKAGES=(llvm-22-dev libmlir-22-dev mlir-22-tools libclang-22-dev libpolly-22-dev libzstd-dev libvulkan1 mesa-vulkan-drivers libopenblas-dev valgrind)
VENV=.venv

# Python 3.12 or newer: PyTensor 3.3 and PyMC 6.4 need it. PTL_PYTHON names one; else the first
# of python3.12, python3.13, python3 on PATH that is new enough, else the oldest such under pyenv.
new_enough() { [ -n "$1" ] && "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }
find_python() {
  local c
  for c in "${PTL_PYTHON:-}" python3.12 python3.13 python3; do
    if [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && new_enough "$(command -v "$c")"; then command -v "$c"; return; fi
  done
  for c in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.* 2>/dev/null | sort -t. -k2,2n); do
    if new_enough "$c/bin/python"; then echo "$c/bin/python"; return; fi
  done
}
PYTHON=$(find_python)
if [ -n "$PYTHON" ]; then
  PY_PACKAGES=("cmake<4" "iree-base-compiler==3.13.0" "numpy<2.3" "pytensor==3.3.7" "pymc==6.4.0" "maturin>=1.7,<2" "pytest" "pytest-xdist>=3.6,<4" "pexpect")
else
  PYTHON=$(command -v python3)
  echo "setup: no Python 3.12 or newer found (PATH, PTL_PYTHON, pyenv): using $($PYTHON --version 2>&1) with" \
       "PyTensor 3.0.7 and without PyMC; the PyMC tests will be skipped" >&2
  PY_PACKAGES=("cmake<4" "iree-base-compiler==3.13.0" "numpy<2.3" "pytensor==3.0.7" "maturin>=1.7,<2" "pytest" "pytest-xdist>=3.6,<4" "pexpect")
fi
# A venv of another Python is made again.
want_version=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [ -x "$VENV/bin/python" ] && [ "$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$want_version" ]; then
  echo "setup: $VENV is not Python $want_version: making it again"
  rm -rf "$VENV"
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

stamp="$VENV/.ptl-setup-$(printf '%s\n' "${PY_PACKAGES[@]}" | sha1sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  echo "setup: preparing $VENV"
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
  touch "$stamp"
fi

# The Python package `pytensor_ptl` (python/: the PyTensor importer and mode "PTL"), built by
# maturin (optimised: users run it) and installed editable into the venv. Rebuilt only when its Rust sources or the crates
# it links change (its Python files are used in place).
py_hash=$(find python/src python/Cargo.toml python/Cargo.lock python/pyproject.toml \
            crates/lang/src crates/interp/src crates/lower/src crates/rt/src crates/*/Cargo.toml Cargo.lock .cargo/config.toml \
            -type f 2>/dev/null | sort | xargs sha1sum | sha1sum | cut -c1-12)
py_stamp="$VENV/.ptl-python-$py_hash"
if [ ! -f "$py_stamp" ] || ! ls python/pytensor_ptl/_ptl*.so >/dev/null 2>&1; then
  echo "setup: building the pytensor_ptl extension (python/)"
  (
    cd python
    export VIRTUAL_ENV="$PWD/../$VENV" PATH="$PWD/../$VENV/bin:$PATH" EERIE_PYTHON="$PWD/../$VENV/bin/python"
    rm -f pytensor_ptl/_ptl*.so  # one of another Python would stay behind
    maturin develop --release --quiet >/dev/null
  )
  CARGO_TARGET_DIR=target bash scripts/keep-eerie-fresh.sh
  rm -f "$VENV"/.ptl-python-*
  touch "$py_stamp"
fi

# mdbook, for `make book` only (`setup.sh --book`): built from crates.io once if missing, which
# takes several minutes (about 7 on a busy two-core machine).
MDBOOK_VERSION=0.4.52
if [ "${1:-}" = "--book" ] && ! command -v mdbook >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/mdbook" ]; then
  echo "setup: installing mdbook $MDBOOK_VERSION (cargo install, several minutes, once)"
  cargo install mdbook --locked --version "$MDBOOK_VERSION" --quiet
fi
