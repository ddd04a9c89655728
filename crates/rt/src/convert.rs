//! ptl values to IREE buffer views and back. Bool travels as one byte (0 or 1).

use eerie::runtime::{Runtime, Value as Buffer};
use ndarray::{ArrayD, IxDyn};
use ptl_lang::{DType, Value};

use crate::error::{Result, RtError};

/// Copies a value into a new device buffer (any memory layout; the copy is row-major).
/// A row-major array is copied once, straight from its own memory.
pub fn to_buffer(rt: &Runtime, v: &Value) -> Result<Buffer> {
    fn dense<T: Clone>(a: &ArrayD<T>) -> std::borrow::Cow<'_, [T]> {
        match a.as_slice() {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(a.iter().cloned().collect()),
        }
    }
    let shape = v.shape().to_vec();
    Ok(match v {
        Value::Bool(a) => Buffer::I8(rt.buffer_view(&shape, &a.iter().map(|&b| b as i8).collect::<Vec<_>>())?),
        Value::I32(a) => Buffer::I32(rt.buffer_view(&shape, &dense(a))?),
        Value::I64(a) => Buffer::I64(rt.buffer_view(&shape, &dense(a))?),
        Value::F32(a) => Buffer::F32(rt.buffer_view(&shape, &dense(a))?),
        Value::F64(a) => Buffer::F64(rt.buffer_view(&shape, &dense(a))?),
    })
}

fn array<T>(shape: Vec<usize>, data: Vec<T>) -> Result<ArrayD<T>> {
    ArrayD::from_shape_vec(IxDyn(&shape), data).map_err(|e| RtError::Internal(format!("result shape: {e}")))
}

/// Reads a result buffer back, checking it has the dtype the program promised.
pub fn from_buffer(b: &Buffer, dtype: DType) -> Result<Value> {
    Ok(match (b, dtype) {
        (Buffer::I8(v), DType::Bool) => Value::Bool(array(v.shape(), v.read()?.into_iter().map(|x| x != 0).collect())?),
        (Buffer::I32(v), DType::I32) => Value::I32(array(v.shape(), v.read()?)?),
        (Buffer::I64(v), DType::I64) => Value::I64(array(v.shape(), v.read()?)?),
        (Buffer::F32(v), DType::F32) => Value::F32(array(v.shape(), v.read()?)?),
        (Buffer::F64(v), DType::F64) => Value::F64(array(v.shape(), v.read()?)?),
        (other, _) => {
            return Err(RtError::Internal(format!("result has an unexpected element type ({other:?}); expected {dtype}")));
        }
    })
}
