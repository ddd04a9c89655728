//! A sign of life while a program compiles and runs: after half a second, a spinner on the
//! terminal (stderr only, and only when it is a terminal), cleared when the work ends.

use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// How long work runs before the spinner shows: `PTL_SPINNER_AFTER_MS`, else 500 ms.
fn delay() -> Duration {
    let ms = std::env::var("PTL_SPINNER_AFTER_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    Duration::from_millis(ms)
}

/// Runs `work` on this thread (IREE's handles stay on the thread that made them), with a
/// spinner on another when it takes long.
pub fn while_busy<T>(work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let (done, finished) = mpsc::channel::<()>();
    let after = delay();
    let shower = std::thread::spawn(move || {
        if finished.recv_timeout(after) != Err(mpsc::RecvTimeoutError::Timeout) {
            return;
        }
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
            bar.set_style(style);
        }
        bar.set_message("compiling and running");
        bar.enable_steady_tick(Duration::from_millis(100));
        let _ = finished.recv();
        bar.finish_and_clear();
    });
    let out = work();
    let _ = done.send(());
    let _ = shower.join();
    out
}
