//! Large aligned host arrays are read where they are (no copy into the device): results must
//! still be the program's own, never the caller's memory, and match the interpreter.

use ndarray::ArrayViewD;
use ndarray::IxDyn;
use ptl_lang::Value;
use ptl_rt::{Arg, Engine, EngineOptions, HostView};

const N: usize = 1 << 15; // 256 KiB of f64: above the size read in place

/// `n` f64s starting at a 64-byte boundary inside `buf`.
fn aligned(buf: &mut Vec<f64>, n: usize) -> &mut [f64] {
    buf.resize(n + 8, 0.0);
    let skip = buf.as_ptr().align_offset(64);
    &mut buf[skip..skip + n]
}

const SRC: &str = "fn same(x: f64[n]) -> f64[n] { x }
fn both(x: f64[n]) -> (f64[n], f64) { (reshape(x, [n]), sum(x)) }
fn axpy(a: f64, x: f64[n], y: f64[n]) -> f64[n] { a * x + y }";

#[test]
fn a_result_never_is_the_callers_memory() {
    let mut engine = Engine::new(EngineOptions::default()).expect("engine");
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut buf = Vec::new();
    let x = aligned(&mut buf, N);
    for (i, v) in x.iter_mut().enumerate() {
        *v = i as f64;
    }
    for name in ["same", "both"] {
        let view = HostView::F64(ArrayViewD::from_shape(IxDyn(&[N]), &*x).expect("view"));
        let outs = engine.call_on_device(&prog, name, &[Arg::View(view)]).expect("runs");
        x.iter_mut().for_each(|v| *v = -1.0);
        let Value::F64(r) = engine.download(&outs[0]).expect("reads") else { panic!("dtype") };
        assert!(r.iter().enumerate().all(|(i, &v)| v == i as f64), "`{name}` kept the argument's memory");
        for (i, v) in x.iter_mut().enumerate() {
            *v = i as f64;
        }
    }
}

#[test]
fn aligned_unaligned_and_strided_arguments_agree_with_the_interpreter() {
    let mut engine = Engine::new(EngineOptions::default()).expect("engine");
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut buf = Vec::new();
    let x = aligned(&mut buf, 2 * N + 1);
    for (i, v) in x.iter_mut().enumerate() {
        *v = (i as f64 * 0.37).sin();
    }
    let all = ArrayViewD::from_shape(IxDyn(&[2 * N + 1]), &*x).expect("view");
    let a = Value::F64(ndarray::arr0(1.5).into_dyn());
    let cases = [
        (all.slice(ndarray::s![..N]).into_dyn(), all.slice(ndarray::s![N..2 * N]).into_dyn()), // aligned, aligned
        (all.slice(ndarray::s![1..N + 1]).into_dyn(), all.slice(ndarray::s![..N]).into_dyn()), // unaligned
        (all.slice(ndarray::s![..2 * N;2]).into_dyn(), all.slice(ndarray::s![..N;-1]).into_dyn()), // strided
    ];
    for (xs, ys) in cases {
        let args = [Arg::Host(&a), Arg::View(HostView::F64(xs.clone())), Arg::View(HostView::F64(ys.clone()))];
        let got = engine.call_on_device(&prog, "axpy", &args).expect("runs");
        let got = engine.download(&got[0]).expect("reads");
        let want = ptl_interp::call_function(&prog, "axpy", &[a.clone(), Value::F64(xs.to_owned()), Value::F64(ys.to_owned())])
            .expect("interprets");
        // Compiled code may fuse `a * x + y` into one rounding (an FMA): equal to an ulp.
        let (Value::F64(g), Value::F64(w)) = (&got, &want[0]) else { panic!("dtype") };
        assert_eq!(g.shape(), w.shape());
        assert!(g.iter().zip(w).all(|(g, w)| (g - w).abs() <= 2.0 * f64::EPSILON * w.abs().max(1.0)), "{g} vs {w}");
    }
}

#[test]
fn large_calls_move_to_local_task_and_their_values_feed_small_calls() {
    let src = "fn scale(x: f64[n]) -> f64[n] { x * 2.0 + 1.0 }
fn total(x: f64[n]) -> f64 { sum(x) }";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut engine = Engine::new(EngineOptions::default()).expect("engine");
    let small = Value::F64(ndarray::Array1::linspace(0.0, 1.0, 1000).into_dyn());
    let big = Value::F64(ndarray::Array1::linspace(-1.0, 1.0, ptl_rt::LARGE_CALLS_FROM).into_dyn());
    engine.call(&prog, "scale", &[small.clone()]).expect("runs");
    assert!(!engine.large_calls_started(), "a small call started the pool");
    // The large call runs on the pool; its result, kept on the device, feeds a small call and
    // a large one.
    let scaled = engine.call_on_device(&prog, "scale", &[Arg::Host(&big)]).expect("runs");
    assert!(engine.large_calls_started());
    let want = ptl_interp::call_function(&prog, "scale", &[big.clone()]).expect("interprets");
    assert_eq!(engine.download(&scaled[0]).expect("reads"), want[0]);
    let sum = engine.call_on_device(&prog, "total", &[Arg::Device(&scaled[0])]).expect("runs");
    let want_sum = ptl_interp::call_function(&prog, "total", &want).expect("interprets");
    let (Value::F64(g), Value::F64(w)) = (engine.download(&sum[0]).expect("reads"), &want_sum[0]) else { panic!("dtype") };
    assert!((g.sum() - w.sum()).abs() <= 1e-9 * w.sum().abs().max(1.0), "{g} vs {w}");
    let small_dev = engine.upload(&small).expect("uploads");
    let again = engine.call_on_device(&prog, "scale", &[Arg::Device(&small_dev)]).expect("runs");
    let want_small = ptl_interp::call_function(&prog, "scale", &[small]).expect("interprets");
    assert_eq!(engine.download(&again[0]).expect("reads"), want_small[0]);
    // An uploaded value (on the calling thread's device) in a large call crosses to the pool.
    let big_dev = engine.upload(&big).expect("uploads");
    let crossed = engine.call_on_device(&prog, "scale", &[Arg::Device(&big_dev)]).expect("runs");
    assert_eq!(engine.download(&crossed[0]).expect("reads"), want[0]);
    // With the move turned off, the pool never starts.
    let mut fixed = Engine::new(EngineOptions { large_calls_on_task: None, ..Default::default() }).expect("engine");
    fixed.call(&prog, "scale", &[big]).expect("runs");
    assert!(!fixed.large_calls_started());
}
