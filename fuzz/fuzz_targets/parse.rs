//! The parser on arbitrary UTF-8: never panics, every diagnostic renders, and a program that
//! parses cleanly pretty-prints to text that parses cleanly to the same printed form.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|src: &str| {
    let (program, diags) = ptl_lang::parse(src);
    let _ = ptl_lang::diag::render_all(&diags, "fuzz.ptl", src, false);
    if let (Some(p), true) = (program, diags.is_empty()) {
        let printed = ptl_lang::print_program(&p);
        let (again, diags2) = ptl_lang::parse(&printed);
        assert!(diags2.is_empty(), "printed program does not parse:\n{printed}\n{diags2:?}");
        let reprinted = ptl_lang::print_program(&again.expect("a program without diagnostics"));
        assert_eq!(printed, reprinted, "printing is not a fixed point");
    }
});
