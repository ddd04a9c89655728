//! Shape operations: transpose, explicit broadcast, expand, squeeze, reshape.
//!
//! Target shapes arrive as `Option<usize>` per dim: `Some` for a static dim or a symbol the
//! enclosing call bound, `None` for `?` (or a symbol with no binding).

use ndarray::{ArrayD, Axis, IxDyn};

use super::error::{InterpError, Result, shape_str};
use ptl_lang::span::Span;
use ptl_lang::value::Value;

fn show_target(target: &[Option<usize>]) -> String {
    let dims: Vec<String> = target.iter().map(|d| d.map_or("?".to_string(), |n| n.to_string())).collect();
    format!("[{}]", dims.join(", "))
}

/// Result dim `i` is operand dim `perm[i]`.
pub(crate) fn transpose(v: Value, perm: &[usize], span: &Span) -> Result<Value> {
    let mut seen = vec![false; v.shape().len()];
    let valid = perm.len() == seen.len() && perm.iter().all(|&p| p < seen.len() && !std::mem::replace(&mut seen[p], true));
    if !valid {
        return Err(InterpError::internal(format!("transpose permutation {perm:?} for an operand of rank {}", seen.len()), span));
    }
    Ok(ptl_lang::map_value!(v, a => Value::from(a.permuted_axes(IxDyn(perm)))))
}

/// Broadcasts to `target` (right-aligned; size-1 dims stretch). A `?` target dim takes the
/// operand's aligned dim.
pub(crate) fn broadcast_to(v: Value, target: &[Option<usize>], span: &Span) -> Result<Value> {
    let shape = v.shape().to_vec();
    if target.len() < shape.len() {
        return Err(InterpError::internal(format!("broadcast of shape {} to lower rank {}", shape_str(&shape), show_target(target)), span));
    }
    let off = target.len() - shape.len();
    let mut dims = Vec::with_capacity(target.len());
    for (i, t) in target.iter().enumerate() {
        let own = if i >= off { Some(shape[i - off]) } else { None };
        dims.push(match (t, own) {
            (Some(n), _) => *n,
            (None, Some(n)) => n,
            (None, None) => {
                return Err(InterpError::internal(format!("broadcast target {} has an unknown leading dim", show_target(target)), span));
            }
        });
    }
    let err = || InterpError::Broadcast { lhs: shape.clone(), rhs: dims.clone(), span: span.clone() };
    super::memory::check_size(&dims, v.dtype().size_bytes(), span)?;
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

/// Row-major reshape. At most one `?` target dim, inferred from the element count.
pub(crate) fn reshape(v: Value, target: &[Option<usize>], span: &Span) -> Result<Value> {
    let from = v.shape().to_vec();
    let size = v.len();
    let err = || InterpError::Reshape { from: from.clone(), size, target: show_target(target), span: span.clone() };
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
    fn reshape_infers_one_unknown() {
        let r = reshape(iota(&[2, 3]), &[None, Some(2)], &(0..0)).unwrap();
        assert_eq!(r, iota(&[3, 2]));
        let e = reshape(iota(&[2, 3]), &[Some(4), None], &(0..0)).unwrap_err();
        assert_eq!(e.to_string(), "cannot reshape an array of shape [2, 3] (6 elements) to [4, ?]");
    }

    #[test]
    fn reshape_follows_row_major_order_of_transposed_views() {
        // np.arange(6).reshape(2,3).T.reshape(6) -> [0 3 1 4 2 5]
        let t = transpose(iota(&[2, 3]), &[1, 0], &(0..0)).unwrap();
        let r = reshape(t, &[Some(6)], &(0..0)).unwrap();
        assert_eq!(r, Value::I64(ArrayD::from_shape_vec(IxDyn(&[6]), vec![0, 3, 1, 4, 2, 5]).unwrap()));
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
