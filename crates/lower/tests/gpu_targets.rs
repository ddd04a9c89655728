//! Compiling for the GPU targets needs no GPU: these run everywhere. Running the code is
//! tested where a device is (`crates/rt/tests/it/vulkan.rs`, `cuda.rs`).

use ptl_lower::{CompileOptions, Entry, Target, VulkanCaps, compile, lower_program};

const PROGRAMS: &[&str] = &[
    "fn f(a: f32, x: f32[n], y: f32[n]) -> f32[n] { a * x + y }",
    "fn f(x: f64[n, m], w: f64[m, k]) -> f64[n, k] { sqrt(abs(x @ w)) }",
    "fn f(x: i64[n]) -> i64 { sum(x * x) }",
    "fn f(x: f32[n, m]) -> f32[n, m] { softmax(x, 1) }",
    "fn f(x: f64[n], k: i64) -> f64[n] { loop s = x for i in 0..k { s * 0.5 + 1.0 } }",
    "fn f(x: f32[n]) -> bool[n] { x > 0.0 }",
];

fn vmfb(src: &str, target: Target) -> Vec<u8> {
    let prog = ptl_lang::frontend(src).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    let lowered = lower_program(&prog, &Entry::Function("f".into())).expect("lowers");
    compile(&lowered.mlir, &CompileOptions { target, ..Default::default() }).unwrap_or_else(|e| panic!("{src} for {target}: {e}"))
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn programs_compile_for_cuda() {
    for src in PROGRAMS {
        let bytes = vmfb(src, Target::Cuda { sm: ptl_lower::DEFAULT_CUDA_SM });
        assert!(contains(&bytes, "cuda-nvptx-fb"), "{src}: no CUDA executable in the module");
    }
}

#[test]
fn programs_compile_for_vulkan() {
    for src in PROGRAMS {
        let bytes = vmfb(src, Target::Vulkan(VulkanCaps::BASELINE));
        assert!(contains(&bytes, "vulkan-spirv-fb"), "{src}: no SPIR-V executable in the module");
    }
}

/// The cache key follows the device's description, not only the flags.
#[test]
fn vulkan_devices_key_apart() {
    let a = CompileOptions { target: Target::Vulkan(VulkanCaps::BASELINE), ..Default::default() };
    let b = CompileOptions { target: Target::Vulkan(VulkanCaps { subgroup_size: Some(8), ..VulkanCaps::BASELINE }), ..Default::default() };
    assert_eq!(a.flags(), b.flags());
    assert_ne!(a.identity(), b.identity());
}
