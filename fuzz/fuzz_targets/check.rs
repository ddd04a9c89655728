//! The type checker on whatever the parser makes of arbitrary UTF-8 (error recovery included,
//! so partial programs are checked too): never panics, and every diagnostic renders.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|src: &str| {
    let (program, _) = ptl_lang::parse(src);
    if let Some(p) = program {
        let (_typed, diags) = ptl_lang::check::check(&p);
        let _ = ptl_lang::diag::render_all(&diags, "fuzz.ptl", src, false);
    }
});
