//! `erfinv(y)` built from arithmetic in `f64`. The start is M. Giles' single-precision
//! approximation ("Approximating the erfinv function", GPU Computing Gems, 2011) where it was
//! fitted (`w = -log(1 - y^2) < 16`) and the asymptotic inversion of
//! `erfc(x) ~ exp(-x^2) / (x sqrt(pi))` beyond. Three steps refine it: for |y| < 1/2 Halley's
//! on `erf(x) = y`; for |y| >= 1/2 Newton's on `log erfc(x) = log(1 - |y|)`, where `1 - |y|`
//! is exact, `erfc` keeps its relative accuracy and the logarithm is nearly quadratic in x,
//! so the tail (|y| up to 1 - 2^-53, x up to 5.9) is as accurate as the centre.
//! `erfinv(±1) = ±inf`, NaN beyond; the sign of zero is kept. `erfcinv(z) = erfinv(1 - z)`
//! shares the algorithm, given `1 - |1 - z|` exactly.

use super::fbuild::{F, V};
use super::special;
use crate::error::Result;

/// Giles' polynomial in `w - 2.5` for `w < 5`, lowest degree first.
const CENTRE: [f64; 9] = [
    1.50140941,
    0.246640727,
    -0.00417768164,
    -0.00125372503,
    0.00021858087,
    -4.39150654e-06,
    -3.5233877e-06,
    3.43273939e-07,
    2.81022636e-08,
];
/// The same in `sqrt(w) - 3` for `5 <= w < 16`.
const TAIL: [f64; 9] = [
    2.83297682,
    1.00167406,
    0.00943887047,
    -0.0076224613,
    0.00573950773,
    -0.00367342844,
    0.00134934322,
    0.000100950558,
    -0.000200214257,
];
/// `2 / sqrt(pi)`, the derivative of `erf` at 0.
const TWO_OVER_SQRT_PI: f64 = 1.128_379_167_095_512_6;

/// `erfinv(y)`.
pub fn erfinv<'c, 'a>(f: F<'_, 'c, 'a>, y: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let a = f.abs(y)?;
    // Inside (-1, 1) the start and the steps are finite; outside the result is chosen below.
    let inside = f.ltc(a, 1.0)?;
    let a = f.sel(inside, a, f.c(0.5)?)?;
    let one_minus = f.sub(f.c(1.0)?, a)?;
    let x = magnitude(f, a, one_minus)?;
    let r = f.sel(f.eqc(f.abs(y)?, 1.0)?, f.c(f64::INFINITY)?, f.sel(inside, x, f.c(f64::NAN)?)?)?;
    let r = f.copysign(r, y)?;
    f.nan_through(y, r)
}

/// `erfcinv(z) = erfinv(1 - z)`, with the complement `1 - |1 - z|` taken exactly (z below 1,
/// 2 - z above), so the tail keeps its accuracy for z down to 1e-300: `inf` at 0, `-inf` at
/// 2, NaN outside [0, 2].
pub fn erfcinv<'c, 'a>(f: F<'_, 'c, 'a>, z: V<'c, 'a>) -> Result<V<'c, 'a>> {
    // From 1 on the result is negative (-0 at 1, as SciPy's).
    let upper = f.gec(z, 1.0)?;
    let inside = f.and(f.gtc(z, 0.0)?, f.ltc(z, 2.0)?)?;
    let z_in = f.sel(inside, z, f.c(0.5)?)?;
    let a = f.sel(upper, f.addc(z_in, -1.0)?, f.sub(f.c(1.0)?, z_in)?)?;
    let one_minus = f.sel(upper, f.sub(f.c(2.0)?, z_in)?, z_in)?;
    let x = magnitude(f, a, one_minus)?;
    let x = f.sel(upper, f.neg(x)?, x)?;
    let r = f.sel(inside, x, f.c(f64::NAN)?)?;
    let r = f.sel(f.eqc(z, 0.0)?, f.c(f64::INFINITY)?, r)?;
    let r = f.sel(f.eqc(z, 2.0)?, f.c(f64::NEG_INFINITY)?, r)?;
    f.nan_through(z, r)
}

/// The x >= 0 with `erf(x) = a` for a in [0, 1), given `one_minus = 1 - a` exactly.
fn magnitude<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, one_minus: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let w = f.neg(f.log(f.mul(one_minus, f.addc(a, 1.0)?)?)?)?;
    let centre = f.mul(f.poly(f.addc(w, -2.5)?, &CENTRE)?, a)?;
    let tail = f.mul(f.poly(f.addc(f.sqrt(w)?, -3.0)?, &TAIL)?, a)?;
    // x^2 = t - log(x sqrt(pi)) with t = -log(1 - a), once: x^2 ~ t - log(pi t) / 2.
    let t = f.neg(f.log(one_minus)?)?;
    let far_start = f.sqrt(f.sub(t, f.mulc(f.log(f.mulc(t, std::f64::consts::PI)?)?, 0.5)?)?)?;
    let mut x = f.sel(f.ltc(w, 5.0)?, centre, f.sel(f.ltc(w, 16.0)?, tail, far_start)?)?;
    let far = f.gec(a, 0.5)?;
    let log_target = f.log(one_minus)?;
    for _ in 0..3 {
        let slope = f.mulc(f.exp(f.neg(f.mul(x, x)?)?)?, TWO_OVER_SQRT_PI)?;
        // Centre, Halley: x -= n / (1 + x n) with n = (erf(x) - a) / erf'(x), as erf'' = -2x erf'.
        let n = f.div(f.sub(special::erf(f, x)?, a)?, slope)?;
        let halley = f.div(n, f.add(f.c(1.0)?, f.mul(x, n)?)?)?;
        // Tail, Newton on g(x) = log erfc(x) - log(1 - a), g'(x) = -erf'(x) / erfc(x).
        let ec = special::erfc(f, x)?;
        let g = f.sub(f.log(ec)?, log_target)?;
        let newton = f.neg(f.div(f.mul(g, ec)?, slope)?)?;
        // x = 0 (y = 0) stays 0: n is 0 there.
        x = f.sub(x, f.sel(far, newton, halley)?)?;
    }
    Ok(x)
}
