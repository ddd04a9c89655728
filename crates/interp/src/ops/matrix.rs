//! The matrix helpers: `diagonal` of a matrix and `tril` / `triu` of the last two axes.

use ndarray::{ArrayD, Dimension, IxDyn};

use crate::error::{InterpError, Result};
use ptl_lang::span::Span;
use ptl_lang::value::Value;

/// `m[i, i]` for `i < min(rows, cols)`.
pub(crate) fn diagonal(v: &Value, span: &Span) -> Result<Value> {
    let &[r, c] = v.shape() else {
        return Err(InterpError::internal(format!("diagonal of a rank-{} operand", v.shape().len()), span));
    };
    let n = r.min(c);
    Ok(ptl_lang::map_value!(v, a => Value::from(ArrayD::from_shape_fn(IxDyn(&[n]), |i| a[[i[0], i[0]].as_slice()]))))
}

/// Keeps element `[.., i, j]` where `j - i <= k` (`tril`) or `j - i >= k` (`triu`); the
/// others become zero (`false`).
pub(crate) fn tri(v: &Value, upper: bool, k: i64, span: &Span) -> Result<Value> {
    let rank = v.shape().len();
    if rank < 2 {
        return Err(InterpError::internal(format!("tril/triu of a rank-{rank} operand"), span));
    }
    let keep = move |idx: &[usize]| {
        let d = idx[rank - 1] as i64 - idx[rank - 2] as i64;
        if upper { d >= k } else { d <= k }
    };
    fn go<T: Clone + Default>(a: &ArrayD<T>, keep: impl Fn(&[usize]) -> bool) -> ArrayD<T> {
        let mut out = a.to_owned();
        for (idx, x) in out.indexed_iter_mut() {
            if !keep(idx.slice()) {
                *x = T::default();
            }
        }
        out
    }
    Ok(ptl_lang::map_value!(v, a => Value::from(go(a, keep))))
}
