//! Elementwise operations: unary math, binary arithmetic and comparisons, `where`, casts.
//! Operands broadcast by NumPy's run-time rule: shapes right-aligned, any size-1 dim stretches.

use ndarray::{ArrayD, IxDyn, Zip};

use super::error::{InterpError, Result};
use super::scalar::{self, CastElem, FloatElem, IntElem};
use ptl_lang::span::Span;
use ptl_lang::typed::{BinaryOp, UnaryOp};
use ptl_lang::types::DType;
use ptl_lang::value::Value;

/// The broadcast shape of two run-time shapes, or `None` when they do not broadcast.
pub(crate) fn broadcast_shapes(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i < n - a.len() { 1 } else { a[i - (n - a.len())] };
        let db = if i < n - b.len() { 1 } else { b[i - (n - b.len())] };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

fn broadcast_pair(a: &[usize], b: &[usize], span: &Span) -> Result<Vec<usize>> {
    broadcast_shapes(a, b).ok_or_else(|| InterpError::Broadcast { lhs: a.to_vec(), rhs: b.to_vec(), span: span.clone() })
}

/// Applies `f` to corresponding elements of `a` and `b` broadcast to `shape`.
fn zip2<A: Copy, B: Copy, C>(a: &ArrayD<A>, b: &ArrayD<B>, shape: &[usize], span: &Span, f: impl Fn(A, B) -> C) -> Result<ArrayD<C>> {
    let bad = || InterpError::Broadcast { lhs: a.shape().to_vec(), rhs: b.shape().to_vec(), span: span.clone() };
    super::memory::check_size(shape, std::mem::size_of::<C>(), span)?;
    let av = a.broadcast(IxDyn(shape)).ok_or_else(bad)?;
    let bv = b.broadcast(IxDyn(shape)).ok_or_else(bad)?;
    Ok(Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y)))
}

pub(crate) fn unary(op: UnaryOp, v: Value, span: &Span) -> Result<Value> {
    use UnaryOp::*;
    Ok(match v {
        Value::F32(a) => Value::F32(float_unary(op, a)),
        Value::F64(a) => Value::F64(float_unary(op, a)),
        Value::I32(a) => Value::I32(int_unary(op, a, span)?),
        Value::I64(a) => Value::I64(int_unary(op, a, span)?),
        Value::Bool(a) => match op {
            // np.abs on bool is the identity.
            Abs => Value::Bool(a),
            _ => return Err(InterpError::internal(format!("unary {op:?} on a bool operand"), span)),
        },
    })
}

fn float_unary<T: FloatElem>(op: UnaryOp, a: ArrayD<T>) -> ArrayD<T> {
    use UnaryOp::*;
    let f: fn(T) -> T = match op {
        Neg => T::neg,
        Exp => T::exp,
        Log => T::ln,
        Log1p => T::ln_1p,
        Sqrt => T::sqrt,
        Tanh => T::tanh,
        Abs => T::abs,
        Sigmoid => scalar::sigmoid,
    };
    a.mapv_into(f)
}

fn int_unary<T: IntElem>(op: UnaryOp, a: ArrayD<T>, span: &Span) -> Result<ArrayD<T>> {
    match op {
        UnaryOp::Neg => Ok(a.mapv_into(T::wneg)),
        UnaryOp::Abs => Ok(a.mapv_into(T::wabs)),
        _ => Err(InterpError::internal(format!("unary {op:?} on an integer operand (the checker casts to float first)"), span)),
    }
}

pub(crate) fn binary(op: BinaryOp, a: &Value, b: &Value, span: &Span) -> Result<Value> {
    let shape = broadcast_pair(a.shape(), b.shape(), span)?;
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => float_binary(op, x, y, &shape, span),
        (Value::F64(x), Value::F64(y)) => float_binary(op, x, y, &shape, span),
        (Value::I32(x), Value::I32(y)) => int_binary(op, x, y, &shape, span),
        (Value::I64(x), Value::I64(y)) => int_binary(op, x, y, &shape, span),
        (Value::Bool(x), Value::Bool(y)) => bool_binary(op, x, y, &shape, span),
        _ => Err(InterpError::internal(format!("binary {op:?} on {} and {} operands", a.dtype(), b.dtype()), span)),
    }
}

/// Comparisons shared by every ordered element type (NaN compares unequal to everything).
fn compare<T: Copy + PartialOrd>(op: BinaryOp, x: &ArrayD<T>, y: &ArrayD<T>, shape: &[usize], span: &Span) -> Option<Result<Value>> {
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
    Some(zip2(x, y, shape, span, f).map(Value::Bool))
}

fn float_binary<T: FloatElem>(op: BinaryOp, x: &ArrayD<T>, y: &ArrayD<T>, shape: &[usize], span: &Span) -> Result<Value>
where
    Value: From<ArrayD<T>>,
{
    use BinaryOp::*;
    if let Some(r) = compare(op, x, y, shape, span) {
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
    zip2(x, y, shape, span, f).map(Value::from)
}

fn int_binary<T: IntElem>(op: BinaryOp, x: &ArrayD<T>, y: &ArrayD<T>, shape: &[usize], span: &Span) -> Result<Value>
where
    Value: From<ArrayD<T>>,
{
    use BinaryOp::*;
    if let Some(r) = compare(op, x, y, shape, span) {
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
    zip2(x, y, shape, span, f).map(Value::from)
}

/// Bool arithmetic as NumPy defines it: `+` and `maximum` are or, `*` and `minimum` are and.
fn bool_binary(op: BinaryOp, x: &ArrayD<bool>, y: &ArrayD<bool>, shape: &[usize], span: &Span) -> Result<Value> {
    use BinaryOp::*;
    if let Some(r) = compare(op, x, y, shape, span) {
        return r;
    }
    let f: fn(bool, bool) -> bool = match op {
        Add | Maximum => |a, b| a | b,
        Mul | Minimum => |a, b| a & b,
        _ => return Err(InterpError::internal(format!("binary {op:?} on bool operands"), span)),
    };
    zip2(x, y, shape, span, f).map(Value::Bool)
}

/// Only called after `compare` has taken every comparison.
fn unreachable_op<T>(_op: BinaryOp) -> fn(T, T) -> T {
    |a, _| a
}

/// `where(cond, a, b)`: all three broadcast together.
pub(crate) fn select(cond: &Value, a: &Value, b: &Value, span: &Span) -> Result<Value> {
    let Value::Bool(c) = cond else {
        return Err(InterpError::internal(format!("`where` condition of dtype {}", cond.dtype()), span));
    };
    let ab = broadcast_pair(a.shape(), b.shape(), span)?;
    let shape = broadcast_pair(c.shape(), &ab, span)?;
    super::memory::check_size(&shape, a.dtype().size_bytes(), span)?;
    fn pick<T: Copy>(c: &ArrayD<bool>, x: &ArrayD<T>, y: &ArrayD<T>, shape: &[usize], span: &Span) -> Result<ArrayD<T>> {
        let bad = || InterpError::Broadcast { lhs: x.shape().to_vec(), rhs: y.shape().to_vec(), span: span.clone() };
        let cv = c.broadcast(IxDyn(shape)).ok_or_else(bad)?;
        let xv = x.broadcast(IxDyn(shape)).ok_or_else(bad)?;
        let yv = y.broadcast(IxDyn(shape)).ok_or_else(bad)?;
        Ok(Zip::from(&cv).and(&xv).and(&yv).map_collect(|&c, &x, &y| if c { x } else { y }))
    }
    Ok(match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => Value::Bool(pick(c, x, y, &shape, span)?),
        (Value::I32(x), Value::I32(y)) => Value::I32(pick(c, x, y, &shape, span)?),
        (Value::I64(x), Value::I64(y)) => Value::I64(pick(c, x, y, &shape, span)?),
        (Value::F32(x), Value::F32(y)) => Value::F32(pick(c, x, y, &shape, span)?),
        (Value::F64(x), Value::F64(y)) => Value::F64(pick(c, x, y, &shape, span)?),
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
    use ndarray::ArrayD;

    fn f64s(shape: &[usize], v: Vec<f64>) -> Value {
        Value::F64(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
    }

    #[test]
    fn broadcast_shapes_follow_numpy() {
        assert_eq!(broadcast_shapes(&[2, 1], &[3]), Some(vec![2, 3]));
        assert_eq!(broadcast_shapes(&[], &[4]), Some(vec![4]));
        assert_eq!(broadcast_shapes(&[0], &[1]), Some(vec![0]));
        assert_eq!(broadcast_shapes(&[2], &[3]), None);
        assert_eq!(broadcast_shapes(&[5, 1, 4], &[3, 1]), Some(vec![5, 3, 4]));
    }

    #[test]
    fn binary_broadcasts_and_reports_mismatch() {
        let a = f64s(&[2, 1], vec![1.0, 2.0]);
        let b = f64s(&[3], vec![10.0, 20.0, 30.0]);
        // np.array([[1.],[2.]]) + np.array([10.,20.,30.])
        let r = binary(BinaryOp::Add, &a, &b, &(0..1)).unwrap();
        assert_eq!(r, f64s(&[2, 3], vec![11.0, 21.0, 31.0, 12.0, 22.0, 32.0]));
        let c = f64s(&[2], vec![1.0, 2.0]);
        let e = binary(BinaryOp::Add, &c, &b, &(3..5)).unwrap_err();
        assert_eq!(e.to_string(), "shapes [2] and [3] do not broadcast");
        assert_eq!(e.span(), Some(3..5));
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
