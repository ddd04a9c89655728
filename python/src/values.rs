//! NumPy arrays to ptl values and back.

use ndarray::ArrayD;
use numpy::{IntoPyArray, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use ptl_lang::{DType, Value};
use ndarray::{ArrayViewMutD, IxDyn};
use ptl_rt::{DeviceValue, Engine, HostMemory, HostView};

use crate::engine::rt_error;

/// From this many bytes on, a result becomes a NumPy array over its own memory (no copy).
const IN_PLACE_FROM: usize = 1 << 16;

/// A compiled call's results, kept in the memory the call wrote them to. The NumPy array
/// over that memory may be dropped on any thread.
#[pyclass(module = "pytensor_ptl._ptl")]
struct ResultMemory {
    _memory: KeptAlive,
}

/// A result's mapping, only kept alive (never read through) until it is dropped.
struct KeptAlive(#[allow(dead_code)] HostMemory);

// SAFETY: nothing reads or writes through the wrapper; it is only dropped, which releases
// IREE references (atomic reference counts) and unmaps a host-memory mapping, both valid on
// any thread. A NumPy array handed to another thread is freed there.
unsafe impl Send for KeptAlive {}
unsafe impl Sync for KeptAlive {}

/// The results of a call as NumPy arrays: large ones over the memory the call wrote (the
/// array keeps it alive), others copied. A result whose memory another result already took
/// (the same value returned twice) is copied.
pub fn results_to_list(py: Python<'_>, engine: &Engine, outs: &[DeviceValue]) -> PyResult<Py<PyList>> {
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut items: Vec<Py<PyAny>> = Vec::with_capacity(outs.len());
    for v in outs {
        let memory = engine.host_memory(v).filter(|m| {
            let (p, n) = m.bytes();
            let p = p as usize;
            n >= IN_PLACE_FROM && !taken.iter().any(|&(q, k)| p < q + k && q < p + n)
        });
        items.push(match memory {
            Some(m) => {
                let (p, n) = m.bytes();
                taken.push((p as usize, n));
                in_place(py, m, v.shape())?
            }
            None => to_numpy(py, engine.download(v).map_err(rt_error)?),
        });
    }
    Ok(PyList::new(py, items)?.unbind())
}

fn in_place(py: Python<'_>, memory: HostMemory, shape: &[usize]) -> PyResult<Py<PyAny>> {
    fn wrap<T: numpy::Element>(py: Python<'_>, ptr: *mut u8, shape: &[usize], memory: HostMemory) -> PyResult<Py<PyAny>> {
        // SAFETY: the mapping holds `shape`'s product of `T`s, row-major and aligned (IREE's
        // buffers are 64-byte aligned); `ResultMemory` keeps it mapped, and the buffer alive,
        // until NumPy drops the array, its base. The memory is this result's alone.
        let view = unsafe { ArrayViewMutD::from_shape_ptr(IxDyn(shape), ptr.cast::<T>()) };
        let owner = Bound::new(py, ResultMemory { _memory: KeptAlive(memory) })?;
        Ok(unsafe { numpy::PyArray::borrow_from_array(&view, owner.into_any()) }.into_any().unbind())
    }
    let (ptr, _) = memory.bytes();
    match &memory {
        // One byte, 0 or 1: NumPy's bool.
        HostMemory::Bool(_) => wrap::<bool>(py, ptr, shape, memory),
        HostMemory::I32(_) => wrap::<i32>(py, ptr, shape, memory),
        HostMemory::I64(_) => wrap::<i64>(py, ptr, shape, memory),
        HostMemory::F32(_) => wrap::<f32>(py, ptr, shape, memory),
        HostMemory::F64(_) => wrap::<f64>(py, ptr, shape, memory),
    }
}

/// A NumPy array of one of ptl's dtypes, borrowed (read-only) for the length of a call.
pub enum Borrowed<'py> {
    Bool(PyReadonlyArrayDyn<'py, bool>),
    I32(PyReadonlyArrayDyn<'py, i32>),
    I64(PyReadonlyArrayDyn<'py, i64>),
    F32(PyReadonlyArrayDyn<'py, f32>),
    F64(PyReadonlyArrayDyn<'py, f64>),
}

impl<'py> Borrowed<'py> {
    /// `obj` when it is a NumPy array of exactly `dtype`; `None` otherwise (the caller
    /// converts it, or reports it).
    pub fn of(obj: &Bound<'py, PyAny>, dtype: DType) -> Option<Self> {
        Some(match dtype {
            DType::Bool => Borrowed::Bool(obj.cast::<PyArrayDyn<bool>>().ok()?.try_readonly().ok()?),
            DType::I32 => Borrowed::I32(obj.cast::<PyArrayDyn<i32>>().ok()?.try_readonly().ok()?),
            DType::I64 => Borrowed::I64(obj.cast::<PyArrayDyn<i64>>().ok()?.try_readonly().ok()?),
            DType::F32 => Borrowed::F32(obj.cast::<PyArrayDyn<f32>>().ok()?.try_readonly().ok()?),
            DType::F64 => Borrowed::F64(obj.cast::<PyArrayDyn<f64>>().ok()?.try_readonly().ok()?),
        })
    }

    /// The array's memory as the runtime reads it: no copy.
    pub fn view(&self) -> HostView<'_> {
        match self {
            Borrowed::Bool(a) => HostView::Bool(a.as_array()),
            Borrowed::I32(a) => HostView::I32(a.as_array()),
            Borrowed::I64(a) => HostView::I64(a.as_array()),
            Borrowed::F32(a) => HostView::F32(a.as_array()),
            Borrowed::F64(a) => HostView::F64(a.as_array()),
        }
    }
}

/// A NumPy array (any supported dtype) to a value.
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    macro_rules! try_dtype {
        ($t:ty, $variant:ident) => {
            if let Ok(a) = obj.cast::<PyArrayDyn<$t>>() {
                return Ok(Value::$variant(a.readonly().as_array().to_owned()));
            }
        };
    }
    try_dtype!(f64, F64);
    try_dtype!(f32, F32);
    try_dtype!(i64, I64);
    try_dtype!(i32, I32);
    try_dtype!(bool, Bool);
    let dtype = obj
        .getattr("dtype")
        .and_then(|d| d.str().map(|s| s.to_string()))
        .unwrap_or_else(|_| obj.get_type().name().map(|n| n.to_string()).unwrap_or_default());
    Err(PyTypeError::new_err(format!("ptl takes NumPy arrays of bool, int32, int64, float32 or float64, got {dtype}")))
}

pub fn to_numpy(py: Python<'_>, v: Value) -> Py<PyAny> {
    fn arr<T: numpy::Element>(py: Python<'_>, a: ArrayD<T>) -> Py<PyAny> {
        a.into_pyarray(py).into_any().unbind()
    }
    match v {
        Value::Bool(a) => arr(py, a),
        Value::I32(a) => arr(py, a),
        Value::I64(a) => arr(py, a),
        Value::F32(a) => arr(py, a),
        Value::F64(a) => arr(py, a),
    }
}

pub fn values_to_list(py: Python<'_>, values: Vec<Value>) -> PyResult<Py<PyList>> {
    let items: Vec<Py<PyAny>> = values.into_iter().map(|v| to_numpy(py, v)).collect();
    Ok(PyList::new(py, items)?.unbind())
}
