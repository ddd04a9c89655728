//! Ctrl-C (SIGINT) during a call that runs loops: compiled loops stop at their next step
//! (`ptl_rt::interrupt`), interpreted ones too (`ptl_interp::interrupt`), and when the call
//! returns the signal is handed to Python, which raises `KeyboardInterrupt` (or runs whatever
//! SIGINT handler the program installed). Python's own handler only notes the signal for the
//! interpreter loop, which does not run while ptl computes, so a long loop could not be
//! stopped otherwise.
//!
//! The guard is installed only on the main thread (where Python handles signals) and only
//! where SIGINT has a handler: under `SIG_DFL` Ctrl-C ends the process, under `SIG_IGN` it
//! does nothing, and both stay so.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;

static TRIPPED: AtomicBool = AtomicBool::new(false);

/// Only stores atomics: it may run on any thread (IREE's and LLVM's included), at any point.
extern "C" fn on_sigint(_: libc::c_int) {
    ptl_rt::interrupt();
    ptl_interp::interrupt();
    TRIPPED.store(true, Ordering::SeqCst);
}

/// While alive, SIGINT also stops ptl's loops.
pub struct Guard {
    previous: Option<libc::sigaction>,
}

fn main_thread() -> bool {
    // SAFETY: plain system calls without arguments.
    unsafe { libc::gettid() == libc::getpid() }
}

impl Guard {
    /// Installs the handler when the program has loops (`loops`), on the main thread, where
    /// SIGINT has a handler; otherwise a guard that does nothing.
    pub fn install(loops: bool) -> Guard {
        if !loops || !main_thread() {
            return Guard { previous: None };
        }
        // SAFETY: a zeroed `sigaction` is valid; the new handler only stores atomics.
        unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGINT, std::ptr::null(), &mut current);
            if current.sa_sigaction == libc::SIG_DFL || current.sa_sigaction == libc::SIG_IGN {
                return Guard { previous: None };
            }
            TRIPPED.store(false, Ordering::SeqCst);
            ptl_rt::clear_interrupt();
            ptl_interp::clear_interrupt();
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGINT, &action, &mut previous);
            Guard { previous: Some(previous) }
        }
    }

    /// Restores the previous handler; if SIGINT arrived meanwhile, hands it to Python now
    /// (`PyErr_SetInterruptEx`, then Python's handler runs: by default it raises
    /// `KeyboardInterrupt`), before `result` is looked at.
    pub fn finish<T>(mut self, py: Python<'_>, result: PyResult<T>) -> PyResult<T> {
        let Some(previous) = self.previous.take() else { return result };
        // SAFETY: restores the disposition saved at install.
        unsafe { libc::sigaction(libc::SIGINT, &previous, std::ptr::null_mut()) };
        ptl_rt::clear_interrupt();
        ptl_interp::clear_interrupt();
        if TRIPPED.swap(false, Ordering::SeqCst) {
            // SAFETY: called with the GIL held (`py`).
            unsafe { pyo3::ffi::PyErr_SetInterruptEx(libc::SIGINT) };
            py.check_signals()?;
        }
        result
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            // SAFETY: restores the disposition saved at install.
            unsafe { libc::sigaction(libc::SIGINT, &previous, std::ptr::null_mut()) };
        }
    }
}
