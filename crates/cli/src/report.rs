//! Reporting failures: coloured diagnostics on a terminal, plain text otherwise.

use std::io::IsTerminal;
use std::path::Path;

use ptl_lang::Diagnostic;
use ptl_lang::diag::render_all;
use ptl_lang::typed::TProgram;

/// A failure that has already been explained to the user; the command exits with code 1.
#[derive(Debug)]
pub struct Failed;

pub type CmdResult = Result<(), Failed>;

/// Whether reports on stderr get colours: only on a terminal, and never with `NO_COLOR` set.
pub fn color_stderr() -> bool {
    no_color_unset() && std::io::stderr().is_terminal()
}

pub fn no_color_unset() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Prints `error: {e}` and returns the marker.
pub fn fail(e: impl std::fmt::Display) -> Failed {
    eprintln!("error: {e}");
    Failed
}

pub fn read_source(file: &Path) -> Result<String, Failed> {
    crate::source::read(file).map_err(fail)
}

/// Prints every diagnostic of `src`, named after `file`.
pub fn print_diagnostics(diags: &[Diagnostic], file: &Path, src: &str) {
    eprint!(
        "{}",
        render_all(diags, &file.display().to_string(), src, color_stderr())
    );
}

/// Reads, parses and checks a file; on errors prints them all with a summary line.
pub fn load_program(file: &Path) -> Result<(String, TProgram), Failed> {
    let src = read_source(file)?;
    match ptl_lang::frontend(&src) {
        Ok(p) => Ok((src, p)),
        Err(diags) => {
            print_diagnostics(&diags, file, &src);
            let n = diags.len();
            eprintln!(
                "error: {n} error{} in {}",
                if n == 1 { "" } else { "s" },
                file.display()
            );
            Err(Failed)
        }
    }
}

/// Moves diagnostics about a source built as `prefix + text + suffix` onto `text` alone
/// (`offset` is the prefix's length); spans outside `text` are clamped to its ends.
pub fn shift_diagnostics(diags: &[Diagnostic], offset: usize, len: usize) -> Vec<Diagnostic> {
    let shift = |s: &ptl_lang::Span| {
        let start = s.start.saturating_sub(offset).min(len);
        let end = s.end.saturating_sub(offset).clamp(start, len);
        start..end
    };
    diags
        .iter()
        .map(|d| {
            let mut d = d.clone();
            d.span = shift(&d.span);
            for (span, _) in &mut d.labels {
                *span = shift(span);
            }
            d
        })
        .collect()
}
