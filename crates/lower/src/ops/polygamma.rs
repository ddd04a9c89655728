//! `polygamma(n, x)`, the n-th derivative of digamma, built from arithmetic in `f64`, as SciPy
//! defines it: `digamma(x)` for `n = 0`, else `(-1)^(n+1) n! zeta(n + 1, x)` with Hurwitz's
//! zeta function computed as Cephes' `zeta.c`: the sum `sum_k (x + k)^-s` until `x + k > 9`
//! (at least nine terms, fewer where they fall below the rounding), then Euler-Maclaurin's
//! tail with twelve Bernoulli terms. A negative `x` is summed from there (a loop of about
//! `|x|` steps, at most 2^24: beyond -1.6e7 the result is NaN). NaN for `n` negative or not
//! an integer, NaN and -inf; `(-1)^(n+1) inf` at the poles (0 and the negative integers), as
//! SciPy; `inf` where `n!` overflows (from `n = 171`).

use super::control::while_loop;
use super::digamma::digamma;
use super::fbuild::{F, V};
use super::gamma::gamma;
use crate::error::Result;

const EPS: f64 = f64::EPSILON / 2.0;
/// Cephes' `A[i] = (2i + 2)! / B_{2i+2}`.
const EM: [f64; 12] = [
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
];

/// `polygamma(n, x)`.
pub fn polygamma<'c, 'a>(f: F<'_, 'c, 'a>, n: V<'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let valid = f.and(f.gec(n, 0.0)?, f.eq(n, f.floor(n)?)?)?;
    let pole = f.and(f.le(x, f.c(0.0)?)?, f.eq(x, f.floor(x)?)?)?;
    let far = f.ltc(x, -16_777_216.0)?;
    let plain = f.and(f.and(valid, f.not(pole)?)?, f.and(f.not(far)?, f.not(f.is_inf(x)?)?)?)?;
    // Elsewhere a stand-in (n = 1, x = 1) keeps the loop short.
    let (n1, x1) = (f.sel(plain, n, f.c(1.0)?)?, f.sel(plain, x, f.c(1.0)?)?);
    let s = f.addc(n1, 1.0)?;
    let odd_n = f.eqc(f.sub(n1, f.mulc(f.floor(f.mulc(n1, 0.5)?)?, 2.0)?)?, 1.0)?;
    let sign = f.sel(odd_n, f.c(1.0)?, f.c(-1.0)?)?;
    let r = f.mul(f.mul(sign, gamma(f, s)?)?, hurwitz(f, s, x1, odd_n)?)?;
    // x = inf: (-1)^(n+1) 0; a pole: (-1)^(n+1) inf.
    let r = f.sel(f.eqc(x, f64::INFINITY)?, f.mulc(sign, 0.0)?, r)?;
    let r = f.sel(pole, f.mulc(sign, f64::INFINITY)?, r)?;
    let r = f.sel(f.eqc(n, 0.0)?, digamma(f, x)?, r)?;
    let bad = f.or(f.not(valid)?, f.or(far, f.eqc(x, f64::NEG_INFINITY)?)?)?;
    let r = f.sel(bad, f.c(f64::NAN)?, r)?;
    f.nan_through(x, r)
}

/// `a^-s` for an integral `s`, negative where `a < 0` and `s` is odd (`s_odd`).
fn power<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, s: V<'c, 'a>, s_odd: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let m = f.exp(f.neg(f.mul(s, f.log(f.abs(a)?)?)?)?)?;
    f.sel(f.and(f.ltc(a, 0.0)?, s_odd)?, f.neg(m)?, m)
}

/// Hurwitz's `zeta(s, q)` for an integral `s >= 2` (`s_odd`: `s` is odd), `q` not a pole.
fn hurwitz<'c, 'a>(f: F<'_, 'c, 'a>, s: V<'c, 'a>, q: V<'c, 'a>, n_odd: V<'c, 'a>) -> Result<V<'c, 'a>> {
    // s = n + 1 is odd where n is even.
    let s_odd = f.not(n_odd)?;
    let first = power(f, q, s, s_odd)?;
    // State: i, a, b, sum, done.
    let init = [f.c(0.0)?, q, first, first, f.e.const_scalar(ptl_lang::DType::Bool, 0.0)?];
    let state = while_loop(f, &[s, s_odd], &init, 1 << 24, |g, c, st| {
        let (s, s_odd) = (c[0], c[1]);
        let i = g.addc(st[0], 1.0)?;
        let a = g.addc(st[1], 1.0)?;
        let b = power(g, a, s, s_odd)?;
        let sum = g.add(st[3], b)?;
        let done = g.ltc(g.abs(g.div(b, sum)?)?, EPS)?;
        let more = g.or(g.ltc(i, 9.0)?, g.le(a, g.c(9.0)?)?)?;
        let go = g.and(g.not(done)?, more)?;
        Ok((vec![i, a, b, sum, done], go))
    })?;
    let (w, b, sum, done) = (state[1], state[2], state[3], state[4]);
    // Euler-Maclaurin: + b w / (s - 1) - b / 2 + sum_i (s)_{2i+1} b / w^{2i+1} / A[i].
    let mut total = f.sub(f.add(sum, f.div(f.mul(b, w)?, f.addc(s, -1.0)?)?)?, f.mulc(b, 0.5)?)?;
    let (mut rising, mut bw, mut k) = (f.c(1.0)?, b, f.c(0.0)?);
    let mut go = f.e.const_scalar(ptl_lang::DType::Bool, 1.0)?;
    for a_i in EM {
        rising = f.mul(rising, f.add(s, k)?)?;
        bw = f.div(bw, w)?;
        let t = f.div(f.mul(rising, bw)?, f.c(a_i)?)?;
        let next = f.add(total, t)?;
        total = f.sel(go, next, total)?;
        go = f.and(go, f.not(f.ltc(f.abs(f.div(t, total)?)?, EPS)?)?)?;
        k = f.addc(k, 1.0)?;
        rising = f.mul(rising, f.add(s, k)?)?;
        bw = f.div(bw, w)?;
        k = f.addc(k, 1.0)?;
    }
    f.sel(done, sum, total)
}
