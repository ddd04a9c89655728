//! ptl runtime: runs compiled programs on IREE's CPU runtime with checked arguments, IEEE
//! subnormals by default, and a compile cache.
//!
//! # Threads
//!
//! An [`Engine`] owns IREE runtime handles, which are neither `Send` nor `Sync`, so an engine
//! stays on the thread that made it; the compiler checks this. Threads that run programs
//! concurrently each make their own engine (the compiled code is shared through the on-disk
//! cache, the compiler library is loaded once per process):
//!
//! ```compile_fail,E0277
//! let engine = ptl_rt::Engine::new(Default::default()).unwrap();
//! std::thread::spawn(move || drop(engine)); // error: `Engine` cannot be sent between threads
//! ```

mod cache;
mod check;
mod convert;
mod engine;
mod error;
pub mod fpu;
pub mod memory;

pub use cache::{CacheOutcome, CompileCache};
pub use check::{check_arguments, describe};
pub use engine::{Device, Engine, EngineOptions, SPECIALIZE_FROM, Specialize, Timings};
pub use error::RtError;
