//! Reference `betainc(a, b, x)`, the regularised incomplete beta function `I_x(a, b)`, by the
//! textbook method (Numerical Recipes' `betai`/`betacf`): the continued fraction of
//! `I_x(a, b)` by the modified Lentz method where `x < (a + 1) / (a + b + 2)`, else
//! `1 - I_{1-x}(b, a)`, with no iteration limit short of convergence. The compiled code uses
//! Cephes' methods (a power series for small `b x`, and two continued fractions).

use super::incgamma::stirling_corr as corr;

const EPS: f64 = f64::EPSILON / 2.0;
const MAX_STEPS: u64 = 100_000_000;

/// `betainc(a, b, x)` as SciPy: NaN for NaN, negative `a` or `b`, `x` outside [0, 1],
/// `a = b = 0` or both infinite; then 0 at `x = 0` and 1 at `x = 1`; 1 for `a = 0` or an
/// infinite `b`, 0 for `b = 0` or an infinite `a`. Clamped to [0, 1].
pub(crate) fn betainc(a: f64, b: f64, x: f64) -> f64 {
    if a.is_nan() || b.is_nan() || x.is_nan() || a < 0.0 || b < 0.0 || !(0.0..=1.0).contains(&x) {
        return f64::NAN;
    }
    if (a == 0.0 && b == 0.0) || (a.is_infinite() && b.is_infinite()) {
        return f64::NAN;
    }
    if x == 0.0 || x == 1.0 {
        return x;
    }
    if a == 0.0 || b.is_infinite() {
        return 1.0;
    }
    if b == 0.0 || a.is_infinite() {
        return 0.0;
    }
    let r = if x < (a + 1.0) / (a + b + 2.0) { front(a, b, x) } else { 1.0 - front(b, a, 1.0 - x) };
    r.clamp(0.0, 1.0)
}

/// `x^a (1 - x)^b / (a B(a, b))` times the continued fraction.
fn front(a: f64, b: f64, x: f64) -> f64 {
    let log_front = a * libm::log(x) + b * libm::log1p(-x) - log_beta(a, b) - libm::log(a);
    libm::exp(log_front) * fraction(a, b, x)
}

/// `log B(a, b)`, with Stirling's series for the large arguments so that the three large
/// logarithms do not cancel.
fn log_beta(a: f64, b: f64) -> f64 {
    let (p, q) = (a.min(b), a.max(b));
    if p >= 10.0 {
        // log B = log(sqrt(2 pi)) + (p - 1/2) log(p / (p + q)) + q log1p(-p / (p + q))
        //         - log(sqrt(q)) + corr(p) + corr(q) - corr(p + q)
        let c = corr(p) + corr(q) - corr(p + q);
        return -0.5 * libm::log(q) + 0.918_938_533_204_672_7 + c + (p - 0.5) * libm::log(p / (p + q)) + q * libm::log1p(-p / (p + q));
    }
    if q >= 10.0 {
        // log Gamma(q) - log Gamma(p + q) by Stirling, log Gamma(p) directly.
        let c = corr(q) - corr(p + q);
        return libm::lgamma(p) + c + p - p * libm::log(p + q) + (q - 0.5) * libm::log1p(-p / (p + q));
    }
    libm::lgamma(p) + libm::lgamma(q) - libm::lgamma(p + q)
}

/// The continued fraction `1 / (1 + d1 / (1 + d2 / (1 + ...)))` of `I_x(a, b)` (DLMF 8.17.22).
fn fraction(a: f64, b: f64, x: f64) -> f64 {
    let tiny = f64::MIN_POSITIVE / EPS;
    let clamp = |v: f64| if v.abs() < tiny { tiny } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / clamp(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..MAX_STEPS {
        let m = m as f64;
        let m2 = 2.0 * m;
        let even = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / clamp(1.0 + even * d);
        c = clamp(1.0 + even / c);
        h *= d * c;
        let odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / clamp(1.0 + odd * d);
        c = clamp(1.0 + odd / c);
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() <= EPS {
            break;
        }
    }
    h
}
