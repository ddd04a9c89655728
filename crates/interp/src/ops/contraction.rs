//! `a @ b` with NumPy's `matmul` semantics: a 1-D operand is promoted to a matrix (a row on
//! the left, a column on the right) and the added dim removed from the result; leading batch
//! dims must be equal. Float products use ndarray's `dot` (computed in the element's precision);
//! integer products wrap on overflow; bool products are or-of-ands, as in NumPy.

use ndarray::{Array2, ArrayD, ArrayView2, ArrayViewD, Axis, Ix2, IxDyn};

use ndarray::Dimension;


use super::Node;
use crate::error::{InterpError, Result, shape_str};
use ptl_lang::runtime::RuntimeCheck;
use crate::scalar::IntElem;
use ptl_lang::span::Span;
use ptl_lang::value::Value;

/// `a @ b`, after the run-time checks the static types could not settle: equal inner dims and
/// equal batch dims (batch dims do not broadcast).
pub(crate) fn matmul(node: &Node, a: &Value, b: &Value) -> Result<Value> {
    let span = &node.expr.span;
    let (sa, sb) = (a.shape(), b.shape());
    let (lt, rt) = (&node.operands[0].ty, &node.operands[1].ty);
    let seen = || format!("the operands have shapes {} and {}", shape_str(sa), shape_str(sb));
    if sa.is_empty() || sb.is_empty() {
        return Err(InterpError::internal("`@` of a scalar", span));
    }
    let k_left = sa[sa.len() - 1];
    let k_right = if sb.len() == 1 { sb[0] } else { sb[sb.len() - 2] };
    if k_left != k_right {
        return Err(InterpError::check(RuntimeCheck::MatMulInner { lhs: lt.clone(), rhs: rt.clone() }, span, seen()));
    }
    if sa.len() >= 3 && sa.len() == sb.len() {
        if let Some(axis) = (0..sa.len() - 2).find(|&i| sa[i] != sb[i]) {
            let check = RuntimeCheck::MatMulBatch { lhs: lt.clone(), rhs: rt.clone(), axis };
            return Err(InterpError::check(check, span, seen()));
        }
    }
    product(a, b, span)
}

fn product(a: &Value, b: &Value, span: &Span) -> Result<Value> {
    // The result has a's leading dims (all but the contracted one) and b's last dim.
    let (sa, sb) = (a.shape(), b.shape());
    let mut out: Vec<usize> = sa[..sa.len().saturating_sub(1)].to_vec();
    if sb.len() >= 2 {
        out.push(sb[sb.len() - 1]);
    }
    crate::memory::check_size(&out, a.dtype().size_bytes(), span)?;
    Ok(match (a, b) {
        (Value::F32(x), Value::F32(y)) => Value::F32(batched(x, y, span, |p, q| p.dot(&q))?),
        (Value::F64(x), Value::F64(y)) => Value::F64(batched(x, y, span, |p, q| p.dot(&q))?),
        (Value::I32(x), Value::I32(y)) => Value::I32(batched(x, y, span, int_mm)?),
        (Value::I64(x), Value::I64(y)) => Value::I64(batched(x, y, span, int_mm)?),
        (Value::Bool(x), Value::Bool(y)) => Value::Bool(batched(x, y, span, bool_mm)?),
        _ => return Err(InterpError::internal(format!("matmul of {} and {} operands", a.dtype(), b.dtype()), span)),
    })
}

fn int_mm<T: IntElem>(a: ArrayView2<T>, b: ArrayView2<T>) -> Array2<T> {
    let (m, k) = a.dim();
    let n = b.dim().1;
    Array2::from_shape_fn((m, n), |(i, j)| (0..k).fold(T::ZERO, |acc, l| acc.wadd(a[[i, l]].wmul(b[[l, j]]))))
}

fn bool_mm(a: ArrayView2<bool>, b: ArrayView2<bool>) -> Array2<bool> {
    let (m, k) = a.dim();
    let n = b.dim().1;
    Array2::from_shape_fn((m, n), |(i, j)| (0..k).any(|l| a[[i, l]] && b[[l, j]]))
}

fn batched<T: Clone>(
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    span: &Span,
    mm: impl Fn(ArrayView2<T>, ArrayView2<T>) -> Array2<T>,
) -> Result<ArrayD<T>> {
    let err = |reason: &str| InterpError::MatMul { lhs: a.shape().to_vec(), rhs: b.shape().to_vec(), reason: reason.to_string(), span: span.clone() };
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(err("operands must have at least one dim"));
    }
    let a2: ArrayViewD<T> = if a.ndim() == 1 { a.view().insert_axis(Axis(0)) } else { a.view() };
    let b2: ArrayViewD<T> = if b.ndim() == 1 { b.view().insert_axis(Axis(1)) } else { b.view() };
    let (ra, rb) = (a2.ndim(), b2.ndim());
    let (m, k) = (a2.shape()[ra - 2], a2.shape()[ra - 1]);
    let (k2, n) = (b2.shape()[rb - 2], b2.shape()[rb - 1]);
    if k != k2 {
        return Err(err(&format!("inner dims {k} and {k2} differ")));
    }
    if a2.shape()[..ra - 2] != b2.shape()[..rb - 2] {
        return Err(err("batch dims differ"));
    }
    let batch = a2.shape()[..ra - 2].to_vec();
    let full = |inner: [usize; 2]| -> Vec<usize> { batch.iter().copied().chain(inner).collect() };
    let av = a2.broadcast(IxDyn(&full([m, k]))).ok_or_else(|| err("batch dims do not broadcast"))?;
    let bv = b2.broadcast(IxDyn(&full([k2, n]))).ok_or_else(|| err("batch dims do not broadcast"))?;

    let mut out = Vec::with_capacity(batch.iter().product::<usize>() * m * n);
    for idx in ndarray::indices(IxDyn(&batch)) {
        let mut pa = av.view();
        let mut pb = bv.view();
        for &i in idx.slice() {
            pa = pa.index_axis_move(Axis(0), i);
            pb = pb.index_axis_move(Axis(0), i);
        }
        let pa = pa.into_dimensionality::<Ix2>().map_err(|_| err("internal rank error"))?;
        let pb = pb.into_dimensionality::<Ix2>().map_err(|_| err("internal rank error"))?;
        out.extend(mm(pa, pb).iter().cloned());
    }
    let mut result = ArrayD::from_shape_vec(IxDyn(&full([m, n])), out).map_err(|_| err("internal shape error"))?;
    let r = result.ndim();
    if b.ndim() == 1 {
        result = result.index_axis_move(Axis(r - 1), 0);
    }
    if a.ndim() == 1 {
        let r = result.ndim();
        let axis = if b.ndim() == 1 { r - 1 } else { r - 2 };
        result = result.index_axis_move(Axis(axis), 0);
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr<T>(shape: &[usize], v: Vec<T>) -> ArrayD<T> {
        ArrayD::from_shape_vec(IxDyn(shape), v).unwrap()
    }

    #[test]
    fn vector_vector_is_scalar() {
        // np.array([1.,2.,3.]) @ np.array([4.,5.,6.]) -> 32.0
        let r = product(&Value::F64(arr(&[3], vec![1., 2., 3.])), &Value::F64(arr(&[3], vec![4., 5., 6.])), &(0..0)).unwrap();
        assert_eq!(r, Value::F64(arr(&[], vec![32.])));
    }

    #[test]
    fn int_matmul_wraps() {
        let a = Value::I32(arr(&[1, 2], vec![i32::MAX, 1]));
        let b = Value::I32(arr(&[2], vec![2, 2]));
        // (2^31-1)*2 + 2 wraps to 0
        assert_eq!(product(&a, &b, &(0..0)).unwrap(), Value::I32(arr(&[1], vec![0])));
    }

    #[test]
    fn inner_mismatch_is_an_error() {
        let a = Value::F32(arr(&[2, 3], vec![0.; 6]));
        let b = Value::F32(arr(&[2, 3], vec![0.; 6]));
        let e = product(&a, &b, &(1..2)).unwrap_err();
        assert_eq!(e.to_string(), "matmul of shapes [2, 3] and [2, 3]: inner dims 3 and 2 differ");
    }
}
