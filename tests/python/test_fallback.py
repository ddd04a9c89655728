"""Fallback islands: in mode "PTL" the nodes ptl cannot express run with PyTensor's own
implementation between compiled ptl programs; results equal PyTensor's, each such op type is
warned about once, and mode "PTL_STRICT" refuses the same graphs."""

from __future__ import annotations

import warnings

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import assert_same
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

from pytensor_ptl import islands
from pytensor_ptl.islands import Fallback, Island, IslandGraph, PTLFallbackWarning

rng = np.random.default_rng(5)


class OpaqueSort(Op):
    """An op of this test's own, which ptl can never express: NumPy's sort of the last axis."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = np.sort(inputs[0], axis=-1)


opaque_sort = OpaqueSort()


def _both(inputs, outputs, args):
    """Mode PTL's result (with the warnings it gave) against PyTensor's own."""
    want = pytensor.function(inputs, outputs, mode="FAST_COMPILE")(*args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = pytensor.function(inputs, outputs, mode="PTL")
    got = f(*args)
    if not isinstance(outputs, list):
        got, want = [got], [want]
    for g, w in zip(got, want):
        assert_same(g, w)
    return f, [w for w in caught if issubclass(w.category, PTLFallbackWarning)]


def _steps(f):
    graph = f.vm.jit_fn
    assert isinstance(graph, IslandGraph), type(graph)
    return [("island" if isinstance(s, Island) else type(s.node.op).__name__) for s in graph.steps]


def test_an_unsupported_op_between_two_islands():
    islands._warned.discard("OpaqueSort")
    x = pt.vector("x")
    e = pt.exp(x)
    out = opaque_sort(e) * 2.0 + e.sum()
    f, warned = _both([x], out, [rng.standard_normal(7)])
    assert _steps(f) == ["island", "OpaqueSort", "island"]
    assert len(warned) == 1 and "OpaqueSort" in str(warned[0].message)
    # Warned once per op type: a second function with a sort says nothing more.
    _, again = _both([x], opaque_sort(x) + 1.0, [rng.standard_normal(3)])
    assert again == []


def test_each_island_is_a_ptl_program_of_the_supported_nodes():
    x = pt.matrix("x")
    out = opaque_sort(pt.tanh(x) @ x.T).sum(axis=0)
    f, _ = _both([x], out, [rng.standard_normal((4, 4))])
    first, last = f.vm.jit_fn.islands
    assert "tanh" in first.program.source() and "@" in first.program.source()
    assert "sum" in last.program.source()


def test_a_path_that_leaves_an_island_does_not_come_back_into_it():
    # exp feeds both the sort and the final add: the add must wait for the sort.
    x = pt.vector("x")
    e = pt.exp(x)
    out = [e + opaque_sort(e), pt.log(e)]
    f, _ = _both([x], out, [rng.standard_normal(5)])
    steps = _steps(f)
    assert steps.index("OpaqueSort") < len(steps) - 1


def test_an_unsupported_scalar_op_inside_a_fused_elemwise():
    x = pt.vector("x")
    _both([x], pt.j0(x) * pt.exp(x) + 1.0, [rng.uniform(0.1, 3.0, 6)])


def test_a_scan_whose_step_reads_two_steps_back_runs_in_pytensor():
    x0 = pt.vector("x0")
    out = pytensor.scan(lambda a, b: a + b, outputs_info=[{"initial": x0, "taps": [-2, -1]}], n_steps=6, return_updates=False)
    f, caught = _both([x0], out.sum() + 1.0, [np.array([0.7, 1.1])])
    assert caught


def test_an_input_of_a_dtype_ptl_lacks():
    x = pt.vector("x", dtype="int8")
    y = pt.vector("y")
    f, _ = _both([x, y], pt.dot(pt.cast(x, "float64"), pt.exp(y)), [np.array([1, -2, 3], dtype="int8"), rng.standard_normal(3)])
    assert any(isinstance(s, Island) for s in f.vm.jit_fn.steps)


def test_a_graph_ptl_expresses_whole_is_one_program():
    x = pt.vector("x")
    f = pytensor.function([x], pt.exp(x) * 2.0, mode="PTL")
    assert not isinstance(f.vm.jit_fn, IslandGraph)


def test_repeated_calls_do_not_share_results():
    x = pt.vector("x")
    f = pytensor.function([x], opaque_sort(x) * 2.0, mode="PTL")
    a = f(np.array([3.0, 1.0, 2.0]))
    b = f(np.array([9.0, 8.0, 7.0]))
    np.testing.assert_array_equal(a, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(b, [14.0, 16.0, 18.0])


def test_strict_mode_refuses_what_mode_ptl_runs():
    x = pt.vector("x")
    with pytest.raises(NotImplementedError, match="OpaqueSort"):
        pytensor.function([x], opaque_sort(x) * 2.0, mode="PTL_STRICT")


def test_fallback_steps_are_pytensor_thunks():
    x = pt.vector("x")
    f = pytensor.function([x], opaque_sort(pt.exp(x)), mode="PTL")
    kinds = [type(s) for s in f.vm.jit_fn.steps]
    assert kinds == [Island, Fallback]
