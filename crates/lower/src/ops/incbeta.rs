//! `betainc(a, b, x)`, the regularised incomplete beta function `I_x(a, b)`, built from
//! arithmetic in `f64`: Cephes' `incbet.c` (as SciPy had it before it moved to Boost), each
//! element running only its own method (`control::switch`):
//! - the power series `x^a / B(a, b) sum ...` where `b x <= 1` and `x <= 0.95`;
//! - otherwise, with `a` and `b` swapped and `1 - x` for `x` when `x` is above the mean
//!   `a / (a + b)` (the result is then `1 - I`), the power series again if it fits, or one of
//!   Cephes' two continued fractions (`incbcf`, `incbd`), chosen for convergence, times
//!   `x^a (1 - x)^b / (a B(a, b))`.
//!
//! `B(a, b)` is `Gamma(a) Gamma(b) / Gamma(a + b)` while `a + b < 171`, else its logarithm with
//! Stirling's series, whose large terms do not cancel. The loops stop where the terms fall
//! below the rounding; at most 300 steps for the fractions (Cephes' limit) and 10,000 for the
//! series. NaN for `a` or `b` not positive or `x` outside [0, 1]; 0 at `x = 0`, 1 at `x = 1`;
//! clamped to [0, 1].

use super::control::{switch, while_loop};
use super::explog::log1p;
use super::fbuild::{F, V};
use super::digamma::digamma;
use super::gamma::gamma;
use super::incgamma::stirling_corr as corr;
use super::lgamma::gammaln;
use crate::error::Result;

const EPS: f64 = f64::EPSILON / 2.0;
const BIG: f64 = 4.503_599_627_370_496e15;

/// `betainc(a, b, x)`.
pub fn betainc<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    betainc_with(f, a, b, x, None)
}

/// `betainc(a, b, x)`, given `B(a, b)` where the caller has it (`Beta::new(f, a, b)`, for
/// positive finite `a` and `b`; elsewhere the result does not use it).
pub(super) fn betainc_with<'c, 'a>(
    f: F<'_, 'c, 'a>,
    a: V<'c, 'a>,
    b: V<'c, 'a>,
    x: V<'c, 'a>,
    beta: Option<Beta<'c, 'a>>,
) -> Result<V<'c, 'a>> {
    let (zero, one) = (f.c(0.0)?, f.c(1.0)?);
    let any_nan = f.or(f.or(f.is_nan(a)?, f.is_nan(b)?)?, f.is_nan(x)?)?;
    let outside = f.or(f.or(f.ltc(a, 0.0)?, f.ltc(b, 0.0)?)?, f.or(f.ltc(x, 0.0)?, f.gtc(x, 1.0)?)?)?;
    let (a0, b0) = (f.eqc(a, 0.0)?, f.eqc(b, 0.0)?);
    let (a_inf, b_inf) = (f.is_inf(a)?, f.is_inf(b)?);
    let (x0, x1) = (f.eqc(x, 0.0)?, f.eqc(x, 1.0)?);
    let undefined = f.or(f.or(any_nan, outside)?, f.or(f.and(a0, b0)?, f.and(a_inf, b_inf)?)?)?;
    let special = f.or(f.or(undefined, f.or(x0, x1)?)?, f.or(f.or(a0, b0)?, f.or(a_inf, b_inf)?)?)?;
    // Elsewhere a stand-in (1, 1, 1/2) keeps the chosen method's loop short.
    let (a, b, x) = (f.sel(special, one, a)?, f.sel(special, one, b)?, f.sel(special, f.c(0.5)?, x)?);
    // The series as it stands, or the arguments swapped past the mean.
    let fits = |a_b: V<'c, 'a>, x: V<'c, 'a>| -> Result<V<'c, 'a>> { f.and(f.le(f.mul(a_b, x)?, one)?, f.le(x, f.c(0.95)?)?) };
    let direct = fits(b, x)?;
    let past = f.gt(x, f.div(a, f.add(a, b)?)?)?;
    let flip = f.and(past, f.not(direct)?)?;
    let w = f.sub(one, x)?;
    let (a2, b2) = (f.sel(flip, b, a)?, f.sel(flip, a, b)?);
    let (x2, xc2) = (f.sel(flip, w, x)?, f.sel(flip, x, w)?);
    let series = f.or(direct, fits(b2, x2)?)?;
    let y = f.sub(f.mul(x2, f.addc(f.add(a2, b2)?, -2.0)?)?, f.addc(a2, -1.0)?)?;
    let method = f.sel(series, f.i(0)?, f.sel(f.ltc(y, 0.0)?, f.i(1)?, f.i(2)?)?)?;
    // Every method scales by 1 / B(a, b) (which swapping a and b leaves as it is): it is
    // computed once, before the methods part.
    let beta = match beta {
        Some(beta) => beta,
        None => Beta::new(f, a, b)?,
    };
    let caps = [a2, b2, x2, xc2, beta.inverse, beta.log];
    let t = switch(f, method, &caps, 3, |g, v, case| {
        let (a, b, x, xc) = (v[0], v[1], v[2], v[3]);
        let beta = Beta { inverse: v[4], log: v[5] };
        match case {
            0 => power_series(g, a, b, x, beta),
            1 => g.mul(fraction(g, a, b, x, false)?, beta.front(g, a, b, x, xc)?),
            _ => g.mul(g.div(fraction(g, a, b, x, true)?, xc)?, beta.front(g, a, b, x, xc)?),
        }
    })?;
    let t = f.sel(flip, f.sub(one, t)?, t)?;
    let t = f.min(f.max(t, zero)?, one)?;
    // As SciPy: 0 for an infinite a or b = 0, 1 for an infinite b or a = 0; x = 0 gives 0 and
    // x = 1 gives 1 before those.
    let t = f.sel(f.or(a_inf, b0)?, zero, t)?;
    let t = f.sel(f.or(b_inf, a0)?, one, t)?;
    let t = f.sel(x0, zero, t)?;
    let t = f.sel(x1, one, t)?;
    f.sel(undefined, f.c(f64::NAN)?, t)
}

/// `1 / B(a, b)` (where `a + b < 171`) and `log B(a, b)`, computed once for the several
/// factors that use them (each is a few `gamma`s, `gammaln`s and `digamma`s of code).
#[derive(Clone, Copy)]
pub(super) struct Beta<'c, 'a> {
    pub inverse: V<'c, 'a>,
    pub log: V<'c, 'a>,
}

impl<'c, 'a> Beta<'c, 'a> {
    pub fn new(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<Self> {
        Ok(Beta { inverse: inverse_beta(f, a, b)?, log: log_beta(f, a, b)? })
    }

    /// `x^a (1 - x)^b / (a B(a, b))` (`xc` is `1 - x`).
    pub fn front(self, f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>, x: V<'c, 'a>, xc: V<'c, 'a>) -> Result<V<'c, 'a>> {
        let powers = f.add(f.mul(a, f.log(x)?)?, f.mul(b, f.log(xc)?)?)?;
        let by_gamma = f.div(f.mul(f.exp(powers)?, self.inverse)?, a)?;
        let by_log = f.exp(f.sub(f.sub(powers, self.log)?, f.log(a)?)?)?;
        f.sel(small_beta(f, a, b, powers)?, by_gamma, by_log)
    }
}

/// Where `Gamma(a + b) / (Gamma(a) Gamma(b))` and `exp(powers)` are finite and normal.
fn small_beta<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>, powers: V<'c, 'a>) -> Result<V<'c, 'a>> {
    f.and(f.ltc(f.add(a, b)?, 171.0)?, f.ltc(f.abs(powers)?, 700.0)?)
}

/// `a + b` as a double-double `(s, e)`: `s` rounded, `e` its rounding error (Knuth's two-sum).
/// `Gamma(a + b)` magnifies that rounding by `a + b` times digamma: 100 ulps for `a = 0.01`,
/// `b = 100`; it is taken back as `Gamma(s + e) = Gamma(s) (1 + digamma(s) e)`.
fn two_sum<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<(V<'c, 'a>, V<'c, 'a>)> {
    let s = f.add(a, b)?;
    let bb = f.sub(s, a)?;
    let e = f.add(f.sub(a, f.sub(s, bb)?)?, f.sub(b, bb)?)?;
    Ok((s, e))
}

/// `1 / B(a, b) = Gamma(a + b) / Gamma(a) / Gamma(b)` (for `a + b < 171`).
fn inverse_beta<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let (s, e) = two_sum(f, a, b)?;
    let g = f.mul(gamma(f, s)?, f.addc(f.mul(digamma(f, s)?, e)?, 1.0)?)?;
    f.div(f.div(g, gamma(f, a)?)?, gamma(f, b)?)
}

/// `log B(a, b)`: from `p = min(a, b) >= 10` Stirling's form
/// `log(2 pi) / 2 + (p - 1/2) log(p / (p + q)) + (q - 1/2) log(q / (p + q)) - log(p + q) / 2`
/// plus the corrections; from `q = max(a, b) >= 10` `gammaln(p)` and Stirling for the rest;
/// else the three `gammaln`.
pub(super) fn log_beta<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let (p, q) = (f.min(a, b)?, f.max(a, b)?);
    let s = f.add(p, q)?;
    // log(q / s) as log1p(-p / s): q / s is near 1 where p is small, and its rounding,
    // times q, would be most of the error.
    let (lp, lq) = (f.log(f.div(p, s)?)?, log1p(f, f.neg(f.div(p, s)?)?)?);
    let both = f.add(f.add(f.mul(f.addc(p, -0.5)?, lp)?, f.mul(f.addc(q, -0.5)?, lq)?)?, f.mulc(f.log(s)?, -0.5)?)?;
    let both = f.add(f.addc(both, 0.918_938_533_204_672_7)?, f.sub(f.add(corr(f, p)?, corr(f, q)?)?, corr(f, s)?)?)?;
    // p < 10 <= q: log Gamma(q) - log Gamma(p + q) = (q - 1/2) log(q / s) - p log s + p + corr.
    let one = f.add(f.add(f.mul(f.addc(q, -0.5)?, lq)?, f.sub(p, f.mul(p, f.log(s)?)?)?)?, f.sub(corr(f, q)?, corr(f, s)?)?)?;
    let one = f.add(gammaln(f, p)?, one)?;
    let (s_hi, e) = two_sum(f, p, q)?;
    let log_gamma_s = f.add(gammaln(f, s_hi)?, f.mul(digamma(f, s_hi)?, e)?)?;
    let none = f.sub(f.add(gammaln(f, p)?, gammaln(f, q)?)?, log_gamma_s)?;
    f.sel(f.gec(p, 10.0)?, both, f.sel(f.gec(q, 10.0)?, one, none)?)
}

/// Cephes' `pseries`: `x^a / B(a, b) (1/a + sum_n (1 - b)...(n - b) x^n / (n! (a + n)))`.
fn power_series<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>, x: V<'c, 'a>, beta: Beta<'c, 'a>) -> Result<V<'c, 'a>> {
    let u = f.mul(f.sub(f.c(1.0)?, b)?, x)?;
    let v = f.div(u, f.addc(a, 1.0)?)?;
    let z = f.div(f.c(EPS)?, a)?;
    // State: n, t, v, s.
    let init = [f.c(2.0)?, u, v, f.c(0.0)?];
    let state = while_loop(f, &[a, b, x, z], &init, 10_000, |g, c, s| {
        let (a, b, x, z) = (c[0], c[1], c[2], c[3]);
        let n = s[0];
        let t = g.mul(s[1], g.div(g.mul(g.sub(n, b)?, x)?, n)?)?;
        let v = g.div(t, g.add(a, n)?)?;
        let sum = g.add(s[3], v)?;
        let go = g.gt(g.abs(v)?, z)?;
        Ok((vec![g.addc(n, 1.0)?, t, v, sum], go))
    })?;
    // The loop runs only while the first term is above the threshold, as Cephes'.
    let first = f.gt(f.abs(v)?, z)?;
    let tail = f.sel(first, state[3], f.c(0.0)?)?;
    let sum = f.add(f.add(tail, v)?, f.div(f.c(1.0)?, a)?)?;
    let power = f.mul(a, f.log(x)?)?;
    let by_gamma = f.mul(f.mul(sum, beta.inverse)?, f.exp(power)?)?;
    let by_log = f.exp(f.add(f.sub(power, beta.log)?, f.log(sum)?)?)?;
    f.sel(small_beta(f, a, b, power)?, by_gamma, by_log)
}

/// Cephes' continued fractions: `incbcf` (`second` false) in `x`, and `incbd` (`second`
/// true) in `x / (1 - x)`, each two convergents a step, rescaled as they grow or shrink.
fn fraction<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>, x: V<'c, 'a>, second: bool) -> Result<V<'c, 'a>> {
    let one = f.c(1.0)?;
    let ab = f.add(a, b)?;
    // k1..k8 and their steps.
    let (k2, k6, z) = if second {
        (f.addc(b, -1.0)?, ab, f.div(x, f.sub(one, x)?)?)
    } else {
        (ab, f.addc(b, -1.0)?, x)
    };
    let (d2, d6) = if second { (-1.0, 1.0) } else { (1.0, -1.0) };
    let ks = [a, k2, a, f.addc(a, 1.0)?, one, k6, f.addc(a, 1.0)?, f.addc(a, 2.0)?];
    let steps = [1.0, d2, 2.0, 2.0, 1.0, d6, 2.0, 2.0];
    // State: k1..k8, pkm2, qkm2, pkm1, qkm1, ans.
    let mut init = ks.to_vec();
    init.extend([f.c(0.0)?, one, one, one, one]);
    let state = while_loop(f, &[z], &init, 300, |g, c, s| {
        let z = c[0];
        let k = &s[..8];
        let (mut pkm2, mut qkm2, mut pkm1, mut qkm1) = (s[8], s[9], s[10], s[11]);
        let ans = s[12];
        let mut step = |xk| -> Result<()> {
            let pk = g.add(pkm1, g.mul(pkm2, xk)?)?;
            let qk = g.add(qkm1, g.mul(qkm2, xk)?)?;
            (pkm2, pkm1, qkm2, qkm1) = (pkm1, pk, qkm1, qk);
            Ok(())
        };
        step(g.neg(g.div(g.mul(g.mul(z, k[0])?, k[1])?, g.mul(k[2], k[3])?)?)?)?;
        step(g.div(g.mul(g.mul(z, k[4])?, k[5])?, g.mul(k[6], k[7])?)?)?;
        let (pk, qk) = (pkm1, qkm1);
        let r = g.sel(g.eqc(qk, 0.0)?, ans, g.div(pk, qk)?)?;
        let r_zero = g.eqc(r, 0.0)?;
        let t = g.sel(r_zero, g.c(1.0)?, g.abs(g.div(g.sub(ans, r)?, r)?)?)?;
        let ans = g.sel(r_zero, ans, r)?;
        let go = g.not(g.lt(t, g.c(3.0 * EPS)?)?)?;
        let mut next: Vec<V> = k.iter().zip(steps).map(|(&v, d)| g.addc(v, d)).collect::<Result<_>>()?;
        // Rescaled by 2^-52 past 2^52, and by 2^52 below 2^-52.
        let size = g.add(g.abs(qk)?, g.abs(pk)?)?;
        let down = g.gtc(size, BIG)?;
        let up = g.or(g.ltc(g.abs(qk)?, 1.0 / BIG)?, g.ltc(g.abs(pk)?, 1.0 / BIG)?)?;
        let scale = g.sel(down, g.c(1.0 / BIG)?, g.c(1.0)?)?;
        let scale = g.sel(up, g.mulc(scale, BIG)?, scale)?;
        for v in [pkm2, qkm2, pkm1, qkm1] {
            next.push(g.mul(v, scale)?);
        }
        next.push(ans);
        Ok((next, go))
    })?;
    Ok(state[12])
}
