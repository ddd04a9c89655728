//! One step of the bracketed Newton iteration in `log x` that the inverse special functions
//! (`gammaincinv`, `gammainccinv`, `betaincinv`) run per element inside `control::while_loop`.

use super::fbuild::{F, V};
use crate::error::Result;

/// A step moving `x` by at most this, relative, ends the iteration.
const TOLERANCE: f64 = 4.0 * f64::EPSILON;

/// From `x` in the bracket `[lo, hi]` (`lo` may be 0 and `hi` infinite), with `value` a
/// function rising in `log x` that is 0 at the answer and `slope` its derivative in `log x`:
/// the next state `[x, lo, hi]` and whether to go on. The Newton step runs where it stays
/// inside the narrowed bracket; elsewhere a geometric bisection (a factor of 8 while a side is
/// open). It stops at a step within the tolerance (which may touch a side of the bracket, then
/// the answer), a zero, or where `x` cannot move.
pub fn newton_in_log<'c, 'a>(
    g: F<'_, 'c, 'a>,
    x: V<'c, 'a>,
    lo: V<'c, 'a>,
    hi: V<'c, 'a>,
    value: V<'c, 'a>,
    slope: V<'c, 'a>,
) -> Result<(Vec<V<'c, 'a>>, V<'c, 'a>)> {
    let below = g.ltc(value, 0.0)?;
    let lo = g.sel(below, x, lo)?;
    let hi = g.sel(below, hi, x)?;
    let step = g.div(value, slope)?;
    let next = g.mul(x, g.exp(g.neg(step)?)?)?;
    let inside = g.and(g.gt(next, lo)?, g.lt(next, hi)?)?;
    let halve = g.sel(g.eqc(lo, 0.0)?, g.mulc(x, 0.125)?, g.mul(g.sqrt(lo)?, g.sqrt(hi)?)?)?;
    let bisect = g.sel(g.is_inf(hi)?, g.mulc(x, 8.0)?, halve)?;
    let converged = g.le(g.abs(step)?, g.c(TOLERANCE)?)?;
    let next = g.sel(g.or(inside, converged)?, next, bisect)?;
    let moved = g.gt(g.abs(g.sub(next, x)?)?, g.c(0.0)?)?;
    let go = g.and(g.and(moved, g.not(converged)?)?, g.not(g.eqc(value, 0.0)?)?)?;
    Ok((vec![next, lo, hi], go))
}
