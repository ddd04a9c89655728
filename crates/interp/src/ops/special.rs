//! Reference `gamma`, `digamma`, `trigamma`, `erfinv` and `erfcinv`, written from their definitions with
//! algorithms of their own (the compiled code uses others: a Taylor series around digamma's
//! zero, the asymptotic series for trigamma, and Halley steps from Giles' approximation).

use std::f64::consts::PI;

/// The positive zero of digamma (the nearest double) and digamma's value there.
const ROOT: f64 = 1.4616321449683622;
const PSI_AT_ROOT: f64 = -9.241265521729427e-17;

/// `gamma(x)` as SciPy: musl's `tgamma`, except that past -170 the reflection
/// `pi / (-x sin(pi x) Gamma(-x))` gives ±0 where `Gamma(-x)` overflows (x < -171.62, where
/// the true values are subnormal; SciPy gives 0 from about -170.6 on); NaN at the negative
/// integers and -inf, ±inf at ±0.
pub(crate) fn gamma(x: f64) -> f64 {
    if x < 0.0 && x == x.floor() {
        return f64::NAN;
    }
    if x < -170.0 {
        let n = x.round();
        let s = libm::sin(PI * (x - n));
        let s = if n % 2.0 == 0.0 { s } else { -s };
        // Divided in turn: the product of the three overflows near -170.7.
        return PI / (-x * s) / libm::tgamma(-x);
    }
    libm::tgamma(x)
}

/// `digamma(x)` as SciPy: `-inf` at +0, `inf` at -0, NaN at the negative integers and -inf.
pub(crate) fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return -f64::INFINITY.copysign(x);
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        // Reflection: psi(x) = psi(1 - x) - pi cot(pi x), with cot's period taken exactly and,
        // past a quarter period, cot(pi r) = tan(pi (1/2 - |r|)) so the argument stays exact.
        let r = x - x.round();
        let cot = if r.abs() > 0.25 { libm::tan(PI * (0.5 - r.abs())).copysign(r) } else { 1.0 / libm::tan(PI * r) };
        return digamma(1.0 - x) - PI * cot;
    }
    if x < 10.0 {
        return PSI_AT_ROOT + (x - ROOT) * root_sum(ROOT, x);
    }
    // From 10: recurrence up to 20, then the asymptotic series.
    let (mut x, mut acc) = (x, 0.0);
    while x < 20.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    let series = z * (1.0 / 12.0 - z * (1.0 / 120.0 - z * (1.0 / 252.0 - z * (1.0 / 240.0 - z * (1.0 / 132.0)))));
    acc + x.ln() - 0.5 / x - series
}

/// `trigamma(x) = sum_{k >= 0} 1 / (x + k)^2` (10,000 terms, then Euler-Maclaurin) for x > 0,
/// and by the reflection `psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)` below; `inf` at 0, at the negative
/// integers and at -inf, as SciPy's `polygamma(1, x)`.
pub(crate) fn trigamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x <= 0.0 && x == x.floor() {
        return f64::INFINITY;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    if x < 0.0 {
        let s = libm::sin(PI * (x - x.round()));
        return PI * PI / (s * s) - trigamma(1.0 - x);
    }
    series_sum(x, x, 10_000)
}

/// `sum_{k >= 0} 1 / ((a + k)(b + k))`, so that `psi(b) - psi(a) = (b - a) * root_sum(a, b)`
/// without cancellation (a sum of positive terms, which keeps psi's relative accuracy next
/// to its zero and wherever the recurrence would cancel): 1000 terms summed smallest first, and the rest by Euler-Maclaurin
/// (integral, half the first term, and the derivative correction).
fn root_sum(a: f64, b: f64) -> f64 {
    series_sum(a, b, 1000)
}

/// `root_sum` with `terms` terms summed before Euler-Maclaurin takes over. Its first omitted
/// correction falls as `(a + terms)^-5`; trigamma of large x, whose sum is only about 1 / x,
/// needs more terms than digamma's differences for that to stay below an ulp.
fn series_sum(a: f64, b: f64, terms: usize) -> f64 {
    let f = |k: f64| 1.0 / ((a + k) * (b + k));
    let kf = terms as f64;
    let u = (b - a) / (a + kf);
    let integral = if u == 0.0 { 1.0 / (a + kf) } else { libm::log1p(u) / (u * (a + kf)) };
    let derivative = -f(kf) * (1.0 / (a + kf) + 1.0 / (b + kf));
    // Compensated (Neumaier): for large a and b the thousand terms lie far below the tail,
    // and each would round when added.
    let (mut sum, mut lost) = (integral + 0.5 * f(kf) - derivative / 12.0, 0.0);
    for k in (0..terms).rev() {
        let term = f(k as f64);
        let next = sum + term;
        if next.is_finite() {
            lost += if sum.abs() >= term.abs() { (sum - next) + term } else { (term - next) + sum };
        }
        sum = next;
    }
    sum + lost
}

/// `erfinv(y)`: Newton's method on `erf(x) = y` (on `erfc(x) = 1 - y` in the tail, where
/// that difference is exact) from Winitzki's closed-form start, until the step vanishes.
pub(crate) fn erfinv(y: f64) -> f64 {
    if y.is_nan() || y.abs() > 1.0 {
        return f64::NAN;
    }
    if y.abs() == 1.0 {
        return f64::INFINITY.copysign(y);
    }
    if y == 0.0 {
        return y;
    }
    let a = y.abs();
    inverse_erf(a, 1.0 - a).copysign(y)
}

/// `erfcinv(z) = erfinv(1 - z)` for z in [0, 2], with `1 - |erfinv|`'s complement passed on
/// exactly (z itself below 1, 2 - z above), so tiny z keeps its accuracy; `inf` at 0,
/// `-inf` at 2, NaN outside.
pub(crate) fn erfcinv(z: f64) -> f64 {
    if z.is_nan() || !(0.0..=2.0).contains(&z) {
        return f64::NAN;
    }
    if z == 0.0 {
        return f64::INFINITY;
    }
    if z == 2.0 {
        return f64::NEG_INFINITY;
    }
    // From 1 on the result is negative (-0 at 1, as SciPy's).
    if z < 1.0 { inverse_erf(1.0 - z, z) } else { -inverse_erf(z - 1.0, 2.0 - z) }
}

/// The x >= 0 with `erf(x) = a`, given `one_minus = 1 - a` exactly: Newton's method from
/// Winitzki's closed form, on `erfc(x) = one_minus` in the tail.
fn inverse_erf(a: f64, one_minus: f64) -> f64 {
    if a == 0.0 {
        return 0.0;
    }
    let l = libm::log(one_minus * (1.0 + a));
    let c = 2.0 / (PI * 0.147) + 0.5 * l;
    let mut x = ((c * c - l / 0.147).sqrt() - c).sqrt();
    for _ in 0..100 {
        let r = if a < 0.5 { libm::erf(x) - a } else { one_minus - libm::erfc(x) };
        let step = r / (2.0 / PI.sqrt() * (-x * x).exp());
        x -= step;
        if step.abs() <= 1e-17 * x.abs() {
            break;
        }
    }
    x
}

/// `erfcx(x) = exp(x^2) erfc(x)`. Below 2, that product, with `x^2 = h + l` split exactly so
/// the factor keeps its relative accuracy; from 2 on, the continued fraction
/// `erfcx(x) = 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))))`, 60 terms
/// evaluated from the last (within 2 ulps of SciPy's from 2 to 30).
pub(crate) fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 2.0 {
        let h = x * x;
        // (No low part where x^2 overflows: inf - inf would be NaN.)
        let l = if h.is_infinite() { 0.0 } else { libm::fma(x, x, -h) };
        return libm::exp(h) * libm::exp(l) * libm::erfc(x);
    }
    let mut t = x;
    for n in (1..=60).rev() {
        t = x + (n as f64 / 2.0) / t;
    }
    // (1 / t first: sqrt(pi) t overflows for the largest x.)
    (1.0 / t) / std::f64::consts::PI.sqrt()
}


/// `polygamma(n, x)` as SciPy: `digamma(x)` for `n = 0`, else `(-1)^(n+1) n! zeta(n + 1, x)`,
/// here with `zeta(s, x) = sum_{k < m} (x + k)^-s + zeta(s, z)` (`z = x + m >= max(30, 2n)`)
/// and the asymptotic series of `zeta(s, z)` with ten Bernoulli numbers. NaN for `n` negative
/// or not an integer, NaN, -inf and `x < -2^24`; `(-1)^(n+1) inf` at the poles.
pub(crate) fn polygamma(n: f64, x: f64) -> f64 {
    const BERNOULLI: [f64; 10] = [
        1.0 / 6.0,
        -1.0 / 30.0,
        1.0 / 42.0,
        -1.0 / 30.0,
        5.0 / 66.0,
        -691.0 / 2730.0,
        7.0 / 6.0,
        -3617.0 / 510.0,
        43867.0 / 798.0,
        -174611.0 / 330.0,
    ];
    if n.is_nan() || x.is_nan() || n < 0.0 || n != n.floor() || x == f64::NEG_INFINITY || x < -16_777_216.0 {
        return f64::NAN;
    }
    if n == 0.0 {
        return digamma(x);
    }
    let sign = if n % 2.0 == 1.0 { 1.0 } else { -1.0 };
    if x <= 0.0 && x == x.floor() {
        return sign * f64::INFINITY;
    }
    if x == f64::INFINITY {
        return sign * 0.0;
    }
    let s = n + 1.0;
    let target = (2.0 * n).max(30.0);
    let (mut z, mut direct) = (x, 0.0);
    while z < target {
        direct += z.powi(-(s as i32));
        z += 1.0;
    }
    // zeta(s, z) ~ z^(1-s) / (s-1) + z^-s / 2 + sum_k B_2k / (2k)! (s)(s+1)...(s+2k-2) z^(-s-2k+1)
    let mut tail = z.powf(1.0 - s) / (s - 1.0) + 0.5 * z.powf(-s);
    let (mut rising, mut zp, mut fact) = (s, z.powf(-s - 1.0), 2.0);
    for (k, b) in BERNOULLI.iter().enumerate() {
        tail += b / fact * rising * zp;
        let m = 2.0 * (k as f64 + 1.0);
        rising *= (s + m - 1.0) * (s + m);
        zp /= z * z;
        fact *= (m + 1.0) * (m + 2.0);
    }
    sign * gamma(n + 1.0) * (direct + tail)
}
