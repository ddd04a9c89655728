//! ptl lowering: a typed program to an MLIR module (linalg, arith, math, tensor, func) built
//! with melior, verified, and compiled by IREE to a vmfb for the CPU.

mod abi;
mod context;
mod elementwise;
mod emitter;
mod error;
mod expr;
mod iree;
mod matmul;
mod module;
mod reduce;
mod scalar;
mod scope;
mod types;

pub use error::LowerError;
pub use iree::{COMPILER_ENV, CompileOptions, compile, compiler_version};
pub use module::{Entry, SCRIPT_ENTRY, lower_program};
