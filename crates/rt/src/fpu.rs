//! IEEE subnormals by default.
//!
//! IREE's CPU runtime switches the FPU to flush-to-zero / denormals-are-zero around every
//! dispatch (`iree_fpu_state_push(IREE_FPU_STATE_FLAG_FLUSH_DENORMALS_TO_ZERO)`), so f32
//! `1.1754944e-38 * 0.5` gives 0 where NumPy gives `5.877472e-39`. These two definitions replace
//! IREE's own (the linker takes ours, so its `fpu_state.o` is never pulled from the static
//! archive) and flush only when the user asked for it.

use std::sync::atomic::{AtomicBool, Ordering};

static FLUSH_DENORMALS: AtomicBool = AtomicBool::new(false);

/// Chooses between IEEE subnormals (the default, as NumPy) and flush-to-zero (faster on some
/// CPUs). Applies to every dispatch from then on, on every thread.
pub fn set_flush_denormals(flush: bool) {
    FLUSH_DENORMALS.store(flush, Ordering::SeqCst);
}

pub fn flush_denormals() -> bool {
    FLUSH_DENORMALS.load(Ordering::SeqCst)
}

/// Mirrors `iree_fpu_state_t`.
#[repr(C)]
pub struct IreeFpuState {
    previous_value: u64,
    current_value: u64,
}

const IREE_FPU_STATE_FLAG_FLUSH_DENORMALS_TO_ZERO: u32 = 1;

#[cfg(target_arch = "x86_64")]
mod arch {
    /// MXCSR bits FTZ (15) and DAZ (6).
    const FTZ_DAZ: u32 = 0x8040;

    pub fn read() -> u64 {
        let mut csr: u32 = 0;
        // SAFETY: stmxcsr writes the 32-bit control register to the given address.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack)) };
        csr as u64
    }

    pub fn write(v: u64) {
        let csr = v as u32;
        // SAFETY: ldmxcsr loads a value that came from stmxcsr with only FTZ/DAZ changed.
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack)) };
    }

    pub fn with_flush(v: u64, flush: bool) -> u64 {
        if flush { v | FTZ_DAZ as u64 } else { v & !(FTZ_DAZ as u64) }
    }
}

#[cfg(target_arch = "aarch64")]
mod arch {
    /// FPCR bits FZ (24) and FZ16 (19).
    const FZ: u64 = 0x1080000;

    pub fn read() -> u64 {
        let v: u64;
        // SAFETY: reading FPCR has no side effects.
        unsafe { std::arch::asm!("mrs {}, fpcr", out(reg) v) };
        v
    }

    pub fn write(v: u64) {
        // SAFETY: writes back a value read from FPCR with only the flush bits changed.
        unsafe { std::arch::asm!("msr fpcr, {}", in(reg) v) };
    }

    pub fn with_flush(v: u64, flush: bool) -> u64 {
        if flush { v | FZ } else { v & !FZ }
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn iree_fpu_state_push(flags: u32) -> IreeFpuState {
    let previous = arch::read();
    let flush = flags & IREE_FPU_STATE_FLAG_FLUSH_DENORMALS_TO_ZERO != 0 && flush_denormals();
    let current = arch::with_flush(previous, flush);
    if current != previous {
        arch::write(current);
    }
    IreeFpuState { previous_value: previous, current_value: current }
}

#[unsafe(no_mangle)]
pub extern "C" fn iree_fpu_state_pop(state: IreeFpuState) {
    if state.current_value != state.previous_value {
        arch::write(state.previous_value);
    }
}

/// Referenced when a runtime starts, so the object holding these symbols is always linked
/// (and wins over IREE's definitions in its static archive).
pub fn ensure_linked() {
    std::hint::black_box(iree_fpu_state_push as extern "C" fn(u32) -> IreeFpuState);
    std::hint::black_box(iree_fpu_state_pop as extern "C" fn(IreeFpuState));
}
