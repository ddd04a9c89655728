//! The compiled path on typed programs built by hand, independent of the parser and checker.

use ndarray::{ArrayD, IxDyn};
use ptl_lang::ops::Op;
use ptl_lang::typed::{BinaryOp, TBlock, TExpr, TExprKind, TFn, TParam, TProgram};
use ptl_lang::{DType, Dim, TensorType, Value};
use ptl_rt::{Device, Engine, EngineOptions, RtError};

fn vec_ty(dt: DType) -> TensorType {
    TensorType::new(dt, vec![Dim::Symbol("n".into())])
}

fn var(name: &str, ty: TensorType) -> TExpr {
    TExpr::new(TExprKind::Var(name.into()), ty, 0..0)
}

/// `a op b`, with the explicit broadcast the checker would insert for an operand of other dims.
fn bin(op: BinaryOp, a: TExpr, b: TExpr, ty: TensorType) -> TExpr {
    let to = |x: TExpr| {
        if x.ty.dims == ty.dims {
            return x;
        }
        let t = TensorType::new(x.ty.dtype, ty.dims.clone());
        TExpr::op(Op::Broadcast, vec![x], t, 0..0)
    };
    TExpr::op(Op::Binary(op), vec![to(a), to(b)], ty.clone(), 0..0)
}

/// fn name(x: T[n], y: T[n]) -> T[n] { body }
fn binary_fn(name: &str, dt: DType, body: TExpr) -> TProgram {
    let params = ["x", "y"].map(|p| TParam { name: p.into(), ty: vec_ty(dt), span: 0..0 }).to_vec();
    let f = TFn { name: name.into(), params, body: TBlock { lets: vec![], results: vec![body] }, results: vec![vec_ty(dt)], span: 0..0 };
    TProgram { fns: vec![f], top: vec![] }
}

/// x + y * 2.0
fn axpy() -> TProgram {
    let t = vec_ty(DType::F64);
    let two = TExpr::new(TExprKind::Literal(Value::F64(ArrayD::from_elem(IxDyn(&[]), 2.0))), TensorType::scalar(DType::F64), 0..0);
    let body = bin(BinaryOp::Add, var("x", t.clone()), bin(BinaryOp::Mul, var("y", t.clone()), two, t.clone()), t);
    binary_fn("axpy", DType::F64, body)
}

fn f64s(v: &[f64]) -> Value {
    Value::F64(ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap())
}

fn f32s(v: &[f32]) -> Value {
    Value::F32(ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap())
}

fn engine(flush: bool) -> Engine {
    Engine::new(EngineOptions { flush_denormals: flush, ..Default::default() }).unwrap()
}

#[test]
fn one_compiled_function_serves_lengths_3_and_5() {
    let prog = axpy();
    let mut e = engine(false);
    let out = e.call(&prog, "axpy", &[f64s(&[1.0, 2.0, 3.0]), f64s(&[4.0, 5.0, 6.0])]).unwrap();
    assert_eq!(out, vec![f64s(&[9.0, 12.0, 15.0])]);
    let (x, y) = ([0.5, -1.0, 1e300, 7.0, 0.0], [0.25, 3.0, 1e300, -3.5, -0.0]);
    let out = e.call(&prog, "axpy", &[f64s(&x), f64s(&y)]).unwrap();
    let expected: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a + b * 2.0).collect();
    assert_eq!(out, vec![f64s(&expected)]);
    // Both calls used the same module: the second was a memory hit.
    assert_eq!(e.timings().outcome, Some(ptl_rt::CacheOutcome::Memory));
}

#[test]
fn mismatched_symbolic_dims_are_refused_before_iree() {
    let prog = axpy();
    let mut e = engine(false);
    let err = e.call(&prog, "axpy", &[f64s(&[1.0, 2.0, 3.0]), f64s(&[4.0, 5.0])]).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, RtError::Argument { .. }), "{msg}");
    assert!(msg.contains("argument `y`") && msg.contains("f64[2]") && msg.contains("f64[n]"), "{msg}");
    assert!(msg.contains("`x` fixed `n` = 3"), "{msg}");
    let err = e.call(&prog, "axpy", &[f32s(&[1.0]), f64s(&[4.0])]).unwrap_err();
    assert!(err.to_string().contains("dtype f32 where f64 is expected"), "{err}");
}

#[test]
fn subnormals_survive_by_default_and_flush_on_request() {
    let t = vec_ty(DType::F32);
    let prog = binary_fn("mul", DType::F32, bin(BinaryOp::Mul, var("x", t.clone()), var("y", t.clone()), t));
    let x = f32s(&[1.1754944e-38, 1e-45, 3.0]);
    let y = f32s(&[0.5, 1.0, 2.0]);
    let out = engine(false).call(&prog, "mul", &[x.clone(), y.clone()]).unwrap();
    // NumPy: np.float32(1.1754944e-38) * np.float32(0.5) == 5.877472e-39, and 1e-45 * 1 == 1e-45.
    assert_eq!(out, vec![f32s(&[5.877472e-39, 1e-45, 6.0])]);
    let out = engine(true).call(&prog, "mul", &[x, y]).unwrap();
    assert_eq!(out, vec![f32s(&[0.0, 0.0, 6.0])]);
    ptl_rt::fpu::set_flush_denormals(false);
}

#[test]
fn f64_subnormals_survive_on_local_task() {
    let t = vec_ty(DType::F64);
    let prog = binary_fn("mul", DType::F64, bin(BinaryOp::Mul, var("x", t.clone()), var("y", t.clone()), t));
    let mut e = Engine::new(EngineOptions { device: Device::LocalTask, ..Default::default() }).unwrap();
    let out = e.call(&prog, "mul", &[f64s(&[5e-324, 2.2250738585072014e-308]), f64s(&[1.0, 0.5])]).unwrap();
    assert_eq!(out, vec![f64s(&[5e-324, 1.1125369292536007e-308])]);
}

#[test]
fn a_changed_program_is_never_served_the_old_module() {
    let mut e = engine(false);
    let first = axpy();
    let mut second = axpy();
    // Same function name and signature, different body: x - y * 2.0.
    if let TExprKind::Op(op, _) = &mut second.fns[0].body.results[0].kind {
        *op = Op::Binary(BinaryOp::Sub);
    }
    let args = [f64s(&[1.0, 2.0]), f64s(&[1.0, 1.0])];
    assert_eq!(e.call(&first, "axpy", &args).unwrap(), vec![f64s(&[3.0, 4.0])]);
    assert_eq!(e.call(&second, "axpy", &args).unwrap(), vec![f64s(&[-1.0, 0.0])]);
    assert_eq!(e.call(&first, "axpy", &args).unwrap(), vec![f64s(&[3.0, 4.0])]);
}
