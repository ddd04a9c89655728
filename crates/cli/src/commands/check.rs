//! `ptl check`: parse and type-check files, reporting every error.

use std::path::PathBuf;

use crate::report::{CmdResult, Failed, load_program};

pub fn check(files: &[PathBuf]) -> CmdResult {
    // Every file is checked, even after one fails.
    let failed = files.iter().filter(|f| load_program(f).is_err()).count();
    if failed == 0 { Ok(()) } else { Err(Failed) }
}
