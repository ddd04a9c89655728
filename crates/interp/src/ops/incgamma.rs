//! Reference `gammainc(a, x)` and `gammaincc(a, x)`, the regularised incomplete gamma
//! functions `P(a, x)` and `Q(a, x) = 1 - P(a, x)`, by the textbook split (Numerical
//! Recipes' `gser`/`gcf`): the power series of `P` for `x < a + 1`, else the continued
//! fraction of `Q` by the modified Lentz method, the other function as the complement, with
//! no iteration limit short of convergence. The compiled code uses other methods (Cephes':
//! Temme's asymptotic expansion for large `a` near `x`, a series of `Q` for small `x`).
//!
//! The factor `x^a e^-x / Gamma(a)` is `exp(a log x - x - lgamma(a))` below `a = 10`, and from
//! there Stirling's `sqrt(a / 2 pi) exp(-a (s - log(1 + s)) - corr(a))` with `s = (x - a) / a`,
//! whose exponent keeps its accuracy where `x` is near a large `a`.

use std::f64::consts::PI;

const EPS: f64 = f64::EPSILON / 2.0;
/// Far beyond what any argument needs (about 9 sqrt(a) steps near `x = a`).
const MAX_STEPS: u64 = 100_000_000;

/// `gammainc(a, x)`.
pub(crate) fn gammainc(a: f64, x: f64) -> f64 {
    match incomplete(a, x) {
        Computed::P(p) => p,
        Computed::Q(q) => 1.0 - q,
        Computed::Special(p) => p,
    }
    .clamp(0.0, 1.0)
}

/// `gammaincc(a, x)`.
pub(crate) fn gammaincc(a: f64, x: f64) -> f64 {
    match incomplete(a, x) {
        Computed::P(p) => 1.0 - p,
        Computed::Q(q) => q,
        Computed::Special(p) => 1.0 - p,
    }
    .clamp(0.0, 1.0)
}

/// Which function the split computes; the other is its complement.
enum Computed {
    P(f64),
    Q(f64),
    /// The value of `P` at special arguments (NaN stays NaN as `1 - P`).
    Special(f64),
}

fn incomplete(a: f64, x: f64) -> Computed {
    if a.is_nan() || x.is_nan() || a < 0.0 || x < 0.0 {
        return Computed::Special(f64::NAN);
    }
    match (a == 0.0, x == 0.0, a.is_infinite(), x.is_infinite()) {
        (true, true, _, _) | (_, _, true, true) => Computed::Special(f64::NAN),
        (true, _, _, _) | (_, _, _, true) => Computed::Special(1.0),
        (_, true, _, _) | (_, _, true, _) => Computed::Special(0.0),
        _ if x < a + 1.0 => Computed::P(series(a, x)),
        _ => Computed::Q(fraction(a, x)),
    }
}

/// `x^a e^-x / Gamma(a)`.
fn factor(a: f64, x: f64) -> f64 {
    if a < 10.0 {
        return libm::exp(a * libm::log(x) - x - libm::lgamma(a));
    }
    let s = (x - a) / a;
    // -(s - log(1 + s)): the series where s is small, else directly.
    let log1pmx = if s.abs() < 0.5 {
        let (mut term, mut sum, mut k) = (s * s, 0.0, 2.0);
        loop {
            let t = term / k;
            let next = if (k as u64).is_multiple_of(2) { sum - t } else { sum + t };
            if next == sum {
                break sum;
            }
            sum = next;
            term *= s;
            k += 1.0;
        }
    } else if s < 0.0 {
        libm::log(x / a) - s
    } else {
        libm::log1p(s) - s
    };
    (a / (2.0 * PI)).sqrt() * libm::exp(a * log1pmx - stirling_corr(a))
}

/// `P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))`.
fn series(a: f64, x: f64) -> f64 {
    // For tiny a, `factor / a` would divide an underflowed factor: x^a e^-x / Gamma(a + 1)
    // directly (Gamma(a + 1) is near 1 there).
    let scale = if a < 1e-3 { libm::exp(a * libm::log(x) - x - libm::lgamma(a + 1.0)) } else { factor(a, x) / a };
    if scale == 0.0 {
        return 0.0;
    }
    let (mut r, mut term, mut sum) = (a, 1.0, 1.0);
    for _ in 0..MAX_STEPS {
        r += 1.0;
        term *= x / r;
        sum += term;
        if term <= sum * EPS {
            break;
        }
    }
    sum * scale
}

/// `Q(a, x) = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...))`.
fn fraction(a: f64, x: f64) -> f64 {
    let scale = factor(a, x);
    if scale == 0.0 {
        return 0.0;
    }
    let tiny = f64::MIN_POSITIVE / EPS;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / tiny;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..MAX_STEPS {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < tiny {
            d = tiny;
        }
        c = b + an / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() <= EPS {
            break;
        }
    }
    h * scale
}

/// Stirling's correction `log Gamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2)`, `x >= 10`.
pub(super) fn stirling_corr(x: f64) -> f64 {
    let r = 1.0 / (x * x);
    (1.0 / 12.0 - r * (1.0 / 360.0 - r * (1.0 / 1260.0 - r * (1.0 / 1680.0 - r * (1.0 / 1188.0 - r * (691.0 / 360360.0 - r / 156.0)))))) / x
}
