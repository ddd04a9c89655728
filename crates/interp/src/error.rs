//! Errors the reference interpreter reports.

use ptl_lang::diag::{Diagnostic, ErrorKind};
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::span::Span;

/// Formats a runtime shape the way error messages show it: `[4, 3]`, `[]` for a scalar.
pub(crate) fn shape_str(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

/// Everything that can go wrong while interpreting a typed program.
///
/// The checker rules out most of these statically; the ones that remain possible for a
/// well-typed program are the argument and result signatures, the run-time checks of
/// [`RuntimeCheck`] (`?` and symbolic dims in broadcasts, elementwise ops, matmuls and
/// reshapes, and empty `max`/`min` reductions), and results too large for memory. `Internal` reports a typed tree that breaks one of the
/// invariants documented in `typed.rs`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InterpError {
    #[error("unknown function `{name}`")]
    UnknownFunction { name: String, span: Option<Span> },

    #[error("unbound variable `{name}`")]
    UnboundVariable { name: String, span: Span },

    #[error("function `{function}` takes {expected} argument(s) but was given {actual}")]
    Arity { function: String, expected: usize, actual: usize, span: Option<Span> },

    /// An argument whose dtype, rank or dims do not fit the parameter's declared type.
    /// `actual` is the value's full static type (`f64[4]`), `expected` the declared one
    /// (`f64[n, 3]`); `detail` says which dim is wrong and, for a symbolic dim, which
    /// argument bound the symbol.
    #[error("argument `{param}` of `{function}` has type {actual}, expected {expected}: {detail}")]
    ArgumentMismatch {
        function: String,
        param: String,
        actual: String,
        expected: String,
        detail: String,
        span: Option<Span>,
    },

    /// A function result that does not fit its declared result type.
    #[error("result {index} of `{function}` has type {actual}, expected {expected}: {detail}")]
    ResultMismatch { function: String, index: usize, actual: String, expected: String, detail: String },

    /// A run-time check of the program failed; compiled code reports the same check with
    /// the same message and span. `seen` says what the values were.
    #[error("{}", .check.message())]
    Check { check: RuntimeCheck, span: Span, seen: String },

    /// A result that would not fit in the memory available.
    #[error("a result of shape {} needs {:.1} GiB, more than the {:.1} GiB of memory available", shape_str(.shape), *.bytes as f64 / 1073741824.0, *.available as f64 / 1073741824.0)]
    TooLarge { shape: Vec<usize>, bytes: u128, available: u64, span: Span },

    #[error("matmul of shapes {} and {}: {reason}", shape_str(.lhs), shape_str(.rhs))]
    MatMul { lhs: Vec<usize>, rhs: Vec<usize>, reason: String, span: Span },

    #[error("cannot squeeze axis {axis} of shape {}: its size is not 1", shape_str(.shape))]
    Squeeze { axis: usize, shape: Vec<usize>, span: Span },

    #[error("call depth limit ({limit}) exceeded in `{function}`")]
    RecursionLimit { function: String, limit: usize, span: Option<Span> },

    /// The evaluation was interrupted ([`crate::interrupt`]) at a step of this loop.
    #[error("interrupted at step {step} of this loop")]
    Interrupted { step: i64, span: Span },

    #[error("internal error (malformed typed program): {message}")]
    Internal { message: String, span: Option<Span> },
}

impl InterpError {
    /// The source range the error points at, where the typed tree has one.
    pub fn span(&self) -> Option<Span> {
        use InterpError::*;
        match self {
            UnknownFunction { span, .. }
            | Arity { span, .. }
            | ArgumentMismatch { span, .. }
            | RecursionLimit { span, .. }
            | Internal { span, .. } => span.clone(),
            UnboundVariable { span, .. }
            | Check { span, .. }
            | TooLarge { span, .. }
            | MatMul { span, .. }
            | Squeeze { span, .. }
            | Interrupted { span, .. } => Some(span.clone()),
            ResultMismatch { .. } => None,
        }
    }

    pub(crate) fn check(check: RuntimeCheck, span: &Span, seen: String) -> Self {
        InterpError::Check { check, span: span.clone(), seen }
    }

    /// The error as a report: a failed run-time check as the same diagnostic compiled code
    /// gives (plus what was seen), anything else as a run-time error at its span.
    pub fn diagnostic(&self) -> Diagnostic {
        match self {
            InterpError::Check { check, span, seen } => check.diagnostic(Some(span.clone()), Some(seen.clone())),
            other => {
                let span = other.span().unwrap_or(0..0);
                Diagnostic::new(ErrorKind::Runtime, span.clone(), other.to_string()).with_label(span, "when evaluating this")
            }
        }
    }

    pub(crate) fn internal(message: impl Into<String>, span: &Span) -> Self {
        InterpError::Internal { message: message.into(), span: Some(span.clone()) }
    }
}

pub type Result<T, E = InterpError> = std::result::Result<T, E>;
