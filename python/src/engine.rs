//! The ptl runtime, one per Python thread.

use std::cell::RefCell;

use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use ptl_rt::{CompileCache, Device, Engine, EngineOptions};

thread_local! {
    /// One engine per thread and device: it is not `Send`, and it keeps the compiled modules
    /// loaded.
    static ENGINES: RefCell<Vec<(Placement, Engine)>> = const { RefCell::new(Vec::new()) };
}

/// Where compiled calls run: a device, and for the CPU whether large calls move to a pool of
/// worker threads (`cpu`) or not (`local-sync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub device: Device,
    pub large_calls_on_task: bool,
}

impl Default for Placement {
    fn default() -> Self {
        Placement { device: Device::LocalSync, large_calls_on_task: true }
    }
}

/// The placement a name stands for: `cpu` (local-sync, and local-task for large calls),
/// `local-sync`, `local-task`, `vulkan` or `cuda`.
pub fn parse_device(name: &str) -> PyResult<Placement> {
    let only = |device| Ok(Placement { device, large_calls_on_task: false });
    match name.to_ascii_lowercase().as_str() {
        "cpu" => Ok(Placement::default()),
        "local-sync" => only(Device::LocalSync),
        "local-task" => only(Device::LocalTask),
        "vulkan" => only(Device::Vulkan),
        "cuda" => only(Device::Cuda),
        other => Err(PyValueError::new_err(format!("unknown device `{other}`: expected `cpu`, `vulkan` or `cuda`"))),
    }
}

pub fn with_engine<T>(device: Placement, f: impl FnOnce(&mut Engine) -> Result<T, ptl_rt::RtError>) -> PyResult<T> {
    with_engine_py(device, |e| f(e).map_err(rt_error))
}

/// [`with_engine`] for work that fails with Python errors.
pub fn with_engine_py<T>(device: Placement, f: impl FnOnce(&mut Engine) -> PyResult<T>) -> PyResult<T> {
    ENGINES.with(|cell| {
        let mut engines = cell.borrow_mut();
        let i = match engines.iter().position(|(d, _)| *d == device) {
            Some(i) => i,
            None => {
                let options = EngineOptions {
                    device: device.device,
                    large_calls_on_task: if device.large_calls_on_task { Some(ptl_rt::LARGE_CALLS_FROM) } else { None },
                    cache_dir: CompileCache::default_dir(),
                    ..Default::default()
                };
                let e = Engine::new(options).map_err(|e| PyRuntimeError::new_err(format!("cannot start the ptl runtime: {e}")))?;
                engines.push((device, e));
                engines.len() - 1
            }
        };
        f(&mut engines[i].1)
    })
}

pub fn rt_error(e: ptl_rt::RtError) -> PyErr {
    match e {
        ptl_rt::RtError::Argument { .. } | ptl_rt::RtError::ArgumentCount { .. } => PyValueError::new_err(e.to_string()),
        ptl_rt::RtError::OutOfMemory(_) => PyMemoryError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}
