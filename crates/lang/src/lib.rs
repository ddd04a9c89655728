//! The ptl frontend: source text to a typed program, plus the reference interpreter.

pub mod ast;
pub mod diag;
pub mod interp;
pub mod span;
pub mod syntax;
pub mod typed;
pub mod types;
pub mod value;

pub use diag::{Diagnostic, ErrorKind};
pub use span::{Span, Spanned};
pub use syntax::{parse, pretty::print_program};
pub use types::{DType, Dim, TensorType};
pub use value::Value;
