//! The runtime crate's one error type.

use ptl_lang::{Diagnostic, ErrorKind, Span};

#[derive(Debug, thiserror::Error)]
pub enum RtError {
    /// An argument that does not fit the function's signature; never reaches IREE.
    #[error("argument `{name}` of `{function}` has type `{got}`, expected `{expected}`{detail}")]
    Argument { function: String, name: String, got: String, expected: String, detail: String, span: Option<Span> },
    #[error("`{function}` takes {expected} argument(s), got {got}")]
    ArgumentCount { function: String, expected: usize, got: usize },
    #[error("no function named `{0}` in the program")]
    UnknownFunction(String),
    /// A run-time check of the compiled program failed: the same report the interpreter gives.
    #[error("{}", .0.check.message())]
    Check(ptl_lower::CheckSite),
    /// The IREE runtime failed for another reason; the text is IREE's status message without
    /// its source locations.
    #[error("the IREE runtime failed: {0}")]
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
        RtError::Iree(status_message(&e.to_string()))
    }
}

impl RtError {
    /// The error as a report, where it concerns the program's source: a failed run-time check
    /// (at the op's span) or a bad argument.
    pub fn diagnostic(&self) -> Option<Diagnostic> {
        match self {
            RtError::Check(site) => Some(site.check.diagnostic(site.span.clone(), None)),
            RtError::Argument { span, .. } => {
                let span = span.clone().unwrap_or(0..0);
                Some(Diagnostic::new(ErrorKind::Runtime, span.clone(), self.to_string()).with_label(span, "this argument"))
            }
            _ => None,
        }
    }
}

/// IREE's status text without the source file positions it carries (`path/file.c:221: `)
/// and the "while invoking" trailers: the code and the message are what a user can act on.
pub fn status_message(text: &str) -> String {
    let mut parts = Vec::new();
    for piece in text.split("; ") {
        let piece = piece.trim();
        if piece.is_empty() || piece.starts_with("while invoking") || piece.starts_with("while calling") {
            continue;
        }
        // Drop a leading `some/path.c:123: ` location.
        let cleaned = match piece.split_once(": ") {
            Some((loc, rest)) if loc.contains('/') && loc.rsplit(':').next().is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())) => rest,
            _ => piece,
        };
        if !cleaned.starts_with('[') {
            parts.push(cleaned.to_string());
        }
    }
    if parts.is_empty() { text.trim().to_string() } else { parts.join("; ") }
}

#[cfg(test)]
mod tests {
    use super::status_message;

    #[test]
    fn status_text_loses_its_source_positions() {
        let raw = "iree/runtime/src/iree/modules/hal/utils/buffer_diagnostics.c:221: INVALID_ARGUMENT; input0 shape dimension 0 mismatch; expected 3 but have 1; while invoking native function hal.buffer_view.assert; while calling import; \n[ 1] bytecode module.f:300";
        let msg = status_message(raw);
        assert!(!msg.contains("buffer_diagnostics.c"), "{msg}");
        assert!(msg.starts_with("INVALID_ARGUMENT; input0 shape dimension 0 mismatch"), "{msg}");
    }
}

pub type Result<T> = std::result::Result<T, RtError>;
