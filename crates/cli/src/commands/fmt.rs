//! `ptl fmt`: canonical formatting (print, check, or rewrite in place).

use std::path::PathBuf;

use crate::report::{CmdResult, Failed, fail, print_diagnostics, read_source};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Print,
    Check,
    Write,
}

pub fn fmt(files: &[PathBuf], mode: Mode) -> CmdResult {
    let mut ok = true;
    for file in files {
        let Ok(src) = read_source(file) else {
            ok = false;
            continue;
        };
        let formatted = match ptl_lang::parse(&src) {
            (Some(ast), diags) if diags.is_empty() => ptl_lang::print_program_with_comments(&ast, &src),
            (_, diags) => {
                print_diagnostics(&diags, file, &src);
                ok = false;
                continue;
            }
        };
        let canonical = formatted == src;
        match mode {
            Mode::Print => print!("{formatted}"),
            Mode::Check if !canonical => {
                eprintln!("{} is not formatted; run `ptl fmt --write {}`", file.display(), file.display());
                ok = false;
            }
            Mode::Check => {}
            Mode::Write if canonical => {}
            Mode::Write => {
                std::fs::write(file, formatted)
                    .map_err(|e| fail(format!("cannot write {}: {e}", file.display())))?;
                eprintln!("formatted {}", file.display());
            }
        }
    }
    if ok { Ok(()) } else { Err(Failed) }
}
