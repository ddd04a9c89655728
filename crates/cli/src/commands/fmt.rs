//! `ptl fmt`: canonical formatting (print, check, or rewrite in place).

use std::path::PathBuf;

use crate::report::{CmdResult, Failed, fail, print_diagnostics, read_source};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Print,
    Check,
    Write,
}

/// ptl has no string literals, so `//` always starts a comment.
fn has_comments(src: &str) -> bool {
    src.contains("//")
}

pub fn fmt(files: &[PathBuf], mode: Mode) -> CmdResult {
    let mut ok = true;
    for file in files {
        let Ok(src) = read_source(file) else {
            ok = false;
            continue;
        };
        let formatted = match ptl_lang::parse(&src) {
            (Some(ast), diags) if diags.is_empty() => ptl_lang::print_program(&ast),
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
                let why = if has_comments(&src) {
                    " (the formatter does not keep comments yet)"
                } else {
                    ""
                };
                eprintln!(
                    "{} is not formatted{why}; run `ptl fmt --write {}`",
                    file.display(),
                    file.display()
                );
                ok = false;
            }
            Mode::Check => {}
            Mode::Write if canonical => {}
            Mode::Write if has_comments(&src) => {
                eprintln!(
                    "error: not rewriting {}: it has comments, which the formatter does not keep yet",
                    file.display()
                );
                ok = false;
            }
            Mode::Write => {
                std::fs::write(file, formatted)
                    .map_err(|e| fail(format!("cannot write {}: {e}", file.display())))?;
                eprintln!("formatted {}", file.display());
            }
        }
    }
    if ok { Ok(()) } else { Err(Failed) }
}
