//! Shape specialisation: from the second call with the same large shapes, a function runs
//! from a module compiled for those shapes. Its results must equal the interpreter's, and
//! arguments that fail a run-time check must fail the same way as in the dynamic module.

#![allow(clippy::result_large_err)]

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_rt::{Engine, EngineOptions, Specialize};

const SRC: &str = "
fn rows(x: f64[r, c]) -> f64[r] { sum(x, 1) }
fn cols(x: f64[r, c]) -> f64[c] { mean(x, 0) }
fn mm(a: f64[m, k], b: f64[k, n]) -> f64[m, n] { a @ b }
fn mm32(a: f32[m, k], b: f32[k, n]) -> f32[m, n] { a @ b }
fn fused(a: f64[n], x: f64[n], y: f64[n]) -> f64[n] { a * x + exp(y) - 1.0 }
fn unknown(a: f64[?], b: f64[3]) -> f64[3] { a + b }
fn pick(x: f64[n], i: i64) -> f64 { x[i] }
fn norm(x: f64[r, c]) -> f64[r, c] { softmax(x, 1) }
fn count(x: f64[n]) -> i64 { sum(cast(x > 0.5, i64)) }
";

fn f64s(shape: &[usize], seed: u64) -> Value {
    let n = shape.iter().product::<usize>();
    let v = (0..n).map(|i| (((i as u64 * 2654435761 + seed) % 1000) as f64) / 997.0).collect();
    Value::F64(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
}

fn f32s(shape: &[usize], seed: u64) -> Value {
    match f64s(shape, seed) {
        Value::F64(a) => Value::F32(a.mapv(|x| x as f32)),
        _ => unreachable!(),
    }
}

fn close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F64(x), Value::F64(y)) => {
            x.shape() == y.shape() && x.iter().zip(y).all(|(p, q)| (p - q).abs() <= 1e-12 * (1.0 + q.abs()))
        }
        (Value::F32(x), Value::F32(y)) => {
            x.shape() == y.shape() && x.iter().zip(y).all(|(p, q)| (p - q).abs() <= 1e-4 * (1.0 + q.abs()))
        }
        _ => a == b,
    }
}

fn engine() -> Engine {
    Engine::new(EngineOptions { specialize: Specialize::FromElements(1), ..Default::default() }).expect("IREE runtime starts")
}

#[test]
fn specialised_modules_agree_with_the_interpreter() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut engine = engine();
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("rows", vec![f64s(&[37, 53], 1)]),
        ("cols", vec![f64s(&[37, 53], 2)]),
        ("rows", vec![f64s(&[0, 4], 3)]),
        ("mm", vec![f64s(&[17, 33], 4), f64s(&[33, 9], 5)]),
        ("mm32", vec![f32s(&[64, 48], 6), f32s(&[48, 40], 7)]),
        ("fused", vec![f64s(&[1001], 8), f64s(&[1001], 9), f64s(&[1001], 10)]),
        ("unknown", vec![f64s(&[3], 11), f64s(&[3], 12)]),
        ("pick", vec![f64s(&[5], 15), Value::I64(ndarray::arr0(4).into_dyn())]),
        ("norm", vec![f64s(&[7, 130], 16)]),
        ("count", vec![f64s(&[999], 17)]),
    ];
    let mut failures = Vec::new();
    for (name, args) in &cases {
        let want = ptl_interp::call_function(&prog, name, args).expect("the interpreter runs it");
        // The first call runs the dynamic module, the next ones the specialised one.
        for call in 0..3 {
            match engine.call(&prog, name, args) {
                Ok(got) if got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| close(g, w)) => {}
                Ok(got) => failures.push(format!("{name} call {call}: {got:?}, interpreter {want:?}")),
                Err(e) => failures.push(format!("{name} call {call}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(engine.specialized_modules() >= 8, "only {} specialised modules", engine.specialized_modules());
}

#[test]
fn failing_checks_fail_the_same_way_after_specialising() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut engine = engine();
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("unknown", vec![f64s(&[2], 1), f64s(&[3], 2)]),
        ("pick", vec![f64s(&[5], 3), Value::I64(ndarray::arr0(5).into_dyn())]),
        ("pick", vec![f64s(&[5], 3), Value::I64(ndarray::arr0(i64::MIN).into_dyn())]),
    ];
    for (name, args) in &cases {
        let want = ptl_interp::call_function(&prog, name, args).expect_err("the interpreter rejects it");
        for call in 0..3 {
            let got = engine.call(&prog, name, args).expect_err("compiled code rejects it");
            let got = got.diagnostic().unwrap_or_else(|| panic!("{name} call {call}: no diagnostic: {got}"));
            let want = want.diagnostic();
            assert_eq!((&got.message, &got.span), (&want.message, &want.span), "{name} call {call}");
        }
    }
}

#[test]
fn small_calls_are_not_specialised_by_default() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut engine = Engine::new(EngineOptions::default()).expect("IREE runtime starts");
    for _ in 0..3 {
        engine.call(&prog, "rows", &[f64s(&[4, 5], 1)]).expect("runs");
    }
    assert_eq!(engine.specialized_modules(), 0);
}
