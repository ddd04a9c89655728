//! `gammaincinv(a, y)` and `gammainccinv(a, y)`: the `x` with `P(a, x) = y`, and the `x` with
//! `Q(a, x) = y`, built from arithmetic in `f64`.
//!
//! Each element solves on the tail that is at most one half at its answer (`P` below the
//! median, `Q` above it), so the target is never a complement near 1. The start is the
//! Wilson-Hilferty approximation for `a >= 1`, else the leading term of the series of `P`
//! (`x^a / Gamma(a + 1)`) below the median and of the continued fraction of `Q` above it.
//! Newton's iteration in `log x` on `g = log P(a, x) - log y` (or `log y - log Q(a, x)`)
//! then runs (in logarithms the far tails converge as fast as the middle), `P` and `Q` from
//! [`incgamma`], inside a bracket that every step narrows: a step that would leave the bracket
//! is a geometric bisection instead (or a factor of 8 while one side is open), so the
//! iteration converges from any start. It stops when a step changes `x` by at most 4 ulps,
//! or where it cannot move.
//! As SciPy: NaN for `y` outside [0, 1], negative, infinite or NaN `a`, and `a = 0` inside;
//! the ends `y = 0` and `y = 1` give 0 and infinity (`gammainccinv` the other way round).

use super::control::while_loop;
use super::erfinv::erfcinv;
use super::fbuild::{F, V};
use super::incgamma::{factor_with, incgamma_either};
use super::lgamma::gammaln;
use super::roots::newton_in_log;
use crate::error::Result;

const MAX_STEPS: i64 = 300;

/// `gammaincinv(a, y)` (`upper` false) or `gammainccinv(a, y)` (`upper` true).
pub fn incgamma_inv<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, y: V<'c, 'a>, upper: bool) -> Result<V<'c, 'a>> {
    let one = f.c(1.0)?;
    let bad = f.or(f.or(f.is_nan(a)?, f.is_nan(y)?)?, f.or(f.ltc(a, 0.0)?, f.is_inf(a)?)?)?;
    let nan = f.or(bad, f.or(f.ltc(y, 0.0)?, f.gtc(y, 1.0)?)?)?;
    let (at_zero, at_inf) = if upper { (1.0, 0.0) } else { (0.0, 1.0) };
    let (y_zero, y_inf) = (f.eqc(y, at_zero)?, f.eqc(y, at_inf)?);
    let a0 = f.eqc(a, 0.0)?;
    let special = f.or(f.or(nan, a0)?, f.or(y_zero, y_inf)?)?;
    // Elsewhere a stand-in (1, 1/2) keeps the loop short.
    let a = f.sel(special, one, a)?;
    let y = f.sel(special, f.c(0.5)?, y)?;
    let above = f.gtc(y, 0.5)?;
    let t = f.sel(above, f.sub(one, y)?, y)?;
    let on_q = if upper { f.not(above)? } else { above };
    // log Gamma(a), for the start and every step's slope: once, outside the loop.
    let log_gamma = gammaln(f, a)?;
    let x0 = start(f, a, t, on_q, log_gamma)?;
    let init = [x0, f.c(0.0)?, f.c(f64::INFINITY)?];
    let state = while_loop(f, &[a, t, on_q, log_gamma], &init, MAX_STEPS, |g, caps, s| {
        let (a, t, on_q, log_gamma) = (caps[0], caps[1], caps[2], caps[3]);
        let (x, lo, hi) = (s[0], s[1], s[2]);
        // Only the tail being solved is computed.
        let tail = incgamma_either(g, a, x, on_q)?;
        // In logarithms, which the far tails need: g = log P - log y (or log y - log Q) rises
        // with u = log x, with dg/du = (x^a e^-x / Gamma(a)) / P (or / Q).
        let gap = g.sub(g.log(tail)?, g.log(t)?)?;
        let value = g.sel(on_q, g.neg(gap)?, gap)?;
        let slope = g.div(factor_with(g, a, x, log_gamma)?, tail)?;
        newton_in_log(g, x, lo, hi, value, slope)
    })?;
    let r = state[0];
    let r = f.sel(y_inf, f.c(f64::INFINITY)?, r)?;
    let r = f.sel(y_zero, f.c(0.0)?, r)?;
    let undefined = f.or(nan, f.and(a0, f.not(f.or(y_zero, y_inf)?)?)?)?;
    f.sel(undefined, f.c(f64::NAN)?, r)
}

/// The starting `x` for the tail value `t <= 1/2` (of `Q` where `on_q`, else of `P`), given
/// `log Gamma(a)`.
fn start<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, t: V<'c, 'a>, on_q: V<'c, 'a>, log_gamma: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let one = f.c(1.0)?;
    // Wilson-Hilferty: x = a (1 - 1/(9a) + z / (3 sqrt a))^3, z the normal quantile of P.
    let z = f.mulc(erfcinv(f, f.mulc(t, 2.0)?)?, -std::f64::consts::SQRT_2)?;
    let z = f.sel(on_q, f.neg(z)?, z)?;
    let base = f.add(f.sub(one, f.div(one, f.mulc(a, 9.0)?)?)?, f.div(z, f.mulc(f.sqrt(a)?, 3.0)?)?)?;
    let wh = f.mul(a, f.mul(base, f.mul(base, base)?)?)?;
    let wh_fits = f.and(f.gtc(base, 0.0)?, f.gec(a, 1.0)?)?;
    // Below the median: P ~ x^a / Gamma(a + 1).
    let p = f.sel(on_q, f.sub(one, t)?, t)?;
    let low = f.exp(f.div(f.add(f.log(p)?, gammaln(f, f.addc(a, 1.0)?)?)?, a)?)?;
    // Above it: Q ~ x^(a - 1) e^-x / Gamma(a).
    let u = f.sub(f.neg(f.log(t)?)?, log_gamma)?;
    let high = f.max(f.add(u, f.mul(f.addc(a, -1.0)?, f.log(f.max(u, one)?)?)?)?, a)?;
    let other = f.sel(on_q, high, low)?;
    let x0 = f.sel(wh_fits, wh, other)?;
    // A start that is not a positive number (an overflow) begins the bracket search at 1.
    let usable = f.and(f.gtc(x0, 0.0)?, f.not(f.is_inf(x0)?)?)?;
    let usable = f.or(usable, f.eqc(x0, 0.0)?)?;
    f.sel(usable, x0, one)
}
