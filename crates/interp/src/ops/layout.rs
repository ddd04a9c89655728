//! The layout family: broadcast, transpose, expand, squeeze, reshape.
//!
//! Result dims arrive as `Option<usize>` per dim: `Some` for a static dim or a symbol the
//! enclosing call bound, `None` for `?`.

use ndarray::{ArrayD, Axis, IxDyn};

use super::Node;
use crate::error::{InterpError, Result, shape_str};
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::span::Span;
use ptl_lang::types::Dim;
use ptl_lang::value::Value;

/// Result dim `i` is operand dim `perm[i]`.
pub(crate) fn transpose(v: Value, perm: &[usize], span: &Span) -> Result<Value> {
    let mut seen = vec![false; v.shape().len()];
    let valid = perm.len() == seen.len() && perm.iter().all(|&p| p < seen.len() && !std::mem::replace(&mut seen[p], true));
    if !valid {
        return Err(InterpError::internal(format!("transpose permutation {perm:?} for an operand of rank {}", seen.len()), span));
    }
    Ok(ptl_lang::map_value!(v, a => Value::from(a.permuted_axes(IxDyn(perm)))))
}

/// `Broadcast`: right-aligned; an operand dim that is statically 1 (or missing) stretches to
/// the result dim; any other dim must equal the result dim where that is known. A `?` result
/// dim is the operand's own size, or, where the operand stretches, the shape witness's.
pub(crate) fn broadcast(node: &Node, values: Vec<Value>) -> Result<Value> {
    let span = &node.expr.span;
    let mut it = values.into_iter();
    let v = it.next().ok_or_else(|| InterpError::internal("`broadcast` without its operand", span))?;
    let witness = it.next();
    let (from, to) = (&node.operands[0].ty, &node.expr.ty);
    let shape = v.shape().to_vec();
    let rank = to.rank();
    if shape.len() != from.rank() || rank < shape.len() {
        return Err(InterpError::internal(format!("broadcast of shape {} to `{to}`", shape_str(&shape)), span));
    }
    let off = rank - shape.len();
    let mut dims = Vec::with_capacity(rank);
    for i in 0..rank {
        let own = (i >= off).then(|| shape[i - off]);
        let stretches = i < off || (from.dims[i - off] == Dim::Static(1) && to.dims[i] != Dim::Static(1));
        let witnessed = witness.as_ref().filter(|w| rank - w.shape().len() <= i).map(|w| w.shape()[i - (rank - w.shape().len())]);
        let witness_stretches = |i: usize| {
            node.operands.get(1).is_some_and(|w| rank - w.ty.rank() <= i && w.ty.dims[i - (rank - w.ty.rank())] == Dim::Static(1))
        };
        let mismatch = || {
            let check = RuntimeCheck::Broadcast { from: from.clone(), to: to.clone(), axis: i };
            let seen = format!("the operand has shape {}", shape_str(&shape));
            Err(InterpError::check(check, span, seen))
        };
        let size = match (node.dims[i], own) {
            (Some(n), Some(m)) if !stretches && n != m => return mismatch(),
            (Some(n), _) => n,
            // A dim of the operand's own meeting a `?` must equal the witness's there.
            // (A witness dim that is itself a stretching 1 says nothing.)
            (None, Some(m)) if !stretches => match witnessed {
                Some(w) if w != m && !witness_stretches(i) => return mismatch(),
                _ => m,
            },
            (None, own) => match witnessed {
                Some(w) => w,
                None => own.ok_or_else(|| InterpError::internal(format!("no size for axis {i} of `{to}`"), span))?,
            },
        };
        dims.push(size);
    }
    crate::memory::check_size(&dims, v.dtype().size_bytes(), span)?;
    let err = || InterpError::internal(format!("shape {} does not broadcast to {}", shape_str(&shape), shape_str(&dims)), span);
    fn go<T: Clone>(a: &ArrayD<T>, dims: &[usize]) -> Option<ArrayD<T>> {
        a.broadcast(IxDyn(dims)).map(|view| view.to_owned())
    }
    Ok(ptl_lang::map_value!(&v, a => Value::from(go(a, &dims).ok_or_else(err)?)))
}

/// Inserts a size-1 dim at `axis`.
pub(crate) fn expand(v: Value, axis: usize, span: &Span) -> Result<Value> {
    if axis > v.shape().len() {
        return Err(InterpError::internal(format!("expand at axis {axis} of a rank-{} operand", v.shape().len()), span));
    }
    Ok(ptl_lang::map_value!(v, a => Value::from(a.insert_axis(Axis(axis)))))
}

/// Removes the dim at `axis`, which must have size 1 at run time.
pub(crate) fn squeeze(v: Value, axis: usize, span: &Span) -> Result<Value> {
    let shape = v.shape().to_vec();
    if axis >= shape.len() {
        return Err(InterpError::internal(format!("squeeze of axis {axis} of a rank-{} operand", shape.len()), span));
    }
    if shape[axis] != 1 {
        return Err(InterpError::Squeeze { axis, shape, span: span.clone() });
    }
    Ok(ptl_lang::map_value!(v, a => Value::from(a.index_axis_move(Axis(axis), 0))))
}

/// Row-major reshape to the result dims; at most one `?`, inferred from the element count.
pub(crate) fn reshape(node: &Node, values: Vec<Value>) -> Result<Value> {
    let span = &node.expr.span;
    let mut it = values.into_iter();
    let v = it.next().ok_or_else(|| InterpError::internal("`reshape` without its operand", span))?;
    // A shape witness gives the sizes of the target's `?` dims.
    let target: Vec<Option<usize>> = match it.next() {
        Some(w) if w.shape().len() == node.dims.len() => node.dims.iter().zip(w.shape()).map(|(d, &n)| Some(d.unwrap_or(n))).collect(),
        Some(_) => return Err(InterpError::internal("a reshape's shape witness of another rank", span)),
        None => node.dims.clone(),
    };
    let target = &target;
    let from = v.shape().to_vec();
    let size = v.len();
    let err = || {
        let check = RuntimeCheck::Reshape { from: node.operands[0].ty.clone(), to: node.expr.ty.clone() };
        InterpError::check(check, span, format!("the operand has shape {} ({size} elements)", shape_str(&from)))
    };
    let known: usize = target.iter().flatten().product();
    let unknown: Vec<usize> = target.iter().enumerate().filter(|(_, d)| d.is_none()).map(|(i, _)| i).collect();
    let mut dims: Vec<usize> = target.iter().map(|d| d.unwrap_or(0)).collect();
    match unknown.as_slice() {
        [] if known == size => {}
        [i] if known != 0 && size.is_multiple_of(known) => dims[*i] = size / known,
        _ => return Err(err()),
    }
    fn go<T: Clone>(a: ArrayD<T>, dims: &[usize]) -> Option<ArrayD<T>> {
        let elems: Vec<T> = a.iter().cloned().collect();
        ArrayD::from_shape_vec(IxDyn(dims), elems).ok()
    }
    Ok(ptl_lang::map_value!(v, a => Value::from(go(a, &dims).ok_or_else(err)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(shape: &[usize]) -> Value {
        let n = shape.iter().product::<usize>();
        Value::I64(ArrayD::from_shape_vec(IxDyn(shape), (0..n as i64).collect()).unwrap())
    }

    #[test]
    fn squeeze_checks_size() {
        let e = squeeze(iota(&[2, 3]), 0, &(0..0)).unwrap_err();
        assert_eq!(e.to_string(), "cannot squeeze axis 0 of shape [2, 3]: its size is not 1");
        assert_eq!(squeeze(iota(&[1, 3]), 0, &(0..0)).unwrap(), iota(&[3]));
    }

    #[test]
    fn bad_permutation_is_internal_error() {
        assert!(matches!(transpose(iota(&[2, 3]), &[0, 0], &(0..0)), Err(InterpError::Internal { .. })));
    }
}

/// `guard(cond, x, code)`: `x`, once every element of the bool `cond` is true.
pub(crate) fn guard(values: Vec<Value>, code: i64, span: &Span) -> Result<Value> {
    let mut it = values.into_iter();
    let (Some(cond), Some(x)) = (it.next(), it.next()) else {
        return Err(InterpError::internal("`guard` without its two operands", span));
    };
    let Value::Bool(c) = &cond else {
        return Err(InterpError::internal("`guard` of a condition that is not bool", span));
    };
    if let Some(pos) = c.indexed_iter().find(|(_, b)| !**b).map(|(i, _)| i) {
        let seen = if c.ndim() == 0 { "the condition is false".to_string() } else { format!("the condition is false at {:?}", ndarray::Dimension::slice(&pos)) };
        return Err(InterpError::check(RuntimeCheck::Guard { code }, span, seen));
    }
    Ok(x)
}
