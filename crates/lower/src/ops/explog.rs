//! The exponential and logarithm family of the math library, built on `math.exp` and
//! `math.log` (which IREE compiles inline for `f64`) with the classic ways to keep precision:
//! Kahan's `expm1`/`log1p` tricks, fdlibm's case splits for the hyperbolic functions and their
//! inverses (`e_sinh.c`, `e_cosh.c`, `s_asinh.c`, `e_acosh.c`, `e_atanh.c`), and exact
//! exponent handling for `exp2`, `log2` and `log10`. All in `f64`.

use super::fbuild::{F, V};
use crate::error::Result;

const LN2: f64 = std::f64::consts::LN_2;

/// `log1p(x)` by Goldberg's trick: `log(u) * x / (u - 1)` with `u = 1 + x`.
pub fn log1p<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let u = f.addc(x, 1.0)?;
    let d = f.addc(u, -1.0)?;
    let r = f.div(f.mul(f.log(u)?, x)?, d)?;
    let exact = f.eqc(d, 0.0)?;
    let r = f.sel(exact, x, r)?;
    let big = f.eqc(u, f64::INFINITY)?;
    f.sel(big, u, r)
}

/// `expm1(x)` by Kahan's trick: `(u - 1) * x / log(u)` with `u = exp(x)`.
pub fn expm1<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let u = f.exp(x)?;
    let um1 = f.addc(u, -1.0)?;
    let r = f.div(f.mul(um1, x)?, f.log(u)?)?;
    let one = f.eqc(u, 1.0)?;
    let r = f.sel(one, x, r)?;
    let minus_one = f.eqc(um1, -1.0)?;
    let r = f.sel(minus_one, um1, r)?;
    // Far out, `u - 1` is exact enough, and `(u - 1) * x` could overflow.
    let r = f.sel(f.gtc(x, 40.0)?, um1, r)?;
    f.nan_through(x, r)
}

/// `2^x`: `2^n * exp(r * ln 2)` with `n` the nearest integer to `x` and `|r| <= 1/2`.
pub fn exp2<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let safe = f.max(f.min(x, f.c(1100.0)?)?, f.c(-1100.0)?)?;
    let nan = f.is_nan(x)?;
    let safe = f.sel(nan, f.c(0.0)?, safe)?;
    let n = f.roundeven(safe)?;
    let r = f.sub(safe, n)?;
    let m = f.exp(f.mulc(r, LN2)?)?;
    let y = f.ldexp(m, n)?;
    f.nan_through(x, y)
}

/// `x = m * 2^k` with `m` in [sqrt(1/2), sqrt(2)), for finite `x > 0` (subnormals too):
/// returns `(k, m)` with `k` an integral `f64`.
fn split<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<(V<'c, 'a>, V<'c, 'a>)> {
    let sub = f.ltc(x, f64::MIN_POSITIVE)?;
    let xs = f.sel(sub, f.mulc(x, 2f64.powi(54))?, x)?;
    let adj = f.sel(sub, f.c(-54.0)?, f.c(0.0)?)?;
    let b = f.bits(xs)?;
    let biased = f.shr(b, 52)?;
    let k = f.to_float(f.iand(biased, 0x7ff)?)?;
    let mant = f.iand(b, 0x000f_ffff_ffff_ffff)?;
    let m = f.from_bits(f.e.append(melior::dialect::arith::ori(mant, f.i(1023 << 52)?, f.e.loc))?)?;
    let high = f.gtc(m, std::f64::consts::SQRT_2)?;
    let m = f.sel(high, f.mulc(m, 0.5)?, m)?;
    let k = f.add(f.add(k, f.c(-1023.0)?)?, adj)?;
    let k = f.sel(high, f.addc(k, 1.0)?, k)?;
    Ok((k, m))
}

/// `log2(x)` (or `log10(x)` when `ten`): `k * c + log(m) / log(base)`, exact at powers of two
/// (for `log10`, `k * log10(2)` in two parts as fdlibm's `e_log10.c`).
pub fn log_base<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>, ten: bool) -> Result<V<'c, 'a>> {
    let (k, m) = split(f, x)?;
    let lm = f.log(m)?;
    let r = if ten {
        const LOG10_2HI: f64 = 3.010_299_956_636_117_713_06e-01;
        const LOG10_2LO: f64 = 3.694_239_077_158_930_786_16e-13;
        let z = f.add(f.mulc(k, LOG10_2LO)?, f.mulc(lm, std::f64::consts::LOG10_E)?)?;
        f.add(z, f.mulc(k, LOG10_2HI)?)?
    } else {
        f.add(k, f.mulc(lm, std::f64::consts::LOG2_E)?)?
    };
    // Zero, negatives, inf and NaN: `log` gives -inf, NaN, inf, NaN, as log2/log10 do.
    let pos = f.gtc(x, 0.0)?;
    let fin = f.ltc(x, f64::INFINITY)?;
    let ordinary = f.and(pos, fin)?;
    f.sel(ordinary, r, f.log(x)?)
}

/// `sinh` (fdlibm `e_sinh.c`): from `expm1(|x|)` below 22, `exp(|x|/2)^2 / 2` above.
pub fn sinh<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    let t = expm1(f, ax)?;
    let t1 = f.addc(t, 1.0)?;
    // |x| < 1: (2t - t^2/(t+1)) / 2; else (t + t/(t+1)) / 2.
    let small = f.sub(f.mulc(t, 2.0)?, f.div(f.mul(t, t)?, t1)?)?;
    let mid = f.add(t, f.div(t, t1)?)?;
    let lt1 = f.ltc(ax, 1.0)?;
    let r = f.mulc(f.sel(lt1, small, mid)?, 0.5)?;
    let w = f.exp(f.mulc(ax, 0.5)?)?;
    let big = f.mul(f.mulc(w, 0.5)?, w)?;
    let lt22 = f.ltc(ax, 22.0)?;
    let r = f.sel(lt22, r, big)?;
    let tiny = f.ltc(ax, 2f64.powi(-28))?;
    let r = f.sel(tiny, ax, r)?;
    let r = f.copysign(r, x)?;
    f.nan_through(x, r)
}

/// `cosh` (fdlibm `e_cosh.c`).
pub fn cosh<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    // |x| < ln2/2: 1 + t^2 / (2 (1 + t)), t = expm1(|x|).
    let t = expm1(f, ax)?;
    let w = f.addc(t, 1.0)?;
    let small = f.addc(f.div(f.mul(t, t)?, f.add(w, w)?)?, 1.0)?;
    // |x| < 22: (e + 1/e) / 2.
    let ex = f.exp(ax)?;
    let mid = f.add(f.mulc(ex, 0.5)?, f.div(f.c(0.5)?, ex)?)?;
    let h = f.exp(f.mulc(ax, 0.5)?)?;
    let big = f.mul(f.mulc(h, 0.5)?, h)?;
    let r = f.sel(f.ltc(ax, 22.0)?, mid, big)?;
    let r = f.sel(f.ltc(ax, 0.5 * LN2)?, small, r)?;
    f.nan_through(x, r)
}

/// `arcsinh` (fdlibm `s_asinh.c`).
pub fn asinh<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    let x2 = f.mul(ax, ax)?;
    let s = f.sqrt(f.addc(x2, 1.0)?)?;
    let huge = f.addc(f.log(ax)?, LN2)?;
    // |x| > 2: log(2|x| + 1 / (sqrt(x^2 + 1) + |x|))
    let big = f.log(f.add(f.mulc(ax, 2.0)?, f.div(f.c(1.0)?, f.add(s, ax)?)?)?)?;
    // else: log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))
    let small = log1p(f, f.add(ax, f.div(x2, f.addc(s, 1.0)?)?)?)?;
    let r = f.sel(f.gtc(ax, 2.0)?, big, small)?;
    let r = f.sel(f.gtc(ax, 2f64.powi(28))?, huge, r)?;
    let r = f.sel(f.ltc(ax, 2f64.powi(-28))?, ax, r)?;
    let r = f.copysign(r, x)?;
    f.nan_through(x, r)
}

/// `arccosh` (fdlibm `e_acosh.c`); NaN below 1.
pub fn acosh<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let huge = f.addc(f.log(x)?, LN2)?;
    let x2 = f.mul(x, x)?;
    // x > 2: log(2x - 1 / (x + sqrt(x^2 - 1)))
    let big = f.log(f.sub(f.mulc(x, 2.0)?, f.div(f.c(1.0)?, f.add(x, f.sqrt(f.addc(x2, -1.0)?)?)?)?)?)?;
    // 1 <= x <= 2: log1p(t + sqrt(2t + t^2)), t = x - 1
    let t = f.addc(x, -1.0)?;
    let small = log1p(f, f.add(t, f.sqrt(f.add(f.mulc(t, 2.0)?, f.mul(t, t)?)?)?)?)?;
    let r = f.sel(f.gtc(x, 2.0)?, big, small)?;
    let r = f.sel(f.gec(x, 2f64.powi(28))?, huge, r)?;
    let r = f.sel(f.ltc(x, 1.0)?, f.c(f64::NAN)?, r)?;
    f.nan_through(x, r)
}

/// `arctanh` (fdlibm `e_atanh.c`); ±inf at ±1, NaN beyond.
pub fn atanh<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    let t = f.add(ax, ax)?;
    let om = f.sub(f.c(1.0)?, ax)?;
    // |x| < 0.5: log1p(2|x| + 2|x| |x| / (1 - |x|)) / 2; else log1p(2|x| / (1 - |x|)) / 2.
    let small = log1p(f, f.add(t, f.div(f.mul(t, ax)?, om)?)?)?;
    let big = log1p(f, f.div(t, om)?)?;
    let r = f.mulc(f.sel(f.ltc(ax, 0.5)?, small, big)?, 0.5)?;
    let r = f.sel(f.ltc(ax, 2f64.powi(-28))?, ax, r)?;
    let r = f.sel(f.eqc(ax, 1.0)?, f.c(f64::INFINITY)?, r)?;
    let r = f.sel(f.gtc(ax, 1.0)?, f.c(f64::NAN)?, r)?;
    let r = f.copysign(r, x)?;
    f.nan_through(x, r)
}

/// `softplus(x) = log(1 + exp(x))` as `max(x, 0) + log1p(exp(-|x|))`.
pub fn softplus<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    let l = log1p(f, f.exp(f.neg(ax)?)?)?;
    let r = f.add(f.max(x, f.c(0.0)?)?, l)?;
    f.nan_through(x, r)
}

/// `log1mexp(x) = log(1 - exp(x))` (PyTensor's), with Maechler's switch at `-log 2` between
/// `log(-expm1(x))` and `log1p(-exp(x))`; NaN for `x > 0`, `-inf` at 0.
pub fn log1mexp<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let near = f.log(f.neg(expm1(f, x)?)?)?;
    let far = log1p(f, f.neg(f.exp(x)?)?)?;
    let r = f.sel(f.ltc(x, -LN2)?, far, near)?;
    f.nan_through(x, r)
}

/// NumPy's `logaddexp(a, b)`: `a + ln 2` when equal (infinities too), else the larger plus
/// `log1p(exp(-|a - b|))`.
pub fn logaddexp<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let d = f.sub(a, b)?;
    let l = log1p(f, f.exp(f.neg(f.abs(d)?)?)?)?;
    let pos = f.gtc(d, 0.0)?;
    let r = f.add(f.sel(pos, a, b)?, l)?;
    let r = f.sel(f.is_nan(d)?, d, r)?;
    let r = f.sel(f.eq(a, b)?, f.addc(a, LN2)?, r)?;
    Ok(r)
}
