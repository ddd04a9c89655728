//! Host calls: large f64 matrix products, `cholesky`, `solve_triangular` and `solve` run in
//! the runtime's host kernels (`ptl_host`), called from compiled code. Their results must equal the interpreter's, on both sides of
//! the size threshold, with static and run-time sizes, and inside larger programs.

#![allow(clippy::result_large_err)]

use std::path::Path;

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_lower::{CompileOptions, Entry};
use ptl_rt::{Engine, EngineOptions, Specialize};
use ptl_testkit::fixture::{Expected, load_all};

use crate::common::devices::compare;

const SRC: &str = "
fn mm(a: f64[m, k], b: f64[k, n]) -> f64[m, n] { a @ b }
fn fixed(a: f64[40, 50], b: f64[50, 60]) -> f64[40, 60] { a @ b }
fn small(a: f64[3, 4], b: f64[4, 5]) -> f64[3, 5] { a @ b }
fn around(a: f64[m, k], b: f64[n, k], c: f64[m, n]) -> f64[m, n] { exp(a * 0.1) @ b.T + c * 2.0 }
fn chain(a: f64[m, m]) -> f64 { sum((a @ a) @ a) }
fn pick(a: f64[m, k], b: f64[k, n], i: i64) -> f64[n] { (a @ b)[i] }
fn loose(a: f64[m, ?], b: f64[?, n]) -> f64[m, n] { a @ b }
fn iterate(a: f64[n, n], steps: i64) -> f64[n, n] {
    loop p = eye(n) for i in 0..steps { mm(p, a) / sum(abs(a)) }
}
fn chol(a: f64[n, n]) -> f64[n, n] { cholesky(a) }
fn chol32(a: f32[n, n]) -> f32[n, n] { cholesky(a) }
fn spd_solve(a: f64[n, n], b: f64[n, k]) -> f64[n, k] {
    let l = cholesky(a @ a.T + eye(n));
    solve_triangular(l.T, solve_triangular(l, b, true), false)
}
fn gen_solve(a: f64[n, n], b: f64[n]) -> f64[n] { solve(a, b) }
fn gen_solve32(a: f32[n, n], b: f32[n, k]) -> f32[n, k] { solve(a, b) }
fn upper(a: f64[n, n], b: f64[n]) -> f64[n] { solve_triangular(a, b) }
fn half_logdet(m: f64[n, n]) -> f64 { sum(log(diag(cholesky(m)))) }
fn grad_logdet(a: f64[n, n]) -> f64[n, n] { grad(half_logdet, m)(a) }
fn from_constant(steps: i64) -> f64[2, 2] {
    loop p = [[1.0, 2.0], [3.0, 4.0]] for i in 0..steps { mm(p, p) / 10.0 }
}
";

fn f64s(shape: &[usize], seed: u64) -> Value {
    let n = shape.iter().product::<usize>();
    let v = (0..n).map(|i| (((i as u64 * 2654435761 + seed) % 1000) as f64) / 997.0 - 0.5).collect();
    Value::F64(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
}

fn engine(from: Option<u64>) -> Engine {
    let compile = CompileOptions { host_matmul_from: from, ..Default::default() };
    Engine::new(EngineOptions { compile, specialize: Specialize::Off, ..Default::default() }).expect("IREE runtime starts")
}

fn agree(engine: &mut Engine, prog: &ptl_lang::typed::TProgram, name: &str, args: Vec<Value>) {
    let want = ptl_interp::call_function(prog, name, &args).unwrap_or_else(|e| panic!("{name}: interpreter: {e:?}"));
    let got = engine.call(prog, name, &args).unwrap_or_else(|e| panic!("{name}: compiled: {e}"));
    assert_eq!(got.len(), want.len(), "{name}");
    for (g, w) in got.iter().zip(&want) {
        // f32 factorisations of different algorithms agree to rounding relative to the
        // matrix's scale, not element by element (a small element comes from cancellation).
        if let (Value::F32(g), Value::F32(w)) = (g, w) {
            let scale = w.iter().fold(1.0f32, |m, x| m.max(x.abs()));
            let bad = g.iter().zip(w).position(|(a, b)| !((a - b).abs() <= 1e-4 * scale || (a.is_nan() && b.is_nan())));
            assert!(g.shape() == w.shape() && bad.is_none(), "{name}: element {bad:?} of {g} vs {w}");
            continue;
        }
        if let Some(why) = compare(g, w) {
            panic!("{name} with shapes {:?}: {why}", args.iter().map(|a| a.shape().to_vec()).collect::<Vec<_>>());
        }
    }
}

#[test]
fn large_products_call_the_host_and_agree_with_the_interpreter() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut e = engine(Some(ptl_lower::HOST_MATMUL_FROM));
    let mlir = e.mlir(&prog, &Entry::Function("mm".into())).unwrap();
    assert!(mlir.contains("ptl_host.matmul_f64"), "run-time sizes call the host above the threshold:\n{mlir}");
    assert!(mlir.contains("scf.if"), "and IREE's code below it:\n{mlir}");
    let fixed = e.mlir(&prog, &Entry::Function("fixed".into())).unwrap();
    assert!(fixed.contains("call @ptl_host.matmul_f64") && !fixed.contains("scf.if"), "static sizes above the threshold:\n{fixed}");
    let small = e.mlir(&prog, &Entry::Function("small".into())).unwrap();
    assert!(!small.contains("ptl_host"), "static sizes below the threshold:\n{small}");
    // Sizes on both sides of the threshold (32^3), empty ones, and one dim of one.
    for (m, k, n) in [(40, 50, 60), (3, 4, 5), (32, 32, 32), (31, 32, 32), (1, 2000, 30), (0, 50, 60), (50, 0, 60), (64, 64, 0), (200, 3, 200)] {
        agree(&mut e, &prog, "mm", vec![f64s(&[m, k], 1), f64s(&[k, n], 2)]);
    }
    agree(&mut e, &prog, "fixed", vec![f64s(&[40, 50], 3), f64s(&[50, 60], 4)]);
    agree(&mut e, &prog, "small", vec![f64s(&[3, 4], 5), f64s(&[4, 5], 6)]);
    agree(&mut e, &prog, "around", vec![f64s(&[70, 45], 7), f64s(&[80, 45], 8), f64s(&[70, 80], 9)]);
    agree(&mut e, &prog, "chain", vec![f64s(&[64, 64], 10)]);
    agree(&mut e, &prog, "iterate", vec![f64s(&[40, 40], 13), Value::I64(ArrayD::from_elem(IxDyn(&[]), 3))]);
    agree(&mut e, &prog, "pick", vec![f64s(&[64, 64], 11), f64s(&[64, 33], 12), Value::I64(ArrayD::from_elem(IxDyn(&[]), 63))]);
}

fn spd(n: usize, seed: u64) -> Value {
    let Value::F64(m) = f64s(&[n, n], seed) else { unreachable!() };
    Value::F64((m.t().into_dimensionality::<ndarray::Ix2>().unwrap().dot(&m.clone().into_dimensionality::<ndarray::Ix2>().unwrap()) + ndarray::Array2::<f64>::eye(n) * n as f64).into_dyn())
}

fn to_f32(v: Value) -> Value {
    match v {
        Value::F64(a) => Value::F32(a.mapv(|x| x as f32)),
        v => v,
    }
}

#[test]
fn factorisations_and_solves_call_the_host_and_agree_with_the_interpreter() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut e = engine(Some(ptl_lower::HOST_MATMUL_FROM));
    for name in ["chol", "chol32", "spd_solve", "gen_solve", "upper", "grad_logdet"] {
        let mlir = e.mlir(&prog, &Entry::Function(name.into())).unwrap();
        assert!(mlir.contains("call @ptl_host."), "{name} calls the host:\n{mlir}");
    }
    for n in [0, 1, 3, 40] {
        agree(&mut e, &prog, "chol", vec![spd(n, 1)]);
        agree(&mut e, &prog, "chol32", vec![to_f32(spd(n, 2))]);
        agree(&mut e, &prog, "spd_solve", vec![f64s(&[n, n], 3), f64s(&[n, 4], 4)]);
        agree(&mut e, &prog, "gen_solve", vec![spd(n, 5), f64s(&[n], 6)]);
        agree(&mut e, &prog, "gen_solve32", vec![to_f32(spd(n, 7)), to_f32(f64s(&[n, 2], 8))]);
        agree(&mut e, &prog, "upper", vec![spd(n, 9), f64s(&[n], 10)]);
        agree(&mut e, &prog, "grad_logdet", vec![spd(n, 11)]);
    }
    // Not positive definite: NaN everywhere, as the interpreter gives.
    let not_pd = Value::F64(ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1.0, 2.0, 2.0, 1.0]).unwrap());
    agree(&mut e, &prog, "chol", vec![not_pd]);
    let nan = Value::F64(ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![f64::NAN, 0.0, 0.0, 1.0]).unwrap());
    agree(&mut e, &prog, "chol", vec![nan]);
    // A zero on the diagonal divides by zero.
    let singular = Value::F64(ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1.0, 2.0, 0.0, 0.0]).unwrap());
    agree(&mut e, &prog, "upper", vec![singular, f64s(&[2], 12)]);
}

/// Products in loop bodies keep IREE's code (see `ptl_lower`'s host calls); a function
/// with a host call may still be called from a loop.
#[test]
fn functions_with_host_calls_run_inside_loops() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut e = engine(Some(0));
    for steps in [0, 1, 3] {
        agree(&mut e, &prog, "from_constant", vec![Value::I64(ArrayD::from_elem(IxDyn(&[]), steps))]);
        agree(&mut e, &prog, "iterate", vec![f64s(&[5, 5], 14), Value::I64(ArrayD::from_elem(IxDyn(&[]), steps))]);
    }
}

#[test]
fn mismatched_sizes_fail_before_the_host_is_called() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut e = engine(Some(0));
    let args = vec![f64s(&[40, 50], 1), f64s(&[51, 60], 2)];
    let want = ptl_interp::call_function(&prog, "loose", &args).expect_err("the interpreter refuses");
    let got = e.call(&prog, "loose", &args).expect_err("compiled code refuses");
    let (want, got) = (want.diagnostic(), got.diagnostic().expect("a diagnostic"));
    assert_eq!((&got.message, &got.span), (&want.message, &want.span));
}

#[test]
fn non_finite_values_propagate_through_the_host() {
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let mut e = engine(Some(0));
    let mut a = f64s(&[40, 40], 1);
    let Value::F64(ref mut arr) = a else { unreachable!() };
    arr[[0, 0]] = f64::NAN;
    arr[[1, 3]] = f64::INFINITY;
    arr[[2, 5]] = 1e-310;
    agree(&mut e, &prog, "mm", vec![a, f64s(&[40, 40], 2)]);
}

/// Every fixture with a matrix product or a factorisation, with every f64 product on the host
/// (a threshold of zero), against the interpreter.
#[test]
fn fixtures_agree_when_every_product_and_factorisation_calls_the_host() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut e = engine(Some(0));
    let (mut compared, mut called, mut failures) = (0, 0, Vec::new());
    let host_ops = ['@'].iter().map(|c| c.to_string()).chain(["cholesky", "solve", "inv("].map(String::from)).collect::<Vec<_>>();
    for f in load_all(&dir).iter().filter(|f| host_ops.iter().any(|o| f.source.contains(o.as_str()))) {
        let name = f.path.display().to_string();
        let expect_failure = match &f.expected {
            Expected::Output(_) => false,
            Expected::Error(m) if m.starts_with("runtime error") => true,
            _ => continue,
        };
        let prog = ptl_lang::frontend(&f.source).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        if e.mlir(&prog, &Entry::Script).is_ok_and(|m| m.contains("call @ptl_host.")) {
            called += 1;
        }
        match (ptl_interp::run_program(&prog), e.run_script(&prog)) {
            (Ok(want), Ok(got)) if !expect_failure => {
                compared += 1;
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    if let Some(why) = compare(g, w) {
                        failures.push(format!("{name}: print #{i}: {why}"));
                    }
                }
            }
            (Err(i), Err(c)) if expect_failure => {
                let (want, got) = (i.diagnostic(), c.diagnostic());
                if got.as_ref().map(|g| (&g.message, &g.span)) != Some((&want.message, &want.span)) {
                    failures.push(format!("{name}: the interpreter failed with `{}`, compiled with `{c}`", want.message));
                }
            }
            (want, got) => failures.push(format!("{name}: interpreter {want:?}, compiled {got:?}")),
        }
    }
    eprintln!("{compared} fixtures compared, {called} of them call the host");
    assert!(called >= 5, "expected fixtures whose f64 products go to the host, found {called}");
    assert!(failures.is_empty(), "{} fixtures disagree:\n{}", failures.len(), failures.join("\n"));
}
