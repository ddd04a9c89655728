//! The math library's reference semantics: one scalar function per op, on `f64`, from the
//! `libm` crate (a port of musl's libm, which follows fdlibm) or written out from the
//! definition NumPy, SciPy and PyTensor use. `f32` elements are computed in `f64` and rounded
//! once, which gives the correctly rounded `f32` result for all but rare ties.

use ptl_lang::typed::{BinaryOp, UnaryOp};

/// The `f64` function of a float unary op of the math library; `None` for the ops
/// `elementwise.rs` evaluates itself.
pub(crate) fn unary_f64(op: UnaryOp) -> Option<fn(f64) -> f64> {
    use UnaryOp::*;
    Some(match op {
        Tan => libm::tan,
        Arcsin => libm::asin,
        Arccos => libm::acos,
        Arctan => libm::atan,
        Sinh => libm::sinh,
        Cosh => libm::cosh,
        Arcsinh => libm::asinh,
        // musl's acosh answers some x < 1 (its domain error is left to log); NumPy gives NaN.
        Arccosh => |x| if x < 1.0 { f64::NAN } else { libm::acosh(x) },
        Arctanh => libm::atanh,
        Exp2 => libm::exp2,
        Expm1 => libm::expm1,
        Log2 => libm::log2,
        Log10 => libm::log10,
        Cbrt => libm::cbrt,
        Square => |x| x * x,
        Reciprocal => |x| 1.0 / x,
        Sign => sign,
        Floor => libm::floor,
        Ceil => libm::ceil,
        // `rint` rounds half to even in the default rounding mode, as `np.round` does.
        Round => libm::rint,
        Trunc => libm::trunc,
        Erf => libm::erf,
        Erfc => libm::erfc,
        Erfcx => super::special::erfcx,
        // SciPy's gammaln(-inf) is -inf (musl's lgamma gives +inf).
        Gamma => super::special::gamma,
        Gammaln => |x| if x == f64::NEG_INFINITY { x } else { libm::lgamma(x) },
        Digamma => super::special::digamma,
        Trigamma => super::special::trigamma,
        I0 => super::bessel::i0,
        I1 => super::bessel::i1,
        I0e => super::bessel::i0e,
        I1e => super::bessel::i1e,
        J0 => super::bessel::j0,
        J1 => super::bessel::j1,
        Erfinv => super::special::erfinv,
        Erfcinv => super::special::erfcinv,
        Log1mexp => log1mexp,
        Softplus => softplus,
        _ => return None,
    })
}

/// The bool-valued tests on a float element.
pub(crate) fn test_f64(op: UnaryOp) -> Option<fn(f64) -> bool> {
    Some(match op {
        UnaryOp::Isnan => f64::is_nan,
        UnaryOp::Isinf => f64::is_infinite,
        UnaryOp::Isfinite => f64::is_finite,
        _ => return None,
    })
}

/// `np.sign`: -1, 0 or 1; NaN stays NaN and both zeros give `0.0`.
fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// `log(1 - exp(x))` for `x <= 0` (NaN above), as PyTensor's `log1mexp`: Maechler's switch
/// at `-log(2)` between `log(-expm1(x))` (near 0) and `log1p(-exp(x))` (far out).
fn log1mexp(x: f64) -> f64 {
    if x < -std::f64::consts::LN_2 { libm::log1p(-libm::exp(x)) } else { libm::log(-libm::expm1(x)) }
}

/// `log(1 + exp(x))` without overflow or loss: `max(x, 0) + log1p(exp(-|x|))`.
fn softplus(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    x.max(0.0) + libm::log1p(libm::exp(-x.abs()))
}

/// The `f64` function of a float binary op of the math library.
pub(crate) fn binary_f64(op: BinaryOp) -> Option<fn(f64, f64) -> f64> {
    Some(match op {
        BinaryOp::Arctan2 => libm::atan2,
        BinaryOp::Mod => |a, b| divmod(a, b).1,
        BinaryOp::FloorDivide => floor_divide,
        BinaryOp::Logaddexp => logaddexp,
        BinaryOp::Gammainc => super::incgamma::gammainc,
        BinaryOp::Gammaincc => super::incgamma::gammaincc,
        BinaryOp::Gammaincinv => super::incgamma_inv::gammaincinv,
        BinaryOp::Gammainccinv => super::incgamma_inv::gammainccinv,
        BinaryOp::Polygamma => super::special::polygamma,
        BinaryOp::OwensT => super::owens::owens_t,
        BinaryOp::Kv => super::bessel_k::kv,
        BinaryOp::Kve => super::bessel_k::kve,
        _ => return None,
    })
}

/// NumPy's `npy_logaddexp`.
fn logaddexp(x: f64, y: f64) -> f64 {
    if x == y {
        // Also handles infinities of the same sign.
        return x + std::f64::consts::LN_2;
    }
    let d = x - y;
    if d > 0.0 {
        x + libm::log1p(libm::exp(-d))
    } else if d <= 0.0 {
        y + libm::log1p(libm::exp(d))
    } else {
        d
    }
}

/// NumPy's `npy_divmod`: the floor quotient and the remainder with the divisor's sign.
fn divmod(a: f64, b: f64) -> (f64, f64) {
    let m = libm::fmod(a, b);
    if b == 0.0 {
        return (a / b, m);
    }
    let mut div = (a - m) / b;
    let mut m = m;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = libm::copysign(0.0, b);
    }
    let floordiv = if div != 0.0 {
        let f = libm::floor(div);
        if div - f > 0.5 { f + 1.0 } else { f }
    } else {
        libm::copysign(0.0, a / b)
    };
    (floordiv, m)
}

/// NumPy's `npy_floor_divide`: `a / b` when `b` is zero, else the quotient of `divmod`.
fn floor_divide(a: f64, b: f64) -> f64 {
    if b == 0.0 { a / b } else { divmod(a, b).0 }
}

/// Integer `floor_divide` and `mod` as NumPy computes them: division by zero gives 0, and
/// `MIN // -1` wraps to `MIN` (its remainder is 0).
pub(crate) fn int_divmod(a: i64, b: i64, min: i64) -> (i64, i64) {
    if b == 0 {
        return (0, 0);
    }
    if a == min && b == -1 {
        return (min, 0);
    }
    let (mut q, mut r) = (a / b, a % b);
    if r != 0 && ((r < 0) != (b < 0)) {
        q -= 1;
        r += b;
    }
    (q, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divmod_follows_numpy() {
        // np.mod / np.floor_divide
        assert_eq!(divmod(5.0, -3.0), (-2.0, -1.0));
        assert_eq!(divmod(-5.0, 3.0), (-2.0, 1.0));
        assert_eq!(divmod(-5.0, f64::INFINITY).1, f64::INFINITY);
        assert!(divmod(-0.0, 3.0).1.is_sign_positive());
        assert_eq!(floor_divide(5.0, 0.0), f64::INFINITY);
        assert!(floor_divide(0.0, 0.0).is_nan());
        assert_eq!(int_divmod(-7, 2, i64::MIN), (-4, 1));
        assert_eq!(int_divmod(7, 0, i64::MIN), (0, 0));
        assert_eq!(int_divmod(i64::MIN, -1, i64::MIN), (i64::MIN, 0));
    }

    #[test]
    fn tails_follow_scipy() {
        // scipy.special.log1mexp is absent; -np.expm1 / np.log1p references:
        // np.log(-np.expm1(-1e-10)) = -23.025850929990458
        assert_eq!(log1mexp(-1e-10), -23.025850929990458);
        // np.logaddexp(0, 800.0) = 800.0; np.logaddexp(0, -800.0) = 0.0 (exp underflows)
        assert_eq!(softplus(800.0), 800.0);
        assert_eq!(logaddexp(-f64::INFINITY, -f64::INFINITY), -f64::INFINITY);
        assert_eq!(sign(-0.0).to_bits(), 0.0f64.to_bits());
    }
}
