//! Literal values: building them, converting a weak literal to its final dtype, negation.

use ndarray::{ArrayD, IxDyn};

use crate::ops::Op;
use crate::typed::{TExpr, TExprKind};
use crate::types::DType;
use crate::value::Value;

/// One element of an array literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Scalar {
    Int(i64),
    Float(f64),
    Bool(bool),
}

pub(crate) fn scalar(s: Scalar) -> Value {
    let shape = IxDyn(&[]);
    match s {
        Scalar::Int(v) => Value::I64(ArrayD::from_elem(shape, v)),
        Scalar::Float(v) => Value::F64(ArrayD::from_elem(shape, v)),
        Scalar::Bool(v) => Value::Bool(ArrayD::from_elem(shape, v)),
    }
}

/// An array of `dtype` (bool, i64 or f64) with the given shape; `None` if the element count
/// does not match the shape.
pub(crate) fn array(dtype: DType, shape: &[usize], elems: &[Scalar]) -> Option<Value> {
    let shape = IxDyn(shape);
    let v = match dtype {
        DType::Bool => Value::Bool(
            ArrayD::from_shape_vec(
                shape,
                elems
                    .iter()
                    .map(|e| matches!(e, Scalar::Bool(true)))
                    .collect(),
            )
            .ok()?,
        ),
        DType::F64 | DType::F32 => Value::F64(
            ArrayD::from_shape_vec(
                shape,
                elems
                    .iter()
                    .map(|e| match e {
                        Scalar::Int(v) => *v as f64,
                        Scalar::Float(v) => *v,
                        Scalar::Bool(b) => f64::from(u8::from(*b)),
                    })
                    .collect(),
            )
            .ok()?,
        ),
        DType::I64 | DType::I32 => Value::I64(
            ArrayD::from_shape_vec(
                shape,
                elems
                    .iter()
                    .map(|e| match e {
                        Scalar::Int(v) => *v,
                        Scalar::Float(v) => *v as i64,
                        Scalar::Bool(b) => i64::from(*b),
                    })
                    .collect(),
            )
            .ok()?,
        ),
    };
    Some(v)
}

/// Converts a literal value to `to`, refusing anything that would change a value: a float to
/// an integer, a number to bool, an integer outside `i32`.
pub(crate) fn convert(v: &Value, to: DType) -> Result<Value, String> {
    if v.dtype() == to {
        return Ok(v.clone());
    }
    let out = match (v, to) {
        (Value::I64(a), DType::I32) => {
            if let Some(bad) = a.iter().find(|x| i32::try_from(**x).is_err()) {
                return Err(format!("the literal {bad} does not fit in `i32`"));
            }
            Value::I32(a.mapv(|x| x as i32))
        }
        (Value::I64(a), DType::F32) => Value::F32(a.mapv(|x| x as f32)),
        (Value::I64(a), DType::F64) => Value::F64(a.mapv(|x| x as f64)),
        (Value::I32(a), DType::I64) => Value::I64(a.mapv(i64::from)),
        (Value::I32(a), DType::F32) => Value::F32(a.mapv(|x| x as f32)),
        (Value::I32(a), DType::F64) => Value::F64(a.mapv(f64::from)),
        (Value::F64(a), DType::F32) => Value::F32(a.mapv(|x| x as f32)),
        (Value::F32(a), DType::F64) => Value::F64(a.mapv(f64::from)),
        (v, to) => {
            let what = if v.dtype().is_float() {
                "a float literal"
            } else if v.dtype().is_int() {
                "an integer literal"
            } else {
                "a bool literal"
            };
            return Err(format!("{what} cannot be given dtype `{to}`"));
        }
    };
    Ok(out)
}

/// Negates a literal value (integer overflow is an error).
pub(crate) fn negate(v: &Value) -> Result<Value, String> {
    Ok(match v {
        Value::I64(a) => {
            if a.iter().any(|x| x.checked_neg().is_none()) {
                return Err("negating this literal overflows `i64`".to_string());
            }
            Value::I64(a.mapv(|x| -x))
        }
        Value::I32(a) => {
            if a.iter().any(|x| x.checked_neg().is_none()) {
                return Err("negating this literal overflows `i32`".to_string());
            }
            Value::I32(a.mapv(|x| -x))
        }
        Value::F64(a) => Value::F64(a.mapv(|x| -x)),
        Value::F32(a) => Value::F32(a.mapv(|x| -x)),
        Value::Bool(_) => return Err("cannot negate a bool".to_string()),
    })
}

/// Gives an expression built only from literals (a weak expression) the dtype `to`, by
/// converting its literal leaves.
pub(crate) fn retype(mut e: TExpr, to: DType) -> Result<TExpr, String> {
    if e.ty.dtype == to {
        return Ok(e);
    }
    e.kind = match e.kind {
        TExprKind::Literal(v) => TExprKind::Literal(convert(&v, to)?),
        // Weak expressions are literals under arithmetic, negation and broadcasts.
        TExprKind::Op(op @ (Op::Unary(_) | Op::Binary(_) | Op::Broadcast), args) => {
            let mut out = Vec::with_capacity(args.len());
            for (i, a) in args.into_iter().enumerate() {
                // A broadcast's shape witness keeps its dtype.
                out.push(if op == Op::Broadcast && i == 1 { a } else { retype(a, to)? });
            }
            TExprKind::Op(op, out)
        }
        other => {
            e.kind = other;
            return Ok(TExpr::new(
                TExprKind::Op(Op::Cast, vec![e.clone()]),
                crate::types::TensorType::new(to, e.ty.dims),
                e.span,
            ));
        }
    };
    e.ty.dtype = to;
    Ok(e)
}
