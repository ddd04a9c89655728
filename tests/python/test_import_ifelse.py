"""PyTensor's `IfElse` imported as ptl's `if` per output: branches of one known shape, of
sizes known only at run time, or of different sizes; a gradient through it."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import compare_strict
from pytensor.conditional.op import ifelse

from pytensor_ptl import from_fgraph
from pytensor_ptl.islands import IslandGraph


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


@pytest.mark.parametrize("a", [1.5, -2.0])
def test_ifelse_whose_branches_differ_in_size_runs_in_ptl(a):
    s = pt.scalar("s")
    x = pt.vector("x")
    m = pt.matrix("m")
    outs = ifelse(s > 0, [x, m[1:] * 2.0], [x[:1] - s, m[::2].T.T])
    f = compare_strict([s, x, m], list(outs), [a, np.arange(3.0), np.arange(6.0).reshape(3, 2)])
    assert not isinstance(f.vm.jit_fn, IslandGraph)
    assert "if " in from_fgraph(f.maker.fgraph).source()


def test_a_gradient_through_ifelse():
    s = pt.scalar("s")
    x = pt.vector("x")
    y = ifelse(s > 0, (x ** 2).sum() * s, pt.exp(x).sum())
    g = pytensor.grad(y, [x, s])
    for a in (2.0, -1.0):
        compare_strict([s, x], g, [a, np.array([0.5, -1.0, 2.0])])
