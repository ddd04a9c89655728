//! The elementwise family's element code: arithmetic inside `linalg.generic` bodies.

use melior::{
    dialect::arith::{self, CmpfPredicate, CmpiPredicate},
    dialect::ods::{arith as ods_arith, math},
    ir::{Operation, Value},
};
use ptl_lang::DType;
use ptl_lang::typed::{BinaryOp, UnaryOp};

use crate::emitter::Emitter;
use crate::error::{LowerError, Result};
use crate::types::element_type;

/// One element of a unary op, built with the `arith` and `math` dialects' typed builders.
pub fn unary<'c, 'a>(e: &Emitter<'c, 'a>, op: UnaryOp, dt: DType, x: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    if let Some(v) = super::mathlib::unary(e, op, dt, x)? {
        return Ok(v);
    }
    let float = dt.is_float();
    let (ctx, loc) = (e.ctx, e.loc);
    let built: Operation<'c> = match op {
        UnaryOp::Neg if float => arith::negf(x, loc),
        UnaryOp::Neg => {
            let zero = e.const_int(dt, 0)?;
            arith::subi(zero, x, loc)
        }
        UnaryOp::Abs if float => math::absf(ctx, x, loc).into(),
        UnaryOp::Abs if dt == DType::Bool => return Ok(x),
        UnaryOp::Abs => math::absi(ctx, x, loc).into(),
        UnaryOp::Exp => math::exp(ctx, x, loc).into(),
        UnaryOp::Log => math::log(ctx, x, loc).into(),
        UnaryOp::Log1p => return log1p(e, dt, x),
        UnaryOp::Sqrt => math::sqrt(ctx, x, loc).into(),
        UnaryOp::Tanh if dt == DType::F64 => return tanh_f64(e, x),
        UnaryOp::Tanh => math::tanh(ctx, x, loc).into(),
        UnaryOp::Sigmoid => {
            // 1 / (1 + exp(-x)): saturates to 0 and 1 without overflow trouble.
            let neg = e.append(arith::negf(x, loc))?;
            let ex = e.append(math::exp(ctx, neg, loc).into())?;
            let one = e.const_scalar(dt, 1.0)?;
            let den = e.append(arith::addf(one, ex, loc))?;
            arith::divf(one, den, loc)
        }
        // Built from arithmetic: IREE links no libm for f64, see `trig.rs`.
        UnaryOp::Sin => return super::trig::sin_cos(e, dt, x, false),
        UnaryOp::Cos => return super::trig::sin_cos(e, dt, x, true),
        other => return Err(LowerError::Internal(format!("unary `{}` on {dt}", other.name()))),
    };
    e.append(built)
}

pub fn binary<'c, 'a>(
    e: &Emitter<'c, 'a>,
    op: BinaryOp,
    dt: DType,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let float = dt.is_float();
    let boolean = dt == DType::Bool;
    if op.is_comparison() {
        return compare(e, op, dt, a, b);
    }
    if let Some(v) = super::mathlib::binary(e, op, dt, a, b)? {
        return Ok(v);
    }
    let loc = e.loc;
    let built: Operation<'c> = match op {
        BinaryOp::Add if float => arith::addf(a, b, loc),
        BinaryOp::Add if boolean => arith::ori(a, b, loc),
        BinaryOp::Add => arith::addi(a, b, loc),
        BinaryOp::Sub if float => arith::subf(a, b, loc),
        BinaryOp::Sub if boolean => arith::xori(a, b, loc),
        BinaryOp::Sub => arith::subi(a, b, loc),
        BinaryOp::Mul if float => arith::mulf(a, b, loc),
        BinaryOp::Mul if boolean => arith::andi(a, b, loc),
        BinaryOp::Mul => arith::muli(a, b, loc),
        BinaryOp::Div => arith::divf(a, b, loc),
        BinaryOp::Pow if float => return powf(e, dt, a, b),
        BinaryOp::Pow => return ipow(e, dt, a, b),
        // `melior::dialect::arith` lacks `maximumf` (it has `maxnumf`, which ignores NaN).
        BinaryOp::Maximum if float => ods_arith::maximumf(e.ctx, a, b, loc).into(),
        BinaryOp::Maximum if boolean => arith::ori(a, b, loc),
        BinaryOp::Maximum => arith::maxsi(a, b, loc),
        BinaryOp::Minimum if float => arith::minimumf(a, b, loc),
        BinaryOp::Minimum if boolean => arith::andi(a, b, loc),
        BinaryOp::Minimum => arith::minsi(a, b, loc),
        other => return Err(LowerError::Internal(format!("binary `{}` on {dt}", other.name()))),
    };
    e.append(built)
}

fn compare<'c, 'a>(
    e: &Emitter<'c, 'a>,
    op: BinaryOp,
    dt: DType,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    if dt.is_float() {
        // Ordered comparisons are false on NaN; `!=` is unordered (true on NaN), as in NumPy.
        let p = match op {
            BinaryOp::Lt => CmpfPredicate::Olt,
            BinaryOp::Le => CmpfPredicate::Ole,
            BinaryOp::Gt => CmpfPredicate::Ogt,
            BinaryOp::Ge => CmpfPredicate::Oge,
            BinaryOp::Eq => CmpfPredicate::Oeq,
            _ => CmpfPredicate::Une,
        };
        return e.append(arith::cmpf(e.ctx, p, a, b, e.loc));
    }
    let unsigned = dt == DType::Bool;
    let p = match (op, unsigned) {
        (BinaryOp::Lt, false) => CmpiPredicate::Slt,
        (BinaryOp::Le, false) => CmpiPredicate::Sle,
        (BinaryOp::Gt, false) => CmpiPredicate::Sgt,
        (BinaryOp::Ge, false) => CmpiPredicate::Sge,
        (BinaryOp::Lt, true) => CmpiPredicate::Ult,
        (BinaryOp::Le, true) => CmpiPredicate::Ule,
        (BinaryOp::Gt, true) => CmpiPredicate::Ugt,
        (BinaryOp::Ge, true) => CmpiPredicate::Uge,
        (BinaryOp::Eq, _) => CmpiPredicate::Eq,
        _ => CmpiPredicate::Ne,
    };
    e.append(arith::cmpi(e.ctx, p, a, b, e.loc))
}

/// Converts one element from `from` to `to` with NumPy's `astype` meaning.
pub fn convert<'c, 'a>(e: &Emitter<'c, 'a>, from: DType, to: DType, x: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    if from == to {
        return Ok(x);
    }
    let ty = element_type(e.ctx, to);
    if to == DType::Bool {
        let zero = e.const_scalar(from, 0.0)?;
        return compare(e, BinaryOp::Ne, from, x, zero);
    }
    let loc = e.loc;
    let built: Operation<'c> = match (from, to) {
        (DType::F32, DType::F64) => arith::extf(x, ty, loc),
        // `arith::truncf` infers its result type, which a narrowing cast cannot.
        (DType::F64, DType::F32) => ods_arith::truncf(e.ctx, ty, x, loc).into(),
        (DType::Bool, t) if t.is_float() => arith::uitofp(x, ty, loc),
        (DType::Bool, _) => arith::extui(x, ty, loc),
        (f, t) if f.is_int() && t.is_float() => arith::sitofp(x, ty, loc),
        (f, t) if f.is_float() && t.is_int() => arith::fptosi(x, ty, loc),
        (DType::I32, DType::I64) => arith::extsi(x, ty, loc),
        (DType::I64, DType::I32) => arith::trunci(x, ty, loc),
        (f, t) => {
            return Err(crate::error::LowerError::Internal(format!("no conversion from {f} to {t}")));
        }
    };
    e.append(built)
}

fn cmpf<'c, 'a>(e: &Emitter<'c, 'a>, p: CmpfPredicate, a: Value<'c, 'a>, b: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    e.append(arith::cmpf(e.ctx, p, a, b, e.loc))
}

fn cmpi<'c, 'a>(e: &Emitter<'c, 'a>, p: CmpiPredicate, a: Value<'c, 'a>, b: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    e.append(arith::cmpi(e.ctx, p, a, b, e.loc))
}

/// `where` on one element.
pub fn select<'c, 'a>(e: &Emitter<'c, 'a>, c: Value<'c, 'a>, a: Value<'c, 'a>, b: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    e.append(arith::select(c, a, b, e.loc))
}

/// `log1p` to full precision near 0 (Goldberg's trick: `log(u) * x / (u - 1)` with `u = 1 + x`),
/// since IREE expands `math.log1p` as `log(1 + x)`.
fn log1p<'c, 'a>(e: &Emitter<'c, 'a>, dt: DType, x: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    let one = e.const_scalar(dt, 1.0)?;
    let inf = e.const_scalar(dt, f64::INFINITY)?;
    let u = e.append(arith::addf(one, x, e.loc))?;
    let d = e.append(arith::subf(u, one, e.loc))?;
    let l = e.append(math::log(e.ctx, u, e.loc).into())?;
    let lx = e.append(arith::mulf(l, x, e.loc))?;
    let r = e.append(arith::divf(lx, d, e.loc))?;
    let zero = e.const_scalar(dt, 0.0)?;
    let tiny = cmpf(e, CmpfPredicate::Oeq, d, zero)?;
    let r = select(e, tiny, x, r)?;
    let big = cmpf(e, CmpfPredicate::Oeq, u, inf)?;
    select(e, big, u, r)
}

/// f64 `tanh` from `exp` and `log` (IREE has no f64 `tanh` for the CPU): with
/// `m = expm1(2|x|)` by Kahan's formula, `tanh|x| = m / (m + 2)`, sign copied from `x`.
fn tanh_f64<'c, 'a>(e: &Emitter<'c, 'a>, x: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    let dt = DType::F64;
    let c = |v: f64| e.const_scalar(dt, v);
    let ax = e.append(math::absf(e.ctx, x, e.loc).into())?;
    let t = e.append(arith::addf(ax, ax, e.loc))?;
    let u = e.append(math::exp(e.ctx, t, e.loc).into())?;
    let one = c(1.0)?;
    let um1 = e.append(arith::subf(u, one, e.loc))?;
    let lu = e.append(math::log(e.ctx, u, e.loc).into())?;
    let num = e.append(arith::mulf(um1, t, e.loc))?;
    let m = e.append(arith::divf(num, lu, e.loc))?;
    let u_is_one = cmpf(e, CmpfPredicate::Oeq, u, one)?;
    let m = select(e, u_is_one, t, m)?;
    let two = c(2.0)?;
    let den = e.append(arith::addf(m, two, e.loc))?;
    let th = e.append(arith::divf(m, den, e.loc))?;
    // Past 22, tanh is 1 to the last bit (and exp would overflow to inf / inf).
    let limit = c(22.0)?;
    let saturated = cmpf(e, CmpfPredicate::Ogt, ax, limit)?;
    let th = select(e, saturated, one, th)?;
    e.append(math::copysign(e.ctx, th, x, e.loc).into())
}

/// Float power with NumPy's meaning for a negative base: defined (with the right sign) for
/// integral exponents, NaN otherwise; `x ** 0 == 1` always.
fn powf<'c, 'a>(e: &Emitter<'c, 'a>, dt: DType, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    let c = |v: f64| e.const_scalar(dt, v);
    let ax = e.append(math::absf(e.ctx, x, e.loc).into())?;
    let general = e.append(math::powf(e.ctx, ax, y, e.loc).into())?;
    let fy = e.append(math::floor(e.ctx, y, e.loc).into())?;
    let is_int = cmpf(e, CmpfPredicate::Oeq, fy, y)?;
    // Small integral exponents by repeated squaring: exact where the result is representable
    // (`3.0 ** 2 == 9.0`), as libm's pow is and exp(y * log(x)) is not.
    let ay = e.append(math::absf(e.ctx, y, e.loc).into())?;
    let limit = c(64.0)?;
    let below = cmpf(e, CmpfPredicate::Olt, ay, limit)?;
    let small = e.append(arith::andi(is_int, below, e.loc))?;
    let zero = c(0.0)?;
    let ay_safe = select(e, small, ay, zero)?;
    let i64_ty = element_type(e.ctx, DType::I64);
    let n = e.append(arith::fptosi(ay_safe, i64_ty, e.loc))?;
    let one = c(1.0)?;
    let (one_i, zero_i) = (e.const_int(DType::I64, 1)?, e.const_int(DType::I64, 0)?);
    let mut acc = one;
    let mut base = ax;
    for bit in 0..6 {
        let sh = e.const_int(DType::I64, bit)?;
        let shifted = e.append(arith::shrui(n, sh, e.loc))?;
        let b = e.append(arith::andi(shifted, one_i, e.loc))?;
        let set = cmpi(e, CmpiPredicate::Ne, b, zero_i)?;
        let times = e.append(arith::mulf(acc, base, e.loc))?;
        acc = select(e, set, times, acc)?;
        base = e.append(arith::mulf(base, base, e.loc))?;
    }
    let inv = e.append(arith::divf(one, acc, e.loc))?;
    let y_neg = cmpf(e, CmpfPredicate::Olt, y, zero)?;
    let by_squaring = select(e, y_neg, inv, acc)?;
    let r = select(e, small, by_squaring, general)?;
    // A negative base: defined for integral exponents (sign from parity), NaN otherwise.
    let half = c(0.5)?;
    let hy = e.append(arith::mulf(y, half, e.loc))?;
    let fhy = e.append(math::floor(e.ctx, hy, e.loc).into())?;
    let not_even = cmpf(e, CmpfPredicate::One, fhy, hy)?;
    let odd = e.append(arith::andi(is_int, not_even, e.loc))?;
    let neg_r = e.append(arith::negf(r, e.loc))?;
    let signed = select(e, odd, neg_r, r)?;
    let nan = c(f64::NAN)?;
    let neg_case = select(e, is_int, signed, nan)?;
    let x_neg = cmpf(e, CmpfPredicate::Olt, x, zero)?;
    let r = select(e, x_neg, neg_case, r)?;
    let y_zero = cmpf(e, CmpfPredicate::Oeq, y, zero)?;
    select(e, y_zero, one, r)
}

/// Integer power by repeated squaring, unrolled over the exponent's bits (IREE cannot compile
/// `math.ipowi`). A negative exponent gives 0, or +-1 for a base of +-1.
fn ipow<'c, 'a>(e: &Emitter<'c, 'a>, dt: DType, b: Value<'c, 'a>, x: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    let bits = if dt == DType::I32 { 32 } else { 64 };
    let one = e.const_int(dt, 1)?;
    let zero = e.const_int(dt, 0)?;
    let mut result = one;
    let mut base = b;
    for i in 0..bits - 1 {
        let sh = e.const_int(dt, i)?;
        let shifted = e.append(arith::shrsi(x, sh, e.loc))?;
        let bit = e.append(arith::andi(shifted, one, e.loc))?;
        let set = cmpi(e, CmpiPredicate::Ne, bit, zero)?;
        let times = e.append(arith::muli(result, base, e.loc))?;
        result = select(e, set, times, result)?;
        base = e.append(arith::muli(base, base, e.loc))?;
    }
    // Negative exponents.
    let minus_one = e.const_int(dt, -1)?;
    let odd_bit = e.append(arith::andi(x, one, e.loc))?;
    let odd = cmpi(e, CmpiPredicate::Ne, odd_bit, zero)?;
    let alt = select(e, odd, minus_one, one)?;
    let b_is_one = cmpi(e, CmpiPredicate::Eq, b, one)?;
    let b_is_minus_one = cmpi(e, CmpiPredicate::Eq, b, minus_one)?;
    let neg = select(e, b_is_minus_one, alt, zero)?;
    let neg = select(e, b_is_one, one, neg)?;
    let x_neg = cmpi(e, CmpiPredicate::Slt, x, zero)?;
    select(e, x_neg, neg, result)
}
