//! ptl runtime: runs compiled programs on IREE's runtime (the CPU, Vulkan or CUDA) with checked
//! arguments, IEEE subnormals on the CPU by default, and a compile cache.
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
mod device;
mod engine;
mod error;
mod host;
mod interrupt;
pub use interrupt::{clear_interrupt, interrupt};
/// Adds the runtime's host kernels (`ptl_host`) to an IREE runtime, so modules the engine
/// compiled for the CPU load on it.
pub use host::register as register_host_module;
mod kernels;
mod values;
pub mod fpu;
pub mod memory;

pub use cache::{CacheOutcome, CompileCache};
pub use check::{check_arguments, describe};
pub use device::{Device, DeviceInfo, VULKAN_NO_F64, VULKAN_WIDENED, VulkanDevice, vulkan_devices};
pub use engine::{Engine, EngineOptions, LARGE_CALLS_FROM, Prepared, SPECIALIZE_FROM, Specialize, Timings};
pub use error::RtError;
pub use values::{Arg, DeviceValue, HostMemory, HostView, Shaped};
