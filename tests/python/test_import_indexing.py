"""Indexing, joining and the other structural ops imported from PyTensor graphs: mode
"PTL_STRICT" (every node through ptl, nothing left to PyTensor) against PyTensor's own result,
and the same program run by ptl's interpreter."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import assert_same, compare_strict

from pytensor_ptl import from_fgraph


rng = np.random.default_rng(11)


_compare = compare_strict


M = rng.standard_normal((5, 4))
V = rng.standard_normal(6)


@pytest.mark.parametrize("i", [0, 3, -1, -6])
def test_run_time_index(i):
    x, k = pt.vector("x"), pt.lscalar("k")
    _compare([x, k], x[k] * 2.0, [V, np.int64(i)])


@pytest.mark.parametrize("a,b", [(1, 3), (-3, 100), (4, 1), (0, 0)])
def test_run_time_slice_bounds(a, b):
    m, i, j = pt.matrix("m"), pt.lscalar("i"), pt.lscalar("j")
    _compare([m, i, j], [m[i:j].sum(axis=0), m[1, i:]], [M, np.int64(a), np.int64(b)])


def test_run_time_index_out_of_range_is_an_index_error_naming_it():
    x, k = pt.vector("x"), pt.lscalar("k")
    f = pytensor.function([x, k], x[k], mode="PTL_STRICT")
    with pytest.raises(Exception, match="out of range|index 9"):
        f(V, np.int64(9))


def test_join_and_split():
    a, b = pt.matrix("a"), pt.matrix("b")
    j = pt.join(1, a, b * 2.0)
    p, q = pt.split(j, [3, 5], n_splits=2, axis=1)
    _compare([a, b], [j, p.sum(axis=1), q], [M, rng.standard_normal((5, 4))])


def test_join_of_vectors_of_run_time_length():
    a, b = pt.vector("a"), pt.vector("b")
    _compare([a, b], pt.concatenate([a, pt.exp(b), a]), [V, V[:2]])


def test_make_vector_of_run_time_scalars():
    x = pt.vector("x")
    _compare([x], pt.stack([x.sum(), x.max(), x[0]]) * 3.0, [V])


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_take_by_integer_vector(dtype):
    m, idx = pt.matrix("m"), pt.vector("idx", dtype=dtype)
    _compare([m, idx], m[idx] + 1.0, [M, np.array([4, 0, -1, 2, 2], dtype=dtype)])


@pytest.mark.parametrize("set_", [False, True])
def test_scatter_by_integer_vector(set_):
    m, idx, y = pt.matrix("m"), pt.lvector("idx"), pt.matrix("y")
    op = pt.set_subtensor if set_ else pt.inc_subtensor
    # Repeated indices: added up, or the last one kept.
    _compare([m, idx, y], op(m[idx], y), [M, np.array([1, 3, 1]), rng.standard_normal((3, 4))])


@pytest.mark.parametrize("set_", [False, True])
def test_set_and_inc_of_a_slice(set_):
    m, i = pt.matrix("m"), pt.lscalar("i")
    op = pt.set_subtensor if set_ else pt.inc_subtensor
    _compare([m, i], [op(m[1:i], 7.0), op(m[i:], m[0] * 2.0), op(m[:2], -1.0)], [M, np.int64(3)])


@pytest.mark.parametrize("set_", [False, True])
def test_set_and_inc_of_one_row(set_):
    m, i, r = pt.matrix("m"), pt.lscalar("i"), pt.vector("r")
    op = pt.set_subtensor if set_ else pt.inc_subtensor
    _compare([m, i, r], [op(m[i], r), op(m[-1], 0.5)], [M, np.int64(-2), rng.standard_normal(4)])


def test_argmax_cumulative_prod_diagonal():
    m = pt.matrix("m")
    outs = [
        pt.argmax(m, axis=1),
        pt.argmin(m, axis=0),
        pt.cumsum(m, axis=0),
        pt.cumprod(m, axis=1),
        pt.prod(m, axis=0),
        pt.diagonal(m),
    ]
    _compare([m], outs, [M])


def test_bool_arithmetic_is_and_or():
    x = pt.vector("x")
    a, b = x > 0, x < 1
    _compare([x], [a * b, a + b, x * a * b], [V])


def test_op_from_graph_is_inlined():
    from pytensor.compile.builders import OpFromGraph

    a, b = pt.vector(), pt.vector()
    ofg = OpFromGraph([a, b], [a * b + pt.exp(a), a - b])
    x, y = pt.vector("x"), pt.vector("y")
    p, q = ofg(x, y)
    f = _compare([x, y], [p * 2.0, q.sum()], [V, V[::-1].copy()])
    assert "exp" in from_fgraph(f.maker.fgraph).source()


def test_logsumexp_over_axes():
    m = pt.matrix("m")
    _compare([m], [pt.special.logsumexp(m, axis=1), pt.special.logsumexp(m)], [M * 50.0])


def test_sizes_read_at_run_time_are_dimension_names_one_program_for_every_shape():
    from pytensor_ptl import Program

    x, y = pt.matrix("x"), pt.vector("y")
    outs = [x.mean(axis=0), (x - x.mean()) / x.shape[1], pt.exp(y).mean()]
    f = pytensor.function([x, y], outs, mode="PTL_STRICT")
    assert isinstance(f.vm.jit_fn, Program)  # not one program per input shape
    src = from_fgraph(f.maker.fgraph).source()
    assert src.startswith("fn graph(x: f64[x_dim0, x_dim1], y: f64[y_dim0])"), src
    ref = pytensor.function([x, y], outs, mode="FAST_COMPILE")
    for shape in [(2, 3), (5, 1), (4, 7)]:
        args = [rng.standard_normal(shape), rng.standard_normal(shape[0] + 1)]
        for g, w in zip(f(*args), ref(*args)):
            assert_same(g, w)


def test_logistic_regression_loss_is_one_program():
    X, w, y = pt.matrix("X"), pt.vector("w"), pt.vector("y")
    p = pt.sigmoid(X @ w)
    loss = -pt.mean(y * pt.log(p) + (1 - y) * pt.log(1 - p))
    f = _compare([X, w, y], loss, [M, rng.standard_normal(4), (rng.uniform(size=5) > 0.5) * 1.0])
    from_fgraph(f.maker.fgraph).check()


def test_loss_and_gradient_with_run_time_assertions_is_one_program():
    # PyTensor's gradient asserts that broadcast dims agree: a `guard` in ptl, and the dims it
    # equates share one name, so the program serves every batch size.
    from pytensor_ptl import Program

    X, w, y = pt.matrix("X"), pt.vector("w"), pt.vector("y")
    p = pt.sigmoid(X @ w)
    loss = -pt.mean(y * pt.log(p) + (1 - y) * pt.log(1 - p))
    f = _compare([X, w, y], [loss, pt.grad(loss, w)], [M, rng.standard_normal(4), (rng.uniform(size=5) > 0.5) * 1.0])
    assert isinstance(f.vm.jit_fn, Program)
    assert "y: f64[X_dim0]" in from_fgraph(f.maker.fgraph).source()
    with pytest.raises(ValueError, match="argument `y`"):
        f(M, rng.standard_normal(4), np.ones(3))


def test_a_failed_assertion_raises_pytensors_own_exception():
    from pytensor.raise_op import Assert

    x = pt.vector("x")
    checked = Assert("x must be positive")(x, pt.all(x > 0))
    f = pytensor.function([x], pt.sqrt(checked), mode="PTL_STRICT")
    assert "guard(" in from_fgraph(f.maker.fgraph).source()
    assert_same(f(np.array([4.0, 9.0])), np.array([2.0, 3.0]))
    with pytest.raises(AssertionError, match="x must be positive"):
        f(np.array([4.0, -1.0]))


def test_set_and_increment_on_several_axes():
    x = pt.tensor3("x")
    m = pt.matrix("m")
    v = pt.scalar("v")
    base = np.arange(36.0).reshape(3, 3, 4)
    _compare([x, v], pt.set_subtensor(x[2, 1, 3], v), [base, -1.5])
    _compare([x, m], pt.inc_subtensor(x[:2, 0, 1:3], m), [base, np.arange(4.0).reshape(2, 2)])
    _compare([x, m], pt.set_subtensor(x[1:, 1:3], m), [base, np.ones((2, 4))])
    # A value broadcast into the block.
    _compare([x, v], pt.inc_subtensor(x[0, :, 1:], v), [base, 10.0])


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_of_a_matrix(mode):
    # Static sizes: the padded graph computes with the input's shape, so without them mode
    # PTL makes one program per input shape (and `from_fgraph` asks for them).
    x = pt.tensor("x", shape=(3, 4))
    kw = {"constant_values": 2.5} if mode == "constant" else {}
    _compare([x], pt.pad(x, ((1, 2), (0, 1)), mode=mode, **kw), [np.arange(12.0).reshape(3, 4)])


def test_index_arrays_on_axes_of_run_time_size_make_one_program_per_shape():
    p = pt.matrix("p")
    y = pt.lvector("y")
    x = pt.tensor3("x")
    i = pt.lvector("i")
    j = pt.lvector("j")
    rng = np.random.default_rng(3)
    cases = [
        ([p, y], p[pt.arange(p.shape[0]), y], [[rng.random((4, 3)), np.array([0, 2, 1, 2])], [rng.random((2, 5)), np.array([4, 0])]]),
        ([x, i, j], pt.set_subtensor(x[:, i, j], 1.5), [[rng.random((2, 3, 4)), np.array([0, 2]), np.array([1, 3])]]),
        ([x, i, j], pt.inc_subtensor(x[i, j], 1.0), [[rng.random((3, 3, 4)), np.array([0, 2, 2]), np.array([1, 2, 2])]]),
    ]
    for inputs, out, calls in cases:
        f = pytensor.function(inputs, out, mode="PTL_STRICT")
        want = pytensor.function(inputs, out)
        for args in calls:
            assert_same(f(*args), want(*args))


def test_index_arrays_separated_by_whole_axes_put_their_axes_first():
    x = pt.tensor("x", shape=(3, 4, 5))
    X = np.arange(60.0).reshape(3, 4, 5)
    _compare([x], x[[1, 2], :, [3, 4]], [X])
    _compare([x], x[[0, 2], :, [[1], [3]]], [X])
    w = pt.tensor("w", shape=(2, 3, 4, 5))
    _compare([w], w[:, [1, 0], :, [4, 2]], [np.arange(120.0).reshape(2, 3, 4, 5)])


@pytest.mark.parametrize("mode", ["PTL_STRICT", "PTL"])
def test_a_scalar_set_or_added_under_a_boolean_mask_is_a_where(mode):
    # With or without PyTensor's rewrite of the mask into `Nonzero` indices.
    x = pt.matrix("x")
    s = pt.scalar("s")
    X = np.random.default_rng(4).standard_normal((4, 5))
    for out, inputs, args in [
        (pt.set_subtensor(x[x > 0], 0.0), [x], [X]),
        (pt.inc_subtensor(x[x < 0], s), [x, s], [X, 2.0]),
    ]:
        f = pytensor.function(inputs, out, mode=mode)
        assert_same(f(*args), pytensor.function(inputs, out)(*args))


B = rng.standard_normal((4, 3))
C = rng.standard_normal((2, 3, 4))


@pytest.mark.parametrize(
    "case",
    ["vector", "matrix", "rows", "grad_vector", "grad_rows", "grad_matrix", "inc_matrix", "set_lead", "nonzero", "empty"],
)
def test_boolean_mask_reads_and_their_gradients(case):
    # PyTensor rewrites `x[mask]` into `x[mask.nonzero()]`; ptl reads the mask itself.
    x, X, m = pt.vector("x"), pt.matrix("X"), pt.vector("m", dtype="bool")
    M2 = pt.matrix("M", dtype="bool")
    T3 = pt.tensor("T", shape=(2, 3, None))
    keep = np.array([True, False, True, True, False, True])
    rows = np.array([False, True, True, False])
    inputs, out, args = {
        "vector": ([x, m], (x[m] ** 2).sum() + x[m], [V, keep]),
        "matrix": ([X, M2], X[M2] * 2.0, [B, B > 0.0]),
        "rows": ([X, m], X[m].sum(axis=1), [B, rows]),
        "grad_vector": ([x, m], pytensor.grad((pt.exp(x[m]) * x[m]).sum(), x), [V, keep]),
        "grad_rows": ([X, m], pytensor.grad((X[m] ** 3).sum(), X), [B, rows]),
        "grad_matrix": ([X, M2], pytensor.grad((pt.sin(X[M2]) * X[M2]).sum(), X), [B, B > 0.0]),
        "inc_matrix": ([X, M2, x], pt.inc_subtensor(X[M2], x), [B, B < 0.0, np.arange(float((B < 0.0).sum()))]),
        "set_lead": ([T3, M2, X], pt.set_subtensor(T3[M2], X), [C, C[:, :, 0] > 0.0, np.ones(((C[:, :, 0] > 0.0).sum(), 4))]),
        "nonzero": ([x], pt.flatnonzero(x * (x > 0.0)), [V]),
        "empty": ([x, m], x[m] + 1.0, [V, np.zeros(6, bool)]),
    }[case]
    f = _compare(inputs, out, args)
    src = from_fgraph(f.maker.fgraph).source()
    if case == "nonzero":
        assert "flatnonzero" in src, src
    elif case.startswith(("grad", "inc", "set")):
        assert "scatter_" in src and ", M" in src or ", m" in src, src
    else:
        assert "[m" in src or "[M" in src, src
