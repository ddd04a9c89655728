//! Reference `gammaincinv(a, y)` and `gammainccinv(a, y)`: the `x` with `P(a, x) = y`, and the
//! `x` with `Q(a, x) = y`, by bisection over the ordered bit patterns of the non-negative
//! doubles, on the reference `P` or `Q`, whichever is the smaller at the answer (the other
//! would be a complement near 1). Sixty-four halvings find the two neighbouring doubles that
//! bracket the crossing; the answer is the one whose value is nearer `y`. The compiled code
//! uses another method (Halley's iteration from a Wilson-Hilferty start).

use super::incgamma::{gammainc, gammaincc};

/// `gammaincinv(a, y)`.
pub(crate) fn gammaincinv(a: f64, y: f64) -> f64 {
    inverse(a, y, false)
}

/// `gammainccinv(a, y)`.
pub(crate) fn gammainccinv(a: f64, y: f64) -> f64 {
    inverse(a, y, true)
}

fn inverse(a: f64, y: f64, upper: bool) -> f64 {
    if a.is_nan() || y.is_nan() || !(0.0..=1.0).contains(&y) || a < 0.0 || a.is_infinite() {
        return f64::NAN;
    }
    // P = 0 at x = 0 and P = 1 at x = inf, whatever a (SciPy's values at the ends).
    let (at_zero, at_inf) = if upper { (1.0, 0.0) } else { (0.0, 1.0) };
    if y == at_zero {
        return 0.0;
    }
    if y == at_inf {
        return f64::INFINITY;
    }
    if a == 0.0 {
        return f64::NAN;
    }
    // Solve on the tail that is at most one half: the P side below the median, Q above.
    let (target, on_q) = if y > 0.5 { (1.0 - y, !upper) } else { (y, upper) };
    // g(x) rises with x; it is 0 at the answer.
    let g = |x: f64| if on_q { target - gammaincc(a, x) } else { gammainc(a, x) - target };
    let (mut lo, mut hi) = (0u64, f64::INFINITY.to_bits());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if g(f64::from_bits(mid)) < 0.0 { lo = mid } else { hi = mid }
    }
    let (x_lo, x_hi) = (f64::from_bits(lo), f64::from_bits(hi));
    if g(x_lo).abs() < g(x_hi).abs() { x_lo } else { x_hi }
}
