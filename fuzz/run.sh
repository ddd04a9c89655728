#!/usr/bin/env bash
# Runs each fuzz target for a bounded time, one after another.
#
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s; parse, check, pipeline)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`). cargo-fuzz asks for nightly-only
# compiler flags; on a stable toolchain RUSTC_BOOTSTRAP=1 lets them through. Corpora grow in
# fuzz/corpus/<target> (seeded from tests/fixtures and examples), crashes land in
# fuzz/artifacts/<target>; reproduce one with `fuzz/run.sh repro <target> <file>`.
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTC_BOOTSTRAP="${RUSTC_BOOTSTRAP:-1}"
# eerie-sys's build script finds the IREE compiler through this Python (see the Makefile).
if [ -x .venv/bin/python ]; then
  export PATH="$PWD/.venv/bin:$PATH" EERIE_PYTHON="${EERIE_PYTHON:-$PWD/.venv/bin/python}"
fi
# The pipeline target links MLIR and LLVM (C++, not instrumented); AddressSanitizer adds little
# there and slows the build, so all targets run without it unless FUZZ_SANITIZER says otherwise.
sanitizer="${FUZZ_SANITIZER:-none}"
jobs="${FUZZ_JOBS:-1}"
# Comparison tracing (libFuzzer's `trace-cmp`) guides the fuzzer to the constants a branch
# compares with, and takes about half of a run's time on the parser; FUZZ_TRACE_COMPARES=0
# builds without it (about twice the executions a second) for long runs from a grown corpus.
# A change of this setting rebuilds the fuzz crate.
trace=()
[ "${FUZZ_TRACE_COMPARES:-1}" = 0 ] && trace=(--no-trace-compares)
# Inputs longer than this are not generated (the seeds from tests/fixtures are shorter).
max_len="${FUZZ_MAX_LEN:-4096}"

if [ "${1:-}" = repro ]; then
  target="$2"; shift 2
  exec cargo fuzz run --fuzz-dir fuzz -s "$sanitizer" "${trace[@]}" "$target" "$@"
fi

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse check pipeline)

seed_corpus() {
  local dir="fuzz/corpus/$1"
  mkdir -p "$dir"
  [ -n "$(ls -A "$dir" 2>/dev/null)" ] && return 0
  local f
  for f in tests/fixtures/*/*.ptl examples/*.ptl; do
    [ -f "$f" ] || continue
    if [ "$1" = pipeline ]; then
      # 9 bytes of progen seed and depth, then the program text.
      { printf '%08x\1' "$RANDOM$RANDOM" | head -c 9; sed '/^\/\/ ---- /,$d' "$f"; } > "$dir/$(basename "$f" .ptl)"
    else
      sed '/^\/\/ ---- /,$d' "$f" > "$dir/$(basename "$f" .ptl)"
    fi
  done
}

for t in "${targets[@]}"; do
  seed_corpus "$t"
  echo "== fuzz target $t for ${seconds}s"
  cargo fuzz run --fuzz-dir fuzz -s "$sanitizer" "${trace[@]}" -j "$jobs" "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -max_len="$max_len" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1
done
