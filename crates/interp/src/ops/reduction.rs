//! The reduction family: `sum`, `max`, `min`, `mean` over a set of axes, and `softmax` /
//! `log_softmax` along one axis.
//!
//! Float sums use NumPy's pairwise summation over the reduced elements taken in row-major
//! order; `max`/`min` propagate NaN and fail on an empty axis; the sum of nothing is 0 and
//! the mean of nothing is NaN.

use ndarray::{ArrayD, Axis, IxDyn};

use super::Node;
use super::elementwise::cast;
use crate::error::{InterpError, Result, shape_str};
use ptl_lang::runtime::RuntimeCheck;
use crate::scalar::{self, FloatElem, IntElem};
use ptl_lang::span::Span;
use ptl_lang::typed::ReduceOp;
use ptl_lang::value::Value;

/// Applies `f` to the elements of each reduction group (the reduced axes, in row-major
/// order); the result has the kept axes.
pub(super) fn reduce_groups<T: Clone, U>(a: &ArrayD<T>, axes: &[usize], mut f: impl FnMut(&[T]) -> Result<U>) -> Result<ArrayD<U>> {
    let rank = a.ndim();
    let kept: Vec<usize> = (0..rank).filter(|i| !axes.contains(i)).collect();
    let perm: Vec<usize> = kept.iter().chain(axes.iter()).copied().collect();
    let kept_shape: Vec<usize> = kept.iter().map(|&i| a.shape()[i]).collect();
    let group: usize = axes.iter().map(|&i| a.shape()[i]).product();
    let groups: usize = kept_shape.iter().product();
    let elems: Vec<T> = a.view().permuted_axes(IxDyn(&perm)).iter().cloned().collect();
    let mut out = Vec::with_capacity(groups);
    for g in 0..groups {
        out.push(f(&elems[g * group..(g + 1) * group])?);
    }
    ArrayD::from_shape_vec(IxDyn(&kept_shape), out).map_err(|e| InterpError::Internal { message: e.to_string(), span: None })
}

/// A reduction over `axes`. The operand is first converted to the result dtype (a sum of bools
/// accumulates in `i64`, as NumPy's does). `max` and `min` over axes with no elements fail,
/// as NumPy's do, even when the result itself is empty.
pub(crate) fn reduce(op: ReduceOp, node: &Node, v: Value, axes: &[usize]) -> Result<Value> {
    let span = &node.expr.span;
    let v = if v.dtype() == node.expr.ty.dtype { v } else { cast(&v, node.expr.ty.dtype) };
    let v = &v;
    let rank = v.shape().len();
    if axes.windows(2).any(|w| w[0] >= w[1]) || axes.iter().any(|&a| a >= rank) {
        return Err(InterpError::internal(format!("reduce axes {axes:?} for a rank-{rank} operand"), span));
    }
    let empty_check = || {
        let check = RuntimeCheck::EmptyReduction { op: op.name().to_string(), operand: node.operands[0].ty.clone() };
        InterpError::check(check, span, format!("the operand has shape {}", shape_str(v.shape())))
    };
    if op.needs_elements() && axes.iter().any(|&a| v.shape()[a] == 0) {
        return Err(empty_check());
    }
    reduce_value(op, v, axes, span)
}

/// The reduction itself, on a checked operand.
fn reduce_value(op: ReduceOp, v: &Value, axes: &[usize], span: &Span) -> Result<Value> {
    let empty = |name: &str| InterpError::internal(format!("`{name}` of an empty group"), span);
    Ok(match (op, v) {
        (ReduceOp::Sum, Value::F32(a)) => Value::F32(reduce_groups(a, axes, |g| Ok(scalar::pairwise_sum(g)))?),
        (ReduceOp::Sum, Value::F64(a)) => Value::F64(reduce_groups(a, axes, |g| Ok(scalar::pairwise_sum(g)))?),
        (ReduceOp::Sum, Value::I32(a)) => Value::I32(reduce_groups(a, axes, |g| Ok(int_sum(g)))?),
        (ReduceOp::Sum, Value::I64(a)) => Value::I64(reduce_groups(a, axes, |g| Ok(int_sum(g)))?),
        (ReduceOp::Mean, Value::F32(a)) => Value::F32(reduce_groups(a, axes, |g| Ok(mean(g)))?),
        (ReduceOp::Mean, Value::F64(a)) => Value::F64(reduce_groups(a, axes, |g| Ok(mean(g)))?),
        (ReduceOp::Max, Value::F32(a)) => Value::F32(reduce_groups(a, axes, |g| fold1(g, scalar::fmaximum).ok_or_else(|| empty("max")))?),
        (ReduceOp::Max, Value::F64(a)) => Value::F64(reduce_groups(a, axes, |g| fold1(g, scalar::fmaximum).ok_or_else(|| empty("max")))?),
        (ReduceOp::Min, Value::F32(a)) => Value::F32(reduce_groups(a, axes, |g| fold1(g, scalar::fminimum).ok_or_else(|| empty("min")))?),
        (ReduceOp::Min, Value::F64(a)) => Value::F64(reduce_groups(a, axes, |g| fold1(g, scalar::fminimum).ok_or_else(|| empty("min")))?),
        (ReduceOp::Max, Value::I32(a)) => Value::I32(reduce_groups(a, axes, |g| fold1(g, Ord::max).ok_or_else(|| empty("max")))?),
        (ReduceOp::Max, Value::I64(a)) => Value::I64(reduce_groups(a, axes, |g| fold1(g, Ord::max).ok_or_else(|| empty("max")))?),
        (ReduceOp::Min, Value::I32(a)) => Value::I32(reduce_groups(a, axes, |g| fold1(g, Ord::min).ok_or_else(|| empty("min")))?),
        (ReduceOp::Min, Value::I64(a)) => Value::I64(reduce_groups(a, axes, |g| fold1(g, Ord::min).ok_or_else(|| empty("min")))?),
        (ReduceOp::Max, Value::Bool(a)) => Value::Bool(reduce_groups(a, axes, |g| fold1(g, |x, y| x | y).ok_or_else(|| empty("max")))?),
        (ReduceOp::Min, Value::Bool(a)) => Value::Bool(reduce_groups(a, axes, |g| fold1(g, |x, y| x & y).ok_or_else(|| empty("min")))?),
        _ => return super::statistics::reduce_value(op, v, axes, span),
    })
}

fn int_sum<T: IntElem>(g: &[T]) -> T {
    g.iter().fold(T::ZERO, |acc, &x| acc.wadd(x))
}

fn mean<T: FloatElem>(g: &[T]) -> T {
    scalar::pairwise_sum(g).div(T::from_usize(g.len()))
}

fn fold1<T: Copy>(g: &[T], f: impl Fn(T, T) -> T) -> Option<T> {
    let (&first, rest) = g.split_first()?;
    Some(rest.iter().fold(first, |acc, &x| f(acc, x)))
}

/// `softmax` (or `log_softmax` when `log`) along `axis`, shifted by the lane's max:
/// `e = exp(x - max(x))`, `softmax = e / sum(e)`, `log_softmax = x - max(x) - log(sum(e))`.
pub(crate) fn softmax(v: &Value, axis: usize, log: bool, span: &Span) -> Result<Value> {
    if axis >= v.shape().len() {
        return Err(InterpError::internal(format!("softmax axis {axis} of a rank-{} operand", v.shape().len()), span));
    }
    fn go<T: FloatElem>(a: &ArrayD<T>, axis: usize, log: bool) -> ArrayD<T> {
        let mut out = a.to_owned();
        for mut lane in out.lanes_mut(Axis(axis)) {
            let xs: Vec<T> = lane.iter().copied().collect();
            let Some(m) = fold1(&xs, scalar::fmaximum) else { continue };
            let shifted: Vec<T> = xs.iter().map(|&x| x.sub(m)).collect();
            let exps: Vec<T> = shifted.iter().map(|&x| x.exp()).collect();
            let s = scalar::pairwise_sum(&exps);
            if log {
                let ls = s.ln();
                for (o, &x) in lane.iter_mut().zip(&shifted) {
                    *o = x.sub(ls);
                }
            } else {
                for (o, &e) in lane.iter_mut().zip(&exps) {
                    *o = e.div(s);
                }
            }
        }
        out
    }
    Ok(match v {
        Value::F32(a) => Value::F32(go(a, axis, log)),
        Value::F64(a) => Value::F64(go(a, axis, log)),
        _ => return Err(InterpError::internal(format!("softmax of a {} operand", v.dtype()), span)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64s(shape: &[usize], v: Vec<f64>) -> Value {
        Value::F64(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
    }

    #[test]
    fn sum_over_middle_axis() {
        // np.arange(24.).reshape(2,3,4).sum(axis=1)
        let x = f64s(&[2, 3, 4], (0..24).map(f64::from).collect());
        let r = reduce_value(ReduceOp::Sum, &x, &[1], &(0..0)).unwrap();
        assert_eq!(r, f64s(&[2, 4], vec![12., 15., 18., 21., 48., 51., 54., 57.]));
    }

    #[test]
    fn empty_reductions() {
        let x = f64s(&[0, 2], vec![]);
        assert_eq!(reduce_value(ReduceOp::Sum, &x, &[0], &(0..0)).unwrap(), f64s(&[2], vec![0., 0.]));
        let Value::F64(m) = reduce_value(ReduceOp::Mean, &x, &[0], &(0..0)).unwrap() else { panic!() };
        assert!(m.iter().all(|v| v.is_nan()));
        // Reducing the non-empty axis of a size-0 array gives a size-0 result, not an error.
        assert_eq!(reduce_value(ReduceOp::Max, &x, &[1], &(0..0)).unwrap(), f64s(&[0], vec![]));
    }

    #[test]
    fn softmax_is_stable() {
        let x = f64s(&[2], vec![1000.0, 1000.0]);
        assert_eq!(softmax(&x, 0, false, &(0..0)).unwrap(), f64s(&[2], vec![0.5, 0.5]));
    }
}
