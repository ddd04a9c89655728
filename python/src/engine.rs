//! The ptl runtime, one per Python thread.

use std::cell::RefCell;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use ptl_rt::{CompileCache, Device, Engine, EngineOptions};

thread_local! {
    /// One engine per thread and device: it is not `Send`, and it keeps the compiled modules
    /// loaded.
    static ENGINES: RefCell<Vec<(Device, Engine)>> = const { RefCell::new(Vec::new()) };
}

/// The device a name stands for: `cpu`, `vulkan` or `cuda`.
pub fn parse_device(name: &str) -> PyResult<Device> {
    match name.to_ascii_lowercase().as_str() {
        "cpu" | "local-sync" => Ok(Device::LocalSync),
        "local-task" => Ok(Device::LocalTask),
        "vulkan" => Ok(Device::Vulkan),
        "cuda" => Ok(Device::Cuda),
        other => Err(PyValueError::new_err(format!("unknown device `{other}`: expected `cpu`, `vulkan` or `cuda`"))),
    }
}

pub fn with_engine<T>(device: Device, f: impl FnOnce(&mut Engine) -> Result<T, ptl_rt::RtError>) -> PyResult<T> {
    with_engine_py(device, |e| f(e).map_err(rt_error))
}

/// [`with_engine`] for work that fails with Python errors.
pub fn with_engine_py<T>(device: Device, f: impl FnOnce(&mut Engine) -> PyResult<T>) -> PyResult<T> {
    ENGINES.with(|cell| {
        let mut engines = cell.borrow_mut();
        let i = match engines.iter().position(|(d, _)| *d == device) {
            Some(i) => i,
            None => {
                let options = EngineOptions { device, cache_dir: CompileCache::default_dir(), ..Default::default() };
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
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}
