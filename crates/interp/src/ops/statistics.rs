//! The reductions beyond sum/max/min/mean: `prod`, `any`, `all`, `logsumexp`, `var`, `std`
//! over a set of axes, and `argmax` / `argmin` along one axis, with NumPy's (and SciPy's, for
//! `logsumexp`) answers.
//!
//! `prod` multiplies in row-major order (the product of nothing is 1, integers wrap);
//! `logsumexp` is `m + log(sum(exp(x - m)))` with `m` the max, or 0 when the max is not
//! finite (so all `-inf` gives `-inf`, any `+inf` gives `+inf`, nothing gives `-inf`); `var`
//! is NumPy's two-pass `sum(|x - mean|^2) / max(n - ddof, 0)` with pairwise sums.

use ndarray::{ArrayD, Axis, IxDyn};

use super::Node;
use super::reduction::reduce_groups;
use crate::error::{InterpError, Result, shape_str};
use crate::scalar::{self, FloatElem, IntElem};
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::span::Span;
use ptl_lang::typed::ReduceOp;
use ptl_lang::value::Value;

/// `prod`, `any`, `all`, `logsumexp`, `var`, `std` of a checked operand of the result dtype.
pub(crate) fn reduce_value(op: ReduceOp, v: &Value, axes: &[usize], span: &Span) -> Result<Value> {
    Ok(match (op, v) {
        (ReduceOp::Prod, Value::F32(a)) => Value::F32(reduce_groups(a, axes, |g| Ok(g.iter().fold(1.0, |p, &x| p * x)))?),
        (ReduceOp::Prod, Value::F64(a)) => Value::F64(reduce_groups(a, axes, |g| Ok(g.iter().fold(1.0, |p, &x| p * x)))?),
        (ReduceOp::Prod, Value::I32(a)) => Value::I32(reduce_groups(a, axes, |g| Ok(int_prod(g)))?),
        (ReduceOp::Prod, Value::I64(a)) => Value::I64(reduce_groups(a, axes, |g| Ok(int_prod(g)))?),
        (ReduceOp::Any, Value::Bool(a)) => Value::Bool(reduce_groups(a, axes, |g| Ok(g.iter().any(|&x| x)))?),
        (ReduceOp::All, Value::Bool(a)) => Value::Bool(reduce_groups(a, axes, |g| Ok(g.iter().all(|&x| x)))?),
        (ReduceOp::LogSumExp, Value::F32(a)) => Value::F32(reduce_groups(a, axes, |g| Ok(logsumexp(g)))?),
        (ReduceOp::LogSumExp, Value::F64(a)) => Value::F64(reduce_groups(a, axes, |g| Ok(logsumexp(g)))?),
        (ReduceOp::Var(d), Value::F32(a)) => Value::F32(reduce_groups(a, axes, |g| Ok(var(g, d)))?),
        (ReduceOp::Var(d), Value::F64(a)) => Value::F64(reduce_groups(a, axes, |g| Ok(var(g, d)))?),
        (ReduceOp::Std(d), Value::F32(a)) => Value::F32(reduce_groups(a, axes, |g| Ok(var(g, d).sqrt()))?),
        (ReduceOp::Std(d), Value::F64(a)) => Value::F64(reduce_groups(a, axes, |g| Ok(var(g, d).sqrt()))?),
        _ => return Err(InterpError::internal(format!("{op:?} reduction of a {} operand", v.dtype()), span)),
    })
}

fn int_prod<T: IntElem>(g: &[T]) -> T {
    g.iter().fold(T::ONE, |acc, &x| acc.wmul(x))
}

fn logsumexp<T: FloatElem + num_like::Finite>(g: &[T]) -> T {
    let m = g.iter().copied().fold(None, |acc: Option<T>, x| Some(acc.map_or(x, |a| scalar::fmaximum(a, x))));
    let shift = match m {
        Some(m) if m.finite() => m,
        _ => T::from_usize(0),
    };
    let exps: Vec<T> = g.iter().map(|&x| x.sub(shift).exp()).collect();
    scalar::pairwise_sum(&exps).ln().add(shift)
}

fn var<T: FloatElem + num_like::Finite>(g: &[T], ddof: u32) -> T {
    let n = g.len();
    let mean = scalar::pairwise_sum(g).div(T::from_usize(n));
    let squares: Vec<T> = g.iter().map(|&x| {
        let d = x.sub(mean);
        d.mul(d)
    }).collect();
    let count = n.saturating_sub(ddof as usize);
    scalar::pairwise_sum(&squares).div(T::from_usize(count))
}

/// Finiteness, the float fact this file needs beyond `FloatElem`.
mod num_like {
    pub(crate) trait Finite {
        fn finite(self) -> bool;
    }
    impl Finite for f32 {
        fn finite(self) -> bool { self.is_finite() }
    }
    impl Finite for f64 {
        fn finite(self) -> bool { self.is_finite() }
    }
}

/// `argmax` / `argmin` along `axis`: the first index of the largest (smallest) element, where
/// the first NaN wins; an empty axis fails, as NumPy's does.
pub(crate) fn arg(max: bool, node: &Node, v: &Value, axis: usize) -> Result<Value> {
    let span = &node.expr.span;
    if axis >= v.shape().len() {
        return Err(InterpError::internal(format!("arg axis {axis} of a rank-{} operand", v.shape().len()), span));
    }
    if v.shape()[axis] == 0 {
        let op = if max { "argmax" } else { "argmin" };
        let check = RuntimeCheck::EmptyReduction { op: op.to_string(), operand: node.operands[0].ty.clone() };
        return Err(InterpError::check(check, span, format!("the operand has shape {}", shape_str(v.shape()))));
    }
    // `better(x, best)`: x replaces the best so far (strictly, so the first occurrence stays).
    fn lanes<T: Copy>(a: &ArrayD<T>, axis: usize, better: impl Fn(T, T) -> bool) -> std::result::Result<ArrayD<i64>, ndarray::ShapeError> {
        let mut shape = a.shape().to_vec();
        shape.remove(axis);
        let out: Vec<i64> = a
            .lanes(Axis(axis))
            .into_iter()
            .map(|lane| {
                let mut best = 0usize;
                for (i, &x) in lane.iter().enumerate().skip(1) {
                    if better(x, lane[best]) {
                        best = i;
                    }
                }
                best as i64
            })
            .collect();
        ArrayD::from_shape_vec(IxDyn(&shape), out)
    }
    fn float_better<T: FloatElem>(max: bool) -> impl Fn(T, T) -> bool {
        move |x: T, best: T| {
            if best.is_nan() {
                false
            } else if x.is_nan() {
                true
            } else if max {
                x > best
            } else {
                x < best
            }
        }
    }
    let r = match v {
        Value::F32(a) => lanes(a, axis, float_better::<f32>(max)),
        Value::F64(a) => lanes(a, axis, float_better::<f64>(max)),
        Value::I32(a) => lanes(a, axis, |x, b| if max { x > b } else { x < b }),
        Value::I64(a) => lanes(a, axis, |x, b| if max { x > b } else { x < b }),
        Value::Bool(a) => lanes(a, axis, |x, b| if max { x & !b } else { !x & b }),
    };
    r.map(Value::I64).map_err(|e| InterpError::internal(e.to_string(), span))
}
