//! The ptl frontend: source text to a typed program (lexer, parser, checker, diagnostics,
//! pretty-printer) and the values programs compute on.

mod ad;
pub mod ast;
pub mod check;
pub mod decompose;
pub mod diag;
pub mod ops;
pub mod runtime;
pub mod span;
pub mod syntax;
pub mod typed;
pub mod types;
pub mod value;
pub mod value_fmt;

pub use diag::{Diagnostic, ErrorKind};
pub use span::{Span, Spanned};
pub use syntax::{parse, pretty::print_program, pretty::print_program_with_comments};
pub use types::{DType, Dim, TensorType};
pub use value::Value;

/// Parses and checks `src`. Returns the typed program and the diagnostics, in source order;
/// the program is `Some` only when there are none. When the source has syntax errors, the
/// partial program is still checked, so one run reports both kinds of mistake.
pub fn check_source(src: &str) -> (Option<typed::TProgram>, Vec<Diagnostic>) {
    let (program, mut diags) = syntax::parse(src);
    let Some(program) = program else {
        return (None, diags);
    };
    let (typed, check_diags) = check::check(&program);
    diags.extend(check_diags);
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    if diags.is_empty() { (typed, diags) } else { (None, diags) }
}

/// The whole frontend: source text to the typed program, or every diagnostic.
pub fn frontend(src: &str) -> Result<typed::TProgram, Vec<Diagnostic>> {
    match check_source(src) {
        (Some(p), d) if d.is_empty() => Ok(p),
        (_, d) => Err(d),
    }
}
