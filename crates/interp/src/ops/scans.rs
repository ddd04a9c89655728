//! The ops along one axis. `cumsum` and `cumprod` accumulate in order from index 0, as
//! NumPy's `add.accumulate` / `multiply.accumulate` (integers wrap); `sort` and `argsort`
//! order each lane with Rust's stable sort, NaN last.

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

/// The positions that order one lane ascending, equal elements in their original order.
fn lane_order<T: Copy>(lane: &[T], before: impl Fn(T, T) -> std::cmp::Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lane.len()).collect();
    // `sort_by` is stable.
    order.sort_by(|&i, &j| before(lane[i], lane[j]));
    order
}

/// Floats in NumPy's sort order: ascending, NaN after every number.
fn float_order<F: PartialOrd>(a: F, b: F) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (a_nan, b_nan) = (a.partial_cmp(&a).is_none(), b.partial_cmp(&b).is_none());
    match (a_nan, b_nan) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Each lane along `axis` sorted (`arg`: the `i64` positions that sort it).
fn sort_lanes<T: Copy>(a: &ArrayD<T>, axis: usize, arg: bool, before: impl Fn(T, T) -> std::cmp::Ordering + Copy) -> (ArrayD<T>, ArrayD<i64>) {
    let mut sorted = a.to_owned();
    let mut positions = a.map(|_| 0i64);
    for (mut lane, mut pos) in sorted.lanes_mut(Axis(axis)).into_iter().zip(positions.lanes_mut(Axis(axis))) {
        let values: Vec<T> = lane.iter().copied().collect();
        let order = lane_order(&values, before);
        for (k, &i) in order.iter().enumerate() {
            lane[k] = values[i];
            if arg {
                pos[k] = i as i64;
            }
        }
    }
    (sorted, positions)
}

pub(crate) fn sort(v: &Value, axis: usize, arg: bool, span: &Span) -> Result<Value> {
    if axis >= v.shape().len() {
        return Err(InterpError::internal(format!("sort axis {axis} of a rank-{} operand", v.shape().len()), span));
    }
    let pick = |sorted: Value, positions: ArrayD<i64>| if arg { Value::I64(positions) } else { sorted };
    Ok(match v {
        Value::F32(a) => {
            let (s, p) = sort_lanes(a, axis, arg, float_order);
            pick(Value::F32(s), p)
        }
        Value::F64(a) => {
            let (s, p) = sort_lanes(a, axis, arg, float_order);
            pick(Value::F64(s), p)
        }
        Value::I32(a) => {
            let (s, p) = sort_lanes(a, axis, arg, |x: i32, y: i32| x.cmp(&y));
            pick(Value::I32(s), p)
        }
        Value::I64(a) => {
            let (s, p) = sort_lanes(a, axis, arg, |x: i64, y: i64| x.cmp(&y));
            pick(Value::I64(s), p)
        }
        Value::Bool(a) => {
            let (s, p) = sort_lanes(a, axis, arg, |x: bool, y: bool| x.cmp(&y));
            pick(Value::Bool(s), p)
        }
    })
}
