//! ptl lowering: a typed program to an MLIR module (linalg, arith, math, tensor, func) built
//! with melior, verified, and compiled by IREE to a vmfb for the CPU.

mod abi;
pub mod checks;
mod conditional;
mod context;
mod emitter;
mod error;
mod expr;
mod folding;
mod host;
mod iree;
mod loops;
mod module;
mod ops;
mod scope;
mod target;
mod specialize;
mod types;

pub use error::LowerError;
pub use target::{DEFAULT_CUDA_SM, Target, VulkanCaps};
pub use iree::{COMPILER_ENV, CompileOptions, compile, compiler_identity, compiler_version};
pub use checks::CheckSite;
pub use module::{Entry, Lowered, SCRIPT_ENTRY, checks_entry, lower_program, lower_program_for, lower_specialized};
pub use host::{MODULE as HOST_MODULE, names as host_names};
pub use iree::HOST_MATMUL_FROM;
