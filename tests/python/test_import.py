"""What the importer refuses, the Program object, and `ptl run` on imported sources."""

from __future__ import annotations

import json

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import PTL_BIN, roundtrip_script, run_cli

import pytensor_ptl
from pytensor_ptl import _ptl, from_fgraph


# Mode PTL_STRICT refuses what ptl cannot express; mode PTL runs it with PyTensor instead
# (test_fallback.py).


def test_unsupported_op_raises_at_function_time_naming_the_node():
    a = pt.matrix("a")
    y = pt.linalg.svd(a, compute_uv=False) * 2.0
    with pytest.raises(NotImplementedError, match=r"node \d+ `SVD.*inputs: a"):
        pytensor.function([a], y, mode="PTL_STRICT")


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "float16", "complex128"])
def test_unsupported_input_dtype_names_the_dtype(dtype):
    x = pt.vector("x", dtype=dtype)
    with pytest.raises(NotImplementedError, match=f"`x` has dtype {dtype}"):
        pytensor.function([x], x, mode="PTL_STRICT")


def test_unknown_scalar_op_inside_a_fused_graph():
    x = pt.vector("x")
    with pytest.raises(NotImplementedError, match="Hyp2F1|hyp2f1"):
        pytensor.function([x], pt.hyp2f1(1.0, 2.0, 3.0, x) * pt.exp(x), mode="PTL_STRICT")


def test_check_raises_rendered_diagnostics():
    desc = {
        "name": "bad",
        "inputs": [
            {"id": 1, "name": "a", "dtype": "float64", "shape": [3]},
            {"id": 2, "name": "b", "dtype": "float64", "shape": [4]},
        ],
        "nodes": [{"op": "add", "inputs": [1, 2], "output": 3, "dtype": "float64", "at": "node 0"}],
        "outputs": [3],
    }
    prog = pytensor_ptl.Program(_ptl.build_program(json.dumps(desc), []))
    with pytest.raises(ValueError, match=r"(?s)E0006.*cannot broadcast"):
        prog.check()


def test_rust_side_names_the_node():
    desc = {
        "name": "bad",
        "inputs": [{"id": 1, "name": "a", "dtype": "float64", "shape": [3]}],
        "nodes": [{"op": "frobnicate", "inputs": [1], "output": 2, "dtype": "float64", "at": "node 7 `Frob`"}],
        "outputs": [2],
    }
    with pytest.raises(NotImplementedError, match="node 7 `Frob`: operation `frobnicate`"):
        _ptl.build_program(json.dumps(desc), [])


def test_names_are_sanitized_and_unique():
    a = pt.vector("sum")
    b = pt.vector("sum")
    c = pt.vector("my var")
    fg = pytensor.function([a, b, c], a + b + c, mode="PTL").maker.fgraph
    src = from_fgraph(fg).source()
    assert src.startswith("fn graph(v_sum: f64[?], sum_2: f64[?], my_var: f64[?])") or "v_sum" in src, src


@pytest.mark.skipif(not PTL_BIN.exists(), reason="needs ./target/debug/ptl (cargo build)")
def test_ptl_run_prints_what_pytensor_computes():
    x = pt.matrix("x", dtype="int64")
    y = pt.vector("y", dtype="int64")
    outs = [x * 2 + y, (x > 2).sum(axis=1)]
    f = pytensor.function([x, y], outs, mode="PTL")
    a = np.array([[1, 2, 3], [4, 5, 6]])
    b = np.array([10, 20, 30])
    want = pytensor.function([x, y], outs, mode="FAST_COMPILE")(a, b)
    prog = from_fgraph(f.maker.fgraph)
    out = run_cli(roundtrip_script(prog, [a, b]))
    assert out.strip().splitlines() == (str(want[0]) + "\n" + str(want[1])).splitlines()


@pytest.mark.skipif(not PTL_BIN.exists(), reason="needs ./target/debug/ptl (cargo build)")
def test_ptl_run_float_graph():
    x = pt.vector("x")
    f = pytensor.function([x], pt.special.softmax(x, axis=0) * 10.0, mode="PTL")
    a = np.array([1.0, 2.0, 3.0])
    prog = from_fgraph(f.maker.fgraph)
    out = run_cli(roundtrip_script(prog, [a]))
    assert out.strip() == str(f(a))
