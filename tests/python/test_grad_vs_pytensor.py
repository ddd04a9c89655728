"""ptl's `grad` of imported PyTensor graphs against `pytensor.grad` of the same graphs.

Each case is a scalar cost built with PyTensor. Its forward graph is imported into a ptl
function; ptl differentiates that function (`grad(f, x)`), compiled and interpreted, and
the result must equal the gradient PyTensor computes symbolically (run by PyTensor's own
backend).
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import assert_same, ptl_literal
from pytensor.graph.fg import FunctionGraph

from pytensor_ptl import _ptl, importer

rng = np.random.default_rng(7)
W3 = np.array([0.5, -1.5, 2.0])


def _vec(lo=-1.5, hi=1.5, n=3):
    return rng.uniform(lo, hi, size=n)


# name -> (cost of x (and y), arguments)
CASES = {
    "add_mul": (lambda x: pt.sum((x + 2.0) * x * W3), [_vec()]),
    "sub_div": (lambda x: pt.sum((x - 0.5) / (x * x + 1.0)), [_vec()]),
    "pow": (lambda x: pt.sum(pt.abs(x) ** 2.5), [_vec(0.2, 2.0)]),
    "exp_log": (lambda x: pt.sum(pt.exp(x) + pt.log(x)), [_vec(0.2, 2.0)]),
    "log1p_sqrt": (lambda x: pt.sum(pt.log1p(x) * pt.sqrt(x)), [_vec(0.2, 2.0)]),
    "tanh_sigmoid": (lambda x: pt.sum(pt.tanh(x) * pt.sigmoid(x) * W3), [_vec()]),
    "softplus": (lambda x: pt.sum(pt.softplus(x) * W3), [_vec()]),
    "trig": (lambda x: pt.sum(pt.sin(x) * pt.cos(2.0 * x) + pt.arctan(x)), [_vec()]),
    "hyperbolic": (lambda x: pt.sum(pt.sinh(x) + pt.cosh(x) * pt.arcsinh(x)), [_vec()]),
    "erf_gammaln": (lambda x: pt.sum(pt.erf(x) + pt.gammaln(x)), [_vec(0.3, 3.0)]),
    "maximum_clip": (lambda x: pt.sum(pt.maximum(x, 0.1) * W3 + pt.clip(x, -0.5, 0.5)), [_vec()]),
    "switch": (lambda x: pt.sum(pt.switch(x > 0.0, x * x, 3.0 * x)), [_vec()]),
    "mean_max": (lambda x: pt.mean(x * x) + pt.max(x * W3), [_vec()]),
    "softmax": (lambda x: pt.sum(pt.special.softmax(x) * W3), [_vec()]),
    "logsumexp": (lambda x: pt.logsumexp(x * W3), [_vec()]),
    "broadcast_row": (lambda x, m: pt.sum((m + x) ** 2), [_vec(), rng.normal(size=(4, 3))]),
    "dot": (lambda x, m: pt.sum(pt.tanh(pt.dot(m, x))), [_vec(), rng.normal(size=(4, 3))]),
    "matrix_reductions": (
        lambda x, m: pt.sum(pt.sum(m * x, axis=1) ** 2) + pt.sum(pt.max(m + x, axis=0)),
        [_vec(), rng.normal(size=(4, 3))],
    ),
    "logistic_loss": (
        lambda x, m: -pt.mean(pt.log(pt.sigmoid(pt.dot(m, x))) * np.array([1.0, 0.0, 1.0, 1.0])
                              + pt.log1p(-pt.sigmoid(pt.dot(m, x))) * np.array([0.0, 1.0, 0.0, 0.0])),
        [_vec(), rng.normal(size=(4, 3))],
    ),
}


def _inputs(args, static=False):
    names = ["x", "m", "v"]
    return [
        pt.tensor(names[i], dtype="float64", shape=np.shape(a) if static else (None,) * np.ndim(a))
        for i, a in enumerate(args)
    ]


@pytest.mark.parametrize("interp", [False, True], ids=["compiled", "interpreted"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_of_imported_graph_matches_pytensor_grad(name, interp):
    cost_of, args = CASES[name]
    inputs = _inputs(args)
    cost = cost_of(*inputs)
    want = pytensor.function(inputs, pytensor.grad(cost, inputs[0]), mode="FAST_COMPILE")(*args)

    try:
        program = importer.from_fgraph(FunctionGraph(inputs, [cost], clone=True), "cost")
    except importer.NeedsStaticShapes:
        # A size the graph reads (a mean's count) must be known: the graph with static inputs.
        static = _inputs(args, static=True)
        program = importer.from_fgraph(FunctionGraph(static, [cost_of(*static)], clone=True), "cost")
    assert not program.constants(), "the cases are small enough for inline constants"
    literals = ", ".join(ptl_literal(a) for a in args)
    script = f"{program.source()}\nprint grad({program.entry}, x)({literals});\n"
    (got,) = _ptl.run_script(script, interp)
    assert_same(np.asarray(got), want, rtol=1e-9, atol=1e-12)
