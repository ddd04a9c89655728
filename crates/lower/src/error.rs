//! The lowering crate's one error type.

use ptl_lang::Span;

#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    #[error("MLIR construction failed: {0}")]
    Mlir(#[from] melior::Error),
    /// The module did not verify: a bug in the lowering, reported with the module text.
    #[error("internal error: the generated MLIR module does not verify; please report this with the program.\n{0}")]
    Verify(String),
    #[error("`{op}` cannot be compiled yet: {reason}")]
    Unsupported { op: String, reason: String, span: Span },
    #[error("internal error: {0}")]
    Internal(String),
    #[error("{0}")]
    Compiler(String),
}

pub type Result<T> = std::result::Result<T, LowerError>;
