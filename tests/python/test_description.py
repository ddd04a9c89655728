"""The description the Python side hands to Rust: its shape is fixed, and anything else is a
clear error naming the node, never a crash."""

from __future__ import annotations

import json

import pytensor
import pytensor.tensor as pt
import pytest

from pytensor_ptl import _ptl, describe


def _graph(*nodes, inputs=None, consts=None, outputs=None):
    desc = {
        "name": "g",
        "inputs": inputs if inputs is not None else [{"id": 1, "name": "x", "dtype": "float64", "shape": [3]}],
        "nodes": list(nodes),
        "outputs": outputs if outputs is not None else [nodes[-1]["output"] if nodes else 1],
    }
    if consts is not None:
        desc["consts"] = consts
    return json.dumps(desc)


def _node(op, inputs=(1,), output=2, at="node 3 `Op`", **fields):
    return {"op": op, **fields, "inputs": list(inputs), "output": output, "dtype": "float64", "at": at}


@pytest.mark.parametrize(
    "desc, message",
    [
        (_graph(_node("reduce", kind="average", axes=[0], in_ndim=1)), r"node 3 `Op`: unknown variant `average`"),
        (_graph(_node("reduce", kind="sum", in_ndim=1)), r"node 3 `Op`: missing field `axes`"),
        (_graph(_node("softmax", axis=0, axes=[0])), r"node 3 `Op`: unknown field `axes`"),
        (_graph(_node("exp", axis=0)), r"node 3 `Op`: unknown field `axis` for `exp`"),
        (_graph(_node("softmax", axis=-1)), r"node 3 `Op`: invalid value: integer `-1`"),
        (_graph({**_node("exp"), "dtype": "float16"}), r"node 3 `Op`: dtype `float16` is not one of ptl's"),
        (_graph({k: v for k, v in _node("exp").items() if k != "op"}), r"node 3 `Op`: missing field `op`"),
        (_graph(_node("sub")), r"node 3 `Op`: `sub` takes 2 inputs, got 1"),
        (_graph(_node("exp", inputs=[7])), r"node 3 `Op`: value 7 is used before it is defined"),
        (_graph(_node("exp", output=1)), r"node 3 `Op`: value 1 is defined twice"),
        (_graph(_node("dimshuffle", order=[1, None], in_ndim=1)), r"node 3 `Op`: order \(1, x\) is no shuffle of 1 axes"),
        (_graph(_node("reduce", kind="sum", axes=[1, 0], in_ndim=2)), r"axes \[1, 0\] are not sorted axes"),
        (_graph(consts=[{"id": 5, "index": 2}], outputs=[5]), r"constant 5 is array 2, but 0 arrays were passed"),
        (_graph(outputs=[9]), r"output: value 9 is used before it is defined"),
        ('{"name": "g", "inputs": []}', r"missing field `nodes`"),
        ("not json", r"bad graph description"),
    ],
)
def test_malformed_descriptions_are_value_errors_naming_the_node(desc, message):
    with pytest.raises(ValueError, match=message):
        _ptl.build_program(desc, [])


def test_unknown_kind_is_not_implemented_naming_node_and_op():
    with pytest.raises(NotImplementedError, match=r"node 3 `Op`: operation `j0` is not supported by ptl"):
        _ptl.build_program(_graph(_node("j0", arg=1)), [])


def test_python_side_writes_the_documented_shape():
    x = pt.matrix("x")
    fg = pytensor.function([x], pt.exp(x).sum(axis=1), mode="PTL").maker.fgraph
    text, consts = describe(fg)
    desc = json.loads(text)
    assert set(desc) == {"name", "inputs", "consts", "nodes", "outputs"}
    assert desc["inputs"] == [{"id": 1, "name": "x", "dtype": "float64", "shape": [None, None]}]
    envelope = {"op", "inputs", "output", "dtype", "at"}
    by_op = {n["op"]: n for n in desc["nodes"]}
    assert set(by_op["exp"]) == envelope
    reduce = by_op["reduce"]
    assert set(reduce) == envelope | {"kind", "axes", "in_ndim"}
    assert (reduce["kind"], reduce["axes"], reduce["in_ndim"]) == ("sum", [1], 2)
    _ptl.build_program(text, consts).check()
