//! The math library's element code: which algorithm each op of `UnaryOp`/`BinaryOp` beyond
//! the basic arithmetic uses. Exact ops (rounding, sign, square, the tests) work in the
//! element's own dtype; the transcendental ones compute in `f64` (`f32` is widened, computed
//! and rounded once) with the algorithms of `explog.rs`, `invtrig.rs` and `special.rs`.

use melior::dialect::arith::{self, CmpfPredicate, CmpiPredicate};
use melior::ir::Value;
use ptl_lang::DType;
use ptl_lang::typed::{BinaryOp, TernaryOp, UnaryOp};

use super::fbuild::{F, V};
use super::{bessel, digamma, erfinv, explog, gamma, incbeta, incbeta_inv, incgamma, incgamma_inv, invtrig, lgamma, polygamma, special};
use crate::emitter::Emitter;
use crate::error::Result;

/// One element of a math-library unary op; `None` for the ops `scalar.rs` builds.
pub fn unary<'c, 'a>(e: &Emitter<'c, 'a>, op: UnaryOp, dt: DType, x: Value<'c, 'a>) -> Result<Option<Value<'c, 'a>>> {
    use UnaryOp::*;
    let f = F::new(e);
    if dt == DType::Bool {
        return Ok(match op {
            LogicalNot => {
                let t = e.const_scalar(DType::Bool, 1.0)?;
                Some(e.append(arith::xori(x, t, e.loc))?)
            }
            _ => None,
        });
    }
    if dt.is_int() {
        return Ok(match op {
            Square => Some(e.append(arith::muli(x, x, e.loc))?),
            Sign => Some(int_sign(e, dt, x)?),
            Floor | Ceil | Round | Trunc => Some(x),
            _ => None,
        });
    }
    let cmp = |p, a, b| e.append(arith::cmpf(e.ctx, p, a, b, e.loc));
    let inf = e.const_scalar(dt, f64::INFINITY)?;
    // Ops exact in the element's own dtype.
    let exact = match op {
        Isnan => Some(cmp(CmpfPredicate::Uno, x, x)?),
        Isinf => Some(cmp(CmpfPredicate::Oeq, f.abs(x)?, inf)?),
        Isfinite => Some(cmp(CmpfPredicate::Olt, f.abs(x)?, inf)?),
        Square => Some(f.mul(x, x)?),
        Reciprocal => Some(f.div(e.const_scalar(dt, 1.0)?, x)?),
        Floor => Some(f.floor(x)?),
        Ceil => Some(f.ceil(x)?),
        Trunc => Some(f.trunc(x)?),
        // `math.roundeven`: half to even, as `np.round`.
        Round => Some(f.roundeven(x)?),
        Sign => Some(float_sign(e, dt, x)?),
        _ => None,
    };
    if exact.is_some() {
        return Ok(exact);
    }
    let w = f.widen(dt, x)?;
    let r = match op {
        Tan => invtrig::tan(f, w)?,
        Arcsin => invtrig::asin(f, w)?,
        Arccos => invtrig::acos(f, w)?,
        Arctan => invtrig::atan(f, w)?,
        Sinh => explog::sinh(f, w)?,
        Cosh => explog::cosh(f, w)?,
        Arcsinh => explog::asinh(f, w)?,
        Arccosh => explog::acosh(f, w)?,
        Arctanh => explog::atanh(f, w)?,
        Exp2 => explog::exp2(f, w)?,
        Expm1 => explog::expm1(f, w)?,
        Log2 => explog::log_base(f, w, false)?,
        Log10 => explog::log_base(f, w, true)?,
        Cbrt => special::cbrt(f, w)?,
        Erf => special::erf(f, w)?,
        Erfc => special::erfc(f, w)?,
        Erfcx => special::erfcx(f, w)?,
        Gamma => gamma::gamma(f, w)?,
        Gammaln => lgamma::gammaln(f, w)?,
        Digamma => digamma::digamma(f, w)?,
        Trigamma => digamma::trigamma(f, w)?,
        I0 => bessel::i0(f, w)?,
        I1 => bessel::i1(f, w)?,
        I0e => bessel::i0e(f, w)?,
        I1e => bessel::i1e(f, w)?,
        J0 => bessel::j0(f, w)?,
        J1 => bessel::j1(f, w)?,
        Erfinv => erfinv::erfinv(f, w)?,
        Erfcinv => erfinv::erfcinv(f, w)?,
        Log1mexp => explog::log1mexp(f, w)?,
        Softplus => explog::softplus(f, w)?,
        _ => return Ok(None),
    };
    Ok(Some(f.narrow(dt, r)?))
}

/// `np.sign` on floats: -1, 0 (for both zeros) or 1; NaN stays NaN.
fn float_sign<'c, 'a>(e: &Emitter<'c, 'a>, dt: DType, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let f = F::new(e);
    let zero = e.const_scalar(dt, 0.0)?;
    let one = e.const_scalar(dt, 1.0)?;
    let minus = e.const_scalar(dt, -1.0)?;
    let cmp = |p, a, b| e.append(arith::cmpf(e.ctx, p, a, b, e.loc));
    let r = f.sel(cmp(CmpfPredicate::Oeq, x, zero)?, zero, x)?;
    let r = f.sel(cmp(CmpfPredicate::Olt, x, zero)?, minus, r)?;
    f.sel(cmp(CmpfPredicate::Ogt, x, zero)?, one, r)
}

fn int_sign<'c, 'a>(e: &Emitter<'c, 'a>, dt: DType, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let zero = e.const_int(dt, 0)?;
    let one = e.const_int(dt, 1)?;
    let minus = e.const_int(dt, -1)?;
    let cmp = |p, a, b| e.append(arith::cmpi(e.ctx, p, a, b, e.loc));
    let r = e.append(arith::select(cmp(CmpiPredicate::Slt, x, zero)?, minus, zero, e.loc))?;
    e.append(arith::select(cmp(CmpiPredicate::Sgt, x, zero)?, one, r, e.loc))
}

/// One element of a math-library binary op; `None` for the ops `scalar.rs` builds.
pub fn binary<'c, 'a>(
    e: &Emitter<'c, 'a>,
    op: BinaryOp,
    dt: DType,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Option<Value<'c, 'a>>> {
    let f = F::new(e);
    let r = match op {
        BinaryOp::LogicalAnd => e.append(arith::andi(a, b, e.loc))?,
        BinaryOp::LogicalOr => e.append(arith::ori(a, b, e.loc))?,
        BinaryOp::LogicalXor => e.append(arith::xori(a, b, e.loc))?,
        BinaryOp::Mod | BinaryOp::FloorDivide if dt.is_int() => {
            let (q, r) = int_divmod(e, dt, a, b)?;
            if op == BinaryOp::Mod { r } else { q }
        }
        BinaryOp::Mod | BinaryOp::FloorDivide => {
            let (wa, wb) = (f.widen(dt, a)?, f.widen(dt, b)?);
            let (q, r) = float_divmod(f, wa, wb)?;
            f.narrow(dt, if op == BinaryOp::Mod { r } else { q })?
        }
        BinaryOp::Arctan2 => {
            let r = invtrig::atan2(f, f.widen(dt, a)?, f.widen(dt, b)?)?;
            f.narrow(dt, r)?
        }
        BinaryOp::Logaddexp => {
            let r = explog::logaddexp(f, f.widen(dt, a)?, f.widen(dt, b)?)?;
            f.narrow(dt, r)?
        }
        BinaryOp::Polygamma => {
            let r = polygamma::polygamma(f, f.widen(dt, a)?, f.widen(dt, b)?)?;
            f.narrow(dt, r)?
        }
        BinaryOp::OwensT => {
            let r = super::owens::owens_t(f, f.widen(dt, a)?, f.widen(dt, b)?)?;
            f.narrow(dt, r)?
        }
        BinaryOp::Kv | BinaryOp::Kve => {
            let r = super::bessel_k::kv(f, f.widen(dt, a)?, f.widen(dt, b)?, op == BinaryOp::Kve)?;
            f.narrow(dt, r)?
        }
        BinaryOp::Gammainc | BinaryOp::Gammaincc => {
            let r = incgamma::incgamma(f, f.widen(dt, a)?, f.widen(dt, b)?, op == BinaryOp::Gammaincc)?;
            f.narrow(dt, r)?
        }
        BinaryOp::Gammaincinv | BinaryOp::Gammainccinv => {
            let r = incgamma_inv::incgamma_inv(f, f.widen(dt, a)?, f.widen(dt, b)?, op == BinaryOp::Gammainccinv)?;
            f.narrow(dt, r)?
        }
        _ => return Ok(None),
    };
    Ok(Some(r))
}

/// One element of a math-library ternary op (float operands of dtype `dt`).
pub fn ternary<'c, 'a>(e: &Emitter<'c, 'a>, op: TernaryOp, dt: DType, a: Value<'c, 'a>, b: Value<'c, 'a>, x: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    let f = F::new(e);
    let r = match op {
        TernaryOp::Betainc => incbeta::betainc(f, f.widen(dt, a)?, f.widen(dt, b)?, f.widen(dt, x)?)?,
        TernaryOp::Betaincinv => incbeta_inv::betaincinv(f, f.widen(dt, a)?, f.widen(dt, b)?, f.widen(dt, x)?)?,
    };
    f.narrow(dt, r)
}

/// Integer floor division and remainder with the divisor's sign, as NumPy: both 0 when
/// dividing by 0, and `MIN // -1` wraps to `MIN` (remainder 0). Neither case reaches the
/// hardware division (which traps on them).
fn int_divmod<'c, 'a>(e: &Emitter<'c, 'a>, dt: DType, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<(V<'c, 'a>, V<'c, 'a>)> {
    let bits = if dt == DType::I32 { 32 } else { 64 };
    let c = |v: i64| e.const_int(dt, v);
    let cmp = |p, x, y| e.append(arith::cmpi(e.ctx, p, x, y, e.loc));
    let sel = |cnd, x, y| e.append(arith::select(cnd, x, y, e.loc));
    let (zero, one) = (c(0)?, c(1)?);
    let min = c(i64::MIN >> (64 - bits))?;
    let by_zero = cmp(CmpiPredicate::Eq, b, zero)?;
    let overflow = e.append(arith::andi(cmp(CmpiPredicate::Eq, a, min)?, cmp(CmpiPredicate::Eq, b, c(-1)?)?, e.loc))?;
    let unsafe_ = e.append(arith::ori(by_zero, overflow, e.loc))?;
    let bs = sel(unsafe_, one, b)?;
    let q = e.append(arith::divsi(a, bs, e.loc))?;
    let r = e.append(arith::remsi(a, bs, e.loc))?;
    let r_neg = cmp(CmpiPredicate::Slt, r, zero)?;
    let b_neg = cmp(CmpiPredicate::Slt, bs, zero)?;
    let differ = e.append(arith::xori(r_neg, b_neg, e.loc))?;
    let adjust = e.append(arith::andi(cmp(CmpiPredicate::Ne, r, zero)?, differ, e.loc))?;
    let q = sel(adjust, e.append(arith::subi(q, one, e.loc))?, q)?;
    let r = sel(adjust, e.append(arith::addi(r, bs, e.loc))?, r)?;
    Ok((sel(by_zero, zero, q)?, sel(by_zero, zero, r)?))
}

/// C's `fmod(a, b)` (the remainder with the sign of `a`): `a - trunc(a / b) * b` by one
/// `fma`, which is exact once the quotient is off by at most one, then corrected by `±|b|`.
/// Exact when `|a / b| < 2^52`; beyond that the quotient itself is inexact.
fn fmod<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let q = f.trunc(f.div(a, b)?)?;
    let r = f.fma(f.neg(q)?, b, a)?;
    let step = f.copysign(f.abs(b)?, a)?;
    let zero = f.c(0.0)?;
    let opposite = f.and(f.e.append(arith::cmpf(f.e.ctx, CmpfPredicate::One, r, zero, f.e.loc))?, f.e.append(arith::xori(f.sign_bit(r)?, f.sign_bit(a)?, f.e.loc))?)?;
    let r = f.sel(opposite, f.add(r, step)?, r)?;
    let over = f.ge(f.abs(r)?, f.abs(b)?)?;
    let r = f.sel(over, f.sub(r, step)?, r)?;
    // fmod(a, ±inf) = a for finite a; inf or NaN operands and b = 0 give NaN.
    let b_inf = f.is_inf(b)?;
    let r = f.sel(b_inf, a, r)?;
    let bad = f.or(f.is_inf(a)?, f.eqc(b, 0.0)?)?;
    let r = f.sel(bad, f.c(f64::NAN)?, r)?;
    let any_nan = f.or(f.is_nan(a)?, f.is_nan(b)?)?;
    f.sel(any_nan, f.add(a, b)?, r)
}

/// NumPy's `npy_divmod` (the floor quotient and the remainder with the divisor's sign), and
/// `npy_floor_divide`'s `a / b` for `b == 0`.
fn float_divmod<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<(V<'c, 'a>, V<'c, 'a>)> {
    let m = fmod(f, a, b)?;
    let zero = f.c(0.0)?;
    let div = f.div(f.sub(a, m)?, b)?;
    let m_nonzero = f.e.append(arith::cmpf(f.e.ctx, CmpfPredicate::Une, m, zero, f.e.loc))?;
    let differ = f.e.append(arith::xori(f.ltc(b, 0.0)?, f.ltc(m, 0.0)?, f.e.loc))?;
    let adjust = f.and(m_nonzero, differ)?;
    let m2 = f.sel(adjust, f.add(m, b)?, m)?;
    let div = f.sel(adjust, f.addc(div, -1.0)?, div)?;
    let m_zero = f.eqc(m, 0.0)?;
    let m2 = f.sel(m_zero, f.copysign(zero, b)?, m2)?;
    let fl = f.floor(div)?;
    let fl = f.sel(f.gtc(f.sub(div, fl)?, 0.5)?, f.addc(fl, 1.0)?, fl)?;
    let quotient = f.div(a, b)?;
    let fl = f.sel(f.eqc(div, 0.0)?, f.copysign(zero, quotient)?, fl)?;
    let b_zero = f.eqc(b, 0.0)?;
    let fl = f.sel(b_zero, quotient, fl)?;
    let m2 = f.sel(b_zero, m, m2)?;
    Ok((fl, m2))
}
