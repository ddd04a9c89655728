//! `digamma(x)` (psi, the derivative of `log Gamma`) built from arithmetic in `f64`.
//!
//! - [1, 2): the Taylor series around the positive zero x0 = 1.4616..., whose coefficients
//!   are `psi^(n)(x0) / n! = (-1)^(n+1) zeta(n + 1, x0)` (computed with mpmath at 60 digits:
//!   `[(-1)**(n+1) * mpmath.zeta(n+1, x0) for n in 1..=42]`). Evaluated at `(x - hi) - lo`, the
//!   zero split in two doubles, so results keep their relative accuracy next to the zero.
//! - (0, 1): `psi(x + 1) - 1 / x`; [2, 10): `psi(t) + sum 1 / (t + k)` down to t in [1, 2).
//! - From 10 on: `log x - 1 / (2x) - sum B_2k / (2k x^2k)` (eight terms).
//! - Negative x: `psi(1 - x) - pi / tan(pi x)`, with `pi x` reduced exactly; NaN at the
//!   negative integers and -inf; `-inf` at +0 and `inf` at -0, as SciPy.
//!
//! Every branch is computed and the right one selected. `trigamma` (below) is the asymptotic
//! series from 10 on, the recurrence below, and the reflection formula for negative x.

use super::fbuild::{F, V};
use super::trig::{self, Range};
use crate::error::Result;

const PI: f64 = std::f64::consts::PI;
/// The positive zero of digamma, `ROOT_HI + ROOT_LO`.
const ROOT_HI: f64 = 1.4616321449683622;
const ROOT_LO: f64 = 9.549995429965697e-17;
/// `psi^(n)(x0) / n!` for n = 1..=42.
const ROOT_SERIES: [f64; 42] = [
    0.9676722454476212,
    -0.4427631689835921,
    0.258499760955651,
    -0.16394270544240652,
    0.10782405069126237,
    -0.07219956125645471,
    0.04880428816414311,
    -0.03316112647484736,
    0.022597648232218104,
    -0.01542476590494896,
    0.010538791616612175,
    -0.007204534386356869,
    0.004926781395729853,
    -0.003369801655439328,
    0.002305126326734928,
    -0.0015769367714301972,
    0.0010788252019162967,
    -0.0007380709389960052,
    0.000504953265834602,
    -0.0003454680251063077,
    0.00023635601564027053,
    -0.00016170622091974803,
    0.0001106337276874741,
    -7.569179582195066e-05,
    5.178575795222081e-05,
    -3.5430070947659604e-05,
    2.424006611860132e-05,
    -1.6584242271854135e-05,
    1.134638458466385e-05,
    -7.762817668462094e-06,
    5.3110609208898636e-06,
    -3.6336507898010456e-06,
    2.486022733129538e-06,
    -1.7008538854332607e-06,
    1.1636675363548843e-06,
    -7.96142543124197e-07,
    5.446941930669446e-07,
    -3.7266161283438227e-07,
    2.549626552021554e-07,
    -1.7443695117727745e-07,
    1.1934394829830244e-07,
    -8.165115189488409e-08,
];
/// `B_2k / (2k)` for k = 1..=8 (Bernoulli numbers).
const ASYMPTOTIC: [f64; 8] = [
    1.0 / 12.0,
    -1.0 / 120.0,
    1.0 / 252.0,
    -1.0 / 240.0,
    1.0 / 132.0,
    -691.0 / 32760.0,
    1.0 / 12.0,
    -3617.0 / 8160.0,
];

/// `psi(t)` for t in [1, 2) from the series around the zero.
fn near_root<'c, 'a>(f: F<'_, 'c, 'a>, t: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let d = f.addc(f.addc(t, -ROOT_HI)?, -ROOT_LO)?;
    f.mul(d, f.poly(d, &ROOT_SERIES)?)
}

/// `psi(y)` for y > 0.
fn positive<'c, 'a>(f: F<'_, 'c, 'a>, y: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let below_one = f.ltc(y, 1.0)?;
    // [1, 10): t = y - m in [1, 2) with m = floor(y) - 1 (exact), plus 1/(t + k) for k < m.
    let m = f.max(f.addc(f.floor(y)?, -1.0)?, f.c(0.0)?)?;
    let shifted = f.sub(y, m)?;
    let t = f.sel(below_one, f.addc(y, 1.0)?, shifted)?;
    let t = f.min(f.max(t, f.c(1.0)?)?, f.c(2.0)?)?;
    let base = near_root(f, t)?;
    let mut sum = f.c(0.0)?;
    for k in 0..8 {
        let term = f.div(f.c(1.0)?, f.addc(t, k as f64)?)?;
        let used = f.gtc(m, k as f64)?;
        sum = f.add(sum, f.sel(used, term, f.c(0.0)?)?)?;
    }
    let middle = f.add(base, sum)?;
    let small = f.sub(base, f.div(f.c(1.0)?, y)?)?;
    // From 10 on: the asymptotic series (y clamped so the unused branch stays finite).
    let z = f.max(y, f.c(10.0)?)?;
    let inv = f.div(f.c(1.0)?, z)?;
    let inv2 = f.mul(inv, inv)?;
    let series = f.mul(inv2, f.poly(inv2, &ASYMPTOTIC)?)?;
    let large = f.sub(f.sub(f.log(z)?, f.mulc(inv, 0.5)?)?, series)?;
    let r = f.sel(f.ltc(y, 10.0)?, middle, large)?;
    f.sel(below_one, small, r)
}

/// `pi / tan(pi x)` for finite x, through r = x - round(x) in [-1/2, 1/2] (exact) and
/// `cos(pi r) = sin(pi (1/2 - |r|))`, so both factors are reduced exactly.
fn pi_cot_pi<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let r = f.sub(x, f.roundeven(x)?)?;
    let ar = f.abs(r)?;
    let sin = trig::sin_and_cos(f.e, f.mulc(ar, PI)?, Range::Small)?.0;
    let cos = trig::sin_and_cos(f.e, f.mulc(f.sub(f.c(0.5)?, ar)?, PI)?, Range::Small)?.0;
    f.copysign(f.div(f.mulc(cos, PI)?, sin)?, r)
}

/// `digamma(x)`.
pub fn digamma<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let neg = f.ltc(x, 0.0)?;
    let y = f.sel(neg, f.sub(f.c(1.0)?, x)?, x)?;
    let pos = positive(f, y)?;
    let reflected = f.sub(pos, pi_cot_pi(f, f.sel(neg, x, f.c(0.25)?)?)?)?;
    let integer = f.eq(x, f.floor(x)?)?;
    let reflected = f.sel(integer, f.c(f64::NAN)?, reflected)?;
    let r = f.sel(neg, reflected, pos)?;
    // ±0: -inf at +0, inf at -0 (`-copysign(inf, x)`).
    let zero = f.neg(f.copysign(f.c(f64::INFINITY)?, x)?)?;
    let r = f.sel(f.eqc(x, 0.0)?, zero, r)?;
    // inf stays inf (the asymptotic branch gives it); NaN and -inf give NaN.
    f.nan_through(x, r)
}

/// `B_2k` for k = 1..=8 (Bernoulli numbers): `trigamma(z) ~ 1/z + 1/(2 z^2) + sum B_2k / z^(2k+1)`.
const TRIGAMMA_ASYMPTOTIC: [f64; 8] = [
    1.0 / 6.0,
    -1.0 / 30.0,
    1.0 / 42.0,
    -1.0 / 30.0,
    5.0 / 66.0,
    -691.0 / 2730.0,
    7.0 / 6.0,
    -3617.0 / 510.0,
];

/// `trigamma(y)` for y >= 0: the asymptotic series at z = y + m >= 10, plus
/// `sum_{k < m} 1 / (y + k)^2` (the recurrence `psi1(y) = psi1(y + 1) + 1 / y^2`), m <= 10
/// steps, summed from the smallest term: every term is positive, so the relative accuracy holds.
fn trigamma_positive<'c, 'a>(f: F<'_, 'c, 'a>, y: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let m = f.min(f.max(f.ceil(f.sub(f.c(10.0)?, y)?)?, f.c(0.0)?)?, f.c(10.0)?)?;
    let z = f.max(f.add(y, m)?, f.c(10.0)?)?;
    let inv = f.div(f.c(1.0)?, z)?;
    let inv2 = f.mul(inv, inv)?;
    let tail = f.mul(f.mul(inv, inv2)?, f.poly(inv2, &TRIGAMMA_ASYMPTOTIC)?)?;
    let mut sum = f.add(f.add(tail, f.mulc(inv2, 0.5)?)?, inv)?;
    for k in (0..10).rev() {
        let t = f.addc(y, k as f64)?;
        let term = f.div(f.c(1.0)?, f.mul(t, t)?)?;
        sum = f.add(sum, f.sel(f.gtc(m, k as f64)?, term, f.c(0.0)?)?)?;
    }
    Ok(sum)
}

/// `trigamma(x)`, SciPy's `polygamma(1, x)`: for negative x the reflection
/// `psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)` with `pi x` reduced exactly; `inf` at 0, at
/// the negative integers and at -inf; 0 at inf.
pub fn trigamma<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let neg = f.ltc(x, 0.0)?;
    let y = f.sel(neg, f.sub(f.c(1.0)?, x)?, x)?;
    let pos = trigamma_positive(f, y)?;
    let r = f.sub(x, f.roundeven(x)?)?;
    let sin = trig::sin_and_cos(f.e, f.mulc(f.abs(r)?, PI)?, Range::Small)?.0;
    let reflected = f.sub(f.div(f.c(PI * PI)?, f.mul(sin, sin)?)?, pos)?;
    let r = f.sel(neg, reflected, pos)?;
    // 0, the negative integers and -inf (whose sin is NaN) give inf.
    let pole = f.and(f.ltc(x, 0.5)?, f.eq(x, f.floor(x)?)?)?;
    let r = f.sel(pole, f.c(f64::INFINITY)?, r)?;
    f.nan_through(x, r)
}
