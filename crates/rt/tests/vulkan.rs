//! Every output fixture compiled for Vulkan (SPIR-V) and run on the first Vulkan device must
//! agree with the reference interpreter, and every run-time error fixture must fail there as
//! it fails in the interpreter. CI runs this on lavapipe (Mesa's Vulkan on the CPU).
//!
//! Without a Vulkan device the tests say so and pass, unless `PTL_REQUIRE_VULKAN=1` (CI sets
//! it), where a missing device fails them.

#![cfg(feature = "vulkan")]

use std::path::Path;

use ptl_lang::{Value, map_value};
use ptl_rt::{Device, Engine, EngineOptions, RtError};
use ptl_testkit::fixture::{Expected, load_all};

/// A Vulkan engine, or `None` (with the reason printed) where this machine has no device.
fn vulkan_engine() -> Option<Engine> {
    let options = EngineOptions { device: Device::Vulkan, cache_dir: ptl_rt::CompileCache::default_dir(), ..Default::default() };
    match Engine::new(options) {
        Ok(e) => Some(e),
        Err(e) if std::env::var("PTL_REQUIRE_VULKAN").is_ok_and(|v| v == "1") => panic!("PTL_REQUIRE_VULKAN=1 but: {e}"),
        Err(e) => {
            eprintln!("SKIPPED: no Vulkan device ({e}); install mesa-vulkan-drivers to run these tests");
            None
        }
    }
}

fn close(a: f64, b: f64, rtol: f64, atol: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * a.abs().max(b.abs())
}

/// Why `got` differs from `want`: f32 within rtol 1e-5, f64 within 1e-12 (the CPU's
/// tolerance), integers and bools exactly.
fn compare(got: &Value, want: &Value) -> Option<String> {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Some(format!("type {} vs expected {}", got.tensor_type(), want.tensor_type()));
    }
    let floats: Option<(Vec<f64>, Vec<f64>, f64, f64)> = match (got, want) {
        (Value::F32(g), Value::F32(w)) => {
            Some((g.iter().map(|&x| x as f64).collect(), w.iter().map(|&x| x as f64).collect(), 1e-5, 1e-30))
        }
        (Value::F64(g), Value::F64(w)) => Some((g.iter().copied().collect(), w.iter().copied().collect(), 1e-12, 1e-300)),
        _ => None,
    };
    match floats {
        Some((g, w, rtol, atol)) => g
            .iter()
            .zip(&w)
            .enumerate()
            .find(|(_, (a, b))| !close(**a, **b, rtol, atol))
            .map(|(i, (a, b))| format!("element {i}: {a} vs expected {b}")),
        None => {
            let g = map_value!(got, a => format!("{:?}", a.iter().collect::<Vec<_>>()));
            let w = map_value!(want, a => format!("{:?}", a.iter().collect::<Vec<_>>()));
            (g != w).then(|| format!("{g} vs expected {w}"))
        }
    }
}

/// Where lavapipe itself is not IEEE: these fixtures are not compared on it (a GPU's driver
/// must pass them). Each entry says why.
const LAVAPIPE_DEVIATIONS: &[(&str, &str)] = &[(
    "ops/var_too_few_elements.ptl",
    "lavapipe divides f64 by zero without IEEE special values: 0.0 / 0.0 gives 0.0, 0.5 / 0.0 a subnormal",
)];

#[test]
fn fixtures_on_vulkan_agree_with_the_interpreter() {
    let Some(mut engine) = vulkan_engine() else { return };
    eprintln!("Vulkan device: {} (f64: {})", engine.device().name, engine.device().float64);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let all = load_all(&dir);
    let mut failures = Vec::new();
    let mut outputs = 0;
    let mut refused = Vec::new();
    for f in &all {
        let name = f.path.display().to_string();
        if engine.device().name.starts_with("llvmpipe")
            && let Some((_, why)) = LAVAPIPE_DEVIATIONS.iter().find(|(path, _)| name.ends_with(path))
        {
            eprintln!("{name}: not compared on lavapipe: {why}");
            continue;
        }
        let expect_failure = match &f.expected {
            Expected::Output(_) => false,
            Expected::Error(e) if e.starts_with("runtime error") => true,
            Expected::Error(_) | Expected::Missing => continue,
        };
        let prog = ptl_lang::frontend(&f.source).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let want = ptl_interp::run_program(&prog);
        match (want, engine.run_script(&prog)) {
            (Ok(want), Ok(got)) if !expect_failure => {
                outputs += 1;
                if got.len() != want.len() {
                    failures.push(format!("{name}: {} values vs expected {}", got.len(), want.len()));
                }
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    if let Some(why) = compare(g, w) {
                        failures.push(format!("{name}: print #{i}: {why}"));
                    }
                }
            }
            // What the device cannot compute is refused with ptl's reason: an f64 op SPIR-V
            // has no form of (before compiling), or an empty array (Vulkan binds no empty buffer).
            (_, Err(e @ (RtError::Unsupported { .. } | RtError::Device(_)))) => {
                refused.push(format!("{name}: {e}"));
            }
            (Err(i), Err(c)) if expect_failure => {
                let (want, got) = (i.diagnostic(), c.diagnostic());
                if got.as_ref().map(|g| (&g.message, &g.span)) != Some((&want.message, &want.span)) {
                    failures.push(format!("{name}: the interpreter failed with `{}`, Vulkan with `{c}`", want.message));
                }
            }
            (want, got) => failures.push(format!("{name}: interpreter {want:?}, on Vulkan {got:?}")),
        }
    }
    eprintln!("{outputs} fixtures agree; {} refused by the device:\n{}", refused.len(), refused.join("\n"));
    assert!(outputs >= 50, "expected the output fixtures under {}", dir.display());
    assert!(failures.is_empty(), "{} fixtures disagree on Vulkan:\n{}", failures.len(), failures.join("\n"));
}

/// `VULKAN_NO_F64` is what the compiler says: each listed f64 op fails to compile for Vulkan,
/// and the f64 ops left out compile (no device needed).
#[test]
fn the_ops_refused_in_f64_are_those_spirv_lacks() {
    use ptl_lower::{CompileOptions, Entry, Target, VulkanCaps};
    let compiles = |body: &str| {
        let src = format!("fn f(x: f64[n]) -> f64[n] {{ {body} }}");
        let prog = ptl_lang::frontend(&src).unwrap_or_else(|d| panic!("{src}: {d:?}"));
        let mlir = ptl_lower::lower_program(&prog, &Entry::Function("f".into())).expect("lowers").mlir;
        ptl_lower::compile(&mlir, &CompileOptions { target: Target::Vulkan(VulkanCaps::BASELINE), ..Default::default() }).is_ok()
    };
    let body = |op: &str| match op {
        "**" => "x ** (x + 0.5)".to_string(),
        "logaddexp" => "logaddexp(x, x)".to_string(),
        "logsumexp" => "broadcast(logsumexp(x), [n])".to_string(),
        "softmax" | "log_softmax" => format!("{op}(x, 0)"),
        _ => format!("{op}(x)"),
    };
    for op in ptl_rt::VULKAN_NO_F64 {
        assert!(!compiles(&body(op)), "`{op}` compiles in f64 for Vulkan: take it off VULKAN_NO_F64");
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
