//! The elementwise family: unary math, binary arithmetic and comparisons, `where`, casts.
//! Operands have equal shapes: broadcasting is the layout family's `Broadcast` node.

use ndarray::{ArrayD, Zip};
use num_traits::Float;

use super::math;
use crate::error::{InterpError, Result};
use crate::scalar::{self, CastElem, FloatElem, IntElem};
use ptl_lang::span::Span;
use ptl_lang::ops::Op;
use ptl_lang::typed::{BinaryOp, TernaryOp, UnaryOp};
use ptl_lang::types::DType;
use ptl_lang::value::Value;

/// Applies `f` to corresponding elements of `a` and `b` (of equal shapes: the checker made
/// broadcasting explicit and the dispatcher checked the run-time sizes).
fn zip2<A: Copy, B: Copy, C>(a: &ArrayD<A>, b: &ArrayD<B>, span: &Span, f: impl Fn(A, B) -> C) -> Result<ArrayD<C>> {
    if a.shape() != b.shape() {
        return Err(InterpError::internal(format!("elementwise operands of shapes {:?} and {:?}", a.shape(), b.shape()), span));
    }
    crate::memory::check_size(a.shape(), std::mem::size_of::<C>(), span)?;
    Ok(Zip::from(a).and(b).map_collect(|&x, &y| f(x, y)))
}

/// Evaluates an elementwise op whose result has dtype `dtype`.
pub(crate) fn apply(op: &Op, dtype: DType, values: Vec<Value>, span: &Span) -> Result<Value> {
    let mut it = values.into_iter();
    let mut next = || it.next().ok_or_else(|| InterpError::internal(format!("`{op}` is missing an operand"), span));
    match op {
        Op::Unary(u) => unary(*u, next()?, span),
        Op::Binary(b) => {
            let (x, y) = (next()?, next()?);
            binary(*b, &x, &y, span)
        }
        Op::Ternary(t) => {
            let (a, b, x) = (next()?, next()?, next()?);
            ternary(*t, &a, &b, &x, span)
        }
        Op::Select => {
            let (c, x, y) = (next()?, next()?, next()?);
            select(&c, &x, &y, span)
        }
        Op::Cast => Ok(cast(&next()?, dtype)),
        _ => Err(InterpError::internal(format!("`{op}` is not elementwise"), span)),
    }
}

pub(crate) fn unary(op: UnaryOp, v: Value, span: &Span) -> Result<Value> {
    use UnaryOp::*;
    if let Some(f) = math::test_f64(op) {
        return match v {
            Value::F64(a) => Ok(Value::Bool(a.mapv(f))),
            Value::F32(a) => Ok(Value::Bool(a.mapv(|x| f(f64::from(x))))),
            _ => Err(InterpError::internal(format!("`{op:?}` on a {} operand", v.dtype()), span)),
        };
    }
    if let Some(f) = math::unary_f64(op) {
        match v {
            Value::F64(a) => return Ok(Value::F64(a.mapv_into(f))),
            Value::F32(a) => return Ok(Value::F32(a.mapv_into(|x| f(f64::from(x)) as f32))),
            _ => {}
        }
    }
    Ok(match v {
        Value::F32(a) => Value::F32(float_unary(op, a)),
        Value::F64(a) => Value::F64(float_unary(op, a)),
        Value::I32(a) => Value::I32(int_unary(op, a, span)?),
        Value::I64(a) => Value::I64(int_unary(op, a, span)?),
        Value::Bool(a) => match op {
            // np.abs on bool is the identity.
            Abs => Value::Bool(a),
            LogicalNot => Value::Bool(a.mapv_into(|x| !x)),
            _ => return Err(InterpError::internal(format!("unary {op:?} on a bool operand"), span)),
        },
    })
}

/// Float math in the element's own precision (Rust's libm calls, as NumPy's are).
fn float_unary<T: FloatElem + Float>(op: UnaryOp, a: ArrayD<T>) -> ArrayD<T> {
    use UnaryOp::*;
    let f: fn(T) -> T = match op {
        Neg => |x| -x,
        Exp => Float::exp,
        Log => Float::ln,
        Log1p => Float::ln_1p,
        Sqrt => Float::sqrt,
        Tanh => Float::tanh,
        Abs => Float::abs,
        Sigmoid => scalar::sigmoid,
        Sin => Float::sin,
        Cos => Float::cos,
        _ => |x| x,
    };
    a.mapv_into(f)
}

fn int_unary<T: IntElem>(op: UnaryOp, a: ArrayD<T>, span: &Span) -> Result<ArrayD<T>> {
    match op {
        UnaryOp::Neg => Ok(a.mapv_into(T::wneg)),
        UnaryOp::Abs => Ok(a.mapv_into(T::wabs)),
        UnaryOp::Square => Ok(a.mapv_into(|x| x.wmul(x))),
        UnaryOp::Sign => Ok(a.mapv_into(|x| match x.cmp(&T::ZERO) {
            std::cmp::Ordering::Less => T::ONE.wneg(),
            std::cmp::Ordering::Equal => T::ZERO,
            std::cmp::Ordering::Greater => T::ONE,
        })),
        // Integers are already integral.
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Trunc => Ok(a),
        _ => Err(InterpError::internal(format!("unary {op:?} on an integer operand (the checker casts to float first)"), span)),
    }
}

/// A float function of three operands (of one float dtype; `f32` is computed in `f64`).
fn ternary(op: TernaryOp, a: &Value, b: &Value, x: &Value, span: &Span) -> Result<Value> {
    let f = match op {
        TernaryOp::Betainc => super::incbeta::betainc,
        TernaryOp::Betaincinv => super::incbeta_inv::betaincinv,
    };
    fn zip3<T: Copy + Into<f64>>(a: &ArrayD<T>, b: &ArrayD<T>, x: &ArrayD<T>, span: &Span, f: impl Fn(f64, f64, f64) -> f64) -> Result<ArrayD<f64>> {
        if a.shape() != b.shape() || a.shape() != x.shape() {
            return Err(InterpError::internal(format!("elementwise operands of shapes {:?}, {:?} and {:?}", a.shape(), b.shape(), x.shape()), span));
        }
        crate::memory::check_size(a.shape(), 8, span)?;
        Ok(Zip::from(a).and(b).and(x).map_collect(|&p, &q, &r| f(p.into(), q.into(), r.into())))
    }
    match (a, b, x) {
        (Value::F64(p), Value::F64(q), Value::F64(r)) => zip3(p, q, r, span, f).map(Value::F64),
        (Value::F32(p), Value::F32(q), Value::F32(r)) => zip3(p, q, r, span, f).map(|v| Value::F32(v.mapv(|e| e as f32))),
        _ => Err(InterpError::internal(format!("`{}` on {}, {} and {} operands", op.name(), a.dtype(), b.dtype(), x.dtype()), span)),
    }
}

pub(crate) fn binary(op: BinaryOp, a: &Value, b: &Value, span: &Span) -> Result<Value> {
    if let Some(f) = math::binary_f64(op) {
        match (a, b) {
            (Value::F64(x), Value::F64(y)) => return zip2(x, y, span, f).map(Value::F64),
            (Value::F32(x), Value::F32(y)) => {
                return zip2(x, y, span, |p, q| f(f64::from(p), f64::from(q)) as f32).map(Value::F32);
            }
            _ => {}
        }
    }
    if matches!(op, BinaryOp::Mod | BinaryOp::FloorDivide) {
        let pick = move |a: i64, b: i64| {
            let (q, r) = math::int_divmod(a, b, i64::MIN);
            if op == BinaryOp::Mod { r } else { q }
        };
        match (a, b) {
            // i32 in i64: `MIN // -1` is 2^31 there, which wraps back to `MIN`.
            (Value::I32(x), Value::I32(y)) => {
                return zip2(x, y, span, |p, q| pick(i64::from(p), i64::from(q)) as i32).map(Value::I32);
            }
            (Value::I64(x), Value::I64(y)) => return zip2(x, y, span, pick).map(Value::I64),
            _ => {}
        }
    }
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => float_binary(op, x, y, span),
        (Value::F64(x), Value::F64(y)) => float_binary(op, x, y, span),
        (Value::I32(x), Value::I32(y)) => int_binary(op, x, y, span),
        (Value::I64(x), Value::I64(y)) => int_binary(op, x, y, span),
        (Value::Bool(x), Value::Bool(y)) => bool_binary(op, x, y, span),
        _ => Err(InterpError::internal(format!("binary {op:?} on {} and {} operands", a.dtype(), b.dtype()), span)),
    }
}

/// Comparisons shared by every ordered element type (NaN compares unequal to everything).
fn compare<T: Copy + PartialOrd>(op: BinaryOp, x: &ArrayD<T>, y: &ArrayD<T>, span: &Span) -> Option<Result<Value>> {
    use BinaryOp::*;
    let f: fn(T, T) -> bool = match op {
        Lt => |a, b| a < b,
        Le => |a, b| a <= b,
        Gt => |a, b| a > b,
        Ge => |a, b| a >= b,
        Eq => |a, b| a == b,
        Ne => |a, b| a != b,
        _ => return None,
    };
    Some(zip2(x, y, span, f).map(Value::Bool))
}

fn float_binary<T: FloatElem>(op: BinaryOp, x: &ArrayD<T>, y: &ArrayD<T>, span: &Span) -> Result<Value>
where
    Value: From<ArrayD<T>>,
{
    use BinaryOp::*;
    if let Some(r) = compare(op, x, y, span) {
        return r;
    }
    let f: fn(T, T) -> T = match op {
        Add => T::add,
        Sub => T::sub,
        Mul => T::mul,
        Div => T::div,
        Pow => T::powf,
        Maximum => scalar::fmaximum,
        Minimum => scalar::fminimum,
        _ => unreachable_op(op),
    };
    zip2(x, y, span, f).map(Value::from)
}

fn int_binary<T: IntElem>(op: BinaryOp, x: &ArrayD<T>, y: &ArrayD<T>, span: &Span) -> Result<Value>
where
    Value: From<ArrayD<T>>,
{
    use BinaryOp::*;
    if let Some(r) = compare(op, x, y, span) {
        return r;
    }
    let f: fn(T, T) -> T = match op {
        Add => T::wadd,
        Sub => T::wsub,
        Mul => T::wmul,
        Pow => scalar::ipow,
        Maximum => |a, b| a.max(b),
        Minimum => |a, b| a.min(b),
        Div => return Err(InterpError::internal("`/` on integer operands (the checker casts to float first)", span)),
        _ => unreachable_op(op),
    };
    zip2(x, y, span, f).map(Value::from)
}

/// Bool arithmetic as NumPy defines it: `+` and `maximum` are or, `*` and `minimum` are and.
fn bool_binary(op: BinaryOp, x: &ArrayD<bool>, y: &ArrayD<bool>, span: &Span) -> Result<Value> {
    use BinaryOp::*;
    if let Some(r) = compare(op, x, y, span) {
        return r;
    }
    let f: fn(bool, bool) -> bool = match op {
        Add | Maximum => |a, b| a | b,
        Mul | Minimum => |a, b| a & b,
        LogicalAnd => |a, b| a && b,
        LogicalOr => |a, b| a || b,
        LogicalXor => |a, b| a != b,
        _ => return Err(InterpError::internal(format!("binary {op:?} on bool operands"), span)),
    };
    zip2(x, y, span, f).map(Value::Bool)
}

/// Only called after `compare` has taken every comparison.
fn unreachable_op<T>(_op: BinaryOp) -> fn(T, T) -> T {
    |a, _| a
}

/// `where(cond, a, b)`, on operands of equal shapes.
pub(crate) fn select(cond: &Value, a: &Value, b: &Value, span: &Span) -> Result<Value> {
    let Value::Bool(c) = cond else {
        return Err(InterpError::internal(format!("`where` condition of dtype {}", cond.dtype()), span));
    };
    if c.shape() != a.shape() || a.shape() != b.shape() {
        return Err(InterpError::internal("`where` operands of different shapes", span));
    }
    crate::memory::check_size(c.shape(), a.dtype().size_bytes(), span)?;
    fn pick<T: Copy>(c: &ArrayD<bool>, x: &ArrayD<T>, y: &ArrayD<T>) -> ArrayD<T> {
        Zip::from(c).and(x).and(y).map_collect(|&c, &x, &y| if c { x } else { y })
    }
    Ok(match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => Value::Bool(pick(c, x, y)),
        (Value::I32(x), Value::I32(y)) => Value::I32(pick(c, x, y)),
        (Value::I64(x), Value::I64(y)) => Value::I64(pick(c, x, y)),
        (Value::F32(x), Value::F32(y)) => Value::F32(pick(c, x, y)),
        (Value::F64(x), Value::F64(y)) => Value::F64(pick(c, x, y)),
        _ => return Err(InterpError::internal(format!("`where` branches of dtypes {} and {}", a.dtype(), b.dtype()), span)),
    })
}

/// Converts to `to` with NumPy's `astype` semantics (see [`CastElem`]).
pub fn cast(v: &Value, to: DType) -> Value {
    fn go<T: CastElem>(a: &ArrayD<T>, to: DType) -> Value {
        match to {
            DType::Bool => Value::Bool(a.mapv(T::to_bool)),
            DType::I32 => Value::I32(a.mapv(T::to_i32)),
            DType::I64 => Value::I64(a.mapv(T::to_i64)),
            DType::F32 => Value::F32(a.mapv(T::to_f32)),
            DType::F64 => Value::F64(a.mapv(T::to_f64)),
        }
    }
    if v.dtype() == to {
        return v.clone();
    }
    ptl_lang::map_value!(v, a => go(a, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{ArrayD, IxDyn};

    fn f64s(shape: &[usize], v: Vec<f64>) -> Value {
        Value::F64(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
    }

    #[test]
    fn binary_needs_equal_shapes() {
        let a = f64s(&[3], vec![1.0, 2.0, 3.0]);
        let b = f64s(&[3], vec![10.0, 20.0, 30.0]);
        assert_eq!(binary(BinaryOp::Add, &a, &b, &(0..1)).unwrap(), f64s(&[3], vec![11.0, 22.0, 33.0]));
        // Broadcasting is the checker's `Broadcast` node, never implicit here.
        let c = f64s(&[1], vec![1.0]);
        assert!(matches!(binary(BinaryOp::Add, &c, &b, &(3..5)), Err(InterpError::Internal { .. })));
    }

    #[test]
    fn sin_and_cos_follow_libm() {
        // np.sin([0., 1.5707963267948966, -1.0]), np.cos(...)
        let x = f64s(&[3], vec![0.0, std::f64::consts::FRAC_PI_2, -1.0]);
        assert_eq!(unary(UnaryOp::Sin, x.clone(), &(0..0)).unwrap(), f64s(&[3], vec![0.0, 1.0, -0.8414709848078965]));
        assert_eq!(unary(UnaryOp::Cos, x, &(0..0)).unwrap(), f64s(&[3], vec![1.0, 6.123233995736766e-17, 0.5403023058681398]));
    }

    #[test]
    fn int_arithmetic_wraps() {
        let a = Value::I32(ArrayD::from_elem(IxDyn(&[]), i32::MAX));
        let b = Value::I32(ArrayD::from_elem(IxDyn(&[]), 1));
        let r = binary(BinaryOp::Add, &a, &b, &(0..0)).unwrap();
        assert_eq!(r, Value::I32(ArrayD::from_elem(IxDyn(&[]), i32::MIN)));
    }

    #[test]
    fn cast_roundtrip_identity() {
        let a = f64s(&[2], vec![1.5, -0.5]);
        assert_eq!(cast(&a, DType::F64), a);
        assert_eq!(cast(&a, DType::I64), Value::I64(ArrayD::from_shape_vec(IxDyn(&[2]), vec![1, 0]).unwrap()));
    }
}
