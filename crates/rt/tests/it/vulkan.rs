//! Every output fixture compiled for Vulkan (SPIR-V) and run on the first Vulkan device must
//! agree with the reference interpreter, and every run-time error fixture must fail there as
//! it fails in the interpreter. CI runs this on lavapipe (Mesa's Vulkan on the CPU).
//!
//! Without a Vulkan device the tests say so and pass, unless `PTL_REQUIRE_VULKAN=1` (CI sets
//! it), where a missing device fails them.

#![cfg(feature = "vulkan")]

use crate::common::devices::{engine_on, fixtures_agree};
use ptl_lang::Value;
use ptl_rt::{Device, Engine};

/// A Vulkan engine, or `None` (with the reason printed) where this machine has no device.
fn vulkan_engine() -> Option<Engine> {
    engine_on(Device::Vulkan, "PTL_REQUIRE_VULKAN")
}

/// Where lavapipe itself is not IEEE: these fixtures are not compared on it (a GPU's driver
/// must pass them). Each entry says why.
const LAVAPIPE_DEVIATIONS: &[(&str, &str)] = &[(
    "ops/var_too_few_elements.ptl",
    "lavapipe divides f64 by zero without IEEE special values: 0.0 / 0.0 gives 0.0, 0.5 / 0.0 a subnormal",
)];

/// Fixtures IREE 3.13 cannot compile for SPIR-V on any device, with why.
const SPIRV_COMPILER_GAPS: &[(&str, &str)] = &[(
    "ops/linalg_factor_read_twice.ptl",
    "IREE 3.13's SPIR-V code generation fails on an f64 product whose operand is a diagonal matrix built by `diag` (\"failed to legalize unresolved source materialization\"), with or without a factorisation",
)];

#[test]
fn fixtures_on_vulkan_agree_with_the_interpreter() {
    let Some(mut engine) = vulkan_engine() else { return };
    eprintln!("Vulkan device: {} (f64: {})", engine.device().name, engine.device().float64);
    let lavapipe = engine.device().name.starts_with("llvmpipe");
    let skip = move |name: &str| {
        let gap = SPIRV_COMPILER_GAPS.iter().find(|(path, _)| name.ends_with(path)).map(|(_, why)| *why);
        if gap.is_some() || !lavapipe {
            return gap;
        }
        LAVAPIPE_DEVIATIONS.iter().find(|(path, _)| name.ends_with(path)).map(|(_, why)| *why)
    };
    fixtures_agree(&mut engine, &skip);
}

/// `VULKAN_NO_F64` and `VULKAN_WIDENED` are what the compiler says: each listed op fails to
/// compile for Vulkan in f64 (or, widened, in f32 too), and the ops left out compile (no
/// device needed).
#[test]
fn the_ops_refused_in_f64_are_those_spirv_lacks() {
    use ptl_lower::{CompileOptions, Entry, Target, VulkanCaps};
    let compiles_as = |body: &str, dtype: &str| {
        let src = format!("fn f(x: {dtype}[n]) -> {dtype}[n] {{ {body} }}");
        let prog = ptl_lang::frontend(&src).unwrap_or_else(|d| panic!("{src}: {d:?}"));
        let mlir = ptl_lower::lower_program(&prog, &Entry::Function("f".into())).expect("lowers").mlir;
        ptl_lower::compile(&mlir, &CompileOptions { target: Target::Vulkan(VulkanCaps::BASELINE), ..Default::default() }).is_ok()
    };
    let body = |op: &str| match op {
        "**" => "x ** (x + 0.5)".to_string(),
        "logaddexp" => "logaddexp(x, x)".to_string(),
        "gammainc" | "gammaincc" | "owens_t" | "kv" | "kve" => format!("{op}(x, x)"),
        "gammaincinv" | "gammainccinv" => format!("{op}(x + 1.0, sigmoid(x))"),
        "betainc" => "betainc(x, x, x)".to_string(),
        "betaincinv" => "betaincinv(x + 1.0, x + 2.0, sigmoid(x))".to_string(),
        "polygamma" => "polygamma(x, x)".to_string(),
        "logsumexp" => "broadcast(logsumexp(x), [n])".to_string(),
        "softmax" | "log_softmax" => format!("{op}(x, 0)"),
        // (Its log part; the sign shares the name.)
        "slogdet" => "let (s, l) = slogdet(outer(x, x) + 1.0); x * l".to_string(),
        _ => format!("{op}(x)"),
    };
    let compiles = |body: &str| compiles_as(body, "f64");
    for op in ptl_rt::VULKAN_NO_F64 {
        assert!(!compiles(&body(op)), "`{op}` compiles in f64 for Vulkan: take it off VULKAN_NO_F64");
        assert!(compiles_as(&body(op), "f32"), "`{op}` does not compile in f32 for Vulkan: move it to VULKAN_WIDENED");
    }
    for op in ptl_rt::VULKAN_WIDENED {
        assert!(!compiles_as(&body(op), "f32"), "`{op}` compiles in f32 for Vulkan: take it off VULKAN_WIDENED");
    }
    for op in ["sqrt", "abs", "floor", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "square", "reciprocal"] {
        assert!(compiles(&body(op)), "`{op}` does not compile in f64 for Vulkan: add it to VULKAN_NO_F64");
    }
}

/// Subnormal results on the Vulkan device, measured: lavapipe keeps them in f32 and f64 (the
/// book's devices chapter says so); another device's behaviour is printed, not assumed.
#[test]
fn subnormals_on_vulkan() {
    let Some(mut engine) = vulkan_engine() else { return };
    let src = "fn f(x: f32[n], y: f64[n]) -> (f32[n], f64[n]) { (x * 0.5, y * 0.5) }";
    let prog = ptl_lang::frontend(src).expect("checks");
    let x = Value::F32(ndarray::arr1(&[2e-38f32, 3e-45]).into_dyn());
    let y = Value::F64(ndarray::arr1(&[2e-308f64, 1e-323]).into_dyn());
    let got = engine.call(&prog, "f", &[x.clone(), y.clone()]).expect("runs");
    let want = ptl_interp::call_function(&prog, "f", &[x, y]).expect("interprets");
    let kept = got == want;
    eprintln!("{}: subnormals {}: {got:?}", engine.device().name, if kept { "kept (IEEE)" } else { "flushed" });
    if engine.device().name.starts_with("llvmpipe") {
        assert!(kept, "lavapipe flushed subnormals: {got:?} vs {want:?}");
    }
}

