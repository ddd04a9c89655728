"""Ctrl-C (SIGINT) while ptl runs a long loop: the loop stops at its next step, compiled or
interpreted, and Python raises KeyboardInterrupt, as it would for a long NumPy loop; the next
call runs normally. A SIGINT handler the program installed itself runs instead, and a call
without loops leaves the signal to Python."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import pytensor_ptl as ptl

# Signals sent after a delay: run alone (see conftest.py).
pytestmark = pytest.mark.serial

# 10^11 steps: hours, so only an interrupt ends the call within the test's time.
SPIN = "let r = loop s = 1.0 for i in 0..{n} {{ s * 0.5 + 1.0 }};\nprint(r);"


@pytest.fixture(autouse=True)
def python_handles_sigint():
    """Python's own SIGINT handler, as a run in a terminal has. A process that a shell starts
    in the background (`make test &`) inherits SIGINT ignored, Python leaves it so, and ptl
    then leaves it alone too (as it should): these tests would wait on a loop of 10^11 steps."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _sigint_after(seconds):
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


@pytest.mark.parametrize("interp", [False, True], ids=["compiled", "interpreted"])
def test_keyboard_interrupt_stops_a_long_loop(interp):
    # The signal comes while the program compiles or while it runs: either way the loop
    # stops at a step.
    timer = _sigint_after(2.0)
    try:
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            ptl.run_script(SPIN.format(n=10**11), interp=interp)
        assert time.monotonic() - start < 30
    finally:
        timer.cancel()
        timer.join()
    # The runtime goes on: the same loop, short, gives NumPy's answer.
    want = 1.0
    for _ in range(5):
        want = want * 0.5 + 1.0
    (got,) = ptl.run_script(SPIN.format(n=5), interp=interp)
    assert float(got) == want


def test_a_handler_the_program_installed_runs_instead():
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        timer = _sigint_after(1.0)
        try:
            with pytest.raises(RuntimeError, match="interrupted"):
                ptl.run_script(SPIN.format(n=10**11))
        finally:
            timer.cancel()
            timer.join()
        assert seen == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_mode_ptl_scan_is_interrupted():
    n = pt.lscalar("n")
    x0 = pt.dscalar("x0")
    trace = pytensor.scan(lambda acc: acc * 0.5 + 1.0, outputs_info=[x0], n_steps=n, return_updates=False)
    f = pytensor.function([x0, n], trace[-1], mode="PTL")
    assert float(f(np.array(1.0), np.array(5))) == pytest.approx(1.96875)
    # A trace of 10^12 steps (8 TB) cannot be allocated: a MemoryError, before any step, on
    # both paths.
    with pytest.raises(MemoryError, match="larger than the memory available"):
        f(np.array(1.0), np.array(10**12))
    with pytest.raises(MemoryError):
        ptl.from_fgraph(f.maker.fgraph).interpret(np.array(1.0), np.array(10**12))
    # The trace of 10^7 steps fits in memory (80 MB); its steps take minutes.
    timer = _sigint_after(1.0)
    try:
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            f(np.array(1.0), np.array(10**7))
        assert time.monotonic() - start < 30
    finally:
        timer.cancel()
        timer.join()
    assert float(f(np.array(1.0), np.array(5))) == pytest.approx(1.96875)


def test_a_call_without_loops_leaves_sigint_to_python():
    x = np.arange(4.0)
    f = pytensor.function([xv := pt.dvector("x")], xv * 2.0, mode="PTL")
    np.testing.assert_array_equal(f(x), x * 2.0)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
