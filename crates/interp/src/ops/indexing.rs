//! The indexing family: `x[i, a:b:s]`, `take` (and `x[idx]`), `scatter_add`, `scatter_set`,
//! `set_slice` and `flatnonzero`, written after Python's own rules (`slice.indices`,
//! `np.take`, `np.add.at`, assignment in index order so the last repeated index wins,
//! `np.flatnonzero` and the shape rule of boolean indexing).

use ndarray::{ArrayD, Axis, IxDyn};

use super::Node;
use crate::error::{InterpError, Result, shape_str};
use ptl_lang::ops::SliceAxis;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::span::Span;
use ptl_lang::value::Value;

/// An `i64` scalar operand.
fn scalar(v: &Value, span: &Span) -> Result<i64> {
    match v {
        Value::I64(a) if a.ndim() == 0 => a.iter().next().copied().ok_or_else(|| InterpError::internal("an empty scalar", span)),
        other => Err(InterpError::internal(format!("an index of type {}", other.tensor_type()), span)),
    }
}

/// The position `i` names on an axis of `len` elements (negative counts from the end).
fn position(i: i64, len: usize) -> Option<usize> {
    let len = len as i128;
    let p = if i < 0 { i as i128 + len } else { i as i128 };
    (0..len).contains(&p).then_some(p as usize)
}

/// The positions `start:stop:step` selects on an axis of `len` elements: Python's
/// `slice.indices`, then `range`.
fn slice_positions(len: usize, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<usize> {
    let len = len as i128;
    let step = step as i128;
    let (lower, upper) = if step < 0 { (-1, len - 1) } else { (0, len) };
    let bound = |v: Option<i64>, default: i128| match v {
        None => default,
        Some(v) if v < 0 => (v as i128 + len).max(lower),
        Some(v) => (v as i128).min(upper),
    };
    let first = bound(start, if step < 0 { upper } else { lower });
    let end = bound(stop, if step < 0 { lower } else { upper });
    let mut out = Vec::new();
    let mut p = first;
    while (step > 0 && p < end) || (step < 0 && p > end) {
        out.push(p as usize);
        p += step;
    }
    out
}

/// `flatnonzero(a)`: the row-major positions of `a`'s elements that are not zero (a NaN is
/// not zero). With a second operand (from `x[mask]`), `a`'s shape must be its leading dims.
pub(crate) fn flatnonzero(node: &Node, values: Vec<Value>) -> Result<Value> {
    let span = &node.expr.span;
    let a = values.first().ok_or_else(|| InterpError::internal("`flatnonzero` without its operand", span))?;
    if let Some(like) = values.get(1) {
        let (m, x) = (a.shape(), like.shape());
        if let Some(axis) = (0..m.len()).find(|&i| x.get(i) != Some(&m[i])) {
            let check = RuntimeCheck::Mask { mask: node.operands[0].ty.clone(), ty: node.operands[1].ty.clone(), axis };
            let seen = format!("the boolean index has shape {} and the indexed array {}", shape_str(m), shape_str(x));
            return Err(InterpError::check(check, span, seen));
        }
    }
    let positions: Vec<i64> = ptl_lang::map_value!(a, arr => arr
        .iter()
        .enumerate()
        .filter(|(_, v)| **v != Default::default())
        .map(|(i, _)| i as i64)
        .collect());
    let n = positions.len();
    Ok(Value::I64(ArrayD::from_shape_vec(IxDyn(&[n]), positions).map_err(|e| InterpError::internal(e.to_string(), span))?))
}

fn out_of_range(node: &Node, op: &str, axis: usize, operand: usize, i: i64, len: usize) -> InterpError {
    let check = RuntimeCheck::Index { op: op.to_string(), ty: node.operands[operand].ty.clone(), axis };
    InterpError::check(check, &node.expr.span, format!("the index is {i} and axis {axis} has size {len}"))
}

/// `x[...]`: each axis keeps the positions its entry selects; single indices drop the axis.
pub(crate) fn slice(node: &Node, values: Vec<Value>, axes: &[SliceAxis]) -> Result<Value> {
    let span = &node.expr.span;
    let mut it = values.into_iter();
    let x = it.next().ok_or_else(|| InterpError::internal("`[]` without its operand", span))?;
    let shape = x.shape().to_vec();
    if axes.len() != shape.len() {
        return Err(InterpError::internal(format!("{} slice axes for shape {}", axes.len(), shape_str(&shape)), span));
    }
    let mut next = || -> Result<i64> { scalar(&it.next().ok_or_else(|| InterpError::internal("a missing slice bound", span))?, span) };
    let mut picks: Vec<Vec<usize>> = Vec::new();
    let mut dropped = Vec::new();
    for (axis, a) in axes.iter().enumerate() {
        let len = shape[axis];
        picks.push(match *a {
            SliceAxis::Full => (0..len).collect(),
            SliceAxis::Index => {
                let i = next()?;
                dropped.push(axis);
                vec![position(i, len).ok_or_else(|| out_of_range(node, "[]", axis, 0, i, len))?]
            }
            SliceAxis::Range { start, stop, step } => {
                let start = if start { Some(next()?) } else { None };
                let stop = if stop { Some(next()?) } else { None };
                let step = if step { next()? } else { 1 };
                if step == 0 {
                    let check = RuntimeCheck::SliceStep { ty: node.operands[0].ty.clone(), axis };
                    return Err(InterpError::check(check, span, "the step is 0".to_string()));
                }
                slice_positions(len, start, stop, step)
            }
        });
    }
    fn go<T: Clone>(a: &ArrayD<T>, picks: &[Vec<usize>], dropped: &[usize]) -> ArrayD<T> {
        let mut r = a.clone();
        for (axis, p) in picks.iter().enumerate() {
            r = r.select(Axis(axis), p);
        }
        for &axis in dropped.iter().rev() {
            r = r.index_axis_move(Axis(axis), 0);
        }
        r
    }
    Ok(ptl_lang::map_value!(&x, a => Value::from(go(a, &picks, &dropped))))
}

/// The positions an index tensor names on an axis of `len` elements, in row-major order.
fn positions(node: &Node, op: &str, idx: &Value, axis: usize, operand: usize, len: usize) -> Result<Vec<usize>> {
    let Value::I64(idx) = idx else {
        return Err(InterpError::internal(format!("indices of type {}", idx.tensor_type()), &node.expr.span));
    };
    idx.iter().map(|&i| position(i, len).ok_or_else(|| out_of_range(node, op, axis, operand, i, len))).collect()
}

/// `take(x, idx, axis)`: NumPy's `np.take`.
pub(crate) fn take(node: &Node, values: Vec<Value>, axis: usize) -> Result<Value> {
    let span = &node.expr.span;
    let [x, idx]: [Value; 2] = values.try_into().map_err(|_| InterpError::internal("`take` without two operands", span))?;
    let shape = x.shape().to_vec();
    let picks = positions(node, "take", &idx, axis, 0, shape[axis])?;
    let mut dims: Vec<usize> = shape[..axis].to_vec();
    dims.extend(idx.shape());
    dims.extend(&shape[axis + 1..]);
    crate::memory::check_size(&dims, x.dtype().size_bytes(), span)?;
    fn go<T: Clone>(a: &ArrayD<T>, axis: usize, picks: &[usize], dims: &[usize]) -> Option<ArrayD<T>> {
        let picked = a.select(Axis(axis), picks);
        let elems: Vec<T> = picked.iter().cloned().collect();
        ArrayD::from_shape_vec(IxDyn(dims), elems).ok()
    }
    let err = || InterpError::internal("`take` result of the wrong size", span);
    Ok(ptl_lang::map_value!(&x, a => Value::from(go(a, axis, &picks, &dims).ok_or_else(err)?)))
}

/// `scatter_add` / `scatter_set`: row `idx[p]` of the target gets `values[p]`, added or
/// assigned, in row-major order of `idx`.
pub(crate) fn scatter(node: &Node, values: Vec<Value>, add: bool) -> Result<Value> {
    let span = &node.expr.span;
    let op = if add { "scatter_add" } else { "scatter_set" };
    let [target, idx, vals]: [Value; 3] = values.try_into().map_err(|_| InterpError::internal("a scatter without three operands", span))?;
    let rows = positions(node, op, &idx, 0, 0, target.shape()[0])?;
    let row_shape = target.shape()[1..].to_vec();
    // The values have the index's shape, then a row's: a `?` of their own is checked here,
    // as compiled code checks it.
    let mut want = idx.shape().to_vec();
    want.extend(&row_shape);
    if let Some(axis) = (0..want.len()).find(|&j| vals.shape().get(j) != Some(&want[j])) {
        let v_ty = node.operands[2].ty.clone();
        let check = RuntimeCheck::Broadcast { from: v_ty.clone(), to: v_ty, axis };
        let seen = format!("the values have shape {}, the rows they go to {}", shape_str(vals.shape()), shape_str(&want));
        return Err(InterpError::check(check, span, seen));
    }
    fn go<T: Clone>(t: &ArrayD<T>, v: &ArrayD<T>, rows: &[usize], row: &[usize], f: impl Fn(&mut T, &T)) -> Option<ArrayD<T>> {
        let mut out = t.clone();
        let mut vshape = vec![rows.len()];
        vshape.extend(row);
        let v = v.as_standard_layout().into_owned().into_shape_with_order(IxDyn(&vshape)).ok()?;
        for (p, &r) in rows.iter().enumerate() {
            let src = v.index_axis(Axis(0), p);
            let mut dst = out.index_axis_mut(Axis(0), r);
            dst.zip_mut_with(&src, |d, s| f(d, s));
        }
        Some(out)
    }
    let err = || InterpError::internal("scatter values of the wrong shape", span);
    let r = match (&target, &vals, add) {
        (Value::F64(t), Value::F64(v), true) => go(t, v, &rows, &row_shape, |d, s| *d += *s).map(Value::from),
        (Value::F32(t), Value::F32(v), true) => go(t, v, &rows, &row_shape, |d, s| *d += *s).map(Value::from),
        (Value::I64(t), Value::I64(v), true) => go(t, v, &rows, &row_shape, |d, s| *d = d.wrapping_add(*s)).map(Value::from),
        (Value::I32(t), Value::I32(v), true) => go(t, v, &rows, &row_shape, |d, s| *d = d.wrapping_add(*s)).map(Value::from),
        (Value::F64(t), Value::F64(v), false) => go(t, v, &rows, &row_shape, |d, s| *d = *s).map(Value::from),
        (Value::F32(t), Value::F32(v), false) => go(t, v, &rows, &row_shape, |d, s| *d = *s).map(Value::from),
        (Value::I64(t), Value::I64(v), false) => go(t, v, &rows, &row_shape, |d, s| *d = *s).map(Value::from),
        (Value::I32(t), Value::I32(v), false) => go(t, v, &rows, &row_shape, |d, s| *d = *s).map(Value::from),
        (Value::Bool(t), Value::Bool(v), false) => go(t, v, &rows, &row_shape, |d, s| *d = *s).map(Value::from),
        _ => return Err(InterpError::internal(format!("`{op}` of {} and {}", target.tensor_type(), vals.tensor_type()), span)),
    };
    r.ok_or_else(err)
}

/// `set_slice(x, value, a, b)`: `x` with rows `a:b` (NumPy's bounds) replaced by `value`,
/// whose first dim is the slice's length or 1.
pub(crate) fn set_slice(node: &Node, values: Vec<Value>) -> Result<Value> {
    let span = &node.expr.span;
    let [x, value, a, b]: [Value; 4] = values.try_into().map_err(|_| InterpError::internal("`set_slice` without four operands", span))?;
    let rows = slice_positions(x.shape()[0], Some(scalar(&a, span)?), Some(scalar(&b, span)?), 1);
    let lead = value.shape()[0];
    if lead != rows.len() && lead != 1 {
        let check = RuntimeCheck::SetSlice { ty: node.operands[0].ty.clone(), value: node.operands[1].ty.clone() };
        return Err(InterpError::check(check, span, format!("the slice has {} rows and the value has shape {}", rows.len(), shape_str(value.shape()))));
    }
    fn go<T: Clone>(x: &ArrayD<T>, v: &ArrayD<T>, rows: &[usize]) -> ArrayD<T> {
        let mut out = x.clone();
        for (p, &r) in rows.iter().enumerate() {
            let src = v.index_axis(Axis(0), if v.shape()[0] == 1 { 0 } else { p });
            out.index_axis_mut(Axis(0), r).assign(&src);
        }
        out
    }
    Ok(match (&x, &value) {
        (Value::F64(x), Value::F64(v)) => Value::from(go(x, v, &rows)),
        (Value::F32(x), Value::F32(v)) => Value::from(go(x, v, &rows)),
        (Value::I64(x), Value::I64(v)) => Value::from(go(x, v, &rows)),
        (Value::I32(x), Value::I32(v)) => Value::from(go(x, v, &rows)),
        (Value::Bool(x), Value::Bool(v)) => Value::from(go(x, v, &rows)),
        _ => return Err(InterpError::internal("`set_slice` of different dtypes", span)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_follow_python() {
        assert_eq!(slice_positions(5, None, None, -1), vec![4, 3, 2, 1, 0]);
        assert_eq!(slice_positions(5, Some(-2), None, 1), vec![3, 4]);
        assert_eq!(slice_positions(5, Some(10), Some(-10), -2), vec![4, 2, 0]);
        assert_eq!(slice_positions(5, Some(i64::MIN), Some(i64::MAX), i64::MAX), vec![0]);
        assert_eq!(slice_positions(0, None, None, -1), Vec::<usize>::new());
        assert_eq!(position(i64::MIN, 3), None);
        assert_eq!(position(-3, 3), Some(0));
        assert_eq!(position(3, 3), None);
    }
}
