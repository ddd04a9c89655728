#!/usr/bin/env bash
# Runs the hostile-index tests (crates/rt/tests/it/indexing.rs) under valgrind's memcheck:
# every indexing op, compiled and interpreted, with indices i64::MAX, i64::MIN, -len-1 and len,
# must fail cleanly without reading or writing outside a buffer. The modules are compiled
# first, without valgrind, into a cache folder the valgrind run then loads, so memcheck sees
# the runtime (argument checks, IREE's VM, the compiled kernels, the interpreter) and not the
# compiler. Not part of CI (about 10 minutes on two cores).
#
#   scripts/valgrind-indexing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x .venv/bin/python ]; then
  export PATH="$PWD/.venv/bin:$PATH" EERIE_PYTHON="${EERIE_PYTHON:-$PWD/.venv/bin/python}"
fi
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
export PTL_CACHE_DIR="${PTL_CACHE_DIR:-$(mktemp -d)}"
cargo test -p ptl-rt --test it --no-run 2>/dev/null
bin=$(cargo test -p ptl-rt --test it --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "it":
        print(m["executable"])')
echo "== compiling the modules into $PTL_CACHE_DIR"
"$bin" indexing:: --test-threads=1 -q
echo "== the same tests under memcheck"
# valgrind 3.19 (Debian 12) cannot read the DWARF 5 debug info rustc writes: run a copy
# without it.
stripped="$(mktemp -d)/it"
objcopy --strip-debug "$bin" "$stripped"
valgrind --error-exitcode=99 --smc-check=all --track-origins=no --leak-check=no \
  "$stripped" indexing:: --test-threads=1 -q
echo "memcheck: no invalid reads or writes"
