"""Constants of a graph: small ones are written into the source (NaN and infinities as the
literals `nan`, `inf`, `-inf`), large ones become parameters whose arrays the program passes
itself."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
from conftest import assert_same, run_roundtrip

from pytensor_ptl import _ptl, from_fgraph

rng = np.random.default_rng(7)


def _ptl_and_reference(inputs, outputs):
    return pytensor.function(inputs, outputs, mode="PTL"), pytensor.function(inputs, outputs, mode="FAST_COMPILE")


def test_a_million_element_weight_is_bound_not_printed():
    w = rng.standard_normal((1000, 1000))
    x = pt.matrix("x")
    out = pt.tanh(x @ pt.constant(w, name="W") * 0.05) + 1.0
    f, ref = _ptl_and_reference([x], out)
    xv = rng.standard_normal((3, 1000))
    want = ref(xv)
    assert_same(f(xv), want)

    prog = from_fgraph(f.maker.fgraph)
    src = prog.source()
    assert len(src) < 2000, src[:2000]
    assert "W: f64[1000, 1000]" in src, src
    # The short text is the whole program: it parses back to itself and checks.
    assert _ptl.format_source(src) == src
    prog.check()
    [bound] = prog.constants()
    np.testing.assert_array_equal(bound, w)
    assert_same(prog(xv)[0], want)
    assert_same(prog.interpret(xv)[0], want)


def test_small_constants_stay_literals():
    x = pt.vector("x", shape=(4,))
    f, ref = _ptl_and_reference([x], x * np.array([1.0, 2.0, 3.0, 4.0]) + 0.5)
    xv = rng.standard_normal(4)
    assert_same(f(xv), ref(xv))
    prog = from_fgraph(f.maker.fgraph)
    assert prog.constants() == []
    assert "[1.0, 2.0, 3.0, 4.0]" in prog.source()


def test_bound_constants_round_trip_as_the_last_arguments():
    m = pt.matrix("m", shape=(None, 5))
    c = rng.standard_normal((5, 5))
    b = rng.standard_normal(5)
    f, ref = _ptl_and_reference([m], [m @ c, (m * b).sum(axis=1)])
    mv = rng.standard_normal((2, 5))
    want = ref(mv)
    for g, w in zip(f(mv), want):
        assert_same(g, w)
    prog = from_fgraph(f.maker.fgraph)
    assert len(prog.constants()) == 1  # `b` has 5 elements: a literal
    for g, w in zip(run_roundtrip(prog, [mv]), want):
        assert_same(g, w)


def test_constant_with_nan_and_infinity():
    x = pt.vector("x", shape=(3,))
    f, ref = _ptl_and_reference([x], x + np.array([np.nan, np.inf, -np.inf]))
    xv = np.array([1.0, 2.0, 3.0])
    assert_same(f(xv), ref(xv))
    prog = from_fgraph(f.maker.fgraph)
    assert len(prog.constants()) == 0  # a literal: `[nan, inf, -inf]`
    assert "nan" in prog.source() and "-inf" in prog.source()
    for g, w in zip(run_roundtrip(prog, [xv]), [ref(xv)]):
        assert_same(g, w)


def test_large_constant_output():
    x = pt.vector("x")
    big = np.arange(40, dtype="int64").reshape(5, 8)
    f, ref = _ptl_and_reference([x], [x * 2.0, pt.constant(big)])
    xv = rng.standard_normal(3)
    for g, w in zip(f(xv), ref(xv)):
        assert_same(g, w)
