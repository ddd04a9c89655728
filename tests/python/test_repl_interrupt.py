"""Ctrl-C in `ptl repl` while an input runs: the interpreter, or compiled code, stops at the
next step of the loop, the REPL reports it and returns to its prompt, and the session goes on.
Driven through a pseudo-terminal, as a user types."""

from __future__ import annotations

import os
import pathlib
import select
import time

import pytest

pty = pytest.importorskip("pty")

# Ctrl-C typed after a delay long enough for a compile: run alone (see conftest.py).
pytestmark = pytest.mark.serial

PTL = pathlib.Path(__file__).resolve().parents[2] / "target" / "debug" / "ptl"


def _read(fd, seconds, until=None):
    out, end = b"", time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
            if until is not None and until in out:
                break
    return out.decode(errors="replace")


@pytest.mark.skipif(not PTL.exists(), reason="needs target/debug/ptl (cargo build)")
@pytest.mark.parametrize(
    "mode, report", [("--interp", "interrupted at step"), ("--compiled", "interrupted at a step of a loop")]
)
def test_ctrl_c_stops_a_loop_and_the_session_goes_on(mode, report):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["NO_COLOR"] = "1"
        args = ["ptl", "repl", "--no-cache"] + (["--interp"] if mode == "--interp" else [])
        os.execv(str(PTL), args)
    try:
        _read(fd, 10, b"ptl> ")
        if mode == "--compiled":
            os.write(fd, b":mode compiled\n")
            _read(fd, 5, b"ptl> ")
        os.write(fd, b"fn spin(n: i64) -> f64 { loop s = 0.0 for i in 0..n { s + 1.0 } }\n")
        _read(fd, 5, b"ptl> ")
        os.write(fd, b"spin(100000000000)\n")
        # Long enough for the compile of `spin`, so the loop itself is running.
        time.sleep(1.0 if mode == "--interp" else 8.0)
        os.write(fd, b"\x03")
        stopped = _read(fd, 20, b"ptl> ")
        assert report in stopped, stopped
        os.write(fd, b"spin(3)\n")
        assert "3.0" in _read(fd, 10, b"3.0"), "the session did not go on"
        os.write(fd, b":quit\n")
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
