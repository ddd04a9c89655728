#!/usr/bin/env bash
# Memory checking of the hostile-index tests: every indexing op (scalar indexing, gather,
# take, scatter, slicing and set_slice with bounds from values) on i64::MAX, i64::MIN,
# -len - 1 and len, compiled and interpreted, run under valgrind's memcheck. Compiled kernels
# run inside valgrind too (IREE loads them into the process), so a read or write outside an
# IREE buffer is reported; any report fails the run.
#
#   tests/robustness/memcheck.sh [TEST_FILTER]       (default: indexing::)
#
# What it takes to run IREE's runtime under valgrind 3.19:
# - io_uring off (no_io_uring.c, through LD_PRELOAD): a thread waiting in io_uring_enter
#   stalls valgrind for good;
# - kernels compiled for x86-64-v3 (AVX2): valgrind decodes no AVX-512 instruction;
# - the test binary without its DWARF 5 debug information, which valgrind 3.19 cannot read;
# - modules compiled by a first run outside valgrind (the IREE compiler under valgrind
#   would take hours), loaded from a fresh compile cache by the checked run.
set -euo pipefail
cd "$(dirname "$0")/../.."
filter="${1:-indexing::}"
command -v valgrind >/dev/null || { echo "memcheck: valgrind is not installed (apt install valgrind)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bin="$(cargo test -p ptl-rt --test it --no-run --message-format=json 2>/dev/null \
  | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
[ -x "$bin" ] || { echo "memcheck: cannot find the test binary" >&2; exit 1; }
cc -O2 -shared -fPIC -o "$work/no_io_uring.so" tests/robustness/no_io_uring.c -ldl
objcopy --strip-debug "$bin" "$work/it"

# AVX2 where the CPU has it (valgrind decodes it), else the baseline.
cpu=x86-64-v3
grep -qw avx2 /proc/cpuinfo 2>/dev/null || cpu=x86-64
export PTL_CACHE_DIR="$work/cache" PTL_MEMCHECK_CPU="$cpu"
echo "memcheck: compiling the modules ($filter)"
"$work/it" "$filter" --test-threads=1 -q
echo "memcheck: the same tests under valgrind"
LD_PRELOAD="$work/no_io_uring.so" valgrind --quiet --fair-sched=yes --redzone-size=4096 --error-exitcode=99 \
  --track-origins=no "$work/it" "$filter" --test-threads=1
echo "memcheck: no invalid read or write, no use of uninitialised values"
