//! Joining: `concat` (and `stack`, which the checker writes as `concat` of expanded
//! operands) along one axis, and the parts of `split`.

use ndarray::{ArrayD, ArrayViewD, Axis};

use super::Node;
use crate::error::{InterpError, Result, shape_str};
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::value::Value;

/// Joins `values` along `axis`; every other axis must have equal sizes.
pub(crate) fn concat(node: &Node, values: Vec<Value>, axis: usize) -> Result<Value> {
    let span = &node.expr.span;
    let Some(first) = values.first() else {
        return Err(InterpError::internal("`concat` of nothing", span));
    };
    let rank = first.shape().len();
    if axis >= rank || values.iter().any(|v| v.shape().len() != rank || v.dtype() != first.dtype()) {
        return Err(InterpError::internal(format!("`concat` along axis {axis} of mixed operands"), span));
    }
    for i in (0..rank).filter(|&i| i != axis) {
        if values.iter().any(|v| v.shape()[i] != first.shape()[i]) {
            let check = RuntimeCheck::Join { axis: i, types: node.operands.iter().map(|o| o.ty.clone()).collect() };
            let shapes: Vec<String> = values.iter().map(|v| shape_str(v.shape())).collect();
            return Err(InterpError::check(check, span, format!("the arrays have shapes {}", shapes.join(", "))));
        }
    }
    fn join<T: Clone>(arrays: Vec<&ArrayD<T>>, axis: usize) -> std::result::Result<ArrayD<T>, ndarray::ShapeError> {
        let views: Vec<ArrayViewD<T>> = arrays.iter().map(|a| a.view()).collect();
        ndarray::concatenate(Axis(axis), &views)
    }
    macro_rules! each {
        ($variant:ident) => {{
            let arrays: Vec<&ArrayD<_>> = values
                .iter()
                .filter_map(|v| match v {
                    Value::$variant(a) => Some(a),
                    _ => None,
                })
                .collect();
            Value::$variant(join(arrays, axis).map_err(|e| InterpError::internal(e.to_string(), span))?)
        }};
    }
    Ok(match first {
        Value::Bool(_) => each!(Bool),
        Value::I32(_) => each!(I32),
        Value::I64(_) => each!(I64),
        Value::F32(_) => each!(F32),
        Value::F64(_) => each!(F64),
    })
}

/// One part of `split`: `len` elements from `start` along `axis`, after checking that the
/// axis has the `total` size the sizes add up to.
pub(crate) fn split_part(node: &Node, x: Value, axis: usize, start: u64, len: u64, total: u64) -> Result<Value> {
    let span = &node.expr.span;
    let shape = x.shape().to_vec();
    let Some(&size) = shape.get(axis) else {
        return Err(InterpError::internal(format!("`split` along axis {axis} of shape {}", shape_str(&shape)), span));
    };
    if size as u64 != total {
        let check = RuntimeCheck::Split { ty: node.operands[0].ty.clone(), axis, total };
        return Err(InterpError::check(check, span, format!("axis {axis} has size {size}")));
    }
    let (start, end) = (start as usize, (start + len) as usize);
    Ok(ptl_lang::map_value!(&x, a => Value::from(a.slice_axis(ndarray::Axis(axis), ndarray::Slice::from(start..end)).to_owned())))
}
