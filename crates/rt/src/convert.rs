//! ptl values to IREE buffer views and back. Bool travels as one byte (0 or 1).

use eerie::runtime::{Runtime, Value as Buffer};
use ndarray::{ArrayD, ArrayViewD, IxDyn};
use ptl_lang::{DType, Value};

use crate::error::{Result, RtError};
use crate::values::HostView;

/// Copies a value into a new device buffer (any memory layout; the copy is row-major).
/// A row-major array is copied once, straight from its own memory.
pub fn to_buffer(rt: &Runtime, v: &Value) -> Result<Buffer> {
    Ok(view_to_buffer(rt, &HostView::of(v), false)?.0)
}

/// Copies an array the caller owns into a new device buffer, straight from its memory when
/// it is row-major; with `in_place` (a host device, inside an engine's call), large aligned
/// row-major memory is read where it is instead. The flag says whether it was: such a buffer
/// is the caller's memory.
pub(crate) fn view_to_buffer(rt: &Runtime, v: &HostView<'_>, in_place: bool) -> Result<(Buffer, bool)> {
    fn buffer<T: eerie::runtime::BufferElement + Clone>(
        rt: &Runtime,
        a: &ArrayViewD<'_, T>,
        in_place: bool,
    ) -> Result<(eerie::runtime::BufferView<T>, bool)> {
        if let Some(b) = imported(rt, a, in_place) {
            return Ok((b, true));
        }
        let dense = match a.as_slice() {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(a.iter().cloned().collect()),
        };
        Ok((rt.buffer_view(a.shape(), &dense)?, false))
    }
    Ok(match v {
        HostView::Bool(a) => {
            let bytes: std::borrow::Cow<'_, [i8]> = match a.as_slice() {
                // SAFETY: a `bool` is one byte holding 0 or 1, a valid `i8`; the slice borrows
                // the same memory for the same length.
                Some(s) => std::borrow::Cow::Borrowed(unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<i8>(), s.len()) }),
                None => std::borrow::Cow::Owned(a.iter().map(|&b| b as i8).collect()),
            };
            (Buffer::I8(rt.buffer_view(a.shape(), &bytes)?), false)
        }
        HostView::I32(a) => buffer(rt, a, in_place).map(|(b, i)| (Buffer::I32(b), i))?,
        HostView::I64(a) => buffer(rt, a, in_place).map(|(b, i)| (Buffer::I64(b), i))?,
        HostView::F32(a) => buffer(rt, a, in_place).map(|(b, i)| (Buffer::F32(b), i))?,
        HostView::F64(a) => buffer(rt, a, in_place).map(|(b, i)| (Buffer::F64(b), i))?,
    })
}

/// From this many bytes on, an argument in suitable memory is read in place, not copied.
pub const IMPORT_FROM: usize = 1 << 16;

/// `a`'s memory as a device buffer without a copy, when the device can read it in place: a
/// host (CPU) device, row-major memory, 64-byte aligned (as compiled code assumes of its
/// buffers), and large enough that the copy would cost more than the import. `None` when not,
/// or when IREE declines; the caller copies then.
///
/// Only [`crate::Engine`]'s calls use this, and they end every use of the buffer before
/// the borrow of `a` ends: the buffer is read while the call runs (a synchronous call, its
/// kernels done when it returns), and a result that shares its storage is copied before
/// the call returns (see `Engine::invoke`).
fn imported<T: eerie::runtime::BufferElement>(rt: &Runtime, a: &ArrayViewD<'_, T>, in_place: bool) -> Option<eerie::runtime::BufferView<T>> {
    if !in_place {
        return None;
    }
    let s = a.as_slice()?;
    if std::mem::size_of_val(s) < IMPORT_FROM || (s.as_ptr() as usize) % 64 != 0 {
        return None;
    }
    // SAFETY: see above: every use of the buffer ends before `a`'s borrow does, and nothing
    // writes to it (it is imported read-only). The release has nothing to free.
    unsafe { rt.import_host(a.shape(), s.as_ptr(), s.len(), Box::new(|| ())) }.ok()
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
