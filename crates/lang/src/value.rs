//! Runtime values: n-dimensional arrays of one of the language's dtypes.

use ndarray::ArrayD;

use crate::types::{DType, Dim, TensorType};

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(ArrayD<bool>),
    I32(ArrayD<i32>),
    I64(ArrayD<i64>),
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
}

/// Applies the same expression to the array inside a `Value`, whatever its dtype.
#[macro_export]
macro_rules! map_value {
    ($value:expr, $a:ident => $body:expr) => {
        match $value {
            $crate::value::Value::Bool($a) => $body,
            $crate::value::Value::I32($a) => $body,
            $crate::value::Value::I64($a) => $body,
            $crate::value::Value::F32($a) => $body,
            $crate::value::Value::F64($a) => $body,
        }
    };
}

impl Value {
    pub fn dtype(&self) -> DType {
        match self {
            Value::Bool(_) => DType::Bool,
            Value::I32(_) => DType::I32,
            Value::I64(_) => DType::I64,
            Value::F32(_) => DType::F32,
            Value::F64(_) => DType::F64,
        }
    }

    pub fn shape(&self) -> &[usize] {
        map_value!(self, a => a.shape())
    }

    pub fn len(&self) -> usize {
        map_value!(self, a => a.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The fully static type of this value.
    pub fn tensor_type(&self) -> TensorType {
        TensorType::new(self.dtype(), self.shape().iter().map(|&n| Dim::Static(n as u64)).collect())
    }
}

impl From<ArrayD<bool>> for Value {
    fn from(a: ArrayD<bool>) -> Self {
        Value::Bool(a)
    }
}
impl From<ArrayD<i32>> for Value {
    fn from(a: ArrayD<i32>) -> Self {
        Value::I32(a)
    }
}
impl From<ArrayD<i64>> for Value {
    fn from(a: ArrayD<i64>) -> Self {
        Value::I64(a)
    }
}
impl From<ArrayD<f32>> for Value {
    fn from(a: ArrayD<f32>) -> Self {
        Value::F32(a)
    }
}
impl From<ArrayD<f64>> for Value {
    fn from(a: ArrayD<f64>) -> Self {
        Value::F64(a)
    }
}
