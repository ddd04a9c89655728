"""Latency of the REPL as a user sees it: a scripted session of 20 inputs typed into
`ptl repl` on a terminal (a pty), each timed from the keystroke of Enter to the next prompt,
on a fresh compile cache. Prints every input's time, then the median and the 95th percentile.

    python bench/repl_latency.py [--ptl target/release/ptl] [--mode auto|interp|compiled]
"""

import argparse
import os
import re
import statistics
import tempfile
import time

import pexpect

SESSION = [
    "let x = [1.0, 2.0, 3.0, 4.0];",
    "x * 2.0",
    "sum(x)",
    "fn norm(v: f64[n]) -> f64 { sqrt(sum(v * v)) }",
    "norm(x)",
    "let m = [[1.0, 2.0], [3.0, 4.0]];",
    "m @ m",
    "m.T",
    "let y = exp(x) / sum(exp(x));",
    "y",
    "fn softplus2(v: f64[n]) -> f64[n] { log(1.0 + exp(v)) }",
    "softplus2(x)",
    "x[1:3]",
    "concat([x, x], 0)",
    "mean(x)",
    "argmax(x, 0)",
    "cumsum(x, 0)",
    "let z = where(x > 2.0, x, 0.0);",
    "z",
    "norm(z) + norm(x)",
]

PROMPT = "ptl> "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptl", default="target/release/ptl")
    ap.add_argument("--mode", default="auto")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, PTL_CACHE_DIR=os.path.join(d, "cache"), PTL_HISTORY=os.path.join(d, "history"),
                   NO_COLOR="1", TERM="xterm")
        p = pexpect.spawn(args.ptl, ["repl"], env=env, encoding="utf-8", timeout=120)
        # pexpect waits 50 ms before each send by default; a typist's Enter has no such delay.
        p.delaybeforesend = None
        p.expect_exact(PROMPT)
        p.sendline(f":mode {args.mode}")
        p.expect_exact(PROMPT)
        times = []
        for line in SESSION:
            t = time.perf_counter()
            p.sendline(line)
            p.expect_exact(PROMPT)
            ms = (time.perf_counter() - t) * 1e3
            times.append(ms)
            out = [l for l in ANSI.sub("", p.before).replace("\r", "").splitlines() if l.strip()]
            shown = out[-1].strip() if len(out) > 1 else ""
            if "rror" in p.before:
                raise SystemExit(f"{line!r} failed:\n{p.before}")
            print(f"{ms:8.1f} ms  {line:55s} {shown[:40]}")
        p.sendline(":quit")
        p.expect(pexpect.EOF)
    ts = sorted(times)
    p95 = ts[min(len(ts) - 1, round(0.95 * (len(ts) - 1)))]
    print(f"\n{len(times)} inputs, mode {args.mode}: median {statistics.median(times):.1f} ms, "
          f"p95 {p95:.1f} ms, max {ts[-1]:.1f} ms")


if __name__ == "__main__":
    main()
