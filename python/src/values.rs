//! NumPy arrays to ptl values and back.

use ndarray::ArrayD;
use numpy::{IntoPyArray, PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use ptl_lang::Value;

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
