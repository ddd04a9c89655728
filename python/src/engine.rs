//! The ptl runtime, one per Python thread.

use std::cell::RefCell;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use ptl_rt::{CompileCache, Engine, EngineOptions};

thread_local! {
    /// One engine per thread: it is not `Send`, and it keeps the compiled modules loaded.
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

pub fn with_engine<T>(f: impl FnOnce(&mut Engine) -> Result<T, ptl_rt::RtError>) -> PyResult<T> {
    ENGINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let engine = match &mut *slot {
            Some(e) => e,
            None => {
                let options = EngineOptions { cache_dir: CompileCache::default_dir(), ..Default::default() };
                let e = Engine::new(options);
                slot.insert(e.map_err(|e| PyRuntimeError::new_err(format!("cannot start the ptl runtime: {e}")))?)
            }
        };
        f(engine).map_err(rt_error)
    })
}

fn rt_error(e: ptl_rt::RtError) -> PyErr {
    match e {
        ptl_rt::RtError::Argument { .. } | ptl_rt::RtError::ArgumentCount { .. } => PyValueError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}
