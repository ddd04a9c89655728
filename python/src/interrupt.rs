//! Ctrl-C (SIGINT) during a call that runs loops: compiled loops stop at their next step
//! (`ptl_rt::interrupt`), interpreted ones too (`ptl_interp::interrupt`), and Python raises
//! `KeyboardInterrupt` (or runs whatever SIGINT handler the program installed) when the call
//! returns. Python's own handler only notes the signal for the interpreter loop, which does
//! not run while ptl computes, so a long loop could not be stopped otherwise.
//!
//! The guard is installed only on the main thread (where Python handles signals) and only
//! where SIGINT has a handler: under `SIG_DFL` Ctrl-C ends the process, under `SIG_IGN` it
//! does nothing, and both stay so.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use pyo3::prelude::*;

/// The handler in place when the guard was installed (Python's), called after ours.
static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
static PREVIOUS_SIGINFO: AtomicBool = AtomicBool::new(false);
static TRIPPED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    ptl_rt::interrupt();
    ptl_interp::interrupt();
    TRIPPED.store(true, Ordering::SeqCst);
    let previous = PREVIOUS.load(Ordering::SeqCst);
    if previous == libc::SIG_DFL || previous == libc::SIG_IGN {
        return;
    }
    // SAFETY: `previous` is the handler that was installed for SIGINT, with the signature its
    // flags gave it.
    unsafe {
        if PREVIOUS_SIGINFO.load(Ordering::SeqCst) {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(previous);
            f(signal, info, context);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(previous);
            f(signal);
        }
    }
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
        // SAFETY: a zeroed `sigaction` is valid; the new handler only stores atomics and calls
        // the previous handler, which was installed for this signal.
        unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGINT, std::ptr::null(), &mut current);
            if current.sa_sigaction == libc::SIG_DFL || current.sa_sigaction == libc::SIG_IGN {
                return Guard { previous: None };
            }
            PREVIOUS.store(current.sa_sigaction, Ordering::SeqCst);
            PREVIOUS_SIGINFO.store(current.sa_flags & libc::SA_SIGINFO != 0, Ordering::SeqCst);
            TRIPPED.store(false, Ordering::SeqCst);
            ptl_rt::clear_interrupt();
            ptl_interp::clear_interrupt();
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) as usize;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGINT, &action, &mut previous);
            Guard { previous: Some(previous) }
        }
    }

    /// Restores the previous handler; if SIGINT arrived meanwhile, runs Python's handler for
    /// it now (by default raising `KeyboardInterrupt`), before `result` is looked at.
    pub fn finish<T>(mut self, py: Python<'_>, result: PyResult<T>) -> PyResult<T> {
        let Some(previous) = self.previous.take() else { return result };
        // SAFETY: restores the disposition saved at install.
        unsafe { libc::sigaction(libc::SIGINT, &previous, std::ptr::null_mut()) };
        ptl_rt::clear_interrupt();
        ptl_interp::clear_interrupt();
        if TRIPPED.swap(false, Ordering::SeqCst) {
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
