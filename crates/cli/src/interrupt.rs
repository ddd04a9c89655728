//! Ctrl-C while the REPL evaluates an input: the first asks the evaluation to stop (the
//! interpreter and compiled code on the CPU stop at the next step of a loop, and the REPL
//! returns to its prompt; a call without loops runs to its end), a second ends the process
//! as Ctrl-C otherwise would.

use std::sync::atomic::{AtomicBool, Ordering};

static PENDING: AtomicBool = AtomicBool::new(false);

const NOTE: &[u8] = b"\n^C interrupting at the next step of a loop; Ctrl-C again quits\n";

extern "C" fn on_interrupt(_: libc::c_int) {
    if PENDING.swap(true, Ordering::Relaxed) {
        // SAFETY: `signal` and `raise` are async-signal-safe; the default action ends the
        // process.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::raise(libc::SIGINT);
        }
        return;
    }
    ptl_interp::interrupt();
    ptl_rt::interrupt();
    // SAFETY: `write` is async-signal-safe; the message is a static buffer.
    unsafe {
        libc::write(libc::STDERR_FILENO, NOTE.as_ptr().cast(), NOTE.len());
    }
}

/// While alive, Ctrl-C interrupts the evaluation instead of ending the process.
pub struct Guard {
    previous: libc::sigaction,
}

impl Guard {
    pub fn install() -> Guard {
        PENDING.store(false, Ordering::Relaxed);
        ptl_interp::clear_interrupt();
        ptl_rt::clear_interrupt();
        // SAFETY: a zeroed `sigaction` is valid; the handler only touches atomics and makes
        // async-signal-safe calls.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_interrupt as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGINT, &action, &mut previous);
            Guard { previous }
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // SAFETY: restores the disposition saved at install.
        unsafe {
            libc::sigaction(libc::SIGINT, &self.previous, std::ptr::null_mut());
        }
        ptl_interp::clear_interrupt();
        ptl_rt::clear_interrupt();
        PENDING.store(false, Ordering::Relaxed);
    }
}
