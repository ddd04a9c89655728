"""PyTensor's Scan and basic indexing imported into ptl (`scan` / `loop` and slicing): mode
"PTL" against PyTensor's own result, for the forms of Scan ptl expresses (sequences, states
with one tap, traced or only their last value, per-step outputs, non-sequences), and a clear
refusal for the others."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import assert_same

rng = np.random.default_rng(3)


def _scan(fn, **kw):
    return pytensor.scan(fn, return_updates=False, **kw)


def _compare(inputs, outputs, args, **tol):
    want = pytensor.function(inputs, outputs, mode="FAST_COMPILE")(*args)
    got = pytensor.function(inputs, outputs, mode="PTL")(*args)
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w, **tol)
    else:
        assert_same(got, want, **tol)


def test_constant_slices_and_indices():
    x = pt.matrix("x")
    out = x[1:, ::-1] * 2.0 + x[0] - x[-1, 1]
    _compare([x], out, [rng.normal(size=(4, 3))])


def test_traced_state_with_sequence_and_non_sequence():
    x, w = pt.vector("x"), pt.scalar("w")
    trace = _scan(lambda xt, acc, w: acc * w + xt, sequences=[x], outputs_info=[pt.zeros(())], non_sequences=[w])
    _compare([x, w], trace, [rng.normal(size=7), np.array(0.9)])


def test_only_the_last_value_of_a_state():
    x, w = pt.vector("x"), pt.scalar("w")
    trace = _scan(lambda xt, acc, w: acc * w + xt, sequences=[x], outputs_info=[pt.zeros(())], non_sequences=[w])
    _compare([x, w], trace[-1], [rng.normal(size=7), np.array(0.9)])


def test_map_over_a_sequence():
    x = pt.matrix("x")
    rows = _scan(lambda r: pt.sum(r**2) + 1.0, sequences=[x])
    _compare([x], rows, [rng.normal(size=(5, 3))])


def test_two_states_and_a_fixed_number_of_steps():
    a0, b0 = pt.scalar("a0", dtype="int64"), pt.scalar("b0", dtype="int64")
    a, b = _scan(lambda a, b: (b, a + b), outputs_info=[a0, b0], n_steps=12)
    _compare([a0, b0], [a, b[-1]], [np.array(0), np.array(1)])


def test_recurrent_layer():
    xs, h0, W, U = pt.matrix("xs"), pt.vector("h0"), pt.matrix("W"), pt.matrix("U")
    hs = _scan(lambda x, h, W, U: pt.tanh(pt.dot(W, h) + pt.dot(U, x)), sequences=[xs], outputs_info=[h0],
               non_sequences=[W, U])
    args = [rng.normal(size=(6, 2)), rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(3, 2))]
    _compare([xs, h0, W, U], [hs, hs[-1].sum()], args)


def test_state_and_per_step_output_together():
    x = pt.vector("x")
    acc, doubled = _scan(lambda xt, acc: (acc + xt, 2.0 * acc), sequences=[x], outputs_info=[pt.zeros(()), None])
    _compare([x], [acc, doubled], [rng.normal(size=5)])


def test_float32_scan():
    x = pt.vector("x", dtype="float32")
    trace = _scan(lambda xt, acc: acc * np.float32(0.5) + pt.exp(xt), sequences=[x],
                  outputs_info=[pt.zeros((), dtype="float32")])
    _compare([x], trace, [rng.normal(size=6).astype("float32")], rtol=1e-6, atol=1e-6)


def test_scan_reading_two_steps_back_is_refused():
    x0 = pt.vector("x0")
    fib = _scan(lambda a, b: a + b, outputs_info=[{"initial": x0, "taps": [-2, -1]}], n_steps=5)
    with pytest.raises(NotImplementedError, match="more than one step back"):
        pytensor.function([x0], fib, mode="PTL_STRICT")


@pytest.mark.parametrize("start", [0.7, 11.0, 1e-9])
def test_scan_with_a_stopping_condition_is_a_loop_with_until(start):
    """A `while` scan (PyTensor's `until`) is ptl's `scan ... until`: its trace and outputs have
    the rows of the steps it ran (one when the condition holds after the first step, all of
    them when it never does), in mode PTL_STRICT (nothing left to PyTensor)."""
    from pytensor.scan.utils import until

    from pytensor_ptl import from_fgraph

    x0 = pt.scalar("x0")
    trace = _scan(lambda x: (x * 2.0, until(x > 10.0)), outputs_info=[x0], n_steps=20)
    v = pt.vector("v")
    halves = _scan(lambda x: (x * 0.5, until(pt.all(x < 1.0))), outputs_info=[v], n_steps=50)
    for inputs, outputs, args in [
        ([x0], [trace, trace[-1] + 1.0], [np.float64(start)]),
        ([v], halves, [np.array([3.0, 10.0, 0.5]) * start]),
    ]:
        want = pytensor.function(inputs, outputs, mode="FAST_COMPILE")(*args)
        f = pytensor.function(inputs, outputs, mode="PTL_STRICT")
        assert "until" in from_fgraph(f.maker.fgraph).source()
        got = f(*args)
        for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
            assert_same(g, w)
