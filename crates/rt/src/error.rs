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
    /// The chosen device cannot be used (no driver, no device).
    #[error("{0}")]
    Device(String),
    /// The program computes something its device cannot (f64 on a device without 64-bit
    /// floats); found before compiling.
    #[error("{message}")]
    Unsupported { message: String, span: Span },
    /// IREE could not allocate a buffer the call needs: a result or an intermediate value is
    /// larger than the memory available. The text is IREE's status message.
    #[error("out of memory: a result or an intermediate value of this call is larger than the memory available ({0})")]
    OutOfMemory(String),
    /// The call stopped at a step of a loop because [`crate::interrupt`] asked it to.
    #[error("interrupted at a step of a loop")]
    Interrupted,
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
            RtError::Unsupported { message, span } => {
                Some(Diagnostic::new(ErrorKind::Runtime, span.clone(), message.clone()).with_label(span.clone(), "here"))
            }
            _ => None,
        }
    }
}

/// IREE's status text reduced to what a user can act on: the status code and its messages,
/// without the wrapper eerie adds, the C source positions (`iree/.../buffer.c:432: `), the
/// "while invoking" trailers and the VM stack listing.
pub fn status_message(text: &str) -> String {
    let mut t = text;
    if let Some(i) = t.find("Status: \"") {
        t = &t[i + "Status: \"".len()..];
    }
    for stop in ["\\n[", "\n["] {
        if let Some(i) = t.find(stop) {
            t = &t[..i];
        }
    }
    let t = t.trim().trim_end_matches('"').trim();
    let parts: Vec<&str> = t
        .split("; ")
        .map(|p| strip_position(p.trim()))
        .filter(|p| !p.is_empty() && !p.starts_with("while invoking") && !p.starts_with("while calling"))
        .collect();
    if parts.is_empty() { t.to_string() } else { parts.join("; ") }
}

/// `iree/runtime/src/iree/hal/buffer.c:432: OUT_OF_RANGE` -> `OUT_OF_RANGE`.
fn strip_position(piece: &str) -> &str {
    let Some((head, rest)) = piece.split_once(": ") else { return piece };
    let is_position = head.rsplit_once(':').is_some_and(|(file, line)| {
        (file.ends_with(".c") || file.ends_with(".cc") || file.ends_with(".h")) && !line.is_empty() && line.chars().all(|c| c.is_ascii_digit())
    });
    if is_position { rest } else { piece }
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
