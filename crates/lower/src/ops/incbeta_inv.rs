//! `betaincinv(a, b, y)`: the `x` with `I_x(a, b) = y`, built from arithmetic in `f64`.
//!
//! Each element solves for whichever of `x` and `1 - x` is at most 1/2 (which side, one
//! `betainc` at 1/2 tells): `I_w(a, b) = y` with `w = x`, or `I_w(b, a) = 1 - y` with
//! `x = 1 - w` (`I_x(a, b) = 1 - I_(1-x)(b, a)`), so an answer near 0 or near 1 keeps its
//! digits; and on whichever of `I` and `1 - I` is at most 1/2 there, so the target is not a
//! complement near 1. From the leading term of the power series, `w^a / (a B(a, b))` (at
//! most 1/2), Newton's iteration on the logarithm of that tail in `log w` runs inside a
//! bracket in [0, 1/2] that every step narrows, falling back to bisection (geometric, or a
//! factor of 8 towards 0 while the bracket reaches 0), until a step moves `w` by at most
//! 4 ulps. As SciPy: NaN for `y` outside [0, 1], for `a` or `b` not positive, NaN, or both
//! infinite; `y = 0` gives 0 and `y = 1` gives 1; an infinite `a` gives 1, an infinite `b` 0.

use super::control::while_loop;
use super::fbuild::{F, V};
use super::incbeta::{betainc_with, Beta};
use super::roots::newton_in_log;
use crate::error::Result;

const MAX_STEPS: i64 = 300;
/// Below this `w`, `1 - w` no longer holds enough of `w` to compute `1 - I` from it.
const SMALL_W: f64 = 1.0 / 1024.0;

/// `betaincinv(a, b, y)`.
pub fn betaincinv<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>, y: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let (zero, one) = (f.c(0.0)?, f.c(1.0)?);
    let any_nan = f.or(f.or(f.is_nan(a)?, f.is_nan(b)?)?, f.is_nan(y)?)?;
    let outside = f.or(f.or(f.le(a, zero)?, f.le(b, zero)?)?, f.or(f.ltc(y, 0.0)?, f.gtc(y, 1.0)?)?)?;
    let (a_inf, b_inf) = (f.is_inf(a)?, f.is_inf(b)?);
    let undefined = f.or(f.or(any_nan, outside)?, f.and(a_inf, b_inf)?)?;
    let (y0, y1) = (f.eqc(y, 0.0)?, f.eqc(y, 1.0)?);
    let special = f.or(f.or(undefined, f.or(y0, y1)?)?, f.or(a_inf, b_inf)?)?;
    // Elsewhere a stand-in (1, 1, 1/2) keeps the loop short.
    let (a, b, y) = (f.sel(special, one, a)?, f.sel(special, one, b)?, f.sel(special, f.c(0.5)?, y)?);
    // The answer's side of 1/2: past it, the unknown is w = 1 - x, with I_w(b, a) = 1 - y, so
    // that the answer near 1 keeps its digits (and near 0 too).
    let half = f.c(0.5)?;
    // 1 / B(a, b) and log B(a, b) (the same with a and b swapped): for the median test, the
    // start and every step's value and slope.
    let beta = Beta::new(f, a, b)?;
    let swap = f.gt(y, betainc_with(f, a, b, half, Some(beta))?)?;
    let (p, q) = (f.sel(swap, b, a)?, f.sel(swap, a, b)?);
    let yc = f.sub(one, y)?;
    let (s, sc) = (f.sel(swap, yc, y)?, f.sel(swap, y, yc)?);
    // The tail that is at most one half: I = s, or 1 - I = 1 - s (`sc`).
    let upper = f.gtc(s, 0.5)?;
    // The start: w^p / (p B(p, q)) = s, at most 1/2.
    let lead = f.exp(f.div(f.add(f.add(f.log(s)?, f.log(p)?)?, beta.log)?, p)?)?;
    let w0 = f.sel(f.lt(lead, half)?, lead, half)?;
    let caps = [p, q, s, sc, upper, beta.inverse, beta.log];
    let state = while_loop(f, &caps, &[w0, f.c(0.0)?, f.c(0.5)?], MAX_STEPS, |g, caps, st| {
        let (p, q, s, sc, upper) = (caps[0], caps[1], caps[2], caps[3], caps[4]);
        let beta = Beta { inverse: caps[5], log: caps[6] };
        let (w, lo, hi) = (st[0], st[1], st[2]);
        let wc = g.sub(g.c(1.0)?, w)?;
        // Only the tail being solved is computed: I, or 1 - I as I_(1 - w)(q, p) (which keeps
        // its digits where it is small), or as 1 - I where w is too small for 1 - w to hold it.
        let far = g.and(upper, g.gec(w, SMALL_W)?)?;
        let near = g.and(upper, g.ltc(w, SMALL_W)?)?;
        let (u, v, z) = (g.sel(far, q, p)?, g.sel(far, p, q)?, g.sel(far, wc, w)?);
        let i = betainc_with(g, u, v, z, Some(beta))?;
        let tail = g.sel(near, g.sub(g.c(1.0)?, i)?, i)?;
        // h = log I - log s, or log(1 - s) - log(1 - I): rises with log w, with slope
        // w^p (1 - w)^(q - 1) / (B I) (or / (B (1 - I))).
        let value = g.sel(upper, g.sub(g.log(sc)?, g.log(tail)?)?, g.sub(g.log(tail)?, g.log(s)?)?)?;
        let slope = g.div(g.mul(beta.front(g, p, q, w, wc)?, p)?, g.mul(wc, tail)?)?;
        newton_in_log(g, w, lo, hi, value, slope)
    })?;
    let w = f.min(f.max(state[0], zero)?, half)?;
    let x = f.sel(swap, f.sub(one, w)?, w)?;
    let x = f.sel(b_inf, zero, x)?;
    let x = f.sel(a_inf, one, x)?;
    let x = f.sel(y0, zero, x)?;
    let x = f.sel(y1, one, x)?;
    f.sel(undefined, f.c(f64::NAN)?, x)
}
