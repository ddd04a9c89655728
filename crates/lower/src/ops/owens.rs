//! `owens_t(h, a)`, Owen's T function `(1/2pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx`,
//! in `f64` arithmetic.
//!
//! For `|a| <= 1` the integral is `exp(-h^2/2) int_0^a exp(-h^2 x^2 / 2) / (1 + x^2) dx`, by a
//! 20-point Gauss-Legendre rule over `[0, min(a, 9 / h)]` (past `x = 9 / h` the integrand is
//! below `exp(-40.5)` of its peak; on the interval it is smooth, its poles at `+-i` and its
//! width at least `1 / h` of the interval). For `|a| > 1`, Owen's (1956) reduction:
//! `T(h, a) = Q(h)/2 + Q(ah)/2 - Q(h) Q(ah) - T(ah, 1/a)`, `Q(z) = erfc(z / sqrt 2) / 2`,
//! which has no cancellation (each term is at most the first). `T(0, a) = atan(a) / (2 pi)`.
//! Checked against SciPy's `owens_t` and mpmath's quadrature: within about 2e-13 relative
//! (the larger errors where `exp(-h^2/2)` is tiny, from rounding `h^2`). The interpreter
//! integrates over the angle instead, adaptively.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

use super::fbuild::{F, V};
use super::{invtrig, special};
use crate::error::Result;

/// The positive nodes of the 20-point Gauss-Legendre rule on `[-1, 1]` and their weights
/// (`numpy.polynomial.legendre.leggauss(20)`).
const GL20: [(f64, f64); 10] = [
    (0.07652652113349734, 0.15275338713072578),
    (0.2277858511416451, 0.14917298647260366),
    (0.37370608871541955, 0.14209610931838187),
    (0.5108670019508271, 0.13168863844917653),
    (0.636053680726515, 0.11819453196151825),
    (0.7463319064601508, 0.10193011981724026),
    (0.8391169718222188, 0.08327674157670467),
    (0.9122344282513258, 0.06267204833410944),
    (0.9639719272779138, 0.04060142980038622),
    (0.9931285991850949, 0.017614007139153273),
];

/// Where the integrand `exp(-h^2 x^2 / 2)` is cut: `x = CUT / h`.
const CUT: f64 = 9.0;

/// `T(h, a)` for `h >= 0` and `0 <= a <= 1`, by the rule.
fn core<'c, 'a>(f: F<'_, 'c, 'a>, h: V<'c, 'a>, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
    // From h = 1e10 on the result is 0 (exp(-h^2/2) underflows from h = 38.6); the bound
    // keeps an infinite h from making `inf * 0`.
    let h = f.min(h, f.c(1e10)?)?;
    let s = f.min(a, f.div(f.c(CUT)?, h)?)?;
    let half = f.mulc(s, 0.5)?;
    let mut sum = f.c(0.0)?;
    for (u, w) in GL20 {
        for x in [f.mulc(half, 1.0 - u)?, f.mulc(half, 1.0 + u)?] {
            let hx = f.mul(h, x)?;
            let e = f.exp(f.mulc(f.mul(hx, hx)?, -0.5)?)?;
            let g = f.div(e, f.fma(x, x, f.c(1.0)?)?)?;
            sum = f.fma(f.c(w)?, g, sum)?;
        }
    }
    let integral = f.mul(sum, half)?;
    let peak = f.exp(f.mulc(f.mul(h, h)?, -0.5)?)?;
    f.mul(f.mulc(peak, 1.0 / (2.0 * PI))?, integral)
}

/// `Q(z) = P(Z > z)` of a standard normal `Z`.
fn upper_normal<'c, 'a>(f: F<'_, 'c, 'a>, z: V<'c, 'a>) -> Result<V<'c, 'a>> {
    f.mulc(special::erfc(f, f.mulc(z, FRAC_1_SQRT_2)?)?, 0.5)
}

/// `owens_t(h, a)` as SciPy's: NaN if either is NaN; `T(-h, a) = T(h, a)`,
/// `T(h, -a) = -T(h, a)`; 0 for infinite `h`; `Q(h) / 2` for infinite `a`.
pub fn owens_t<'c, 'a>(f: F<'_, 'c, 'a>, h: V<'c, 'a>, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let h0 = f.abs(h)?;
    let a0 = f.abs(a)?;
    let big = f.gtc(a0, 1.0)?;
    let ha = f.mul(h0, a0)?;
    let inv = f.div(f.c(1.0)?, a0)?;
    let t = core(f, f.sel(big, ha, h0)?, f.sel(big, inv, a0)?)?;
    let (qh, qa) = (upper_normal(f, h0)?, upper_normal(f, ha)?);
    let halves = f.mulc(f.add(qh, qa)?, 0.5)?;
    let reduced = f.sub(f.sub(halves, f.mul(qh, qa)?)?, t)?;
    let r = f.sel(big, reduced, t)?;
    // h = 0 (where `a h` may be `0 * inf`).
    let at_zero = f.mulc(invtrig::atan(f, a0)?, 1.0 / (2.0 * PI))?;
    let r = f.sel(f.eq(h0, f.c(0.0)?)?, at_zero, r)?;
    let r = f.sel(f.ltc(a, 0.0)?, f.neg(r)?, r)?;
    let r = f.nan_through(h, r)?;
    f.nan_through(a, r)
}
