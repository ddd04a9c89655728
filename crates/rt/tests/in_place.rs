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
