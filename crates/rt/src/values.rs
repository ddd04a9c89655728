//! Values in a device's memory, and the arguments a call takes: host arrays or device values.

use ptl_lang::{DType, Dim, TensorType, Value};

/// A value in an [`crate::Engine`]'s device memory: a result kept there by
/// [`crate::Engine::call_on_device`], or an array copied there by [`crate::Engine::upload`].
/// Cloning shares the buffer.
#[derive(Clone)]
pub struct DeviceValue {
    pub(crate) buffer: eerie::runtime::Value,
    pub(crate) dtype: DType,
    shape: Vec<usize>,
}

impl DeviceValue {
    pub(crate) fn new(buffer: eerie::runtime::Value, dtype: DType) -> Self {
        use eerie::runtime::Value as B;
        let shape = match &buffer {
            B::I8(v) => v.shape(),
            B::I32(v) => v.shape(),
            B::I64(v) => v.shape(),
            B::F32(v) => v.shape(),
            B::F64(v) => v.shape(),
            _ => Vec::new(),
        };
        DeviceValue { buffer, dtype, shape }
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
}

impl std::fmt::Debug for DeviceValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceValue({})", describe_shape(self.dtype, &self.shape))
    }
}

/// `f64[3, 4]` for a dtype and a shape.
pub(crate) fn describe_shape(dtype: DType, shape: &[usize]) -> String {
    TensorType::new(dtype, shape.iter().map(|&n| Dim::Static(n as u64)).collect()).to_string()
}

/// One argument of a call.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// Copied to the device for this call.
    Host(&'a Value),
    /// Already there.
    Device(&'a DeviceValue),
}

/// What the argument checks need to know of an argument.
pub trait Shaped {
    fn dtype(&self) -> DType;
    fn shape(&self) -> &[usize];
}

impl Shaped for Value {
    fn dtype(&self) -> DType {
        Value::dtype(self)
    }
    fn shape(&self) -> &[usize] {
        Value::shape(self)
    }
}

impl Shaped for DeviceValue {
    fn dtype(&self) -> DType {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
}

impl Shaped for Arg<'_> {
    fn dtype(&self) -> DType {
        match self {
            Arg::Host(v) => Value::dtype(v),
            Arg::Device(d) => d.dtype,
        }
    }
    fn shape(&self) -> &[usize] {
        match self {
            Arg::Host(v) => Value::shape(v),
            Arg::Device(d) => &d.shape,
        }
    }
}
