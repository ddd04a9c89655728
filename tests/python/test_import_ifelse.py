"""PyTensor's `IfElse` imported as `where` per output, where both branches have one known
shape; otherwise it runs in PyTensor between compiled islands."""

from __future__ import annotations

import warnings

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import compare_strict
from pytensor.conditional.op import ifelse

from pytensor_ptl.islands import IslandGraph, PTLFallbackWarning


@pytest.mark.parametrize("a", [1.5, -2.0])
def test_ifelse_of_known_shapes_runs_in_ptl(a):
    s = pt.scalar("s")
    x = pt.tensor("x", shape=(3,))
    outs = ifelse(s > 0, [x * 2, s + 1], [x - 1, s * 3])
    compare_strict([s, x], list(outs), [a, np.arange(3.0)])


def test_ifelse_on_an_integer_condition():
    k = pt.lscalar("k")
    x = pt.tensor("x", shape=(2, 2))
    compare_strict([k, x], ifelse(k, pt.exp(x), x.T), [0, np.eye(2) + 1.0])


def test_ifelse_whose_branches_may_differ_in_shape_falls_back():
    s = pt.scalar("s")
    x = pt.vector("x")
    out = ifelse(s > 0, x, x[:1])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        f = pytensor.function([s, x], out, mode="PTL")
    assert isinstance(f.vm.jit_fn, IslandGraph)
    assert any(issubclass(w.category, PTLFallbackWarning) and "IfElse" in str(w.message) for w in seen)
    np.testing.assert_array_equal(f(-1.0, np.arange(3.0)), [0.0])
    np.testing.assert_array_equal(f(1.0, np.arange(3.0)), np.arange(3.0))
