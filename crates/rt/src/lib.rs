//! ptl runtime: runs compiled programs on IREE's CPU runtime with checked arguments, IEEE
//! subnormals by default, and a compile cache.

mod cache;
mod check;
mod convert;
mod engine;
mod error;
pub mod fpu;

pub use cache::{CacheOutcome, CompileCache};
pub use check::{check_arguments, describe};
pub use engine::{Device, Engine, EngineOptions, Timings};
pub use error::RtError;
