//! `kv(v, x)` and `kve(v, x)`: the modified Bessel function of the second kind of real order,
//! and `exp(x)` times it, in `f64` arithmetic, by Temme's method (N. M. Temme, J. Comput. Phys.
//! 19, 1975; the scheme of Numerical Recipes' `bessik`). With `v = mu + n`, `|mu| <= 1/2`:
//! `K_mu` and `K_mu+1` come from Temme's series below `x = 2` and from Steed's continued
//! fraction (CF2) from 2 on; the recurrence `K_(mu+k+1) = 2 (mu + k) / x K_(mu+k) + K_(mu+k-1)`,
//! stable upwards, then climbs to `K_v`. The recurrence rescales by `2^-500` whenever its values
//! pass `2^500` and the scale is applied once at the end (with `exp(-x)` for `kv`), so a value
//! is an infinity or 0 only when the result itself is. `K_-v = K_v`. (The interpreter
//! integrates `int_0^inf exp(-x cosh t) cosh(v t) dt` instead.)

use std::f64::consts::{LN_2, PI};

use super::control::while_loop;
use super::explog::{cosh, sinh};
use super::fbuild::{F, V};
use crate::error::Result;

const EPS: f64 = f64::EPSILON / 2.0;
/// The most steps of the series and of the continued fraction (each takes at most a few dozen).
const MAX_STEPS: i64 = 1000;
/// The most steps of the recurrence: a larger order gives NaN, unless the value overflows first.
const MAX_ORDER: i64 = 100_000;
/// The recurrence's rescaling: by `2^-RESCALE` once its values pass `2^RESCALE`.
const RESCALE: f64 = 500.0;

/// The Taylor coefficients of `1 / Gamma(1 + z)` at 0 (mpmath).
const RGAMMA: [f64; 26] = [
    1.0, 0.5772156649015329, -0.6558780715202539, -0.04200263503409524, 0.16653861138229148,
    -0.04219773455554433, -0.009621971527876973, 0.0072189432466631, -0.0011651675918590652,
    -0.00021524167411495098, 0.0001280502823881162, -2.013485478078824e-05, -1.2504934821426706e-06,
    1.133027231981696e-06, -2.056338416977607e-07, 6.116095104481416e-09, 5.002007644469223e-09,
    -1.18127457048702e-09, 1.0434267116911005e-10, 7.782263439905071e-12, -3.696805618642206e-12,
    5.100370287454476e-13, -2.0583260535665066e-14, -5.348122539423018e-15, 1.2267786282382608e-15,
    -1.1812593016974588e-16,
];
/// `sin(y) / y = sum_k (-1)^k y^2k / (2k + 1)!`, enough terms for `|y| <= pi / 2`.
const SINC: [f64; 12] = [
    1.0, -0.16666666666666666, 0.008333333333333333, -0.0001984126984126984, 2.7557319223985893e-06,
    -2.505210838544172e-08, 1.6059043836821613e-10, -7.647163731819816e-13, 2.8114572543455206e-15,
    -8.22063524662433e-18, 1.9572941063391263e-20, -3.868170170630684e-23,
];
/// `ln 2` in two parts (fdlibm's): `j * LN2_HI` is exact for `j < 2^21`.
const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;

/// `(K_mu(x), K_mu+1(x))` for `x` in `(0, 2]` by Temme's series.
fn temme<'c, 'a>(f: F<'_, 'c, 'a>, mu: V<'c, 'a>, x: V<'c, 'a>) -> Result<(V<'c, 'a>, V<'c, 'a>)> {
    // gam1 = (1/G(1-mu) - 1/G(1+mu)) / (2 mu) and gam2 = (1/G(1-mu) + 1/G(1+mu)) / 2 from the odd
    // and even coefficients: no cancellation at mu = 0.
    let m2 = f.mul(mu, mu)?;
    let even: Vec<f64> = RGAMMA.iter().step_by(2).copied().collect();
    let odd: Vec<f64> = RGAMMA.iter().skip(1).step_by(2).copied().collect();
    let gam2 = f.poly(m2, &even)?;
    let gam1 = f.neg(f.poly(m2, &odd)?)?;
    let plus = f.sub(gam2, f.mul(mu, gam1)?)?; // 1 / Gamma(1 + mu)
    let minus = f.add(gam2, f.mul(mu, gam1)?)?; // 1 / Gamma(1 - mu)
    let y = f.mulc(mu, PI)?;
    let fact = f.div(f.c(1.0)?, f.poly(f.mul(y, y)?, &SINC)?)?; // pi mu / sin(pi mu)
    let d = f.sub(f.c(LN_2)?, f.log(x)?)?; // -ln(x / 2)
    let e = f.mul(mu, d)?;
    let fact2 = f.sel(f.eqc(e, 0.0)?, f.c(1.0)?, f.div(sinh(f, e)?, e)?)?;
    let ff = f.mul(fact, f.add(f.mul(gam1, cosh(f, e)?)?, f.mul(f.mul(gam2, fact2)?, d)?)?)?;
    let ee = f.exp(e)?;
    let p = f.div(f.mulc(ee, 0.5)?, plus)?;
    let q = f.div(f.c(0.5)?, f.mul(ee, minus)?)?;
    let dd = f.mulc(f.mul(x, x)?, 0.25)?;
    let init = [f.c(0.0)?, ff, p, q, f.c(1.0)?, ff, p];
    let s = while_loop(f, &[mu, dd], &init, MAX_STEPS, |g, caps, s| {
        let (mu, dd) = (caps[0], caps[1]);
        let i = g.addc(s[0], 1.0)?;
        let ff = g.div(g.add(g.mul(i, s[1])?, g.add(s[2], s[3])?)?, g.sub(g.mul(i, i)?, g.mul(mu, mu)?)?)?;
        let c = g.mul(s[4], g.div(dd, i)?)?;
        let p = g.div(s[2], g.sub(i, mu)?)?;
        let q = g.div(s[3], g.add(i, mu)?)?;
        let del = g.mul(c, ff)?;
        let sum = g.add(s[5], del)?;
        let sum1 = g.add(s[6], g.mul(c, g.sub(p, g.mul(i, ff)?)?)?)?;
        let go = g.ge(g.abs(del)?, g.mulc(g.abs(sum)?, EPS)?)?;
        Ok((vec![i, ff, p, q, c, sum, sum1], go))
    })?;
    Ok((s[5], f.div(f.mulc(s[6], 2.0)?, x)?))
}

/// `(exp(x) K_mu(x), exp(x) K_mu+1(x))` for `x >= 2` by Steed's continued fraction CF2
/// (Thompson and Barnett's form).
fn steed<'c, 'a>(f: F<'_, 'c, 'a>, mu: V<'c, 'a>, x: V<'c, 'a>) -> Result<(V<'c, 'a>, V<'c, 'a>)> {
    let b = f.mulc(f.addc(x, 1.0)?, 2.0)?;
    let d = f.div(f.c(1.0)?, b)?;
    let a1 = f.sub(f.c(0.25)?, f.mul(mu, mu)?)?;
    let s0 = f.fma(a1, d, f.c(1.0)?)?;
    // State: i, a, b, c, d, delh, h, q, q1, q2, s.
    let init = [f.c(1.0)?, f.neg(a1)?, b, a1, d, d, d, a1, f.c(0.0)?, f.c(1.0)?, s0];
    let s = while_loop(f, &[], &init, MAX_STEPS, |g, _, s| {
        let i = g.addc(s[0], 1.0)?;
        let a = g.sub(s[1], g.mulc(g.addc(i, -1.0)?, 2.0)?)?;
        let c = g.div(g.neg(g.mul(a, s[3])?)?, i)?;
        let qnew = g.div(g.sub(s[8], g.mul(s[2], s[9])?)?, a)?;
        let q = g.fma(c, qnew, s[7])?;
        let b = g.addc(s[2], 2.0)?;
        let d = g.div(g.c(1.0)?, g.fma(a, s[4], b)?)?;
        let delh = g.mul(g.addc(g.mul(b, d)?, -1.0)?, s[5])?;
        let h = g.add(s[6], delh)?;
        let dels = g.mul(q, delh)?;
        let sum = g.add(s[10], dels)?;
        let go = g.ge(g.abs(dels)?, g.mulc(g.abs(sum)?, EPS)?)?;
        Ok((vec![i, a, b, c, d, delh, h, q, s[9], qnew, sum], go))
    })?;
    let h = f.mul(a1, s[6])?;
    let k0 = f.div(f.sqrt(f.div(f.c(PI / 2.0)?, x)?)?, s[10])?;
    let k1 = f.div(f.mul(k0, f.sub(f.add(f.addc(mu, 0.5)?, x)?, h)?)?, x)?;
    Ok((k0, k1))
}

/// `kv(v, x)` (`scaled` false) or `kve(v, x)` (true), as SciPy's: NaN for NaN operands, an
/// infinite order or `x < 0`; infinite at `x = 0`; 0 at `x = inf` (SciPy's `kve` gives NaN).
pub fn kv<'c, 'a>(f: F<'_, 'c, 'a>, v: V<'c, 'a>, x: V<'c, 'a>, scaled: bool) -> Result<V<'c, 'a>> {
    let one = f.c(1.0)?;
    let ordinary = f.and(f.gtc(x, 0.0)?, f.ltc(x, f64::INFINITY)?)?;
    let xs = f.sel(ordinary, x, one)?;
    let av = f.abs(v)?;
    let finite_v = f.ltc(av, f64::INFINITY)?;
    let vs = f.sel(finite_v, av, f.c(0.0)?)?;
    let n = f.floor(f.addc(vs, 0.5)?)?;
    let mu = f.sub(vs, n)?;
    // The start, exp(x) K_mu and exp(x) K_mu+1: each way on its own side of 2.
    let two = f.c(2.0)?;
    let (t0, t1) = temme(f, mu, f.min(xs, two)?)?;
    let (s0, s1) = steed(f, mu, f.max(xs, two)?)?;
    let near = f.ltc(xs, 2.0)?;
    let ex = f.exp(f.min(xs, two)?)?;
    let k0 = f.sel(near, f.mul(t0, ex)?, s0)?;
    let k1 = f.sel(near, f.mul(t1, ex)?, s1)?;
    // The recurrence: state i, K_(mu+i), K_(mu+i+1), rescalings; n steps (none for n = 0).
    let big = 2f64.powf(RESCALE);
    let init = [f.c(0.0)?, k0, k1, f.c(0.0)?];
    let s = while_loop(f, &[mu, xs, n], &init, MAX_ORDER + 1, |g, caps, s| {
        let (mu, x, n) = (caps[0], caps[1], caps[2]);
        let active = g.lt(s[0], n)?;
        let i = g.addc(s[0], 1.0)?;
        let next = g.fma(g.div(g.mulc(g.add(mu, i)?, 2.0)?, x)?, s[2], s[1])?;
        let over = g.gtc(next, big)?;
        let a = g.sel(over, g.mulc(s[2], 1.0 / big)?, s[2])?;
        let b = g.sel(over, g.mulc(next, 1.0 / big)?, next)?;
        let m = g.add(s[3], g.sel(over, g.c(1.0)?, g.c(0.0)?)?)?;
        let out = [i, a, b, m];
        let kept: Vec<V> = out.iter().zip(s).map(|(&new, &old)| g.sel(active, new, old)).collect::<Result<_>>()?;
        let go = g.and(g.lt(i, n)?, g.ltc(b, f64::INFINITY)?)?;
        Ok((kept, go))
    })?;
    let (i, k, kn, m) = (s[0], s[1], s[2], s[3]);
    // Stopped early: an overflow (the value is infinite) or too many steps (NaN).
    let done = f.ge(i, n)?;
    let k = f.sel(done, k, f.sel(f.is_inf(kn)?, f.c(f64::INFINITY)?, f.c(f64::NAN)?)?)?;
    let exponent = f.mulc(m, RESCALE)?;
    let r = if scaled {
        f.ldexp(k, exponent)?
    } else {
        // exp(-x) = 2^-j exp(-(x - j ln 2)), j = floor(x / ln 2): no underflow before the end.
        let j = f.floor(f.mulc(xs, 1.0 / LN_2)?)?;
        let rest = f.sub(f.sub(xs, f.mulc(j, LN2_HI)?)?, f.mulc(j, LN2_LO)?)?;
        f.ldexp(f.mul(k, f.exp(f.neg(rest)?)?)?, f.sub(exponent, j)?)?
    };
    let r = f.sel(f.eqc(x, 0.0)?, f.c(f64::INFINITY)?, r)?;
    let r = f.sel(f.eqc(x, f64::INFINITY)?, f.c(0.0)?, r)?;
    let bad = f.or(f.ltc(x, 0.0)?, f.not(finite_v)?)?;
    let r = f.sel(bad, f.c(f64::NAN)?, r)?;
    let r = f.nan_through(x, r)?;
    f.nan_through(v, r)
}
