//! Times `Engine::call` on the benchmark's large cases: median milliseconds per call.
//!
//! `cargo run --release -p ptl-rt --example calls -- [REPEATS]`. A quick look for one machine
//! state; `make bench` is the measurement of record (it runs NumPy beside it).

use std::time::Instant;

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_rt::{Engine, EngineOptions};

const SRC: &str = "
fn fused_lin(a: f64, x: f64[n], b: f64, y: f64[n], z: f64[n]) -> f64[n] { a * x + b * y - z }
fn fused_exp(x: f64[n], y: f64[n]) -> f64[n] { exp(x) * sigmoid(y) }
fn sum_rows(x: f64[r, c]) -> f64[r] { sum(x, 1) }
fn sum_cols(x: f64[r, c]) -> f64[c] { sum(x, 0) }
fn matmul_f32(a: f32[m, k], b: f32[k, n]) -> f32[m, n] { a @ b }
fn matmul_f64(a: f64[m, k], b: f64[k, n]) -> f64[m, n] { a @ b }
fn tiny(x: f64[n], y: f64[n]) -> f64[n] { x + y * 2.0 }
";

fn pattern(shape: &[usize]) -> ArrayD<f64> {
    let n = shape.iter().product::<usize>();
    ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|i| (i % 7) as f64 * 0.25).collect()).expect("shape")
}

fn f64s(shape: &[usize]) -> Value {
    Value::F64(pattern(shape))
}

fn f32s(shape: &[usize]) -> Value {
    Value::F32(pattern(shape).mapv(|x| x as f32))
}

fn main() {
    let repeats: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(9);
    let prog = ptl_lang::frontend(SRC).expect("checks");
    // PTL_RETURN_FREED=1: glibc's default thresholds, for comparison.
    let return_freed_buffers = std::env::var_os("PTL_RETURN_FREED").is_some();
    let mut engine = Engine::new(EngineOptions { return_freed_buffers, ..Default::default() }).expect("runtime");
    println!("freed buffers kept for reuse: {}", !return_freed_buffers && ptl_rt::memory::keep_freed_buffers());
    let s = || Value::F64(ndarray::arr0(1.5).into_dyn());
    let n = 10_000_000;
    let cases: Vec<(&str, &str, Vec<Value>)> = vec![
        ("tiny", "n=3", vec![f64s(&[3]), f64s(&[3])]),
        ("fused_lin", "1e7 f64", vec![s(), f64s(&[n]), s(), f64s(&[n]), f64s(&[n])]),
        ("fused_exp", "1e7 f64", vec![f64s(&[n]), f64s(&[n])]),
        ("sum_rows", "2500x4000 f64", vec![f64s(&[2500, 4000])]),
        ("sum_cols", "2500x4000 f64", vec![f64s(&[2500, 4000])]),
        ("matmul_f32", "1024", vec![f32s(&[1024, 1024]), f32s(&[1024, 1024])]),
        ("matmul_f64", "1024", vec![f64s(&[1024, 1024]), f64s(&[1024, 1024])]),
    ];
    for (name, size, args) in &cases {
        // Warm-up: compile, load, and (from the second call) the shape-specialised module.
        for _ in 0..3 {
            engine.call(&prog, name, args).expect("call");
        }
        let inner = if *name == "tiny" { 10_000 } else { 1 };
        let mut times: Vec<f64> = (0..repeats)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..inner {
                    std::hint::black_box(engine.call(&prog, name, args).expect("call"));
                }
                t.elapsed().as_secs_f64() * 1e3 / inner as f64
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        if inner > 1 {
            println!("{name:12} {size:14} {:10.2} us/call", median * 1e3);
        } else {
            println!("{name:12} {size:14} {median:10.2} ms/call");
        }
    }
}
