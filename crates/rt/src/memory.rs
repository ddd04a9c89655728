//! Large buffers reused across calls instead of fresh from the kernel each time.
//!
//! Every call allocates its argument copies and results. glibc serves allocations above its
//! mmap threshold (at most 32 MiB) with a fresh `mmap`, and returns them with `munmap` when
//! freed, so a call on 80 MB arrays pays ~20,000 page faults per buffer, every call: at 1e7
//! `f64` elements that took longer than the kernels. Raising the threshold and the trim
//! threshold keeps freed buffers in the heap, where the next call finds them already mapped.
//! The setting is process-wide (it applies to every allocation, NumPy's too, when ptl runs
//! inside Python) and is made once, by the first `Engine` unless its options decline it.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

static KEEP: Once = Once::new();
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The thresholds set: buffers up to 1 GiB come from the heap and stay there when freed.
const THRESHOLD: libc::c_int = 1 << 30;

/// Keeps freed large buffers for reuse (see the module documentation). Returns whether
/// glibc took the setting; other C libraries are left alone.
pub fn keep_freed_buffers() -> bool {
    KEEP.call_once(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: mallopt only changes allocator parameters; it is called once, before any
        // buffer of ours exists.
        unsafe {
            let a = libc::mallopt(libc::M_MMAP_THRESHOLD, THRESHOLD);
            let b = libc::mallopt(libc::M_TRIM_THRESHOLD, THRESHOLD);
            TAKEN.store(a == 1 && b == 1, Ordering::SeqCst);
        }
    });
    TAKEN.load(Ordering::SeqCst)
}
