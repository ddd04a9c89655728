//! Loops in a module that holds other functions: each loop must start from its own initial
//! state; and a scan's stacks must hold what each step gave. IREE 3.13 gave a loop whose initial state is a broadcast scalar the storage of a
//! result that another function of the same module returns (found by the long run of the
//! random-program test, for `f32`, `i32` and `bool` loops), so the lowering puts a barrier
//! between a loop and its initial values. Compiled results are compared with the
//! interpreter's.

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_rt::{Engine, EngineOptions};

const SRC: &str = "
fn g(x: f32[n, m], s: f32) { outer(broadcast(s, [n]), broadcast(s, [m])) }
fn f(s: f32, x: f32[1, m]) {
    (loop acc = broadcast(s, [1, m]) for step in 0..2 { tanh(acc) * 0.5 + cast(step, f32) }).T
}
fn gi(x: i32[n, m], s: i32) { broadcast(s, [n, 1]) * broadcast(s + 1, [1, m]) }
fn fi(s: i32, x: i32[1, m]) {
    loop acc = broadcast(s, [1, m]) for step in 0..3 { acc * 2 - cast(step, i32) }
}
fn gb(x: bool[n, m], s: bool) { logical_or(broadcast(s, [n, 1]), x) }
fn fb(s: bool, x: bool[m]) { loop acc = broadcast(s, [m]) for step in 0..3 { logical_xor(acc, step == 1) } }
fn hub(x: f32[n, m], s: f32, s2: f32, x2: f32[1, m2]) -> (f32[?, ?], f32[?, ?]) { (g(x, s), f(s2, x2)) }
fn hub_i(x: i32[n, m], s: i32, s2: i32, x2: i32[1, m2]) -> (i32[?, ?], i32[?, ?]) { (gi(x, s), fi(s2, x2)) }
fn hub_b(x: bool[n, m], s: bool, s2: bool, x2: bool[m2]) -> (bool[?, ?], bool[?]) { (gb(x, s), fb(s2, x2)) }
fn scalar_history(s0: f64, k: i64) -> (f64, f64[?], f64[?]) { scan s = s0 for i in 0..k { (s * 1.5 + 0.1, s * s, s) } }
fn history(x: f64[4], k: i64) -> (f64[4], f64[?], f64[?, 4]) {
    scan s = x for i in 0..k { (sin(s) * x + 0.1 * s, sum(s * s) * cast(i + 1, f64), s) }
}
";

fn t<T: Clone>(shape: &[usize], v: &[T]) -> ArrayD<T> {
    ArrayD::from_shape_vec(IxDyn(shape), v.to_vec()).expect("data fits")
}

#[test]
fn each_loop_starts_from_its_own_initial_state() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut engine = Engine::new(EngineOptions::default()).expect("IREE runtime starts");
    let cases: Vec<(&str, Vec<Value>)> = vec![
        (
            "hub",
            vec![
                Value::F32(t(&[2, 3], &[1.0; 6])),
                Value::F32(t(&[], &[2.0])),
                Value::F32(t(&[], &[-1.759])),
                Value::F32(t(&[1, 3], &[1.0, 2.0, 3.0])),
            ],
        ),
        (
            "hub_i",
            vec![
                Value::I32(t(&[2, 3], &[1; 6])),
                Value::I32(t(&[], &[5])),
                Value::I32(t(&[], &[-4])),
                Value::I32(t(&[1, 3], &[1, 2, 3])),
            ],
        ),
        // A scan stacking the state each step starts from, the trip count an argument: IREE
        // gave rows of the final state and of the other stack unless each row is written
        // from a value of its own.
        ("history", vec![Value::F64(t(&[4], &[0.3, -0.7, 1.1, 0.2])), Value::I64(t(&[], &[3]))]),
        ("scalar_history", vec![Value::F64(t(&[], &[0.5])), Value::I64(t(&[], &[4]))]),
        (
            "hub_b",
            vec![
                Value::Bool(t(&[2, 3], &[true, false, true, false, false, true])),
                Value::Bool(t(&[], &[true])),
                Value::Bool(t(&[], &[false])),
                Value::Bool(t(&[3], &[true, false, true])),
            ],
        ),
    ];
    for (name, args) in cases {
        let want = ptl_interp::call_function(&prog, name, &args).expect("the interpreter runs it");
        let got = engine.call(&prog, name, &args).expect("compiled run");
        assert_eq!(got.len(), want.len(), "{name}");
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let same = match (g, w) {
                (Value::F32(a), Value::F32(b)) => {
                    a.shape() == b.shape() && a.iter().zip(b).all(|(p, q)| (p - q).abs() <= 1e-6 * (1.0 + q.abs()))
                }
                (Value::F64(a), Value::F64(b)) => {
                    a.shape() == b.shape() && a.iter().zip(b).all(|(p, q)| (p - q).abs() <= 1e-12 * (1.0 + q.abs()))
                }
                _ => g == w,
            };
            assert!(same, "{name}, result {k}: compiled {g:?}, interpreter {w:?}");
        }
    }
}

/// On the worker pool (local-task), loops and scans of 1 to 2,000 steps give the
/// interpreter's answers. Without the wait at each step's interrupt check, IREE 3.13 failed
/// them there ("transient buffer has not been committed; ensure the alloca signal semaphores
/// are satisfied before accessing it" for scans of 10 and 1,000 steps and a loop of 200,000
/// over a vector, and a crash for a scan of 200,000).
#[test]
fn loops_and_scans_run_on_the_worker_pool() {
    let src = "
fn spin(x: f64[n], k: i64) -> f64[n] { loop s = x for i in 0..k { s * 0.5 + 1.0 } }
fn stacked(s0: f64, k: i64) -> f64 {
    let (last, all) = scan s = s0 for i in 0..k { (s * 0.5 + 1.0, s) };
    sum(all) + last
}
";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut engine = Engine::new(EngineOptions { device: ptl_rt::Device::LocalTask, ..Default::default() }).expect("IREE runtime starts");
    for k in [1i64, 10, 1000, 2000] {
        let k_v = Value::I64(ArrayD::from_elem(IxDyn(&[]), k));
        for (name, first) in [("spin", Value::F64(t(&[3], &[1.0, 2.0, 3.0]))), ("stacked", Value::F64(ArrayD::from_elem(IxDyn(&[]), 1.0)))] {
            let args = [first, k_v.clone()];
            let want = ptl_interp::call_function(&prog, name, &args).expect("interprets");
            let got = engine.call(&prog, name, &args).unwrap_or_else(|e| panic!("{name} with {k} steps: {e}"));
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(crate::common::devices::compare(g, w), None, "{name} with {k} steps");
            }
        }
    }
}
