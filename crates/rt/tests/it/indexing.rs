//! Hostile indices (`i64::MAX`, `i64::MIN`, `-len - 1`, `len`) through every indexing op,
//! compiled and interpreted: integer indices fail with the same report in both, slice and
//! `set_slice` bounds clamp to the same values. Compiled code must never read out of
//! bounds, so each case also runs on an empty axis.

#![allow(clippy::result_large_err)]

use ndarray::{ArrayD, IxDyn};
use ptl_interp::InterpError;
use ptl_lang::Value;
use ptl_rt::{Engine, EngineOptions, RtError};

const SRC: &str = "
fn at(x: f64[n], i: i64) { x[i] }
fn at_col(m: f64[r, c], i: i64) { m[:, i] }
fn pick(x: f64[n], idx: i64[k]) { x[idx] }
fn cols(m: f64[r, c], idx: i64[k]) { take(m, idx, 1) }
fn add_at(x: f64[n], idx: i64[k]) { scatter_add(x, idx, 1.0) }
fn set_at(x: f64[n], idx: i64[k]) { scatter_set(x, idx, 1.0) }
fn window(x: f64[n], a: i64, b: i64, s: i64) { x[a:b:s] }
fn put(x: f64[n], a: i64, b: i64) { set_slice(x, 9.0, a, b) }
fn select(x: f64[?], m: bool[?]) { x[m] }
fn select_rows(x: f64[?, 2], m: bool[?]) { x[m] }
fn positions(a: f64[?]) { flatnonzero(a) }
";

/// An engine that caches its modules in `$PTL_CACHE_DIR` when that is set, so that a run
/// under a memory checker can load modules compiled by an earlier run instead of compiling,
/// and compiles for `$PTL_MEMCHECK_CPU` when that is set (valgrind decodes no AVX-512, so
/// `tests/robustness/memcheck.sh` asks for `x86-64-v3`).
fn engine() -> Engine {
    let cache_dir = std::env::var_os("PTL_CACHE_DIR").map(std::path::PathBuf::from);
    let mut compile = ptl_lower::CompileOptions::default();
    if let Ok(cpu) = std::env::var("PTL_MEMCHECK_CPU") {
        compile.target_cpu = cpu;
    }
    Engine::new(EngineOptions { cache_dir, compile, ..Default::default() }).expect("IREE runtime starts")
}

fn f64s(shape: &[usize]) -> Value {
    let n = shape.iter().product::<usize>();
    Value::F64(ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|i| i as f64 + 0.5).collect()).unwrap())
}

fn int(v: i64) -> Value {
    Value::I64(ndarray::arr0(v).into_dyn())
}

fn ints(v: &[i64]) -> Value {
    Value::I64(ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap())
}

fn same_failure(interp: &InterpError, compiled: &RtError) -> Option<String> {
    let want = interp.diagnostic();
    match compiled.diagnostic() {
        Some(got) if (&got.message, &got.span, got.kind) == (&want.message, &want.span, want.kind) => None,
        Some(got) => Some(format!("interpreter: {} at {:?}; compiled: {} at {:?}", want.message, want.span, got.message, got.span)),
        None => Some(format!("interpreter: {}; compiled: {compiled}", want.message)),
    }
}

fn hostile(len: usize) -> [i64; 4] {
    [i64::MAX, i64::MIN, -(len as i64) - 1, len as i64]
}

#[test]
fn hostile_indices_fail_the_same_way() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut engine = engine();
    let mut failures = Vec::new();
    for len in [0usize, 1, 3] {
        for i in hostile(len) {
            let cases: Vec<(&str, Vec<Value>)> = vec![
                ("at", vec![f64s(&[len]), int(i)]),
                ("at_col", vec![f64s(&[2, len]), int(i)]),
                ("pick", vec![f64s(&[len]), ints(&[0.min(len as i64 - 1).max(0), i])]),
                ("cols", vec![f64s(&[2, len]), ints(&[i])]),
                ("add_at", vec![f64s(&[len]), ints(&[i])]),
                ("set_at", vec![f64s(&[len]), ints(&[i])]),
            ];
            for (name, args) in cases {
                let want = ptl_interp::call_function(&prog, name, &args);
                let got = engine.call(&prog, name, &args);
                match (want, got) {
                    (Err(w), Err(g)) => {
                        if !matches!(w, InterpError::Check { .. }) {
                            failures.push(format!("{name} len {len} index {i}: interpreter: {w}"));
                        }
                        failures.extend(same_failure(&w, &g).map(|why| format!("{name} len {len} index {i}: {why}")));
                    }
                    (w, g) => failures.push(format!("{name} len {len} index {i}: interpreter {w:?}, compiled {g:?}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn hostile_slice_bounds_clamp_the_same_way() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut engine = engine();
    let mut failures = Vec::new();
    for len in [0usize, 1, 3] {
        let mut bounds: Vec<i64> = hostile(len).to_vec();
        bounds.extend([0, -1, 1]);
        for &a in &bounds {
            for &b in &bounds {
                let mut cases: Vec<(&str, Vec<Value>)> = vec![("put", vec![f64s(&[len]), int(a), int(b)])];
                for s in [1, -1, 2, -2, i64::MAX, i64::MIN] {
                    cases.push(("window", vec![f64s(&[len]), int(a), int(b), int(s)]));
                }
                for (name, args) in cases {
                    let want = ptl_interp::call_function(&prog, name, &args);
                    let got = engine.call(&prog, name, &args);
                    match (want, got) {
                        (Ok(w), Ok(g)) if w == g => {}
                        (w, g) => failures.push(format!("{name} {args:?}: interpreter {w:?}, compiled {g:?}")),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

fn bools(v: &[bool]) -> Value {
    Value::Bool(ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap())
}

/// Masks shorter, as long as and longer than the array (around the 1024-element blocks the
/// compiled search counts in), all true, none true and alternating: the same selection, or
/// the same failure, from both paths.
#[test]
fn boolean_masks_of_every_size_select_the_same_way() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut engine = engine();
    let mut failures = Vec::new();
    for len in [0usize, 1, 3, 1024, 1025] {
        for mlen in [len.saturating_sub(1), len, len + 1] {
            let patterns: [fn(usize) -> bool; 3] = [|_| true, |_| false, |i| i % 3 != 1];
            for (p, pattern) in patterns.iter().enumerate() {
                let mask: Vec<bool> = (0..mlen).map(pattern).collect();
                let cases: Vec<(&str, Vec<Value>)> = vec![
                    ("select", vec![f64s(&[len]), bools(&mask)]),
                    ("select_rows", vec![f64s(&[len, 2]), bools(&mask)]),
                ];
                for (name, args) in cases {
                    let want = ptl_interp::call_function(&prog, name, &args);
                    let got = engine.call(&prog, name, &args);
                    let case = format!("{name} len {len} mask {mlen} pattern {p}");
                    match (want, got) {
                        (Ok(w), Ok(g)) if w == g => {}
                        (Err(w), Err(g)) => failures.extend(same_failure(&w, &g).map(|why| format!("{case}: {why}"))),
                        (w, g) => failures.push(format!("{case}: interpreter {w:?}, compiled {g:?}")),
                    }
                }
            }
        }
        let a: Vec<f64> = (0..len).map(|i| [0.0, -0.0, f64::NAN, 2.5][i % 4]).collect();
        let args = vec![Value::F64(ArrayD::from_shape_vec(IxDyn(&[len]), a).unwrap())];
        match (ptl_interp::call_function(&prog, "positions", &args), engine.call(&prog, "positions", &args)) {
            (Ok(w), Ok(g)) if w == g => {}
            (w, g) => failures.push(format!("positions len {len}: interpreter {w:?}, compiled {g:?}")),
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn scatter_with_arguments() {
    let src = "fn f(t: f64[n], i: i64[k], v: f64[k]) { scatter_add(t, i, v) }\n\
               fn g(t: f64[n], i: i64[k], v: f64[k]) { scatter_set(t, i, v) }\n";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut engine = engine();
    let args = vec![f64s(&[3]), ints(&[0, 1, 0, -1]), f64s(&[4])];
    for name in ["f", "g"] {
        let want = ptl_interp::call_function(&prog, name, &args).expect("interpreter");
        let got = engine.call(&prog, name, &args).map_err(|e| e.to_string());
        assert_eq!(got, Ok(want), "{name}");
    }
}

#[test]
fn a_scatter_between_reductions_compiles() {
    // Found by the random program generator: a scatter whose result is transposed and reduced.
    let src = "fn f(k0: f64[k, m]) {\n\
               let a1 = transpose(scatter_set(broadcast((1 : i32), [2, k, m]), [0], broadcast((-4 : i32), [1, k, m])), [1, 2, 0]);\n\
               (broadcast((-2 : i32), [2, k])) @ (max(a1, 1))\n}\n";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut engine = engine();
    let args = vec![f64s(&[3, 2])];
    let want = ptl_interp::call_function(&prog, "f", &args).expect("interpreter");
    let got = engine.call(&prog, "f", &args).map_err(|e| e.to_string());
    assert_eq!(got, Ok(want));
}

#[test]
fn a_slice_of_a_computed_tensor_compiles() {
    // Found by the random program generator: a reversed broadcast, compared and reduced.
    let src = "fn f(i: i64[1, m], v: f32[k, 1, ?]) {\n\
               sum(((broadcast(false, [1, k, m]))[::-1]) == (broadcast(true, [1, k, m])), [1, 2])\n}\n";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut engine = engine();
    for (m, k) in [(0, 2), (3, 2)] {
        let args = vec![Value::I64(ArrayD::zeros(IxDyn(&[1, m]))), Value::F32(ArrayD::zeros(IxDyn(&[k, 1, 2])))];
        let want = ptl_interp::call_function(&prog, "f", &args).expect("interpreter");
        let got = engine.call(&prog, "f", &args).map_err(|e| e.to_string());
        assert_eq!(got, Ok(want));
    }
}

/// Values whose own dim meets a `?` of the target (`scatter_add(t, idx, v)` with `t: [3, ?]`,
/// `v: [1, m]`; `set_slice` likewise): the sizes must agree when the program runs. Both paths
/// fail with the same report where they differ, and compute the same result where they agree.
#[test]
fn values_meeting_an_unknown_dim_of_the_target_are_checked() {
    let src = "
fn add_rows(t: f64[3, ?], v: f64[1, m]) -> f64[3, ?] { scatter_add(t, [0], v) }
fn put_row(t: f64[3, ?], v: f64[m]) -> f64[3, ?] { set_slice(t, v, 1, 2) }
";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut engine = engine();
    for (name, value) in [("add_rows", f64s(&[1, 2])), ("put_row", f64s(&[2]))] {
        for cols in [2usize, 4, 0] {
            let args = vec![f64s(&[3, cols]), value.clone()];
            let want = ptl_interp::call_function(&prog, name, &args);
            let got = engine.call(&prog, name, &args);
            match (want, got) {
                (Ok(w), Ok(g)) if cols == 2 => assert_eq!(w, g, "{name} with {cols} columns"),
                (Err(w), Err(g)) if cols != 2 => {
                    assert!(matches!(w, InterpError::Check { .. }), "{name} with {cols} columns: interpreter: {w}");
                    assert_eq!(same_failure(&w, &g), None, "{name} with {cols} columns");
                }
                (w, g) => panic!("{name} with {cols} columns: interpreter {w:?}, compiled {g:?}"),
            }
        }
    }
}
