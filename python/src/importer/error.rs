//! Why a graph description could not become a ptl program.

use super::desc::Located;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The description breaks its own rules (an id used before it is defined, a wrong number
    /// of inputs, an axis out of range): a fault of whatever wrote it.
    #[error("bad graph description: {0}")]
    Malformed(String),
    /// A part of the graph that ptl cannot express.
    #[error("{0}")]
    Unsupported(String),
}

impl ImportError {
    pub fn malformed(at: &str, message: impl std::fmt::Display) -> Self {
        ImportError::Malformed(Located { at, message: &message }.to_string())
    }

    pub fn unsupported(at: &str, message: impl std::fmt::Display) -> Self {
        ImportError::Unsupported(Located { at, message: &message }.to_string())
    }
}

pub type Result<T> = std::result::Result<T, ImportError>;
