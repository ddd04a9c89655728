//! The whole frontend and lowering, up to a verified MLIR module.
//!
//! The first 9 bytes pick a random well-typed program (`progen`: an 8-byte seed and a depth),
//! which must type-check and lower to a module that verifies. The rest of the input, as text,
//! is parsed and checked; when it is well-typed, the script and every function are lowered:
//! `Unsupported` is an acceptable answer, a panic or a module that does not verify is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptl_testkit::progen::{FUNCTION, random_program};
use ptl_lower::{Entry, LowerError, lower_program};

fn lower_ok(prog: &ptl_lang::typed::TProgram, entry: &Entry, src: &str) {
    match lower_program(prog, entry) {
        Ok(_) | Err(LowerError::Unsupported { .. }) => {}
        Err(e) => panic!("lowering {entry:?} failed on a well-typed program:\n{src}\n{e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() >= 9 {
        let seed = u64::from_le_bytes(data[..8].try_into().unwrap());
        let depth = (data[8] % 6) as usize;
        let g = random_program(seed, depth);
        let prog = ptl_lang::frontend(&g.source)
            .unwrap_or_else(|d| panic!("generated program does not check:\n{}\n{d:?}", g.source));
        lower_ok(&prog, &Entry::Function(FUNCTION.to_string()), &g.source);
    }
    let Ok(src) = std::str::from_utf8(data.get(9..).unwrap_or_default()) else { return };
    if let Ok(prog) = ptl_lang::frontend(src) {
        lower_ok(&prog, &Entry::Script, src);
        for f in &prog.fns {
            lower_ok(&prog, &Entry::Function(f.name.clone()), src);
        }
    }
});

// MLIR's static `libMLIRMlirOptMain.a` defines a `main` (mlir-opt's), which the linker would
// take before libFuzzer's and which rejects libFuzzer's flags. Defining `main` here, in the
// target's own object, wins the link and starts libFuzzer's driver as its own `main` would.
unsafe extern "C" {
    fn LLVMFuzzerRunDriver(
        argc: *mut std::ffi::c_int,
        argv: *mut *mut *mut std::ffi::c_char,
        callback: unsafe extern "C" fn(*const u8, usize) -> std::ffi::c_int,
    ) -> std::ffi::c_int;
    fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> std::ffi::c_int;
}

#[unsafe(no_mangle)]
pub extern "C" fn main(mut argc: std::ffi::c_int, mut argv: *mut *mut std::ffi::c_char) -> std::ffi::c_int {
    // SAFETY: argc/argv come from the C runtime unchanged; the callback is libfuzzer-sys's entry.
    unsafe { LLVMFuzzerRunDriver(&mut argc, &mut argv, LLVMFuzzerTestOneInput) }
}
