//! Values in a device's memory, and the arguments a call takes: host arrays or device values.

use ndarray::ArrayViewD;
use ptl_lang::{DType, Dim, TensorType, Value};

/// A value in an [`crate::Engine`]'s device memory: a result kept there by
/// [`crate::Engine::call_on_device`], or an array copied there by [`crate::Engine::upload`].
/// Cloning shares the buffer.
#[derive(Clone)]
pub struct DeviceValue {
    pub(crate) buffer: eerie::runtime::Value,
    pub(crate) dtype: DType,
    shape: Vec<usize>,
    /// The engine's runtime that holds it (see `Engine::sides`).
    pub(crate) side: usize,
}

impl DeviceValue {
    pub(crate) fn new(buffer: eerie::runtime::Value, dtype: DType, side: usize) -> Self {
        use eerie::runtime::Value as B;
        let shape = match &buffer {
            B::I8(v) => v.shape(),
            B::I32(v) => v.shape(),
            B::I64(v) => v.shape(),
            B::F32(v) => v.shape(),
            B::F64(v) => v.shape(),
            _ => Vec::new(),
        };
        DeviceValue { buffer, dtype, shape, side }
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

/// A result's memory, mapped where the host reads and writes it in place ([`crate::Engine::host_memory`]).
/// It keeps the result alive; the elements are row-major, of the value's shape. Bool is one
/// byte, 0 or 1.
pub enum HostMemory {
    Bool(eerie::runtime::HostMapping<i8>),
    I32(eerie::runtime::HostMapping<i32>),
    I64(eerie::runtime::HostMapping<i64>),
    F32(eerie::runtime::HostMapping<f32>),
    F64(eerie::runtime::HostMapping<f64>),
}

impl HostMemory {
    /// The first byte and the length in bytes.
    pub fn bytes(&self) -> (*mut u8, usize) {
        fn of<T: eerie::runtime::BufferElement>(m: &eerie::runtime::HostMapping<T>) -> (*mut u8, usize) {
            (m.as_mut_ptr().cast(), m.len() * std::mem::size_of::<T>())
        }
        match self {
            HostMemory::Bool(m) => of(m),
            HostMemory::I32(m) => of(m),
            HostMemory::I64(m) => of(m),
            HostMemory::F32(m) => of(m),
            HostMemory::F64(m) => of(m),
        }
    }
}

/// An array in memory the caller owns (a NumPy array's, say), read without copying it first.
#[derive(Debug, Clone)]
pub enum HostView<'a> {
    Bool(ArrayViewD<'a, bool>),
    I32(ArrayViewD<'a, i32>),
    I64(ArrayViewD<'a, i64>),
    F32(ArrayViewD<'a, f32>),
    F64(ArrayViewD<'a, f64>),
}

impl<'a> HostView<'a> {
    /// A view of a value.
    pub fn of(v: &'a Value) -> Self {
        match v {
            Value::Bool(a) => HostView::Bool(a.view()),
            Value::I32(a) => HostView::I32(a.view()),
            Value::I64(a) => HostView::I64(a.view()),
            Value::F32(a) => HostView::F32(a.view()),
            Value::F64(a) => HostView::F64(a.view()),
        }
    }

    pub fn dtype(&self) -> DType {
        match self {
            HostView::Bool(_) => DType::Bool,
            HostView::I32(_) => DType::I32,
            HostView::I64(_) => DType::I64,
            HostView::F32(_) => DType::F32,
            HostView::F64(_) => DType::F64,
        }
    }

    pub fn shape(&self) -> &[usize] {
        match self {
            HostView::Bool(a) => a.shape(),
            HostView::I32(a) => a.shape(),
            HostView::I64(a) => a.shape(),
            HostView::F32(a) => a.shape(),
            HostView::F64(a) => a.shape(),
        }
    }
}

/// One argument of a call.
#[derive(Debug, Clone)]
pub enum Arg<'a> {
    /// Copied to the device for this call.
    Host(&'a Value),
    /// Memory the caller owns, copied to the device for this call (or, where the device can
    /// read it in place, not copied at all).
    View(HostView<'a>),
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
            Arg::View(v) => v.dtype(),
            Arg::Device(d) => d.dtype,
        }
    }
    fn shape(&self) -> &[usize] {
        match self {
            Arg::Host(v) => Value::shape(v),
            Arg::View(v) => v.shape(),
            Arg::Device(d) => &d.shape,
        }
    }
}
