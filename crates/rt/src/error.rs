//! The runtime crate's one error type.

use ptl_lang::Span;

#[derive(Debug, thiserror::Error)]
pub enum RtError {
    /// An argument that does not fit the function's signature; never reaches IREE.
    #[error("argument `{name}` of `{function}` has type `{got}`, expected `{expected}`{detail}")]
    Argument { function: String, name: String, got: String, expected: String, detail: String, span: Option<Span> },
    #[error("`{function}` takes {expected} argument(s), got {got}")]
    ArgumentCount { function: String, expected: usize, got: usize },
    #[error("no function named `{0}` in the program")]
    UnknownFunction(String),
    #[error("IREE runtime: {0}")]
    Iree(String),
    #[error(transparent)]
    Lower(#[from] ptl_lower::LowerError),
    #[error("compile cache at {path}: {message}")]
    Cache { path: String, message: String },
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<eerie::runtime::RuntimeError> for RtError {
    fn from(e: eerie::runtime::RuntimeError) -> Self {
        RtError::Iree(e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, RtError>;
