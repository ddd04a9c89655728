mod base;
mod error;
mod hal;
mod high_level;
mod vm;

pub use error::{RuntimeError, StatusError};
pub use hal::{BufferElement, BufferView, HostMapping, Value};
pub use high_level::{DeviceInfo, DeviceSpec, Driver, Function, Program, Runtime};
