//! ptl-rt's integration tests. They are one test binary, each file a module, so the runtime,
//! the lowering and MLIR are linked once instead of once per file (a debug test binary is
//! about 230 MB). Run one file's tests with a filter: `cargo test -p ptl-rt --test it book::`.

mod book;
mod common;
mod compile_flags;
mod compiled_by_hand;
mod cuda;
mod device_values;
mod differential;
mod grad;
mod host_calls;
mod in_place;
mod indexing;
mod interrupt;
mod iree_workarounds;
mod loops_in_modules;
mod math;
mod robustness;
mod specialize;
mod vulkan;
