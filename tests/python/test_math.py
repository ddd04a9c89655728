"""The math library's compiled results against NumPy/SciPy, in ulps, over grids that include
the tails each function is known for (gammaln-like growth, erfc far out, log1mexp near 0,
expm1 of tiny arguments, arcsinh of huge and tiny ones) and the special values.

ptl's compiled code builds these functions from arithmetic (IREE links no libm for f64), so
this is the check that matters for users: the result as SciPy would give it. The largest
distance of each function is printed (`pytest -s`)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sc

pytensor_ptl = pytest.importorskip("pytensor_ptl")

np.seterr(all="ignore")


def literal(xs) -> str:
    def one(x):
        x = float(x)
        if np.isnan(x):
            return "nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)

    return "[" + ", ".join(one(x) for x in xs) + "]"


def ulps(got, want, eps=np.finfo(np.float64).eps, scale=None, tiny=np.finfo(np.float64).tiny):
    """Distance in units of `eps` relative to the larger magnitude (or `scale`); NaN only
    matches NaN, infinities only themselves."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    both_nan = np.isnan(got) & np.isnan(want)
    same = (got == want) | both_nan
    mag = np.maximum(np.abs(got), np.abs(want))
    if scale is not None:
        mag = np.maximum(mag, scale)
    mag = np.maximum(mag, tiny)
    with np.errstate(invalid="ignore"):
        d = np.abs(got - want) / eps / mag
    d = np.where(same, 0.0, d)
    return np.where(np.isnan(d), np.inf, d)


def grid():
    xs = [np.linspace(-20, 20, 4001), np.linspace(-1, 1, 2001)]
    mags = 10.0 ** np.arange(-300, 301, 1.0)
    xs += [mags, -mags, mags * 1.37, -mags * 2.91]
    xs.append(np.linspace(20, 27, 301))
    xs.append(np.array([1023.5, 1024.0, -1074.0, -1075.0, 709.7, 710.0, -745.0, 1 + 1e-15, 1 - 1e-16]))
    xs.append(np.array([0.0, -0.0, 5e-324, -5e-324, np.finfo(float).tiny, np.finfo(float).max, -np.finfo(float).max, np.inf, -np.inf, np.nan]))
    return np.concatenate(xs)


def log1mexp(x):
    return np.where(x < -np.log(2), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


def erfc(x):
    # SciPy's erfc (cephes) loses accuracy beyond 0.5 (7 ulps at 0.99, 250 at 23) and flushes to
    # 0 past x ~ 26.6, where the true value is still a subnormal: compare there against the
    # value in extended precision.
    r = sc.erfc(x)
    far = (x > 0.5) & (x < 27.3)
    if far.any():
        import mpmath

        r = r.copy()
        mpmath.mp.dps = 40
        r[far] = [float(mpmath.erfc(mpmath.mpf(float(v)))) for v in x[far]]
    return r


def gammaln(x):
    # SciPy's gammaln is inf for subnormal x, where the true value is -log|x| (< 745).
    tiny = (x != 0) & (np.abs(x) < 1e-300)
    r = np.where(tiny, -np.log(np.where(tiny, np.abs(x), 1.0)), sc.gammaln(x))
    # Near its zeros at 1 and 2 SciPy's gammaln (cephes) loses its relative accuracy
    # (2.2e-16 for 6.4e-17 at 1 - 1e-16): compare there in extended precision.
    near = (np.abs(x - 1) < 0.25) | (np.abs(x - 2) < 0.25)
    if near.any():
        import mpmath

        mpmath.mp.dps = 40
        r = r.copy()
        r[near] = [float(mpmath.loggamma(mpmath.mpf(float(v))).real) for v in x[near]]
    return r


def digamma(x):
    # Near digamma's zeros (the positive one at 1.4616 and one in each negative interval) a
    # double-precision reference loses relative accuracy: compare there in extended precision.
    r = sc.digamma(x)
    near = ((x > 0.9) & (x < 2.1)) | ((x < 0) & (x > -20) & (x != np.floor(x)))
    if near.any():
        import mpmath

        mpmath.mp.dps = 40
        r = r.copy()
        r[near] = [float(mpmath.digamma(mpmath.mpf(float(v)))) for v in x[near]]
    return r


# name -> (reference, f64 tolerance in ulps)
UNARY = {
    "sin": (np.sin, 2.0),
    "cos": (np.cos, 2.0),
    "tan": (np.tan, 2.0),
    "arcsin": (np.arcsin, 2.0),
    "arccos": (np.arccos, 2.0),
    "arctan": (np.arctan, 2.0),
    "sinh": (np.sinh, 2.0),
    "cosh": (np.cosh, 2.0),
    "arcsinh": (np.arcsinh, 2.0),
    "arccosh": (np.arccosh, 2.0),
    "arctanh": (np.arctanh, 2.0),
    "exp2": (np.exp2, 2.0),
    "expm1": (np.expm1, 2.0),
    "log2": (np.log2, 2.0),
    "log10": (np.log10, 2.0),
    "cbrt": (np.cbrt, 1.0),
    "erf": (sc.erf, 2.0),
    "erfc": (erfc, 2.5),
    "gamma": (sc.gamma, 8.0),
    "gammaln": (gammaln, 10.0),  # fdlibm (and musl) reach 8.4 ulps near the zero at 2
    "digamma": (digamma, 4.0),
    "erfinv": (sc.erfinv, 2.0),
    "log1mexp": (log1mexp, 2.5),
    "softplus": (lambda x: np.logaddexp(0.0, x), 2.5),
    "square": (np.square, 0.0),
    "reciprocal": (np.reciprocal, 0.0),
    "sign": (np.sign, 0.0),
    "floor": (np.floor, 0.0),
    "ceil": (np.ceil, 0.0),
    "round": (np.round, 0.0),
    "trunc": (np.trunc, 0.0),
}


def run(src):
    return [np.asarray(v) for v in pytensor_ptl.run_script(src)]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_numpy_scipy(name):
    ref, tol = UNARY[name]
    xs = grid()
    if name == "erfinv":
        # Defined on [-1, 1]: the grid squashed by tanh (down to 1 - 2^-53), and its edges.
        xs = np.concatenate([np.tanh(xs), [1.0, -1.0, 1.5, 1 - 2.0**-53, -(1 - 2.0**-53)]])
    (got,) = run(f"print {name}({literal(xs)});")
    want = ref(xs)
    # gammaln of negative x cancels near its zeros (reflection formula, in SciPy as in ptl):
    # measured against |x| there.
    scale = np.where(xs < 0, np.abs(xs), 0.0) if name in ("gammaln", "digamma") else None
    d = ulps(got, want, scale=scale)
    i = int(np.argmax(d))
    print(f"{name:>10} f64: max {d[i]:.2f} ulp at x={xs[i]!r} (ptl {got[i]!r}, reference {want[i]!r})")
    assert d[i] <= tol

    x32 = xs.astype(np.float32)
    x32 = x32[np.isfinite(xs) == np.isfinite(x32)]
    (g32,) = run(f"print {name}({literal(x32)} : f32[{len(x32)}]);")
    assert g32.dtype == np.float32
    # ptl computes f32 in f64 and rounds once: the correctly rounded value, within an ulp of
    # NumPy's float32 loops.
    w32 = ref(x32.astype(np.float64)).astype(np.float32)
    d32 = ulps(g32, w32, eps=np.finfo(np.float32).eps, tiny=np.finfo(np.float32).tiny)
    print(f"{name:>10} f32: max {d32.max():.2f} ulp")
    assert d32.max() <= 1.0


BINARY = {
    "arctan2": (np.arctan2, 2.0),
    "logaddexp": (np.logaddexp, 2.0),
    "mod": (np.mod, 0.0),
    "floor_divide": (np.floor_divide, 0.0),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_against_numpy(name):
    ref, tol = BINARY[name]
    s = np.concatenate([grid()[::73], [0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, -3.0, 1e-300, 7.5]])
    a, b = (m.ravel() for m in np.meshgrid(s, s))
    if name in ("mod", "floor_divide"):
        # Exact while |a / b| < 2^52 (lower/src/ops/mathlib.rs).
        q = np.abs(a / b)
        keep = ~((q >= 2.0**52) & np.isfinite(a) & np.isfinite(b) & (b != 0))
        a, b = a[keep], b[keep]
    (got,) = run(f"print {name}({literal(a)}, {literal(b)});")
    want = ref(a, b)
    # logaddexp cancels near 0 (in NumPy's formula too): measured against the operands.
    scale = np.maximum(np.abs(np.where(np.isfinite(a), a, 0)), np.abs(np.where(np.isfinite(b), b, 0))) if name == "logaddexp" else None
    d = ulps(got, want, scale=scale)
    i = int(np.argmax(d))
    print(f"{name:>12} f64: max {d[i]:.2f} ulp at ({a[i]!r}, {b[i]!r}) (ptl {got[i]!r}, NumPy {want[i]!r})")
    assert d[i] <= tol


def test_integer_mod_and_floor_divide_follow_numpy():
    a = np.array([7, -7, 7, -7, 0, 5, -9223372036854775807, 9223372036854775807])
    b = np.array([2, 2, -2, -2, 3, 0, -1, -10])
    got_m, got_q = run(f"print mod({literal_int(a)}, {literal_int(b)});\nprint floor_divide({literal_int(a)}, {literal_int(b)});")
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got_m, np.mod(a, b))
        np.testing.assert_array_equal(got_q, np.floor_divide(a, b))


def literal_int(xs):
    return "[" + ", ".join(str(int(x)) for x in xs) + "]"


def test_constants_print_as_numpy():
    (v,) = run("print [1.0, inf, -inf, nan];")
    np.testing.assert_array_equal(v, np.array([1.0, np.inf, -np.inf, np.nan]))


def incgamma_grid():
    a_s = np.concatenate([10.0 ** np.linspace(-3, 4, 36), [0.5, 1.0, 1.5, 2.0, 10.0, 20.0, 20.5, 200.0, 250.0]])
    ratios = np.array([1e-3, 0.1, 0.5, 0.69, 0.71, 0.9, 0.99, 1.0, 1.01, 1.1, 1.29, 1.31, 2.0, 10.0])
    a, r = (m.ravel() for m in np.meshgrid(a_s, ratios))
    fixed_a, fixed_x = (m.ravel() for m in np.meshgrid(a_s, [1e-300, 1e-5, 0.4, 0.5, 0.51, 1.0, 1.05, 1.1, 1.2, 30.0, 700.0]))
    return np.concatenate([a, fixed_a]), np.concatenate([a * r, fixed_x])


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_against_scipy(name):
    """Against SciPy over a from 1e-3 to 1e4 and x from far below to far above a: within
    4e-14 relative to the value where the function is well conditioned, and within that
    times its condition number elsewhere (in the tails, where SciPy too is ulps away from
    mpmath: the factor x^a e^-x / Gamma(a) magnifies the rounding of a and x)."""
    a, x = incgamma_grid()
    (got,) = run(f"print {name}({literal(a)}, {literal(x)});")
    want = getattr(sc, name)(a, x)
    assert np.all(np.isfinite(got)) and np.all((got >= 0) & (got <= 1))
    with np.errstate(all="ignore"):
        factor = np.exp(a * np.log(x) - x - sc.gammaln(a))
        kappa = np.maximum(1.0, factor / np.abs(want) * (1.0 + np.abs(np.log(x)) + np.abs(x - a) / np.sqrt(a)))
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-300) / kappa
    rel = np.where(got == want, 0.0, rel)
    i = int(np.argmax(rel))
    print(f"{name}: max {rel[i]:.2e} (condition-scaled) at a={a[i]!r}, x={x[i]!r} (ptl {got[i]!r}, SciPy {want[i]!r})")
    assert rel[i] <= 4e-14


@pytest.mark.parametrize("name", ["gammaincinv", "gammainccinv"])
def test_inverse_incomplete_gamma_against_scipy(name):
    """Against SciPy over a from 1e-3 to 1e4 and y across (0, 1), tails included: within
    2e-13 relative, times the inversion's condition number y / (x^a e^-x / Gamma(a)) where
    that exceeds 1 (an error of one ulp in y or in P moves x by that much, in SciPy too);
    and SciPy's values at the ends and outside the domain."""
    a_s = np.concatenate([10.0 ** np.linspace(-3, 4, 15), [0.5, 1.0, 2.0, 20.0, 21.0]])
    ys = np.array([1e-300, 1e-100, 1e-20, 1e-5, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1 - 1e-5, 1 - 1e-12])
    a, y = (m.ravel() for m in np.meshgrid(a_s, ys))
    (got,) = run(f"print {name}({literal(a)}, {literal(y)});")
    want = getattr(sc, name)(a, y)
    with np.errstate(all="ignore"):
        tail = np.minimum(y, 1 - y)
        kappa = np.maximum(1.0, tail / np.exp(a * np.log(want) - want - sc.gammaln(a)))
        rel = np.where(got == want, 0.0, np.abs(got - want) / np.abs(want) / kappa)
    i = int(np.nanargmax(rel))
    print(f"{name}: max {rel[i]:.2e} (condition-scaled) at a={a[i]!r}, y={y[i]!r} (ptl {got[i]!r}, SciPy {want[i]!r})")
    assert not np.any(np.isnan(rel))
    assert rel[i] <= 2e-13
    edges_a = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0, -1.0, np.nan, np.inf, 2.0])
    edges_y = np.array([0.0, 1.0, -0.1, 1.1, 0.5, 0.0, 0.5, 0.5, 0.5, np.nan])
    (got,) = run(f"print {name}({literal(edges_a)}, {literal(edges_y)});")
    np.testing.assert_array_equal(got, getattr(sc, name)(edges_a, edges_y))


def test_incomplete_gamma_for_large_a_near_its_mean():
    """Where a is large and x within a few standard deviations of it, SciPy's series stops
    after 2,000 terms (1.3e-6 instead of 2.1e-6 at a = 1e8); ptl uses Temme's expansion there.
    Against the series summed to convergence in mpmath."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 30

    def p(a, x):
        a, x = mpmath.mpf(a), mpmath.mpf(x)
        term = total = mpmath.mpf(1)
        n = 0
        while term > total * mpmath.mpf(10) ** -25:
            n += 1
            term *= x / (a + n)
            total += term
        return float(total * mpmath.exp(a * mpmath.log(x) - x - mpmath.loggamma(a)) / a)

    pts = [(1e6, 995000.0), (1e6, 1003000.0), (1e8, 1e8 - 4.6e4), (2e7, 2e7 - 1e4)]
    a = np.array([q[0] for q in pts])
    x = np.array([q[1] for q in pts])
    got_p, got_q = run(f"print gammainc({literal(a)}, {literal(x)});\nprint gammaincc({literal(a)}, {literal(x)});")
    want = np.array([p(*q) for q in pts])
    np.testing.assert_allclose(got_p, want, rtol=1e-11)
    np.testing.assert_allclose(got_q, 1.0 - want, rtol=1e-11)


def test_incomplete_beta_against_scipy():
    """Against SciPy (Boost's ibeta) over a and b from 1e-2 to 1e3 and x across (0, 1): within
    1e-13 relative to the value, times the condition number in the tails (the factor
    x^a (1 - x)^b / B(a, b) magnifies the rounding of a, b and x, in SciPy too)."""
    ab = np.concatenate([10.0 ** np.linspace(-2, 3, 11), [0.5, 1.0, 2.0, 20.0]])
    xs = np.array([1e-10, 1e-3, 0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95, 0.999, 1 - 1e-10])
    a, b, x = (m.ravel() for m in np.meshgrid(ab, ab, xs))
    (got,) = run(f"print betainc({literal(a)}, {literal(b)}, {literal(x)});")
    want = sc.betainc(a, b, x)
    assert np.all((got >= 0) & (got <= 1))
    with np.errstate(all="ignore"):
        log_front = a * np.log(x) + b * np.log1p(-x) - sc.betaln(a, b)
        kappa = np.maximum(1.0, np.exp(log_front) / np.minimum(want, 1 - want) * (1 + a * np.abs(np.log(x)) + b * np.abs(np.log1p(-x))))
    rel = np.where(got == want, 0.0, np.abs(got - want) / np.maximum(np.abs(want), 1e-300) / kappa)
    i = int(np.argmax(rel))
    print(f"betainc: max {rel[i]:.2e} (condition-scaled) at a={a[i]!r}, b={b[i]!r}, x={x[i]!r} (ptl {got[i]!r}, SciPy {want[i]!r})")
    assert rel[i] <= 1e-13


def test_inverse_incomplete_beta_against_scipy():
    """Against SciPy (Boost's ibeta_inv) over a and b from 1e-2 to 1e3 and y across (0, 1):
    within 1e-12 relative, times the inversion's condition number min(y, 1 - y) / (x
    density(x)) where that exceeds 1 (in the tail nearer the answer's side); SciPy's values at
    the ends and outside the domain."""
    ab = np.concatenate([10.0 ** np.linspace(-2, 3, 11), [0.5, 1.0, 2.0, 20.0]])
    ys = np.array([1e-12, 1e-5, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-5, 1 - 1e-12])
    a, b, y = (m.ravel() for m in np.meshgrid(ab, ab, ys))
    (got,) = run(f"print betaincinv({literal(a)}, {literal(b)}, {literal(y)});")
    want = sc.betaincinv(a, b, y)
    # Where the answer is not a normal double (a tiny a with a tiny y), SciPy returns the
    # smallest normal or NaN and ptl 0 (the true value underflows): left out here.
    normal = np.isfinite(want) & (want > 1e-300) & (want < 1)
    with np.errstate(all="ignore"):
        side = np.where(y > 0.5, 1 - want, want)
        log_density = (a - 1) * np.log(want) + (b - 1) * np.log1p(-want) - sc.betaln(a, b)
        kappa = np.maximum(1.0, np.minimum(y, 1 - y) / (side * np.exp(log_density)))
        rel = np.where(got == want, 0.0, np.abs(got - want) / np.abs(want) / kappa)
    rel = np.where(normal, rel, 0.0)
    i = int(np.argmax(rel))
    print(f"betaincinv: max {rel[i]:.2e} (condition-scaled) at a={a[i]!r}, b={b[i]!r}, y={y[i]!r} (ptl {got[i]!r}, SciPy {want[i]!r})")
    assert np.all((got >= 0) & (got <= 1))
    assert rel[i] <= 1e-12
    edges = [(1.0, 1.0, 0.0), (2.0, 3.0, 1.0), (0.0, 1.0, 0.5), (1.0, -1.0, 0.5), (np.inf, 1.0, 0.5),
             (1.0, np.inf, 0.5), (np.inf, np.inf, 0.5), (2.0, 3.0, -0.1), (2.0, 3.0, np.nan)]
    ea, eb, ey = (np.array(v) for v in zip(*edges))
    (got,) = run(f"print betaincinv({literal(ea)}, {literal(eb)}, {literal(ey)});")
    np.testing.assert_array_equal(got, sc.betaincinv(ea, eb, ey))


def test_polygamma_against_scipy():
    """polygamma(n, x) for n = 1..8 against SciPy: within 5e-14 relative for x from 1e-3 to
    1e4, and within 1e-11 for negative x (a sum of terms of both signs there, in SciPy too)."""
    xs = np.concatenate([10.0 ** np.linspace(-3, 4, 29), [0.5, 1.0, 1.5, 2.0, 9.0, 9.5, 10.0]])
    neg = -np.array([0.5, 1.25, 2.75, 7.1, 20.3, 101.6])
    ns = np.arange(1.0, 9.0)
    n, x = (m.ravel() for m in np.meshgrid(ns, np.concatenate([xs, neg])))
    (got,) = run(f"print polygamma({literal(n)}, {literal(x)});")
    want = sc.polygamma(n, x)
    rel = np.where(got == want, 0.0, np.abs(got - want) / np.abs(want))
    for name, part, tol in [("x > 0", x > 0, 5e-14), ("x < 0", x < 0, 1e-11)]:
        i = int(np.argmax(np.where(part, rel, 0.0)))
        print(f"polygamma {name}: max {rel[i]:.2e} at n={n[i]!r}, x={x[i]!r} (ptl {got[i]!r}, SciPy {want[i]!r})")
        assert rel[i] <= tol
