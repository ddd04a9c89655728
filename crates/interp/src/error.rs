//! Errors the reference interpreter reports.

use ptl_lang::span::Span;

/// Formats a runtime shape the way error messages show it: `[4, 3]`, `[]` for a scalar.
pub(crate) fn shape_str(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

/// Everything that can go wrong while interpreting a typed program.
///
/// The checker rules out most of these statically; the ones that remain possible for a
/// well-typed program are the run-time checks of `?` and symbolic dims (argument and
/// result signatures, broadcasting, matmul inner dims, reshape sizes, squeezes) and empty
/// `max`/`min` reductions. `Internal` reports a typed tree that breaks one of the
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

    /// Operands whose run-time shapes do not broadcast (a `?` or symbolic dim that turned out
    /// to differ from the dim it meets).
    #[error("shapes {} and {} do not broadcast", shape_str(.lhs), shape_str(.rhs))]
    Broadcast { lhs: Vec<usize>, rhs: Vec<usize>, span: Span },

    /// A result that would not fit in the memory available.
    #[error("a result of shape {} needs {:.1} GiB, more than the {:.1} GiB of memory available", shape_str(.shape), *.bytes as f64 / 1073741824.0, *.available as f64 / 1073741824.0)]
    TooLarge { shape: Vec<usize>, bytes: u128, available: u64, span: Span },

    #[error("matmul of shapes {} and {}: {reason}", shape_str(.lhs), shape_str(.rhs))]
    MatMul { lhs: Vec<usize>, rhs: Vec<usize>, reason: String, span: Span },

    #[error("cannot reshape an array of shape {} ({size} elements) to {target}", shape_str(.from))]
    Reshape { from: Vec<usize>, size: usize, target: String, span: Span },

    #[error("cannot squeeze axis {axis} of shape {}: its size is not 1", shape_str(.shape))]
    Squeeze { axis: usize, shape: Vec<usize>, span: Span },

    #[error("`{op}` over an empty axis of shape {} has no identity", shape_str(.shape))]
    EmptyReduction { op: &'static str, shape: Vec<usize>, span: Span },

    #[error("call depth limit ({limit}) exceeded in `{function}`")]
    RecursionLimit { function: String, limit: usize, span: Option<Span> },

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
            | Broadcast { span, .. }
            | TooLarge { span, .. }
            | MatMul { span, .. }
            | Reshape { span, .. }
            | Squeeze { span, .. }
            | EmptyReduction { span, .. } => Some(span.clone()),
            ResultMismatch { .. } => None,
        }
    }

    pub(crate) fn internal(message: impl Into<String>, span: &Span) -> Self {
        InterpError::Internal { message: message.into(), span: Some(span.clone()) }
    }
}

pub type Result<T, E = InterpError> = std::result::Result<T, E>;
