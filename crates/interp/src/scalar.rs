//! Per-element arithmetic for each dtype, with NumPy's semantics.
//!
//! Float math runs in the element's own precision (`f32` ops call the `f32` routines), so
//! results track what compiled `f32` code produces. Integer arithmetic wraps on overflow.

/// Float element operations (implemented for `f32` and `f64`).
pub(crate) trait FloatElem: Copy + PartialOrd + std::fmt::Debug + 'static {
    const ZERO: Self;
    const ONE: Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn powf(self, o: Self) -> Self;
    fn is_nan(self) -> bool;
    fn from_usize(n: usize) -> Self;
}

macro_rules! impl_float {
    ($t:ty) => {
        impl FloatElem for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn add(self, o: Self) -> Self { self + o }
            fn sub(self, o: Self) -> Self { self - o }
            fn mul(self, o: Self) -> Self { self * o }
            fn div(self, o: Self) -> Self { self / o }
            fn neg(self) -> Self { -self }
            fn exp(self) -> Self { <$t>::exp(self) }
            fn ln(self) -> Self { <$t>::ln(self) }
            fn powf(self, o: Self) -> Self { <$t>::powf(self, o) }
            fn is_nan(self) -> bool { <$t>::is_nan(self) }
            fn from_usize(n: usize) -> Self { n as $t }
        }
    };
}
impl_float!(f32);
impl_float!(f64);

/// `np.maximum`: NaN if either operand is NaN (the first one when both are).
pub(crate) fn fmaximum<T: FloatElem>(a: T, b: T) -> T {
    if a.is_nan() || a >= b { a } else { b }
}

/// `np.minimum`: NaN if either operand is NaN.
pub(crate) fn fminimum<T: FloatElem>(a: T, b: T) -> T {
    if a.is_nan() || a <= b { a } else { b }
}

/// `1 / (1 + exp(-x))`, in the element's precision.
pub(crate) fn sigmoid<T: FloatElem>(x: T) -> T {
    T::ONE.div(T::ONE.add(x.neg().exp()))
}

/// NumPy's pairwise summation (`pairwise_sum` in its loops), starting from the additive
/// identity as `np.add.reduce` does. Matches NumPy bit for bit when NumPy reduces the same
/// elements as one contiguous run (a whole-array sum, or the last axis of a C-ordered array).
pub(crate) fn pairwise_sum<T: FloatElem>(xs: &[T]) -> T {
    T::ZERO.add(pairwise(xs))
}

fn pairwise<T: FloatElem>(xs: &[T]) -> T {
    let n = xs.len();
    if n < 8 {
        let mut res = T::ZERO;
        for &x in xs {
            res = res.add(x);
        }
        res
    } else if n <= 128 {
        let mut r = [T::ZERO; 8];
        r.copy_from_slice(&xs[..8]);
        let mut i = 8;
        while i < n - n % 8 {
            for j in 0..8 {
                r[j] = r[j].add(xs[i + j]);
            }
            i += 8;
        }
        let mut res = (r[0].add(r[1]).add(r[2].add(r[3]))).add(r[4].add(r[5]).add(r[6].add(r[7])));
        while i < n {
            res = res.add(xs[i]);
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise(&xs[..n2]).add(pairwise(&xs[n2..]))
    }
}

/// Integer element operations (implemented for `i32` and `i64`); all wrap on overflow.
pub(crate) trait IntElem: Copy + Ord + std::fmt::Debug + 'static {
    const ZERO: Self;
    const ONE: Self;
    fn wadd(self, o: Self) -> Self;
    fn wsub(self, o: Self) -> Self;
    fn wmul(self, o: Self) -> Self;
    fn wneg(self) -> Self;
    fn wabs(self) -> Self;
    fn as_i64(self) -> i64;
}

macro_rules! impl_int {
    ($t:ty) => {
        impl IntElem for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            fn wadd(self, o: Self) -> Self { self.wrapping_add(o) }
            fn wsub(self, o: Self) -> Self { self.wrapping_sub(o) }
            fn wmul(self, o: Self) -> Self { self.wrapping_mul(o) }
            fn wneg(self) -> Self { self.wrapping_neg() }
            fn wabs(self) -> Self { self.wrapping_abs() }
            fn as_i64(self) -> i64 { self as i64 }
        }
    };
}
impl_int!(i32);
impl_int!(i64);

/// Integer power with wrapping (square-and-multiply is exact modulo 2^bits).
///
/// A negative exponent, where NumPy raises an error, gives the truncated real result
/// instead: `1` for base `1`, `±1` for base `-1`, and `0` for every other base (including 0).
pub(crate) fn ipow<T: IntElem>(base: T, exp: T) -> T {
    let e = exp.as_i64();
    if e < 0 {
        return match base.as_i64() {
            1 => T::ONE,
            -1 => {
                if e % 2 == 0 { T::ONE } else { T::ONE.wneg() }
            }
            _ => T::ZERO,
        };
    }
    let mut e = e as u64;
    let mut acc = T::ONE;
    let mut b = base;
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wmul(b);
        }
        b = b.wmul(b);
        e >>= 1;
    }
    acc
}

/// Conversions between dtypes, with NumPy's `astype` semantics:
/// x -> bool is `x != 0` (NaN is true); bool -> number is 0/1; int -> int wraps; int -> float
/// and f64 -> f32 round to nearest; float -> int truncates toward zero, and here NaN and
/// ±inf give 0 and finite values outside the target range saturate (NumPy leaves these
/// undefined).
pub(crate) trait CastElem: Copy {
    fn to_bool(self) -> bool;
    fn to_i32(self) -> i32;
    fn to_i64(self) -> i64;
    fn to_f32(self) -> f32;
    fn to_f64(self) -> f64;
}

impl CastElem for bool {
    fn to_bool(self) -> bool { self }
    fn to_i32(self) -> i32 { self as i32 }
    fn to_i64(self) -> i64 { self as i64 }
    fn to_f32(self) -> f32 { if self { 1.0 } else { 0.0 } }
    fn to_f64(self) -> f64 { if self { 1.0 } else { 0.0 } }
}

macro_rules! impl_cast_int {
    ($t:ty) => {
        impl CastElem for $t {
            fn to_bool(self) -> bool { self != 0 }
            fn to_i32(self) -> i32 { self as i32 }
            fn to_i64(self) -> i64 { self as i64 }
            fn to_f32(self) -> f32 { self as f32 }
            fn to_f64(self) -> f64 { self as f64 }
        }
    };
}
impl_cast_int!(i32);
impl_cast_int!(i64);

macro_rules! impl_cast_float {
    ($t:ty) => {
        impl CastElem for $t {
            fn to_bool(self) -> bool { self != 0.0 }
            fn to_i32(self) -> i32 { if self.is_finite() { self as i32 } else { 0 } }
            fn to_i64(self) -> i64 { if self.is_finite() { self as i64 } else { 0 } }
            fn to_f32(self) -> f32 { self as f32 }
            fn to_f64(self) -> f64 { self as f64 }
        }
    };
}
impl_cast_float!(f32);
impl_cast_float!(f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_pow_wraps_and_handles_negative_exponents() {
        assert_eq!(ipow(3i32, 4), 81);
        assert_eq!(ipow(2i32, 31), i32::MIN); // np.int32(2) ** 31 wraps
        assert_eq!(ipow(2i64, 64), 0);
        assert_eq!(ipow(5i64, 0), 1);
        assert_eq!(ipow(0i64, 0), 1);
        assert_eq!(ipow(2i64, -1), 0);
        assert_eq!(ipow(1i64, -5), 1);
        assert_eq!(ipow(-1i32, -3), -1);
        assert_eq!(ipow(-1i32, -4), 1);
    }

    #[test]
    fn maximum_minimum_propagate_nan() {
        assert!(fmaximum(f64::NAN, 1.0).is_nan());
        assert!(fmaximum(1.0, f64::NAN).is_nan());
        assert!(fminimum(1.0f32, f32::NAN).is_nan());
        assert_eq!(fmaximum(1.0, 2.0), 2.0);
        assert_eq!(fminimum(1.0, 2.0), 1.0);
    }

    #[test]
    fn pairwise_matches_numpy() {
        // np.sum(np.array([-0.0])) == 0.0 (positive zero: the reduction starts from 0)
        assert!(pairwise_sum(&[-0.0f64]).is_sign_positive());
        // np.sum(np.full(1000, 0.1, dtype=np.float32)) -> np.float32(100.000015)
        let xs = vec![0.1f32; 1000];
        assert_eq!(pairwise_sum(&xs), 100.000015f32);
        // np.sum(np.full(1000, 0.1)) -> np.float64(100.00000000000001)
        let ys = vec![0.1f64; 1000];
        assert_eq!(pairwise_sum(&ys), 100.00000000000001);
    }

    #[test]
    fn casts_follow_astype() {
        assert_eq!((-2.7f64).to_i32(), -2);
        assert_eq!(2.7f32.to_i64(), 2);
        assert_eq!(f64::NAN.to_i32(), 0);
        assert_eq!(f64::INFINITY.to_i64(), 0);
        assert!(f64::NAN.to_bool());
        assert!(!0.0f32.to_bool());
        assert_eq!(3_000_000_000i64.to_i32(), -1_294_967_296);
        assert_eq!(true.to_f64(), 1.0);
        assert_eq!(16_777_217i64.to_f32(), 16_777_216.0);
    }
}
