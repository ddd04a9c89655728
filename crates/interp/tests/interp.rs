//! Interpreter tests on hand-built typed trees. Expected values were computed once with
//! NumPy 2.2 (the expression is named next to each) and pasted as literals.

// NumPy's printed digits are kept verbatim, even where they equal a named constant.
#![allow(clippy::approx_constant, clippy::excessive_precision, clippy::result_large_err)]

use ndarray::{ArrayD, IxDyn};
use ptl_interp::{InterpError, call_function, run_program};
use ptl_lang::typed::*;
use ptl_lang::{DType, Dim, Span, TensorType, Value};

// ---- helpers -------------------------------------------------------------------------

fn sp() -> Span {
    0..0
}
fn arr<T>(shape: &[usize], v: Vec<T>) -> ArrayD<T> {
    ArrayD::from_shape_vec(IxDyn(shape), v).unwrap()
}
fn f64v(shape: &[usize], v: Vec<f64>) -> Value {
    Value::F64(arr(shape, v))
}
fn f32v(shape: &[usize], v: Vec<f32>) -> Value {
    Value::F32(arr(shape, v))
}
fn i64v(shape: &[usize], v: Vec<i64>) -> Value {
    Value::I64(arr(shape, v))
}
fn i32v(shape: &[usize], v: Vec<i32>) -> Value {
    Value::I32(arr(shape, v))
}
fn boolv(shape: &[usize], v: Vec<bool>) -> Value {
    Value::Bool(arr(shape, v))
}
fn st(dt: DType, dims: &[u64]) -> TensorType {
    TensorType::new(dt, dims.iter().map(|&d| Dim::Static(d)).collect())
}
fn sym(s: &str) -> Dim {
    Dim::Symbol(s.to_string())
}
fn node(kind: TExprKind, ty: TensorType) -> TExpr {
    TExpr::new(kind, ty, sp())
}
fn lit(v: Value) -> TExpr {
    let ty = v.tensor_type();
    node(TExprKind::Literal(v), ty)
}
fn var(name: &str, ty: TensorType) -> TExpr {
    node(TExprKind::Var(name.to_string()), ty)
}
fn un(op: UnaryOp, x: TExpr) -> TExpr {
    let ty = x.ty.clone();
    node(k::Unary(op, x), ty)
}
/// Broadcasts `x` to `dims` explicitly, as the checker does for elementwise operands.
fn to_dims(x: TExpr, dims: &[Dim]) -> TExpr {
    if x.ty.dims == dims {
        return x;
    }
    let ty = TensorType::new(x.ty.dtype, dims.to_vec());
    node(k::Broadcast(x), ty)
}
fn bin(op: BinaryOp, a: TExpr, b: TExpr, ty: TensorType) -> TExpr {
    let (a, b) = (to_dims(a, &ty.dims), to_dims(b, &ty.dims));
    node(k::Binary(op, a, b), ty)
}
fn select(c: TExpr, a: TExpr, b: TExpr, ty: TensorType) -> TExpr {
    let (c, a, b) = (to_dims(c, &ty.dims), to_dims(a, &ty.dims), to_dims(b, &ty.dims));
    node(k::Where(c, a, b), ty)
}
fn bx(e: TExpr) -> TExpr {
    e
}

/// The typed tree's node kinds by the op they hold.
#[allow(non_snake_case)]
mod k {
    use ptl_lang::ops::Op;
    use ptl_lang::typed::*;
    pub fn Unary(op: UnaryOp, x: TExpr) -> TExprKind {
        TExprKind::Op(Op::Unary(op), vec![x])
    }
    pub fn Binary(op: BinaryOp, a: TExpr, b: TExpr) -> TExprKind {
        TExprKind::Op(Op::Binary(op), vec![a, b])
    }
    pub fn Where(c: TExpr, a: TExpr, b: TExpr) -> TExprKind {
        TExprKind::Op(Op::Select, vec![c, a, b])
    }
    pub fn Cast(x: TExpr) -> TExprKind {
        TExprKind::Op(Op::Cast, vec![x])
    }
    pub fn MatMul(a: TExpr, b: TExpr) -> TExprKind {
        TExprKind::Op(Op::MatMul, vec![a, b])
    }
    pub fn Transpose(x: TExpr, perm: Vec<usize>) -> TExprKind {
        TExprKind::Op(Op::Transpose(perm), vec![x])
    }
    pub fn Expand(x: TExpr, axis: usize) -> TExprKind {
        TExprKind::Op(Op::Expand(axis), vec![x])
    }
    pub fn Squeeze(x: TExpr, axis: usize) -> TExprKind {
        TExprKind::Op(Op::Squeeze(axis), vec![x])
    }
    pub fn Broadcast(x: TExpr) -> TExprKind {
        TExprKind::Op(Op::Broadcast, vec![x])
    }
    pub fn Reshape(x: TExpr) -> TExprKind {
        TExprKind::Op(Op::Reshape, vec![x])
    }
    pub fn Reduce(op: ReduceOp, x: TExpr, axes: Vec<usize>) -> TExprKind {
        TExprKind::Op(Op::Reduce(op, axes), vec![x])
    }
    pub fn Softmax(x: TExpr, axis: usize) -> TExprKind {
        TExprKind::Op(Op::Softmax { axis, log: false }, vec![x])
    }
    pub fn LogSoftmax(x: TExpr, axis: usize) -> TExprKind {
        TExprKind::Op(Op::Softmax { axis, log: true }, vec![x])
    }
}
fn param(name: &str, ty: TensorType) -> TParam {
    TParam { name: name.to_string(), ty, span: sp() }
}
fn func(name: &str, params: Vec<TParam>, lets: Vec<TLet>, results: Vec<TExpr>) -> TFn {
    let tys = results.iter().map(|r| r.ty.clone()).collect();
    TFn { name: name.to_string(), params, body: TBlock { lets, results }, results: tys, span: sp() }
}
fn tlet(name: &str, value: TExpr) -> TLet {
    TLet { name: name.to_string(), value, span: sp(), rest: Vec::new() }
}

/// Evaluates one expression as the only top-level `print`.
fn eval(e: TExpr) -> Result<Value, InterpError> {
    let p = TProgram { fns: vec![], top: vec![TStmt::Print(vec![e], sp())] };
    let mut vs = run_program(&p)?;
    assert_eq!(vs.len(), 1);
    Ok(vs.remove(0))
}

#[track_caller]
fn assert_close(got: &Value, expected: &Value) {
    assert_eq!(got.dtype(), expected.dtype(), "dtype");
    assert_eq!(got.shape(), expected.shape(), "shape");
    let pairs: Vec<(f64, f64)> = match (got, expected) {
        (Value::F64(a), Value::F64(b)) => a.iter().zip(b.iter()).map(|(&x, &y)| (x, y)).collect(),
        (Value::F32(a), Value::F32(b)) => a.iter().zip(b.iter()).map(|(&x, &y)| (x as f64, y as f64)).collect(),
        _ => return assert_eq!(got, expected),
    };
    let tol = if got.dtype() == DType::F32 { 2e-7 } else { 5e-16 };
    for (x, y) in pairs {
        let ok = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= tol * y.abs().max(f64::MIN_POSITIVE);
        assert!(ok, "got {got:?}, expected {expected:?}");
    }
}

// ---- elementwise ---------------------------------------------------------------------

#[test]
fn unary_f64() {
    let x = || lit(f64v(&[4], vec![0.5, -1.0, 2.0, 1e-10]));
    let y = || lit(f64v(&[4], vec![0.5, 1.0, 2.0, 1e-10]));
    let cases = [
        // np.exp(x), np.tanh(x), np.abs(x), -x, 1/(1+np.exp(-x)) for x = [0.5, -1, 2, 1e-10]
        (UnaryOp::Exp, x(), vec![1.6487212707001282, 0.36787944117144233, 7.38905609893065, 1.0000000001]),
        (UnaryOp::Tanh, x(), vec![0.46211715726000974, -0.7615941559557649, 0.9640275800758169, 1e-10]),
        (UnaryOp::Abs, x(), vec![0.5, 1.0, 2.0, 1e-10]),
        (UnaryOp::Neg, x(), vec![-0.5, 1.0, -2.0, -1e-10]),
        (UnaryOp::Sigmoid, x(), vec![0.6224593312018546, 0.2689414213699951, 0.8807970779778823, 0.500000000025]),
        // np.log(y), np.log1p(y), np.sqrt(y) for y = [0.5, 1, 2, 1e-10]
        (UnaryOp::Log, y(), vec![-0.6931471805599453, 0.0, 0.6931471805599453, -23.025850929940457]),
        (UnaryOp::Log1p, y(), vec![0.4054651081081644, 0.6931471805599453, 1.0986122886681098, 9.999999999500001e-11]),
        (UnaryOp::Sqrt, y(), vec![0.7071067811865476, 1.0, 1.4142135623730951, 1e-05]),
    ];
    for (op, input, expected) in cases {
        assert_close(&eval(un(op, input)).unwrap(), &f64v(&[4], expected));
    }
}

#[test]
fn unary_f32_is_computed_in_f32() {
    let x = || lit(f32v(&[4], vec![0.5, -1.0, 2.0, 1e-10]));
    // np.exp(x32)
    assert_close(&eval(un(UnaryOp::Exp, x())).unwrap(), &f32v(&[4], vec![1.6487212181091309, 0.3678794205188751, 7.3890557289123535, 1.0]));
    // np.float32(1)/(np.float32(1)+np.exp(-x32))
    assert_close(&eval(un(UnaryOp::Sigmoid, x())).unwrap(), &f32v(&[4], vec![0.622459352016449, 0.26894140243530273, 0.8807970285415649, 0.5]));
    // np.log1p(np.array([0.5, 1e-10], dtype=np.float32)): precise for tiny inputs
    let r = eval(un(UnaryOp::Log1p, lit(f32v(&[2], vec![0.5, 1e-10])))).unwrap();
    assert_close(&r, &f32v(&[2], vec![0.40546512603759766, 1.000000013351432e-10]));
}

#[test]
fn unary_ints_wrap() {
    // -np.array([-2**31, 5], dtype=np.int32) -> [-2147483648, -5]; np.abs likewise wraps
    let x = || lit(i32v(&[2], vec![i32::MIN, 5]));
    assert_eq!(eval(un(UnaryOp::Neg, x())).unwrap(), i32v(&[2], vec![i32::MIN, -5]));
    assert_eq!(eval(un(UnaryOp::Abs, x())).unwrap(), i32v(&[2], vec![i32::MIN, 5]));
    assert_eq!(eval(un(UnaryOp::Neg, lit(i64v(&[], vec![7])))).unwrap(), i64v(&[], vec![-7]));
}

#[test]
fn binary_f64_broadcasts() {
    let a = || lit(f64v(&[2, 1], vec![1.0, 2.0]));
    let b = || lit(f64v(&[3], vec![10.0, 20.0, 30.0]));
    let t = st(DType::F64, &[2, 3]);
    // a + b, a - b, a * b, a / b, np.maximum(a, b), np.minimum(a, b) for a=[[1],[2]], b=[10,20,30]
    let cases = [
        (BinaryOp::Add, vec![11., 21., 31., 12., 22., 32.]),
        (BinaryOp::Sub, vec![-9., -19., -29., -8., -18., -28.]),
        (BinaryOp::Mul, vec![10., 20., 30., 20., 40., 60.]),
        (BinaryOp::Div, vec![0.1, 0.05, 0.03333333333333333, 0.2, 0.1, 0.06666666666666667]),
        (BinaryOp::Maximum, vec![10., 20., 30., 10., 20., 30.]),
        (BinaryOp::Minimum, vec![1., 1., 1., 2., 2., 2.]),
    ];
    for (op, expected) in cases {
        assert_close(&eval(bin(op, a(), b(), t.clone())).unwrap(), &f64v(&[2, 3], expected));
    }
    // a ** np.array([0.5, 2., -1.])
    let e = lit(f64v(&[3], vec![0.5, 2.0, -1.0]));
    let r = eval(bin(BinaryOp::Pow, a(), e, t)).unwrap();
    assert_close(&r, &f64v(&[2, 3], vec![1.0, 1.0, 1.0, 1.4142135623730951, 4.0, 0.5]));
}

#[test]
fn comparisons_all_dtypes() {
    let t = st(DType::Bool, &[3]);
    // np.array([1., nan, 3.]) < 2., == nan etc.: NaN compares false except !=
    let x = || lit(f64v(&[3], vec![1.0, f64::NAN, 3.0]));
    let two = || lit(f64v(&[], vec![2.0]));
    assert_eq!(eval(bin(BinaryOp::Lt, x(), two(), t.clone())).unwrap(), boolv(&[3], vec![true, false, false]));
    assert_eq!(eval(bin(BinaryOp::Ge, x(), two(), t.clone())).unwrap(), boolv(&[3], vec![false, false, true]));
    assert_eq!(eval(bin(BinaryOp::Ne, x(), x(), t.clone())).unwrap(), boolv(&[3], vec![false, true, false]));
    assert_eq!(eval(bin(BinaryOp::Eq, x(), x(), t.clone())).unwrap(), boolv(&[3], vec![true, false, true]));
    let i = || lit(i32v(&[3], vec![1, 2, 3]));
    let k = || lit(i32v(&[], vec![2]));
    assert_eq!(eval(bin(BinaryOp::Le, i(), k(), t.clone())).unwrap(), boolv(&[3], vec![true, true, false]));
    assert_eq!(eval(bin(BinaryOp::Gt, i(), k(), t.clone())).unwrap(), boolv(&[3], vec![false, false, true]));
    let f = lit(f32v(&[3], vec![1.0, 2.0, 3.0]));
    let g = lit(f32v(&[1], vec![2.0]));
    assert_eq!(eval(bin(BinaryOp::Eq, f, g, t.clone())).unwrap(), boolv(&[3], vec![false, true, false]));
    // np.array([False, True, True]) > np.array([False, False, True])
    let p = lit(boolv(&[3], vec![false, true, true]));
    let q = lit(boolv(&[3], vec![false, false, true]));
    assert_eq!(eval(bin(BinaryOp::Gt, p, q, t)).unwrap(), boolv(&[3], vec![false, true, false]));
    let big = lit(i64v(&[2], vec![i64::MAX, -1]));
    let zero = lit(i64v(&[], vec![0]));
    assert_eq!(eval(bin(BinaryOp::Gt, big, zero, st(DType::Bool, &[2]))).unwrap(), boolv(&[2], vec![true, false]));
}

#[test]
fn maximum_minimum_propagate_nan() {
    // np.maximum([nan, 1.], [0., nan]) -> [nan, nan]; np.minimum([nan, 1.], [0., 2.]) -> [nan, 1.]
    let t = st(DType::F32, &[2]);
    let r = eval(bin(BinaryOp::Maximum, lit(f32v(&[2], vec![f32::NAN, 1.0])), lit(f32v(&[2], vec![0.0, f32::NAN])), t.clone())).unwrap();
    assert_close(&r, &f32v(&[2], vec![f32::NAN, f32::NAN]));
    let r = eval(bin(BinaryOp::Minimum, lit(f32v(&[2], vec![f32::NAN, 1.0])), lit(f32v(&[2], vec![0.0, 2.0])), t)).unwrap();
    assert_close(&r, &f32v(&[2], vec![f32::NAN, 1.0]));
}

#[test]
fn integer_arithmetic() {
    let t = st(DType::I64, &[3]);
    // np.array([2, -3, 7]) ** np.array([10, 3, 0]) -> [1024, -27, 1]
    let r = eval(bin(BinaryOp::Pow, lit(i64v(&[3], vec![2, -3, 7])), lit(i64v(&[3], vec![10, 3, 0])), t.clone())).unwrap();
    assert_eq!(r, i64v(&[3], vec![1024, -27, 1]));
    // Negative exponents (an error in NumPy) truncate: 2**-1 -> 0, 1**-3 -> 1, (-1)**-3 -> -1.
    let r = eval(bin(BinaryOp::Pow, lit(i64v(&[3], vec![2, 1, -1])), lit(i64v(&[3], vec![-1, -3, -3])), t.clone())).unwrap();
    assert_eq!(r, i64v(&[3], vec![0, 1, -1]));
    // np.array([2**31 - 1], dtype=np.int32) * 2 wraps to -2
    let r = eval(bin(BinaryOp::Mul, lit(i32v(&[1], vec![i32::MAX])), lit(i32v(&[], vec![2])), st(DType::I32, &[1]))).unwrap();
    assert_eq!(r, i32v(&[1], vec![-2]));
    let r = eval(bin(BinaryOp::Sub, lit(i64v(&[1], vec![i64::MIN])), lit(i64v(&[], vec![1])), st(DType::I64, &[1]))).unwrap();
    assert_eq!(r, i64v(&[1], vec![i64::MAX]));
    let r = eval(bin(BinaryOp::Maximum, lit(i64v(&[3], vec![1, 5, -2])), lit(i64v(&[], vec![0])), t.clone())).unwrap();
    assert_eq!(r, i64v(&[3], vec![1, 5, 0]));
    let r = eval(bin(BinaryOp::Minimum, lit(i64v(&[3], vec![1, 5, -2])), lit(i64v(&[], vec![0])), t)).unwrap();
    assert_eq!(r, i64v(&[3], vec![0, 0, -2]));
}

#[test]
fn where_broadcasts_three_ways() {
    // np.where(np.array([[True], [False]]), np.array([1., 2., 3.]), 0.) -> [[1,2,3],[0,0,0]]
    let c = lit(boolv(&[2, 1], vec![true, false]));
    let a = lit(f64v(&[3], vec![1.0, 2.0, 3.0]));
    let b = lit(f64v(&[], vec![0.0]));
    let r = eval(select(c, a, b, st(DType::F64, &[2, 3]))).unwrap();
    assert_eq!(r, f64v(&[2, 3], vec![1., 2., 3., 0., 0., 0.]));
    let c = lit(boolv(&[2], vec![false, true]));
    let r = eval(select(c, lit(i32v(&[2], vec![1, 2])), lit(i32v(&[2], vec![-1, -2])), st(DType::I32, &[2]))).unwrap();
    assert_eq!(r, i32v(&[2], vec![-1, 2]));
}

#[test]
fn casts_between_every_dtype() {
    let cast = |v: Value, to: DType| {
        let dims: Vec<u64> = v.shape().iter().map(|&d| d as u64).collect();
        eval(node(k::Cast(bx(lit(v))), st(to, &dims))).unwrap()
    };
    // np.array([-2.7, 0.0, 2.5, -0.0]).astype(np.int32) -> [-2, 0, 2, 0]
    assert_eq!(cast(f64v(&[4], vec![-2.7, 0.0, 2.5, -0.0]), DType::I32), i32v(&[4], vec![-2, 0, 2, 0]));
    assert_eq!(cast(f32v(&[2], vec![-2.7, 9.9]), DType::I64), i64v(&[2], vec![-2, 9]));
    // NaN and inf give 0 (undefined in NumPy)
    assert_eq!(cast(f64v(&[2], vec![f64::NAN, f64::INFINITY]), DType::I64), i64v(&[2], vec![0, 0]));
    // np.array([2**31 + 5, -1]).astype(np.int32) -> [-2147483643, -1]
    assert_eq!(cast(i64v(&[2], vec![2_147_483_653, -1]), DType::I32), i32v(&[2], vec![-2147483643, -1]));
    assert_eq!(cast(i32v(&[1], vec![-7]), DType::I64), i64v(&[1], vec![-7]));
    // np.array([True, False]).astype(np.float32) -> [1., 0.]
    assert_eq!(cast(boolv(&[2], vec![true, false]), DType::F32), f32v(&[2], vec![1.0, 0.0]));
    assert_eq!(cast(boolv(&[2], vec![true, false]), DType::I32), i32v(&[2], vec![1, 0]));
    assert_eq!(cast(boolv(&[2], vec![true, false]), DType::F64), f64v(&[2], vec![1.0, 0.0]));
    // np.array([0.0, -0.5, 3.0]).astype(bool) -> [False, True, True]; NaN -> True
    assert_eq!(cast(f64v(&[4], vec![0.0, -0.5, 3.0, f64::NAN]), DType::Bool), boolv(&[4], vec![false, true, true, true]));
    assert_eq!(cast(i64v(&[2], vec![0, -3]), DType::Bool), boolv(&[2], vec![false, true]));
    // np.array([16777217]).astype(np.float32) -> [16777216.]
    assert_eq!(cast(i64v(&[1], vec![16_777_217]), DType::F32), f32v(&[1], vec![16_777_216.0]));
    // np.array([0.1]).astype(np.float32) -> [0.1 as f32]; and back to f64 exactly
    assert_eq!(cast(f64v(&[1], vec![0.1]), DType::F32), f32v(&[1], vec![0.1]));
    assert_eq!(cast(f32v(&[1], vec![0.1]), DType::F64), f64v(&[1], vec![0.10000000149011612]));
    assert_eq!(cast(i32v(&[1], vec![3]), DType::F64), f64v(&[1], vec![3.0]));
}

// ---- matmul --------------------------------------------------------------------------

#[test]
fn matmul_rank_cases() {
    let a = || lit(f64v(&[2, 3], (0..6).map(f64::from).collect()));
    let b = || lit(f64v(&[3, 4], (0..12).map(f64::from).collect()));
    let v = || lit(f64v(&[3], vec![1.0, 2.0, 3.0]));
    let mm = |x: TExpr, y: TExpr, dims: &[u64]| eval(node(k::MatMul(bx(x), bx(y)), st(DType::F64, dims))).unwrap();
    // A = np.arange(6.).reshape(2,3); B = np.arange(12.).reshape(3,4); v = [1,2,3]
    // A @ B
    assert_eq!(mm(a(), b(), &[2, 4]), f64v(&[2, 4], vec![20., 23., 26., 29., 56., 68., 80., 92.]));
    // A @ v
    assert_eq!(mm(a(), v(), &[2]), f64v(&[2], vec![8., 26.]));
    // v @ B
    assert_eq!(mm(v(), b(), &[4]), f64v(&[4], vec![32., 38., 44., 50.]));
    // v @ v
    assert_eq!(mm(v(), v(), &[]), f64v(&[], vec![14.]));
    // np.arange(24.).reshape(2,3,4) @ (np.arange(40.).reshape(2,4,5)/10)
    let c = lit(f64v(&[2, 3, 4], (0..24).map(f64::from).collect()));
    let d = lit(f64v(&[2, 4, 5], (0..40).map(|i| f64::from(i) / 10.0).collect()));
    let expected = vec![
        7.0, 7.6000000000000005, 8.2, 8.8, 9.399999999999999, 19.0, 21.2, 23.4, 25.6, 27.8, 31.0, 34.800000000000004, 38.6, 42.4, 46.2,
        151.0, 156.4, 161.8, 167.2, 172.6, 195.0, 202.0, 209.00000000000003, 215.99999999999997, 223.0, 239.0, 247.60000000000002, 256.2,
        264.8, 273.4,
    ];
    assert_close(&mm(c, d, &[2, 3, 5]), &f64v(&[2, 3, 5], expected));
    // Inner dim 0: np.zeros((2,0)) @ np.zeros((0,3)) -> zeros((2,3))
    assert_eq!(mm(lit(f64v(&[2, 0], vec![])), lit(f64v(&[0, 3], vec![])), &[2, 3]), f64v(&[2, 3], vec![0.0; 6]));
}

#[test]
fn matmul_ints_and_f32() {
    // np.array([[1,2],[3,4]], dtype=np.int32) @ np.array([[5,6],[7,8]], dtype=np.int32)
    let r = eval(node(k::MatMul(bx(lit(i32v(&[2, 2], vec![1, 2, 3, 4]))), bx(lit(i32v(&[2, 2], vec![5, 6, 7, 8])))), st(DType::I32, &[2, 2]))).unwrap();
    assert_eq!(r, i32v(&[2, 2], vec![19, 22, 43, 50]));
    let r = eval(node(k::MatMul(bx(lit(i64v(&[2], vec![3, 4]))), bx(lit(i64v(&[2], vec![5, 6])))), st(DType::I64, &[]))).unwrap();
    assert_eq!(r, i64v(&[], vec![39]));
    let r = eval(node(k::MatMul(bx(lit(f32v(&[1, 2], vec![0.5, 2.0]))), bx(lit(f32v(&[2, 1], vec![4.0, 0.25])))), st(DType::F32, &[1, 1]))).unwrap();
    assert_eq!(r, f32v(&[1, 1], vec![2.5]));
}

// ---- shape ops -----------------------------------------------------------------------

#[test]
fn transpose_expand_squeeze() {
    let x = || lit(i64v(&[2, 3, 4], (0..24).collect()));
    // np.arange(24).reshape(2,3,4).transpose(2,0,1).ravel()
    let r = eval(node(k::Transpose(bx(x()), vec![2, 0, 1]), st(DType::I64, &[4, 2, 3]))).unwrap();
    let expected = vec![0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23];
    assert_eq!(r, i64v(&[4, 2, 3], expected));
    let r = eval(node(k::Expand(bx(x()), 1), st(DType::I64, &[2, 1, 3, 4]))).unwrap();
    assert_eq!(r, i64v(&[2, 1, 3, 4], (0..24).collect()));
    let r = eval(node(k::Expand(bx(x()), 3), st(DType::I64, &[2, 3, 4, 1]))).unwrap();
    assert_eq!(r.shape(), &[2, 3, 4, 1]);
    let r = eval(node(k::Squeeze(bx(lit(f32v(&[1, 2], vec![1.0, 2.0]))), 0), st(DType::F32, &[2]))).unwrap();
    assert_eq!(r, f32v(&[2], vec![1.0, 2.0]));
    let r = eval(node(k::Squeeze(bx(lit(boolv(&[1], vec![true]))), 0), st(DType::Bool, &[]))).unwrap();
    assert_eq!(r, boolv(&[], vec![true]));
}

#[test]
fn broadcast_and_reshape() {
    // np.broadcast_to(np.array([1, 2, 3]), (2, 3))
    let r = eval(node(k::Broadcast(bx(lit(i32v(&[3], vec![1, 2, 3])))), st(DType::I32, &[2, 3]))).unwrap();
    assert_eq!(r, i32v(&[2, 3], vec![1, 2, 3, 1, 2, 3]));
    // np.broadcast_to(np.array([[7.]]), (4, 0)): size-0 target
    let r = eval(node(k::Broadcast(bx(lit(f64v(&[1, 1], vec![7.0])))), st(DType::F64, &[4, 0]))).unwrap();
    assert_eq!(r, f64v(&[4, 0], vec![]));
    // np.arange(6).reshape(2,3).T.reshape(3, -1) -> [[0,3],[1,4],[2,5]]
    let t = node(k::Transpose(bx(lit(i64v(&[2, 3], (0..6).collect()))), vec![1, 0]), st(DType::I64, &[3, 2]));
    let r = eval(node(k::Reshape(bx(t)), TensorType::new(DType::I64, vec![Dim::Static(3), Dim::Unknown]))).unwrap();
    assert_eq!(r, i64v(&[3, 2], vec![0, 3, 1, 4, 2, 5]));
    let r = eval(node(k::Reshape(bx(lit(f64v(&[1, 1], vec![5.0])))), st(DType::F64, &[]))).unwrap();
    assert_eq!(r, f64v(&[], vec![5.0]));
}

// ---- reductions ----------------------------------------------------------------------

#[test]
fn reductions() {
    let f = || lit(f32v(&[2, 3, 4], (0..24).map(|i| i as f32 / 7.0).collect()));
    let red = |op, x: TExpr, axes: Vec<usize>, ty: TensorType| eval(node(k::Reduce(op, bx(x), axes), ty)).unwrap();
    // f = np.arange(24, dtype=np.float32).reshape(2,3,4) / np.float32(7)
    // f.sum(axis=(0,2))
    assert_close(&red(ReduceOp::Sum, f(), vec![0, 2], st(DType::F32, &[3])), &f32v(&[3], vec![8.571428298950195, 13.142857551574707, 17.71428680419922]));
    // f.mean(axis=1)
    let mean = vec![0.5714285969734192, 0.714285671710968, 0.8571429252624512, 1.0, 2.2857143878936768, 2.4285714626312256, 2.5714285373687744, 2.7142856121063232];
    assert_close(&red(ReduceOp::Mean, f(), vec![1], st(DType::F32, &[2, 4])), &f32v(&[2, 4], mean));
    // f.max() -> 3.2857144
    assert_close(&red(ReduceOp::Max, f(), vec![0, 1, 2], st(DType::F32, &[])), &f32v(&[], vec![3.2857144]));
    assert_close(&red(ReduceOp::Min, f(), vec![0, 1, 2], st(DType::F32, &[])), &f32v(&[], vec![0.0]));
    // np.array([[1, -5], [7, 2]]).max(axis=0) / .min(axis=1) / .sum(axis=0)
    let i = || lit(i64v(&[2, 2], vec![1, -5, 7, 2]));
    assert_eq!(red(ReduceOp::Max, i(), vec![0], st(DType::I64, &[2])), i64v(&[2], vec![7, 2]));
    assert_eq!(red(ReduceOp::Min, i(), vec![1], st(DType::I64, &[2])), i64v(&[2], vec![-5, 2]));
    assert_eq!(red(ReduceOp::Sum, i(), vec![0], st(DType::I64, &[2])), i64v(&[2], vec![8, -3]));
    // int32 sum wraps: np.array([2**31 - 1, 1], dtype=np.int32).sum(dtype=np.int32) -> -2147483648
    assert_eq!(red(ReduceOp::Sum, lit(i32v(&[2], vec![i32::MAX, 1])), vec![0], st(DType::I32, &[])), i32v(&[], vec![i32::MIN]));
    // np.array([nan, 1.]).max() -> nan
    assert_close(&red(ReduceOp::Max, lit(f64v(&[2], vec![f64::NAN, 1.0])), vec![0], st(DType::F64, &[])), &f64v(&[], vec![f64::NAN]));
    // np.array([[True, False]]).max(axis=1) -> [True]; .min -> [False]
    let b = || lit(boolv(&[1, 2], vec![true, false]));
    assert_eq!(red(ReduceOp::Max, b(), vec![1], st(DType::Bool, &[1])), boolv(&[1], vec![true]));
    assert_eq!(red(ReduceOp::Min, b(), vec![1], st(DType::Bool, &[1])), boolv(&[1], vec![false]));
    // sum of bools counts: np.array([True, True, False]).sum() -> 2
    assert_eq!(red(ReduceOp::Sum, lit(boolv(&[3], vec![true, true, false])), vec![0], st(DType::I64, &[])), i64v(&[], vec![2]));
}

#[test]
fn empty_reductions() {
    let red = |op, axes: Vec<usize>, ty: TensorType| eval(node(k::Reduce(op, bx(lit(f64v(&[0, 3], vec![]))), axes), ty));
    // np.zeros((0, 3)).sum(axis=0) -> [0, 0, 0]; .mean(axis=0) -> [nan]*3 (with a warning)
    assert_eq!(red(ReduceOp::Sum, vec![0], st(DType::F64, &[3])).unwrap(), f64v(&[3], vec![0.0; 3]));
    assert_close(&red(ReduceOp::Mean, vec![0], st(DType::F64, &[3])).unwrap(), &f64v(&[3], vec![f64::NAN; 3]));
    // np.zeros((0, 3)).max(axis=1) -> array([], dtype=float64)
    assert_eq!(red(ReduceOp::Max, vec![1], st(DType::F64, &[0])).unwrap(), f64v(&[0], vec![]));
    // np.zeros((0, 3)).max(axis=0) -> ValueError: zero-size array to reduction operation maximum
    let e = red(ReduceOp::Max, vec![0], st(DType::F64, &[3])).unwrap_err();
    assert_eq!(e.to_string(), "`max` of `f64[0, 3]` reduces over an empty axis, and has no identity");
    let e = red(ReduceOp::Min, vec![0, 1], st(DType::F64, &[])).unwrap_err();
    assert!(matches!(e, InterpError::Check { check: ptl_lang::runtime::RuntimeCheck::EmptyReduction { .. }, .. }));
}

#[test]
fn softmax_and_log_softmax() {
    let s = || lit(f64v(&[2, 3], vec![1., 2., 3., 4., 5., 6.]));
    let t = st(DType::F64, &[2, 3]);
    // m = s - s.max(1, keepdims=True); np.exp(m) / np.exp(m).sum(1, keepdims=True)
    let sm = vec![0.09003057317038046, 0.24472847105479764, 0.6652409557748218];
    let r = eval(node(k::Softmax(bx(s()), 1), t.clone())).unwrap();
    assert_close(&r, &f64v(&[2, 3], [sm.clone(), sm].concat()));
    // m - np.log(np.exp(m).sum(1, keepdims=True))
    let lsm = vec![-2.4076059644443806, -1.4076059644443804, -0.4076059644443804];
    let r = eval(node(k::LogSoftmax(bx(s()), 1), t.clone())).unwrap();
    assert_close(&r, &f64v(&[2, 3], [lsm.clone(), lsm].concat()));
    // Along axis 0 each column is [e^-3, 1] / (1 + e^-3): no overflow for large inputs.
    let big = lit(f32v(&[2, 1], vec![1000.0, 1003.0]));
    let r = eval(node(k::Softmax(bx(big), 0), st(DType::F32, &[2, 1]))).unwrap();
    // np.exp(np.float32(-3)) / (np.float32(1) + np.exp(np.float32(-3))) -> 0.047425874
    assert_close(&r, &f32v(&[2, 1], vec![0.047425874, 0.95257413]));
}

// ---- programs, calls, signatures -----------------------------------------------------

/// fn affine(x: f64[n, 3], w: f64[3], b: f64) -> f64[n] { let y = x @ w; y + b }
/// fn stats(x: f64[?]) -> (f64, f64) { (sum(x), max(x)) }
fn program() -> TProgram {
    let n = || TensorType::new(DType::F64, vec![sym("n")]);
    let affine = func(
        "affine",
        vec![
            param("x", TensorType::new(DType::F64, vec![sym("n"), Dim::Static(3)])),
            param("w", st(DType::F64, &[3])),
            param("b", st(DType::F64, &[])),
        ],
        vec![tlet("y", node(k::MatMul(bx(var("x", TensorType::new(DType::F64, vec![sym("n"), Dim::Static(3)]))), bx(var("w", st(DType::F64, &[3])))), n()))],
        vec![bin(BinaryOp::Add, var("y", n()), var("b", st(DType::F64, &[])), n())],
    );
    let q = || TensorType::new(DType::F64, vec![Dim::Unknown]);
    let stats = func(
        "stats",
        vec![param("x", q())],
        vec![],
        vec![
            node(k::Reduce(ReduceOp::Sum, bx(var("x", q())), vec![0]), st(DType::F64, &[])),
            node(k::Reduce(ReduceOp::Max, bx(var("x", q())), vec![0]), st(DType::F64, &[])),
        ],
    );
    let add = func(
        "add",
        vec![param("a", q()), param("b", st(DType::F64, &[3]))],
        vec![],
        vec![bin(BinaryOp::Add, var("a", q()), var("b", st(DType::F64, &[3])), st(DType::F64, &[3]))],
    );
    TProgram { fns: vec![affine, stats, add], top: vec![] }
}

#[test]
fn run_program_prints_in_order() {
    let mut p = program();
    let x = f64v(&[2, 3], vec![1., 2., 3., 4., 5., 6.]);
    let w = f64v(&[3], vec![1., 0., -1.]);
    let call = node(
        TExprKind::Call("affine".into(), vec![var("x", st(DType::F64, &[2, 3])), lit(w), lit(f64v(&[], vec![0.5]))]),
        st(DType::F64, &[2]),
    );
    p.top = vec![
        TStmt::Let(tlet("x", lit(x))),
        TStmt::Print(vec![call], sp()),
        // `x` shadowed by a later let
        TStmt::Let(tlet("x", lit(f64v(&[3], vec![3., -1., 2.])))),
        TStmt::Print(vec![node(TExprKind::CallMulti("stats".into(), vec![var("x", st(DType::F64, &[3]))], vec![st(DType::F64, &[]), st(DType::F64, &[])]), st(DType::F64, &[]))], sp()),
        TStmt::Print(vec![var("x", st(DType::F64, &[3]))], sp()),
    ];
    let out = run_program(&p).unwrap();
    // x @ w + 0.5 -> [-1.5, -1.5]; then sum, max of [3, -1, 2]; then x itself
    assert_eq!(out, vec![f64v(&[2], vec![-1.5, -1.5]), f64v(&[], vec![4.0]), f64v(&[], vec![3.0]), f64v(&[3], vec![3., -1., 2.])]);
    assert_eq!(out[0].to_string(), "[-1.5 -1.5]");
}

#[test]
fn call_function_checks_arguments() {
    let p = program();
    let w = || f64v(&[3], vec![1., 1., 1.]);
    let b = || f64v(&[], vec![0.0]);
    let ok = call_function(&p, "affine", &[f64v(&[1, 3], vec![1., 2., 3.]), w(), b()]).unwrap();
    assert_eq!(ok, vec![f64v(&[1], vec![6.0])]);
    // size-0 symbolic dim
    let ok = call_function(&p, "affine", &[f64v(&[0, 3], vec![]), w(), b()]).unwrap();
    assert_eq!(ok, vec![f64v(&[0], vec![])]);

    let err = |args: &[Value]| call_function(&p, "affine", args).unwrap_err().to_string();
    assert_eq!(err(&[f64v(&[4], vec![0.; 4]), w(), b()]), "argument `x` of `affine` has type f64[4], expected f64[n, 3]: rank 1 is not 2");
    assert_eq!(err(&[f64v(&[4, 2], vec![0.; 8]), w(), b()]), "argument `x` of `affine` has type f64[4, 2], expected f64[n, 3]: dim 1 is 2, not 3");
    assert_eq!(
        err(&[Value::F32(ArrayD::zeros(IxDyn(&[4, 3]))), w(), b()]),
        "argument `x` of `affine` has type f32[4, 3], expected f64[n, 3]: dtype f32 is not f64"
    );
    assert_eq!(err(&[f64v(&[1, 3], vec![0.; 3]), w()]), "function `affine` takes 3 argument(s) but was given 2");
    let e = call_function(&p, "nope", &[]).unwrap_err();
    assert_eq!(e.to_string(), "unknown function `nope`");
}

#[test]
fn symbolic_dims_bind_across_the_signature() {
    let n = || TensorType::new(DType::F64, vec![sym("n")]);
    let f = func("dot", vec![param("a", n()), param("b", n())], vec![], vec![node(k::MatMul(bx(var("a", n())), bx(var("b", n()))), st(DType::F64, &[]))]);
    let p = TProgram { fns: vec![f], top: vec![] };
    let r = call_function(&p, "dot", &[f64v(&[2], vec![1., 2.]), f64v(&[2], vec![3., 4.])]).unwrap();
    assert_eq!(r, vec![f64v(&[], vec![11.0])]);
    let e = call_function(&p, "dot", &[f64v(&[4], vec![0.; 4]), f64v(&[5], vec![0.; 5])]).unwrap_err();
    assert_eq!(e.to_string(), "argument `b` of `dot` has type f64[5], expected f64[n]: dim 0 is 5, but `n` is 4, bound by argument `a` (dim 0)");
    assert!(matches!(e, InterpError::ArgumentMismatch { ref param, .. } if param == "b"));
}

#[test]
fn unknown_dims_are_checked_at_run_time() {
    let p = program();
    let three = || f64v(&[3], vec![1., 2., 3.]);
    let r = call_function(&p, "add", &[three(), three()]).unwrap();
    assert_eq!(r, vec![f64v(&[3], vec![2., 4., 6.])]);
    // Only a static 1 stretches: a `?` dim must equal the dim it meets, even when it is 1
    // at run time (PyTensor's rule, unlike NumPy's).
    for bad in [f64v(&[1], vec![10.]), f64v(&[2], vec![1., 2.])] {
        let e = call_function(&p, "add", &[bad, three()]).unwrap_err();
        assert_eq!(e.to_string(), "cannot broadcast `f64[?]` to `f64[3]`: axis 0 must be `3`");
        assert!(e.span().is_some());
    }
    // Multi-result call; max over an empty `?` dim is an error.
    let r = call_function(&p, "stats", &[f64v(&[2], vec![1.5, -2.0])]).unwrap();
    assert_eq!(r, vec![f64v(&[], vec![-0.5]), f64v(&[], vec![1.5])]);
    let e = call_function(&p, "stats", &[f64v(&[0], vec![])]).unwrap_err();
    assert!(matches!(e, InterpError::Check { check: ptl_lang::runtime::RuntimeCheck::EmptyReduction { .. }, .. }));
}

#[test]
fn result_types_are_checked() {
    // A function declared to return f64[2] whose body yields f64[3] at run time.
    let q = || TensorType::new(DType::F64, vec![Dim::Unknown]);
    let mut f = func("id", vec![param("x", q())], vec![], vec![var("x", q())]);
    f.results = vec![st(DType::F64, &[2])];
    let p = TProgram { fns: vec![f], top: vec![] };
    assert!(call_function(&p, "id", &[f64v(&[2], vec![1., 2.])]).is_ok());
    let e = call_function(&p, "id", &[f64v(&[3], vec![1., 2., 3.])]).unwrap_err();
    assert_eq!(e.to_string(), "result 0 of `id` has type f64[3], expected f64[2]: dim 0 is 3, not 2");
}

#[test]
fn runtime_shape_errors() {
    let q = |dt| TensorType::new(dt, vec![Dim::Unknown]);
    // squeeze of a `?` dim that is not 1
    let f = func("sq", vec![param("x", q(DType::I64))], vec![], vec![node(k::Squeeze(bx(var("x", q(DType::I64))), 0), st(DType::I64, &[]))]);
    // reshape of a `?` vector to [2, 2]
    let g = func("rs", vec![param("x", q(DType::I64))], vec![], vec![node(k::Reshape(bx(var("x", q(DType::I64)))), st(DType::I64, &[2, 2]))]);
    // matmul with mismatched `?` inner dims
    let h = func(
        "mm",
        vec![param("a", q(DType::F32)), param("b", q(DType::F32))],
        vec![],
        vec![node(k::MatMul(bx(var("a", q(DType::F32))), bx(var("b", q(DType::F32)))), st(DType::F32, &[]))],
    );
    let p = TProgram { fns: vec![f, g, h], top: vec![] };
    assert_eq!(call_function(&p, "sq", &[i64v(&[1], vec![4])]).unwrap(), vec![i64v(&[], vec![4])]);
    let e = call_function(&p, "sq", &[i64v(&[2], vec![4, 5])]).unwrap_err();
    assert_eq!(e.to_string(), "cannot squeeze axis 0 of shape [2]: its size is not 1");
    assert_eq!(call_function(&p, "rs", &[i64v(&[4], vec![1, 2, 3, 4])]).unwrap(), vec![i64v(&[2, 2], vec![1, 2, 3, 4])]);
    let e = call_function(&p, "rs", &[i64v(&[3], vec![1, 2, 3])]).unwrap_err();
    assert_eq!(e.to_string(), "cannot reshape `i64[?]` to `i64[2, 2]`: the element count differs");
    let e = call_function(&p, "mm", &[f32v(&[2], vec![1., 2.]), f32v(&[3], vec![1., 2., 3.])]).unwrap_err();
    assert_eq!(e.to_string(), "the inner dimensions of `f32[?]` @ `f32[?]` differ");
}

#[test]
fn malformed_trees_are_internal_errors_not_panics() {
    // A node whose static type disagrees with what it computes.
    let bad = node(TExprKind::Literal(f64v(&[2], vec![1., 2.])), st(DType::F64, &[3]));
    assert!(matches!(eval(bad), Err(InterpError::Internal { .. })));
    // Mixed dtypes in a binary op.
    let bad = bin(BinaryOp::Add, lit(f64v(&[], vec![1.])), lit(i64v(&[], vec![1])), st(DType::F64, &[]));
    assert!(matches!(eval(bad), Err(InterpError::Internal { .. })));
    // An unbound variable, and unbounded recursion.
    assert!(matches!(eval(var("nope", st(DType::F64, &[]))), Err(InterpError::UnboundVariable { .. })));
    let f = func("loop", vec![], vec![], vec![node(TExprKind::Call("loop".into(), vec![]), st(DType::F64, &[]))]);
    let p = TProgram { fns: vec![f], top: vec![] };
    assert!(matches!(call_function(&p, "loop", &[]), Err(InterpError::RecursionLimit { .. })));
}

/// A well-typed result larger than memory is an error, not an allocation abort.
#[test]
fn results_larger_than_memory_are_errors() {
    let src = "fn big(x: f64[1]) { sum(broadcast(x, [1048576, 1048576])) }\nprint big([1.0]);\n";
    let prog = ptl_lang::frontend(src).expect("checks");
    let err = ptl_interp::run_program(&prog).unwrap_err().to_string();
    assert!(err.contains("[1048576, 1048576]") && err.contains("memory available"), "{err}");
}
