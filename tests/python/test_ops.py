"""Each operation PyTensor graphs use, through mode "PTL", against PyTensor's own result; every
imported program's source is also run as a script on literal arguments."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import assert_same, run_roundtrip

import pytensor_ptl
from pytensor_ptl import NeedsStaticShapes, from_fgraph

rng = np.random.default_rng(0)


def vec(n, dtype="float64", lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=n).astype(dtype)


def mat(*shape, dtype="float64", lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def compare(inputs, outputs, args, **tol):
    """Mode PTL vs PyTensor's Python implementation, then the imported source round trip."""
    single = not isinstance(outputs, (list, tuple))
    ref = pytensor.function(inputs, outputs, mode="FAST_COMPILE")
    f = pytensor.function(inputs, outputs, mode="PTL")
    want = ref(*args)
    got = f(*args)
    if single:
        want, got = [want], [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w, **tol)
    fg = f.maker.fgraph
    try:
        prog = from_fgraph(fg)
    except NeedsStaticShapes:
        prog = from_fgraph(fg, input_shapes=[np.shape(a) for a in args])
    prog.check()
    for g, w in zip(run_roundtrip(prog, [np.asarray(a) for a in args]), want):
        assert_same(np.asarray(g).astype(np.asarray(w).dtype), w, **tol)
    return prog


def x_y(dtype="float64", n=None):
    return pt.vector("x", dtype=dtype, shape=(n,)), pt.vector("y", dtype=dtype, shape=(n,))


# The seven cases of the first prototype.
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_vector_add(dtype):
    x, y = x_y(dtype)
    compare([x, y], x + y, [vec(5, dtype), vec(5, dtype)])


def test_multiply():
    x, y = x_y()
    compare([x, y], x * y, [vec(4), vec(4)])


def test_broadcast_matrix_vector():
    m = pt.matrix("m")
    v = pt.vector("v")
    compare([m, v], m + v, [mat(3, 4), vec(4)])


def test_transpose():
    m = pt.matrix("m")
    compare([m], m.T, [mat(3, 4)])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dot(dtype):
    a = pt.matrix("a", dtype=dtype)
    b = pt.matrix("b", dtype=dtype)
    compare([a, b], pt.dot(a, b), [mat(3, 4, dtype=dtype), mat(4, 2, dtype=dtype)])


def test_axpy_example():
    x, y = x_y()
    f = pytensor.function([x, y], x + y * 2, mode="PTL")
    np.testing.assert_array_equal(f(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])), [9.0, 12.0, 15.0])


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "true_div": lambda a, b: a / b,
    "pow": lambda a, b: abs(a) ** b,
    "maximum": pt.maximum,
    "minimum": pt.minimum,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "eq": lambda a, b: pt.eq(a, b),
    "neq": lambda a, b: pt.neq(a, b),
    "second": pt.second,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binary(name, dtype):
    x, y = x_y(dtype)
    a, b = vec(6, dtype), vec(6, dtype)
    b[2] = a[2]  # one equal pair for the comparisons
    compare([x, y], BINARY[name](x, y), [a, b])


UNARY = {
    "neg": (lambda a: -a, -2, 2),
    "exp": (pt.exp, -3, 3),
    "log": (pt.log, 0.1, 4),
    "log1p": (pt.log1p, -0.5, 4),
    "sqrt": (pt.sqrt, 0, 4),
    "tanh": (pt.tanh, -3, 3),
    "abs": (pt.abs, -2, 2),
    "sigmoid": (pt.sigmoid, -6, 6),
    "softplus": (pt.softplus, -50, 50),
    "sqr": (pt.sqr, -2, 2),
    "reciprocal": (pt.reciprocal, 0.5, 2),
    "clip": (lambda a: pt.clip(a, -0.5, 0.5), -2, 2),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unary(name, dtype):
    fn, lo, hi = UNARY[name]
    x = pt.vector("x", dtype=dtype)
    compare([x], fn(x), [vec(7, dtype, lo, hi)])


def test_int_arithmetic_and_division():
    a = pt.vector("a", dtype="int32")
    b = pt.vector("b", dtype="int64")
    x = np.array([1, -2, 3, 7], dtype="int32")
    y = np.array([2, 5, -1, 3], dtype="int64")
    compare([a, b], [a + b, a * 3, a - b, a / b, abs(a), pt.maximum(a, b), a**2], [x, y])


def test_switch_and_bool_logic():
    x, y = x_y()
    c = (x > 0) & (y < 1) | ~(x > y)
    compare([x, y], [pt.switch(x > y, x, y * 2.0), pt.switch(c, 1.0, -1.0), c, pt.xor(x > 0, y > 0)], [vec(8), vec(8)])


@pytest.mark.parametrize(
    "src,dst", [("float64", "int64"), ("float64", "float32"), ("int32", "float32"), ("float64", "bool"), ("bool", "float64")]
)
def test_cast(src, dst):
    x = pt.vector("x", dtype=src)
    a = np.array([1.7, -1.7, 0.0, 2.5, -3.2]) if src != "bool" else np.array([True, False, True, True, False])
    compare([x], pt.cast(x, dst), [a.astype(src)])


def test_mixed_dtypes_promote_as_pytensor():
    x = pt.vector("x", dtype="float32")
    i = pt.vector("i", dtype="int32")
    compare([x, i], [x + i, x * 2, x + 1.5, i * 2.5, x / 3], [vec(3, "float32"), np.array([1, 2, 3], "int32")])


def test_fused_composite():
    x, y = x_y()
    z = pt.vector("z")
    out = pt.exp(x) * y + pt.log1p(z * z) - pt.tanh(x / (1.0 + y * y))
    prog = compare([x, y, z], out, [vec(5), vec(5), vec(5)])
    assert "exp(" in prog.source()


def test_fused_composite_with_several_outputs():
    x, y = x_y()
    a = pt.exp(x) + y
    compare([x, y], [a * 2.0, a - x, pt.sigmoid(a)], [vec(5), vec(5)])


def test_dimshuffle_expand_squeeze_transpose():
    t = pt.tensor3("t")
    r = pt.row("r")
    v = pt.vector("v")
    outs = [t.dimshuffle(2, 0, 1), t.dimshuffle(1, "x", 0, 2), r.dimshuffle(1), v[:, None] * v[None, :]]
    compare([t, r, v], outs, [mat(2, 3, 4), mat(1, 5), vec(3)])


def test_dot_matrix_vector_and_vector_vector():
    m = pt.matrix("m")
    v = pt.vector("v")
    w = pt.vector("w")
    compare([m, v, w], [pt.dot(m, v), pt.dot(v, w), pt.dot(w, m.T)], [mat(3, 4), vec(4), vec(4)])


@pytest.mark.parametrize("fn", ["sum", "max", "min", "mean"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
def test_reductions(fn, axis):
    t = pt.tensor3("t")
    compare([t], getattr(pt, fn)(t, axis=axis), [mat(2, 3, 4)])


def test_reductions_static_shape_and_ints():
    t = pt.tensor("t", dtype="float64", shape=(2, 3, 4))
    i = pt.matrix("i", dtype="int32")
    compare([t, i], [t.mean(), t.mean(axis=1), i.sum(axis=0), i.max(), pt.all(i > 0), pt.any(i > 2, axis=1)],
            [mat(2, 3, 4), np.array([[1, 2, 3], [4, 5, -6]], "int32")])


@pytest.mark.parametrize("axis", [0, -1])
def test_softmax_log_softmax(axis):
    m = pt.matrix("m")
    compare([m], [pt.special.softmax(m, axis=axis), pt.special.log_softmax(m, axis=axis)], [mat(3, 5)])


def test_alloc_and_constants():
    v = pt.vector("v", shape=(4,))
    c = np.arange(12, dtype="float64").reshape(3, 4) / 7.0
    ci = np.array([[1], [-2], [3]], dtype="int8")
    outs = [pt.alloc(v, 3, 4) * 2.0, v + c, v * ci, pt.alloc(np.float64(1.5), 2, 3) + pt.alloc(v.sum(), 2, 3)]
    compare([v], outs, [vec(4)])


def test_alloc_of_unknown_size_compiles_per_shape():
    v = pt.vector("v")
    n = v.shape[0]
    compare([v], pt.alloc(v, n, n) + v[:, None], [vec(3)])


def test_reshape():
    x = pt.vector("x", shape=(6,))
    y = pt.vector("y")
    compare([x, y], [x.reshape((2, 3)), y.reshape((3, -1)).T, x.reshape((1, 6, 1))], [vec(6), vec(6)])


def test_specify_shape():
    x = pt.vector("x")
    m = pt.matrix("m")
    compare([x, m], [pt.specify_shape(x, (4,)) * 2.0, pt.specify_shape(m, (None, 2)) + 1.0], [vec(4), mat(3, 2)])


def test_shape_feeds_computation():
    m = pt.matrix("m")
    compare([m], [m / m.shape[0], m.sum() / m.size, m.reshape((m.shape[1], m.shape[0]))], [mat(2, 3)])


def test_shape_static_without_specialization():
    m = pt.tensor("m", dtype="float64", shape=(2, 3))
    f = pytensor.function([m], m / m.shape[1], mode="PTL")
    a = mat(2, 3)
    assert_same(f(a), a / 3)
    prog = from_fgraph(f.maker.fgraph)
    assert "f64[2, 3]" in prog.source()


def test_unknown_dims_are_question_marks_and_broadcastable_are_one():
    x = pt.tensor("x", dtype="float32", shape=(None, 1, 3))
    y = pt.vector("y", dtype="int64")
    f = pytensor.function([x, y], [x * 2.0, y + 1], mode="PTL")
    src = from_fgraph(f.maker.fgraph).source()
    assert "f32[?, 1, 3]" in src and "i64[?]" in src


def test_rank_three_and_four():
    t = pt.tensor3("t")
    u = pt.tensor4("u")
    outs = [pt.exp(t) * t.sum(axis=1, keepdims=True), u.transpose(3, 1, 2, 0) + 1.0, u.max(axis=(1, 3))]
    compare([t, u], outs, [mat(2, 3, 4), mat(2, 2, 3, 2)])


def test_multiple_outputs_and_output_that_is_an_input():
    x, y = x_y()
    f_outs = [x, x + y, y, x + y]
    compare([x, y], f_outs, [vec(3), vec(3)])


def test_constant_output():
    x = pt.vector("x")
    compare([x], [x * 2.0, pt.as_tensor_variable(np.array([[1.0, 2.0]])), pt.constant(3.0)], [vec(2)])


def test_logistic_regression_loss_and_gradient():
    X = pt.matrix("X")
    w = pt.vector("w")
    b = pt.scalar("b")
    y = pt.vector("y")
    p = pt.sigmoid(X @ w + b)
    loss = -pt.mean(y * pt.log(p) + (1 - y) * pt.log(1 - p)) + 0.01 * (w**2).sum()
    gw, gb = pt.grad(loss, [w, b])
    Xv = mat(8, 3)
    yv = (rng.uniform(size=8) > 0.5).astype("float64")
    compare([X, w, b, y], [loss, gw, gb], [Xv, vec(3), np.array(0.1), yv])


def test_logistic_regression_float32_static_batch():
    X = pt.tensor("X", dtype="float32", shape=(16, 4))
    w = pt.vector("w", dtype="float32", shape=(4,))
    y = pt.vector("y", dtype="float32", shape=(16,))
    p = pt.sigmoid(X @ w)
    loss = pt.mean(pt.nnet_binary_crossentropy(p, y)) if hasattr(pt, "nnet_binary_crossentropy") else -pt.mean(
        y * pt.log(p) + (1 - y) * pt.log(1 - p)
    )
    g = pt.grad(loss, w)
    yv = (rng.uniform(size=16) > 0.5).astype("float32")
    prog = compare([X, w, y], [loss, g], [mat(16, 4, dtype="float32"), vec(4, "float32"), yv], rtol=1e-4, atol=1e-6)
    assert "f32[16, 4]" in prog.source()


def test_subnormals_survive_the_extension():
    x = pt.vector("x", dtype="float32")
    f = pytensor.function([x], x * np.float32(0.5), mode="PTL")
    out = f(np.array([1.1754944e-38, 1e-45 * 2], dtype="float32"))
    assert out[0] == np.float32(5.877472e-39)
    assert out[0] != 0
    d = pt.vector("d")
    g = pytensor.function([d], d * 0.5, mode="PTL")
    assert g(np.array([1e-323]))[0] == 5e-324


def test_program_object_api():
    x, y = x_y()
    fg = pytensor.function([x, y], [x + y * 2.0], mode="PTL").maker.fgraph
    prog = from_fgraph(fg)
    prog.check()
    # `+` requires equal sizes: one dimension name, held equal by the call's argument check.
    assert prog.source().startswith("fn graph(x: f64[x_dim0], y: f64[x_dim0])")
    assert prog.result_types() == ["f64[x_dim0]"]
    assert "cf.assert" not in prog.mlir()
    a, b = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    np.testing.assert_array_equal(prog(a, b)[0], [9.0, 12.0, 15.0])
    np.testing.assert_array_equal(prog.interpret(a, b)[0], [9.0, 12.0, 15.0])
    assert "linalg.generic" in prog.mlir()
    # Compiled and interpreted runs refuse the same argument, naming it and the dimension.
    for run in (prog, prog.interpret):
        with pytest.raises(ValueError, match=r"argument `y` of `graph` has type `?f64\[4\]`?, expected `?f64\[x_dim0\]"):
            run(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="argument `x`"):
        prog(np.ones((2, 3)), np.ones(3))
    with pytest.raises(TypeError):
        prog(np.ones(3))


def test_config_mode_ptl():
    old = pytensor.config.mode
    try:
        pytensor.config.mode = "PTL"
        x = pt.vector("x")
        f = pytensor.function([x], pt.exp(x))
        assert isinstance(f.maker.linker, pytensor_ptl.PTLLinker)
        assert_same(f(np.array([0.0, 1.0])), np.exp([0.0, 1.0]))
    finally:
        pytensor.config.mode = old
