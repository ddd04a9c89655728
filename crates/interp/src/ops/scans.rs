//! The scans: `cumsum` and `cumprod` along one axis, accumulated in order from index 0, as
//! NumPy's `add.accumulate` / `multiply.accumulate` (integers wrap).

use ndarray::{ArrayD, Axis};

use crate::error::{InterpError, Result};
use crate::scalar::IntElem;
use ptl_lang::span::Span;
use ptl_lang::value::Value;

fn accumulate<T: Copy>(a: &ArrayD<T>, axis: usize, f: impl Fn(T, T) -> T) -> ArrayD<T> {
    let mut out = a.to_owned();
    for mut lane in out.lanes_mut(Axis(axis)) {
        let mut acc: Option<T> = None;
        for x in lane.iter_mut() {
            let next = match acc {
                Some(p) => f(p, *x),
                None => *x,
            };
            *x = next;
            acc = Some(next);
        }
    }
    out
}

fn int_op<T: IntElem>(prod: bool) -> impl Fn(T, T) -> T {
    move |a: T, b: T| if prod { a.wmul(b) } else { a.wadd(b) }
}

pub(crate) fn scan(prod: bool, v: &Value, axis: usize, span: &Span) -> Result<Value> {
    if axis >= v.shape().len() {
        return Err(InterpError::internal(format!("scan axis {axis} of a rank-{} operand", v.shape().len()), span));
    }
    Ok(match v {
        Value::F32(a) => Value::F32(accumulate(a, axis, |p, x| if prod { p * x } else { p + x })),
        Value::F64(a) => Value::F64(accumulate(a, axis, |p, x| if prod { p * x } else { p + x })),
        Value::I32(a) => Value::I32(accumulate(a, axis, int_op(prod))),
        Value::I64(a) => Value::I64(accumulate(a, axis, int_op(prod))),
        Value::Bool(_) => return Err(InterpError::internal("a scan of bool (the checker converts it)", span)),
    })
}
