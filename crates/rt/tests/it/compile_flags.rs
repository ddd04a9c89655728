//! Programs that IREE 3.13's optimising pipeline rejects still compile (with IREE's defaults)
//! and give the interpreter's answer. With `--iree-global-optimization-opt-level=O3` added to
//! ptl's flags, `f` fails under data tiling with "'affine.delinearize_index' op no basis element
//! may be statically non-positive" (a matmul with dynamic dims): that level is left out of the
//! default flags for this reason, and a failed optimised compile falls back to the defaults.

#![allow(clippy::result_large_err)]

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_rt::{Engine, EngineOptions};

const SRC: &str = "
fn f(v: f32[2, ?, m], x: f32[n, ?]) -> f32[?, 2] {
    cumprod((loop acc = x.T for step in 0..1 { maximum(acc, cast(step, f32)) * 0.5 }) @ ((sum(v, 2)).T), -1)
}
fn g(a: f32[?, n], b: f32[?, 2]) -> f32[?, 2] { a @ b }
";

fn f32s(shape: &[usize], seed: u32) -> Value {
    let n = shape.iter().product::<usize>();
    let v = (0..n).map(|i| ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 1000) as f32 / 499.0 - 1.0).collect();
    Value::F32(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
}

#[test]
fn a_program_the_optimising_flags_reject_still_compiles() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let lowered = ptl_lower::lower_program(&prog, &ptl_lower::Entry::Function("f".into())).expect("lowers");
    for cpu in ["host", "rocketlake"] {
        let options = ptl_lower::CompileOptions { target_cpu: cpu.into(), ..Default::default() };
        assert!(options.optimize, "the optimising flags are the default");
        if let Err(e) = ptl_lower::compile(&lowered.mlir, &options) {
            panic!("{cpu}: {e}");
        }
        // The level that rejects it: the compile falls back to IREE's defaults.
        let failing = vec!["--iree-global-optimization-opt-level=O3".to_string()];
        let options = ptl_lower::CompileOptions { extra_flags: failing, ..options };
        if let Err(e) = ptl_lower::compile(&lowered.mlir, &options) {
            panic!("{cpu} with global optimisation O3: {e}");
        }
    }
}

#[test]
fn a_program_the_optimising_flags_reject_compiles_and_agrees() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut engine = Engine::new(EngineOptions::default()).expect("IREE runtime starts");
    let cases = [("f", vec![f32s(&[2, 3, 3], 1), f32s(&[3, 3], 2)]), ("g", vec![f32s(&[4, 3], 3), f32s(&[3, 2], 4)])];
    for (name, args) in cases {
        let want = ptl_interp::call_function(&prog, name, &args).expect("the interpreter runs it");
        let got = engine.call(&prog, name, &args).unwrap_or_else(|e| panic!("{name}: {e}"));
        match (&got[0], &want[0]) {
            (Value::F32(g), Value::F32(w)) => {
                assert_eq!(g.shape(), w.shape(), "{name}");
                for (p, q) in g.iter().zip(w) {
                    assert!((p - q).abs() <= 1e-5 * (1.0 + q.abs()), "{name}: {g} vs interpreter {w}");
                }
            }
            other => panic!("{name}: unexpected values {other:?}"),
        }
    }
}
