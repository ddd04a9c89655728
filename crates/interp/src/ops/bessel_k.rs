//! Reference `kv(v, x)` and `kve(v, x)`, the modified Bessel function of the second kind of
//! real order, from its integral `K_v(x) = int_0^inf exp(-x cosh t) cosh(v t) dt`, by adaptive
//! Gauss-Kronrod quadrature (the compiled code uses Temme's series, Steed's continued fraction
//! and the recurrence in the order instead). The integrand is scaled by its peak, so a value
//! past the `f64` range comes out as an infinity or 0, not as NaN.

use super::quadrature::{adaptive, kronrod};

/// `ln` of the integrand of `exp(x) K_v(x)` at `t`: `-x (cosh t - 1) + ln cosh(v t)`, with
/// `cosh t - 1 = 2 sinh^2(t / 2)` (no cancellation near 0) and `ln cosh(vt)` without overflow.
fn log_integrand(v: f64, x: f64, t: f64) -> f64 {
    let s = libm::sinh(t / 2.0);
    let vt = (v * t).abs();
    -2.0 * x * s * s + vt + libm::log1p(libm::exp(-2.0 * vt)) - std::f64::consts::LN_2
}

/// `ln(exp(x) K_v(x))` for `v >= 0` and `0 < x < inf`.
fn log_kve(v: f64, x: f64) -> f64 {
    // The integrand peaks near t* = asinh(v / x), where x sinh t = v (ln(2v / x) when v / x
    // overflows); it is integrated as its ratio to its value there.
    let ratio = v / x;
    let top = if ratio.is_finite() { libm::asinh(ratio) } else { libm::log(2.0 * v) - libm::log(x) };
    // The end: where the integrand is below exp(-50) of its value at t* (doubling; past it the
    // integrand falls double-exponentially).
    let peak = log_integrand(v, x, top);
    let mut end = top.max(1e-3);
    while log_integrand(v, x, end) > peak - 50.0 {
        end *= 2.0;
    }
    // ln of the ratio, written so that nothing cancels near t*: -x (cosh t - cosh t*) is
    // -2x sinh((t + t*)/2) sinh((t - t*)/2).
    let at_top = libm::log1p(libm::exp(-2.0 * v * top));
    let g = |t: f64| {
        let spread = -2.0 * x * libm::sinh((t + top) / 2.0) * libm::sinh((t - top) / 2.0);
        let r = libm::exp(spread + v * (t - top) + libm::log1p(libm::exp(-2.0 * v * t)) - at_top);
        if r.is_nan() { 0.0 } else { r }
    };
    let rough = kronrod(&g, 0.0, end).0;
    let integral = adaptive(&g, 0.0, end, rough.abs().max(f64::MIN_POSITIVE) * 1e-15, 0);
    libm::log(integral) + peak
}

/// `kv(v, x) = K_v(x)` (`scaled` false) or `kve(v, x) = exp(x) K_v(x)` (true), as SciPy's: NaN
/// for NaN operands, an infinite order or `x < 0`; infinite at `x = 0`; 0 at `x = inf` (where
/// SciPy's `kve` gives NaN).
fn k(v: f64, x: f64, scaled: bool) -> f64 {
    if v.is_nan() || x.is_nan() || v.is_infinite() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY;
    }
    if x.is_infinite() {
        return 0.0;
    }
    let log = log_kve(v.abs(), x);
    libm::exp(if scaled { log } else { log - x })
}

pub(crate) fn kv(v: f64, x: f64) -> f64 {
    k(v, x, false)
}

pub(crate) fn kve(v: f64, x: f64) -> f64 {
    k(v, x, true)
}

#[cfg(test)]
mod tests {
    use super::{kv, kve};
    use crate::ops::quadrature::close;

    #[test]
    fn matches_scipy() {
        // scipy.special.kv and kve (SciPy 1.18)
        let cases = [
            (0.0, 1e-10, 23.141782445598867, 23.141782447913045),
            (-3.3, 2.0, 0.908574251808749, 6.713506116658789),
            (1000.0, 1000.0, 1.2981802514665018e-233, 2.557507414201687e+201),
        ];
        for (v, x, want_kv, want_kve) in cases {
            assert!(close(kv(v, x), want_kv, 1e-13), "kv({v}, {x}) = {} != {want_kv}", kv(v, x));
            assert!(close(kve(v, x), want_kve, 1e-13), "kve({v}, {x}) = {} != {want_kve}", kve(v, x));
        }
        // Where SciPy's kv underflows early (0.0), kve and the exact scaling agree.
        for (v, x, want_kve) in [(0.5, 700.0, 0.04737082174254673), (100.0, 1e4, 0.020662795900118148)] {
            assert!(close(kve(v, x), want_kve, 1e-13), "kve({v}, {x}) = {} != {want_kve}", kve(v, x));
        }
        // K_1/2(x) = sqrt(pi / (2x)) exp(-x), exactly.
        let exact = (std::f64::consts::PI / 1400.0).sqrt() * (-700.0f64).exp();
        assert!(close(kv(0.5, 700.0), exact, 1e-13));
        assert_eq!(kv(2.5, 1e-300), f64::INFINITY);
        assert_eq!(kv(200.0, 1.0), f64::INFINITY);
        assert_eq!(kv(0.0, 0.0), f64::INFINITY);
        assert!(kv(0.0, -1.0).is_nan() && kve(f64::INFINITY, 1.0).is_nan());
        assert_eq!(kv(1.0, f64::INFINITY), 0.0);
    }
}
