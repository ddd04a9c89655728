//! Stopping a compiled call that runs a long loop. Compiled loops call
//! `ptl_host.check_interrupt` at the start of every step (see `ptl_lower`'s `loops`); the
//! call fails with IREE's `CANCELLED` status once [`interrupt`] was called, the invocation
//! unwinds, and the engine returns [`crate::RtError::Interrupted`]. A call without loops runs
//! to its end: it does a bounded amount of work.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

use eerie_sys::runtime as sys;

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The text the failed status carries, by which the engine recognises it.
pub(crate) const MARKER: &str = "ptl: interrupted";

/// Asks every compiled call in progress (on any thread) to stop at the next step of a loop.
/// Only an atomic store, so a signal handler may call it. The request stands until a call
/// stops on it or [`clear_interrupt`] withdraws it.
pub fn interrupt() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Withdraws a request to stop (before a new evaluation); whether one was pending.
pub fn clear_interrupt() -> bool {
    REQUESTED.swap(false, Ordering::Relaxed)
}

/// `ptl_host.check_interrupt` (`CHECK`): no arguments, no results; fails while a stop is
/// requested. `ptl_host.await_*` (not `CHECK`): takes a value and does nothing; IREE has
/// waited for the value before the call (see `ptl_lower`'s loops).
pub(crate) unsafe extern "C" fn poll<const CHECK: bool>(
    _stack: *mut sys::iree_vm_stack_t,
    _flags: sys::iree_vm_native_function_flags_t,
    _args: sys::iree_byte_span_t,
    _rets: sys::iree_byte_span_t,
    _target: sys::iree_vm_native_function_target_t,
    _module: *mut c_void,
    _state: *mut c_void,
) -> sys::iree_status_t {
    if !CHECK || !REQUESTED.load(Ordering::Relaxed) {
        return std::ptr::null_mut();
    }
    unsafe {
        sys::iree_status_allocate_f(
            sys::iree_status_code_e_IREE_STATUS_CANCELLED,
            c"ptl_host".as_ptr(),
            0,
            c"%s".as_ptr(),
            c"ptl: interrupted".as_ptr(),
        )
    }
}
