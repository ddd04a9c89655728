//! Reference `i0`, `i1`, `i0e` and `i1e`, from their power series up to 30 and Hankel's
//! asymptotic series beyond (the compiled code uses Chebyshev expansions instead). Both series
//! are summed until their terms stop mattering; the power series' terms are all positive, so
//! the sums keep their relative accuracy. At the infinities `i0` and `i1` are NaN, and `i0e`
//! and `i1e` 0, as SciPy's.

/// Where the power series hands over to the asymptotic one: at 30 the asymptotic series'
/// smallest term is about 1e-26 of the sum.
const SWITCH: f64 = 30.0;

/// `I_nu(a)` for `a` in [0, SWITCH] and nu = 0 or 1, from
/// `sum_k (a/2)^(2k + nu) / (k! (k + nu)!)`.
fn power_series(a: f64, nu: u32) -> f64 {
    let q = a * a / 4.0;
    let mut term = if nu == 0 { 1.0 } else { a / 2.0 };
    let mut sum = term;
    let mut k = 1.0;
    while term > sum * 1e-18 {
        term *= q / (k * (k + nu as f64));
        sum += term;
        k += 1.0;
    }
    sum
}

/// `exp(-a) I_nu(a)` for a > SWITCH: `(2 pi a)^(-1/2) sum_k (-1)^k a_k(nu) / a^k` with
/// `a_k(nu) = prod_{j=1..k} (4 nu^2 - (2j - 1)^2) / (k! 8^k)`, summed while the terms shrink.
fn asymptotic(a: f64, nu: u32) -> f64 {
    let mu = 4.0 * (nu * nu) as f64;
    let mut term = 1.0f64;
    let mut sum = 1.0;
    for k in 1..200 {
        let odd = (2 * k - 1) as f64;
        let next = -term * (mu - odd * odd) / (k as f64 * 8.0 * a);
        if next.abs() >= term.abs() || next == 0.0 {
            break;
        }
        term = next;
        sum += term;
    }
    // (2 pi a)^(-1/2), without overflowing 2 pi a.
    sum / (2.0 * std::f64::consts::PI).sqrt() / a.sqrt()
}

/// `exp(-|x|) I_nu(|x|)`.
fn scaled(x: f64, nu: u32) -> f64 {
    let a = x.abs();
    if a.is_infinite() {
        0.0
    } else if a <= SWITCH {
        power_series(a, nu) * (-a).exp()
    } else {
        asymptotic(a, nu)
    }
}

/// `I_nu(|x|)`; infinite where it overflows, NaN at the infinities.
fn unscaled(x: f64, nu: u32) -> f64 {
    let a = x.abs();
    if a.is_infinite() {
        f64::NAN
    } else if a <= SWITCH {
        power_series(a, nu)
    } else {
        asymptotic(a, nu) * a.exp()
    }
}

pub(crate) fn i0(x: f64) -> f64 {
    if x.is_nan() { x } else { unscaled(x, 0) }
}

pub(crate) fn i1(x: f64) -> f64 {
    if x.is_nan() { x } else { odd(x, unscaled(x, 1)) }
}

pub(crate) fn i0e(x: f64) -> f64 {
    if x.is_nan() { x } else { scaled(x, 0) }
}

pub(crate) fn i1e(x: f64) -> f64 {
    if x.is_nan() { x } else { odd(x, scaled(x, 1)) }
}

/// `r`, negated where `x < 0` (`-0` gives `+0`, as SciPy's).
fn odd(x: f64, r: f64) -> f64 {
    if x < 0.0 { -r } else { r }
}

/// musl's `j0` (fdlibm's rational approximations and asymptotic form), NaN at the infinities
/// as SciPy's (musl gives 0 there).
pub(crate) fn j0(x: f64) -> f64 {
    if x.is_infinite() { f64::NAN } else { libm::j0(x) }
}

/// musl's `j1`, NaN at the infinities as SciPy's.
pub(crate) fn j1(x: f64) -> f64 {
    if x.is_infinite() { f64::NAN } else { libm::j1(x) }
}
