//! Every fixture on the first NVIDIA GPU (a `ptl-rt` built with the `cuda` feature), compared
//! with the reference interpreter. Without a GPU the test says so and passes, unless
//! `PTL_REQUIRE_CUDA=1`. Compiling for CUDA is tested everywhere (`crates/lower/tests/gpu_targets.rs`).

#![cfg(feature = "cuda")]

use crate::common::devices::{engine_on, fixtures_agree};
use ptl_rt::Device;

#[test]
fn fixtures_on_cuda_agree_with_the_interpreter() {
    let Some(mut engine) = engine_on(Device::Cuda, "PTL_REQUIRE_CUDA") else { return };
    eprintln!("CUDA device: {}", engine.device().name);
    fixtures_agree(&mut engine, &|_| None);
}
