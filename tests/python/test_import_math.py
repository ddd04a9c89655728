"""The math library's scalar operations imported from PyTensor graphs: mode "PTL" against
PyTensor's own result (its Python implementation), on arguments inside each function's
domain, in float64, float32 and from integers."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import assert_same

rng = np.random.default_rng(1)

# name -> (PyTensor function, low, high)
UNARY = {
    "sin": (pt.sin, -4.0, 4.0),
    "cos": (pt.cos, -4.0, 4.0),
    "tan": (pt.tan, -1.2, 1.2),
    "arcsin": (pt.arcsin, -0.99, 0.99),
    "arccos": (pt.arccos, -0.99, 0.99),
    "arctan": (pt.arctan, -5.0, 5.0),
    "sinh": (pt.sinh, -3.0, 3.0),
    "cosh": (pt.cosh, -3.0, 3.0),
    "arcsinh": (pt.arcsinh, -5.0, 5.0),
    "arccosh": (pt.arccosh, 1.01, 6.0),
    "arctanh": (pt.arctanh, -0.99, 0.99),
    "exp2": (pt.exp2, -5.0, 5.0),
    "expm1": (pt.expm1, -2.0, 2.0),
    "log2": (pt.log2, 0.01, 10.0),
    "log10": (pt.log10, 0.01, 10.0),
    "sign": (pt.sign, -2.0, 2.0),
    "floor": (pt.floor, -3.0, 3.0),
    "ceil": (pt.ceil, -3.0, 3.0),
    "round_half_to_even": (pt.round_half_to_even, -3.0, 3.0),
    "trunc": (pt.trunc, -3.0, 3.0),
    "erf": (pt.erf, -3.0, 3.0),
    "erfc": (pt.erfc, -3.0, 5.0),
    "erfcx": (pt.erfcx, -3.0, 30.0),
    "erfinv": (pt.erfinv, -0.999, 0.999),
    "erfcinv": (pt.erfcinv, 0.001, 1.999),
    "gamma": (pt.gamma, -4.5, 30.0),
    "gammaln": (pt.gammaln, 0.05, 20.0),
    "psi": (pt.psi, 0.05, 20.0),
    "log1mexp": (pt.log1mexp, -6.0, -0.01),
}


def _args(lo, hi, dtype, n=17):
    xs = rng.uniform(lo, hi, size=n)
    if dtype.startswith("int"):
        return np.round(xs).astype(dtype)
    return xs.astype(dtype)


def _compare(inputs, output, args, **tol):
    want = pytensor.function(inputs, output, mode="FAST_COMPILE")(*args)
    f = pytensor.function(inputs, output, mode="PTL")
    got = f(*args)
    assert_same(got, want, **tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, dtype):
    fn, lo, hi = UNARY[name]
    x = pt.vector("x", dtype=dtype)
    # float32: PyTensor computes some of these in float32 loops, ptl in f64 rounded once.
    tol = {} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-6}
    _compare([x], fn(x), [_args(lo, hi, dtype)], **tol)


@pytest.mark.parametrize("name", ["sin", "exp2", "sign", "floor", "psi", "gammaln"])
def test_unary_of_integers(name):
    fn, lo, hi = UNARY[name]
    x = pt.vector("x", dtype="int64")
    _compare([x], fn(x), [_args(max(lo, 1.0), hi, "int64")])


@pytest.mark.parametrize("fn", [pt.isnan, pt.isinf], ids=["isnan", "isinf"])
def test_tests_give_bool(fn):
    x = pt.vector("x")
    _compare([x], fn(x), [np.array([1.0, np.nan, np.inf, -np.inf, 0.0])])


@pytest.mark.parametrize("dtype", ["float64", "int64"])
@pytest.mark.parametrize("fn", [pt.arctan2, pt.mod, pt.int_div], ids=["arctan2", "mod", "int_div"])
def test_binary(fn, dtype):
    if fn is pt.arctan2 and dtype == "int64":
        pytest.skip("arctan2 of integers is a float function of casts; covered by float64")
    x, y = pt.vector("x", dtype=dtype), pt.vector("y", dtype=dtype)
    a = _args(-9.0, 9.0, dtype)
    b = _args(1.0, 4.0, dtype) * np.where(rng.uniform(size=17) < 0.5, -1, 1).astype(dtype)
    _compare([x, y], fn(x, y), [a, b])


def test_fused_graph_of_math_ops():
    x = pt.vector("x")
    out = pt.sin(x) * pt.exp2(x) + pt.gammaln(pt.abs(x) + 1.0) - pt.erf(x / 3.0)
    _compare([x], out, [_args(-2.0, 2.0, "float64")])


@pytest.mark.parametrize("axis", [None, (0, 2), (1, 2)])
def test_softmax_and_log_softmax_over_several_axes(axis):
    from pytensor.tensor.special import log_softmax, softmax

    x = pt.tensor("x", shape=(2, 3, 4))
    X = np.random.default_rng(6).standard_normal((2, 3, 4))
    for out in (softmax(x, axis=axis), log_softmax(x, axis=axis)):
        f = pytensor.function([x], out, mode="PTL_STRICT")
        np.testing.assert_allclose(f(X), pytensor.function([x], out)(X), rtol=1e-12, atol=1e-15)


BESSEL = {
    "i0": (pt.i0, -30.0, 30.0),
    "i1": (pt.i1, -30.0, 30.0),
    "j0": (pt.j0, -40.0, 40.0),
    "j1": (pt.j1, -40.0, 40.0),
    "ive0": (lambda x: pt.ive(0, x), -800.0, 800.0),
    "ive1": (lambda x: pt.ive(1, x), -800.0, 800.0),
    "jv0": (lambda x: pt.jv(0, x), -40.0, 40.0),
    "jv1": (lambda x: pt.jv(1, x), -40.0, 40.0),
    "ive-1": (lambda x: pt.ive(-1, x), -40.0, 40.0),
    "jv-1": (lambda x: pt.jv(-1, x), -40.0, 40.0),
}
# Orders ptl writes from 0 and 1 (their gradients need orders 3 and -3, which fall back).
BESSEL_VALUES = {
    "ive2": (lambda x: pt.ive(2, x), -3.0, 3.0),
    "ive-2": (lambda x: pt.ive(-2, x), -3.0, 3.0),
    "jv2": (lambda x: pt.jv(2, x), -3.0, 3.0),
    "jv-2": (lambda x: pt.jv(-2, x), -3.0, 3.0),
}


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_functions_and_their_gradients(name):
    from conftest import compare_strict

    fn, lo, hi = BESSEL[name]
    x = pt.vector("x")
    y = fn(x)
    args = [np.concatenate([_args(lo, hi, "float64"), [0.0, -0.5, 0.999, 1.001]])]
    # Near a zero of j0/j1 the error is absolute (about 1e-16), as SciPy's.
    compare_strict([x], [y, pt.grad((y * np.arange(1.0, 22.0)).sum(), x)], args, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", sorted(BESSEL_VALUES))
def test_bessel_orders_written_from_0_and_1(name):
    from conftest import compare_strict

    fn, lo, hi = BESSEL_VALUES[name]
    x = pt.vector("x")
    args = [np.concatenate([_args(lo, hi, "float64"), [0.0, -0.5, 1e-3, 0.999, 1.001, 30.0]])]
    compare_strict([x], fn(x), args, rtol=1e-13, atol=1e-15)


def test_a_bessel_order_ptl_cannot_write_falls_back():
    from conftest import compare_strict

    x = pt.vector("x")
    with pytest.raises(NotImplementedError, match="order other than a constant from -2 to 2"):
        compare_strict([x], pt.ive(3, x), [np.array([0.5, 3.0])])
    _compare([x], pt.ive(2.5, x) + pt.i0(x), [np.array([0.5, 3.0])])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_round_half_away_from_zero(dtype):
    from conftest import compare_strict

    x = pt.vector("x", dtype=dtype)
    halves = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.0, 3.7, -3.2, 1e30, np.inf, np.nan], dtype=dtype)
    f = compare_strict([x], pt.round(x, mode="half_away_from_zero"), [halves])
    # The largest double below 1/2 rounds to 0 (PyTensor's own implementation, which adds 1/2
    # first, gives 1 there); checked against exact decimal rounding.
    from decimal import ROUND_HALF_UP, Decimal

    near = np.array([0.49999999999999994, -0.49999999999999994, 2.5000000000000004], dtype=dtype)
    exact = [float(Decimal(float(v)).quantize(Decimal(1), rounding=ROUND_HALF_UP)) for v in near]
    np.testing.assert_array_equal(f(near), np.array(exact, dtype=dtype))


@pytest.mark.parametrize(
    "fn",
    [pt.psi, lambda x: pt.polygamma(0, x), lambda x: pt.polygamma(1, x)],
    ids=["psi", "polygamma0", "polygamma1"],
)
def test_digamma_and_trigamma_with_their_gradients(fn):
    """psi's gradient is PyTensor's TriGamma, which ptl now has: no fallback."""
    from conftest import compare_strict

    x = pt.vector("x")
    y = fn(x)
    args = [np.concatenate([_args(0.05, 30.0, "float64"), [-0.5, -2.5, 1e-3, 9.99, 10.01]])]
    outputs = [y, pt.grad(y.sum(), x)] if fn is pt.psi else [y]
    compare_strict([x], outputs, args, rtol=1e-13, atol=0)


def test_gamma_with_its_gradient():
    """gamma and its gradient (PyTensor's `gamma(x) * psi(x)`) without fallback, from tiny
    and negative arguments to near the overflow."""
    from conftest import compare_strict

    x = pt.vector("x")
    y = pt.gamma(x)
    args = [np.concatenate([_args(-6.0, 40.0, "float64"), [1e-8, -1e-8, -0.5, -2.5, 150.3, 171.5]])]
    compare_strict([x], [y, pt.grad(y.sum(), x)], args, rtol=1e-13, atol=0)


def test_incomplete_gamma_with_its_gradient_in_x():
    """gammainc and gammaincc (a Gamma or Poisson CDF) with PyTensor's gradient in x, without
    fallback; a and x from small to large, x near a."""
    from conftest import compare_strict

    a = pt.vector("a")
    x = pt.vector("x")
    p = pt.gammainc(a, x)
    q = pt.gammaincc(a, x)
    av = np.array([0.01, 0.5, 1.0, 2.5, 7.0, 30.0, 30.0, 150.0, 1e4])
    xv = np.array([0.3, 0.1, 3.0, 2.5, 12.0, 28.0, 45.0, 160.0, 1.01e4])
    compare_strict([a, x], [p, q], [av, xv], rtol=1e-12, atol=0)
    # The gradient is PyTensor's `exp((k - 1) log x - x - gammaln(k))`, whose exponent cancels
    # for large k (about 1e-11 relative at k = 1e4, in PyTensor's C code as in ptl).
    compare_strict([a, x], [pt.grad(p.sum(), x), pt.grad(q.sum(), x)], [av, xv], rtol=1e-10, atol=0)


def test_incomplete_gamma_gradient_in_a_falls_back():
    """ptl has no derivative of gammainc in a (PyTensor's is a loop of its own): mode PTL runs
    that node in PyTensor and gives PyTensor's answer."""
    from conftest import compare_strict

    a = pt.vector("a")
    x = pt.vector("x")
    y = pt.gammainc(a, x).sum()
    args = [np.array([0.5, 2.0, 9.0]), np.array([1.0, 1.5, 8.0])]
    with pytest.raises(NotImplementedError):
        compare_strict([a, x], pt.grad(y, a), args)
    _compare([a, x], pt.grad(y, a), args)


def test_inverse_incomplete_gamma_with_its_gradient_in_y():
    """gammaincinv and gammainccinv (a Gamma quantile) with PyTensor's gradient in y, without
    fallback; both tails, a from small to large."""
    from conftest import compare_strict

    a = pt.vector("a")
    y = pt.vector("y")
    x = pt.gammaincinv(a, y)
    xc = pt.gammainccinv(a, y)
    av = np.array([0.05, 0.5, 1.0, 2.5, 7.0, 30.0, 150.0, 1e4])
    yv = np.array([0.3, 1e-8, 0.5, 0.9, 0.999, 0.2, 0.7, 0.5])
    compare_strict([a, y], [x, xc], [av, yv], rtol=1e-12, atol=0)
    compare_strict([a, y], [pt.grad(x.sum(), y), pt.grad(xc.sum(), y)], [av, yv], rtol=1e-10, atol=0)


def test_inverse_incomplete_beta_with_its_gradient_in_y():
    """betaincinv (a Beta quantile) with PyTensor's gradient in y, without fallback."""
    from conftest import compare_strict

    a = pt.vector("a")
    b = pt.vector("b")
    y = pt.vector("y")
    x = pt.betaincinv(a, b, y)
    av = np.array([0.5, 2.0, 5.0, 30.0, 0.1, 100.0, 1.0])
    bv = np.array([0.5, 3.0, 1.0, 40.0, 200.0, 100.0, 7.0])
    yv = np.array([0.3, 0.5, 0.999, 0.45, 0.2, 0.52, 1e-6])
    compare_strict([a, b, y], [x], [av, bv, yv], rtol=1e-12, atol=0)
    compare_strict([a, b, y], [pt.grad(x.sum(), y)], [av, bv, yv], rtol=1e-10, atol=0)


def test_incomplete_beta_with_its_gradient_in_x():
    """betainc (a Beta, Student-t or binomial CDF) with PyTensor's gradient in x, without
    fallback."""
    from conftest import compare_strict

    a = pt.vector("a")
    b = pt.vector("b")
    x = pt.vector("x")
    y = pt.betainc(a, b, x)
    av = np.array([0.5, 2.0, 5.0, 30.0, 0.1, 100.0, 1.0])
    bv = np.array([0.5, 3.0, 1.0, 40.0, 200.0, 100.0, 7.0])
    xv = np.array([0.3, 0.5, 0.999, 0.45, 0.001, 0.52, 0.9])
    compare_strict([a, b, x], y, [av, bv, xv], rtol=1e-12, atol=0)
    compare_strict([a, b, x], pt.grad(y.sum(), x), [av, bv, xv], rtol=1e-10, atol=0)


def test_polygamma_of_any_order_with_its_gradient():
    """`polygamma(n, x)` of orders 2 to 5 (a constant and a run-time order) and its gradient,
    without fallback."""
    from conftest import compare_strict

    x = pt.vector("x")
    n = pt.vector("n", dtype="int64")
    xs = np.array([0.5, 3.0, 12.5, -0.5, 40.0])
    compare_strict([x], [pt.polygamma(2, x), pt.grad(pt.polygamma(3, x).sum(), x)], [xs], rtol=1e-12, atol=0)
    compare_strict([n, x], pt.polygamma(n, x), [np.array([2, 3, 4, 5, 2]), xs], rtol=1e-12, atol=0)


def test_erfcinv_far_out_and_its_gradient():
    """A normal's quantile far in its tail: erfinv(1 - z) would be inf there."""
    from conftest import compare_strict

    x = pt.vector("x")
    y = pt.erfcinv(x)
    args = [np.array([1e-300, 1e-100, 1e-10, 0.3, 1.0, 1.7, 2.0 - 1e-12])]
    compare_strict([x], [y, pt.grad(y.sum(), x)], args, rtol=1e-13, atol=0)


def test_owens_t_with_its_gradients():
    """`owens_t(h, a)` (PyTensor's `Owens_t`, the skew normal's CDF) and PyTensor's own
    gradients in both operands, without fallback: a below and above 1, negative h and a."""
    from conftest import compare_strict

    h = pt.vector("h")
    a = pt.vector("a")
    t = pt.owens_t(h, a)
    hv = np.array([0.5, -1.0, 2.0, 0.0, 3.0, 0.2, 6.0])
    av = np.array([0.3, 2.0, -0.5, 1.0, 40.0, -0.9, 1.5])
    compare_strict([h, a], [t, pt.grad(t.sum(), h), pt.grad(t.sum(), a)], [hv, av], rtol=1e-12, atol=1e-300)


def test_kve_and_kv_with_the_gradient_in_x():
    """`kve(v, x)` (PyTensor's `Kve`) and `kv` (PyTensor writes it as `kve(v, x) * exp(-x)`),
    with PyTensor's own gradient in `x`, without fallback: orders 0, fractional, negative and
    large, x below and above 2."""
    from conftest import compare_strict

    v = pt.vector("v")
    x = pt.vector("x")
    k = pt.kve(v, x)
    kv = pt.kv(v, x)
    vv = np.array([0.0, 0.5, 1.3, -2.5, 7.0, 0.25])
    xv = np.array([0.3, 1.999, 2.0, 3.5, 1.0, 25.0])
    outs = [k, kv, pt.grad(k.sum(), x), pt.grad(kv.sum(), x)]
    compare_strict([v, x], outs, [vv, xv], rtol=1e-12, atol=1e-300)
