//! Reference `betaincinv(a, b, y)`: the `x` with `I_x(a, b) = y`, by bisection over the ordered
//! bit patterns of the doubles in [0, 1/2] on the reference `betainc`, for `x` itself or, where
//! the answer is past 1/2, for `1 - x` (with `I_(1-x)(b, a) = 1 - y`), on whichever of `I` and
//! `1 - I` is at most one half. Sixty-odd halvings find the two neighbouring doubles that
//! bracket the crossing; the answer is the one whose value is nearer. The compiled code uses
//! another method (Newton's iteration in `log x`).

use super::incbeta::betainc;

/// `betaincinv(a, b, y)`.
pub(crate) fn betaincinv(a: f64, b: f64, y: f64) -> f64 {
    if a.is_nan() || b.is_nan() || y.is_nan() || a <= 0.0 || b <= 0.0 || !(0.0..=1.0).contains(&y) {
        return f64::NAN;
    }
    if a.is_infinite() && b.is_infinite() {
        return f64::NAN;
    }
    if y == 0.0 || y == 1.0 {
        return y;
    }
    if a.is_infinite() {
        return 1.0;
    }
    if b.is_infinite() {
        return 0.0;
    }
    // Past the median's side of 1/2, the unknown is w = 1 - x with I_w(b, a) = 1 - y.
    let swap = y > betainc(a, b, 0.5);
    let (p, q, s) = if swap { (b, a, 1.0 - y) } else { (a, b, y) };
    let sc = if swap { y } else { 1.0 - y };
    // g(w) rises with w in [0, 1/2]; it is 0 at the answer. Above one half the complement
    // I_(1-w)(q, p), or 1 - I where w is too small for 1 - w to hold it.
    let g = |w: f64| {
        if s <= 0.5 {
            betainc(p, q, w) - s
        } else if w >= 1.0 / 1024.0 {
            sc - betainc(q, p, 1.0 - w)
        } else {
            sc - (1.0 - betainc(p, q, w))
        }
    };
    let (mut lo, mut hi) = (0u64, 0.5f64.to_bits());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if g(f64::from_bits(mid)) < 0.0 { lo = mid } else { hi = mid }
    }
    let (w_lo, w_hi) = (f64::from_bits(lo), f64::from_bits(hi));
    let w = if g(w_lo).abs() < g(w_hi).abs() { w_lo } else { w_hi };
    if swap { 1.0 - w } else { w }
}
