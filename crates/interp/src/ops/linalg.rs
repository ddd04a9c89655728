//! Linear algebra, computed directly (compiled code runs the decompositions of
//! `ptl_lang::decompose` instead): `cholesky` by the Cholesky–Banachiewicz rows,
//! `solve_triangular` by substitution, `solve` and `det` by Gaussian elimination with partial
//! pivoting, all in the element's precision; `eigh` by cyclic Jacobi rotations in f64.

use ndarray::{Array2, ArrayD, Axis, Ix2};
use num_traits::Float;

use super::Node;
use crate::error::{InterpError, Result, shape_str};
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::value::Value;

fn square(node: &Node, a: &Value, op: &str) -> Result<usize> {
    let s = a.shape();
    if s.len() != 2 {
        return Err(InterpError::internal(format!("`{}` of a rank-{} operand", op, s.len()), &node.expr.span));
    }
    if s[0] != s[1] {
        let check = RuntimeCheck::Square { op: op.to_string(), ty: node.operands[0].ty.clone() };
        return Err(InterpError::check(check, &node.expr.span, format!("the matrix has shape {}", shape_str(s))));
    }
    Ok(s[0])
}

fn matrix<T: Clone>(a: &ArrayD<T>) -> Array2<T> {
    a.view().into_dimensionality::<Ix2>().expect("a rank-2 array").to_owned()
}

/// The lower factor; every element NaN where a pivot is not positive (or is NaN).
fn cholesky_of<T: Float>(a: &ArrayD<T>) -> ArrayD<T> {
    let a = matrix(a);
    let n = a.nrows();
    let mut l = Array2::<T>::zeros((n, n));
    for j in 0..n {
        let mut pivot = a[[j, j]];
        for k in 0..j {
            pivot = pivot - l[[j, k]] * l[[j, k]];
        }
        if !(pivot > T::zero()) {
            return ArrayD::from_elem(ndarray::IxDyn(&[n, n]), T::nan());
        }
        let d = pivot.sqrt();
        l[[j, j]] = d;
        for i in j + 1..n {
            let mut s = a[[i, j]];
            for k in 0..j {
                s = s - l[[i, k]] * l[[j, k]];
            }
            l[[i, j]] = s / d;
        }
    }
    if l.iter().any(|x| x.is_nan()) {
        l.fill(T::nan());
    }
    l.into_dyn()
}

/// `x` with `a @ x = b` from `a`'s lower (upper) triangle; `b` is a vector or a matrix.
fn solve_of<T: Float>(a: &ArrayD<T>, b: &ArrayD<T>, lower: bool) -> ArrayD<T> {
    let a = matrix(a);
    let n = a.nrows();
    let vector = b.ndim() == 1;
    let b2: Array2<T> = if vector { b.view().insert_axis(Axis(1)) } else { b.view() }.into_dimensionality::<Ix2>().expect("a matrix").to_owned();
    let cols = b2.ncols();
    let mut x = Array2::<T>::zeros((n, cols));
    let rows: Vec<usize> = if lower { (0..n).collect() } else { (0..n).rev().collect() };
    for &i in &rows {
        let solved: Vec<usize> = if lower { (0..i).collect() } else { (i + 1..n).collect() };
        for c in 0..cols {
            let mut s = b2[[i, c]];
            for &k in &solved {
                s = s - a[[i, k]] * x[[k, c]];
            }
            x[[i, c]] = s / a[[i, i]];
        }
    }
    if vector { x.column(0).to_owned().into_dyn() } else { x.into_dyn() }
}

/// Gaussian elimination with partial pivoting (the first largest `|pivot|` below the
/// diagonal): the eliminated matrix, the right-hand sides treated alike, and the sign of the
/// row permutation.
fn eliminate<T: Float>(a: &ArrayD<T>, b: Option<&ArrayD<T>>) -> (Array2<T>, Option<Array2<T>>, T) {
    let mut u = matrix(a);
    let n = u.nrows();
    let mut c: Option<Array2<T>> = b.map(|b| {
        let v = if b.ndim() == 1 { b.view().insert_axis(Axis(1)) } else { b.view() };
        v.into_dimensionality::<Ix2>().expect("a matrix").to_owned()
    });
    let mut sign = T::one();
    for j in 0..n {
        let mut p = j;
        for i in j + 1..n {
            if u[[i, j]].abs() > u[[p, j]].abs() {
                p = i;
            }
        }
        if p != j {
            sign = -sign;
            for k in 0..n {
                u.swap([j, k], [p, k]);
            }
            if let Some(c) = c.as_mut() {
                for k in 0..c.ncols() {
                    c.swap([j, k], [p, k]);
                }
            }
        }
        // Times the pivot's reciprocal, as LAPACK's `getrf` scales the column.
        let reciprocal = T::one() / u[[j, j]];
        for i in j + 1..n {
            let f = u[[i, j]] * reciprocal;
            for k in 0..n {
                let v = u[[j, k]];
                u[[i, k]] = u[[i, k]] - f * v;
            }
            if let Some(c) = c.as_mut() {
                for k in 0..c.ncols() {
                    let v = c[[j, k]];
                    c[[i, k]] = c[[i, k]] - f * v;
                }
            }
        }
    }
    (u, c, sign)
}

fn general_solve_of<T: Float>(a: &ArrayD<T>, b: &ArrayD<T>) -> ArrayD<T> {
    let (u, c, _) = eliminate(a, Some(b));
    let c = c.expect("right-hand sides");
    let x = solve_of(&u.into_dyn(), &c.into_dyn(), false);
    if b.ndim() == 1 { x.index_axis(Axis(1), 0).to_owned().into_dyn() } else { x }
}

fn det_of<T: Float>(a: &ArrayD<T>) -> ArrayD<T> {
    let (u, _, sign) = eliminate(a, None);
    let product = (0..u.nrows()).fold(T::one(), |p, i| p * u[[i, i]]);
    ArrayD::from_elem(ndarray::IxDyn(&[]), sign * product)
}

pub(crate) fn det(node: &Node, a: &Value) -> Result<Value> {
    square(node, a, "det")?;
    match a {
        Value::F32(a) => Ok(Value::F32(det_of(a))),
        Value::F64(a) => Ok(Value::F64(det_of(a))),
        _ => Err(InterpError::internal("`det` of a non-float matrix", &node.expr.span)),
    }
}

/// The sign of the determinant (`log` false) or the log of its absolute value, from the
/// same elimination's pivots: `sign * prod(sign(u_ii))`, `sum(log|u_ii|)`.
fn slogdet_of<T: Float>(a: &ArrayD<T>, log: bool) -> ArrayD<T> {
    let (u, _, sign) = eliminate(a, None);
    let pivots = (0..u.nrows()).map(|i| u[[i, i]]);
    let v = if log {
        pivots.fold(T::zero(), |s, p| s + p.abs().ln())
    } else {
        // (+ 0: a singular matrix's sign is 0, not -0.)
        pivots.fold(sign, |s, p| s * if p > T::zero() { T::one() } else if p < T::zero() { -T::one() } else { p }) + T::zero()
    };
    ArrayD::from_elem(ndarray::IxDyn(&[]), v)
}

pub(crate) fn slogdet(node: &Node, a: &Value, log: bool) -> Result<Value> {
    square(node, a, "slogdet")?;
    match a {
        Value::F32(a) => Ok(Value::F32(slogdet_of(a, log))),
        Value::F64(a) => Ok(Value::F64(slogdet_of(a, log))),
        _ => Err(InterpError::internal("`slogdet` of a non-float matrix", &node.expr.span)),
    }
}

/// LAPACK's `getrf`: the packed factors and the pivots (row `j` swapped with `piv[j]`).
fn lu_of<T: Float>(a: &ArrayD<T>) -> (ArrayD<T>, Vec<i32>) {
    let mut lu = matrix(a);
    let n = lu.nrows();
    let mut piv = Vec::with_capacity(n);
    for j in 0..n {
        // The first largest |lu[i, j]|, i >= j (NaN never largest).
        let mut p = j;
        for i in j + 1..n {
            if lu[[i, j]].abs() > lu[[p, j]].abs() {
                p = i;
            }
        }
        piv.push(p as i32);
        if p != j {
            for k in 0..n {
                lu.swap([j, k], [p, k]);
            }
        }
        let reciprocal = T::one() / lu[[j, j]];
        for i in j + 1..n {
            let m = lu[[i, j]] * reciprocal;
            lu[[i, j]] = m;
            for k in j + 1..n {
                let v = lu[[j, k]];
                lu[[i, k]] = lu[[i, k]] - m * v;
            }
        }
    }
    (lu.into_dyn(), piv)
}

pub(crate) fn lu_factor(node: &Node, a: &Value, pivots: bool) -> Result<Value> {
    square(node, a, "lu_factor")?;
    let pick = |piv: Vec<i32>| Value::I32(ArrayD::from_shape_vec(ndarray::IxDyn(&[piv.len()]), piv).expect("one pivot per row"));
    match (a, pivots) {
        (Value::F32(a), false) => Ok(Value::F32(lu_of(a).0)),
        (Value::F64(a), false) => Ok(Value::F64(lu_of(a).0)),
        (Value::F32(a), true) => Ok(pick(lu_of(a).1)),
        (Value::F64(a), true) => Ok(pick(lu_of(a).1)),
        _ => Err(InterpError::internal("`lu_factor` of a non-float matrix", &node.expr.span)),
    }
}

/// The row order the pivots make: the swaps applied in order to `0, 1, ..., n - 1`.
pub(crate) fn lu_permutation(node: &Node, piv: &Value) -> Result<Value> {
    let span = &node.expr.span;
    let Value::I64(piv) = piv else { return Err(InterpError::internal("`lu_permutation` of non-`i64` pivots", span)) };
    let n = piv.len() as i64;
    let mut p: Vec<i64> = (0..n).collect();
    for (i, &t) in piv.iter().enumerate() {
        let t = if t < 0 { t + n } else { t };
        if !(0..n).contains(&t) {
            let ty = ptl_lang::TensorType::new(ptl_lang::DType::I64, node.operands[0].ty.dims.clone());
            let check = RuntimeCheck::Index { op: "[]".to_string(), ty, axis: 0 };
            return Err(InterpError::check(check, span, format!("pivot {i} is {}, for {n} rows", piv[i])));
        }
        p.swap(i, t as usize);
    }
    Ok(Value::I64(ArrayD::from_shape_vec(ndarray::IxDyn(&[n as usize]), p).expect("one entry per pivot")))
}

pub(crate) fn cholesky(node: &Node, a: &Value) -> Result<Value> {
    square(node, a, "cholesky")?;
    match a {
        Value::F32(a) => Ok(Value::F32(cholesky_of(a))),
        Value::F64(a) => Ok(Value::F64(cholesky_of(a))),
        _ => Err(InterpError::internal("`cholesky` of a non-float matrix", &node.expr.span)),
    }
}

/// `solve_triangular(a, b, lower)` (`lower` given) or `solve(a, b)`.
pub(crate) fn solve(node: &Node, a: &Value, b: &Value, lower: Option<bool>) -> Result<Value> {
    let op = if lower.is_some() { "solve_triangular" } else { "solve" };
    let n = square(node, a, op)?;
    if b.shape().first() != Some(&n) {
        let check = RuntimeCheck::SolveRows { op: op.to_string(), a: node.operands[0].ty.clone(), b: node.operands[1].ty.clone() };
        let seen = format!("the operands have shapes {} and {}", shape_str(a.shape()), shape_str(b.shape()));
        return Err(InterpError::check(check, &node.expr.span, seen));
    }
    match (a, b, lower) {
        (Value::F32(a), Value::F32(b), Some(lower)) => Ok(Value::F32(solve_of(a, b, lower))),
        (Value::F64(a), Value::F64(b), Some(lower)) => Ok(Value::F64(solve_of(a, b, lower))),
        (Value::F32(a), Value::F32(b), None) => Ok(Value::F32(general_solve_of(a, b))),
        (Value::F64(a), Value::F64(b), None) => Ok(Value::F64(general_solve_of(a, b))),
        _ => Err(InterpError::internal(format!("`{op}` of non-float operands of one dtype"), &node.expr.span)),
    }
}

/// The eigenvalues (ascending) and unit eigenvectors (columns) of the symmetric matrix that
/// `a`'s lower triangle makes, in f64: cyclic Jacobi rotations until every off-diagonal
/// element is zero, then each column signed so that its first
/// component above `sqrt_eps` in magnitude is positive. `None` where the lower triangle
/// holds a NaN or an infinity.
fn eigh_f64(a: &Array2<f64>, sqrt_eps: f64) -> Option<(Vec<f64>, Array2<f64>)> {
    let n = a.nrows();
    let mut s = Array2::<f64>::zeros((n, n));
    for i in 0..n {
        for j in 0..=i {
            if !a[[i, j]].is_finite() {
                return None;
            }
            s[[i, j]] = a[[i, j]];
            s[[j, i]] = a[[i, j]];
        }
    }
    let mut v = Array2::<f64>::eye(n);
    for sweep in 0..64 {
        if (0..n).all(|i| (0..n).all(|j| i == j || s[[i, j]] == 0.0)) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = s[[p, q]];
                // After a few sweeps, an element too small to change either diagonal element
                // it rotates is set to zero (Numerical Recipes' `jacobi`).
                let tiny = |d: f64| (d.abs() + 100.0 * apq.abs()) == d.abs();
                if sweep > 3 && tiny(s[[p, p]]) && tiny(s[[q, q]]) {
                    s[[p, q]] = 0.0;
                    s[[q, p]] = 0.0;
                    continue;
                }
                if apq == 0.0 {
                    continue;
                }
                let theta = (s[[q, q]] - s[[p, p]]) / (2.0 * apq);
                let t = if theta.abs() > 1e150 { 0.5 / theta } else { theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt()) };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let sn = t * c;
                for k in 0..n {
                    let (xp, xq) = (s[[k, p]], s[[k, q]]);
                    s[[k, p]] = c * xp - sn * xq;
                    s[[k, q]] = sn * xp + c * xq;
                }
                for k in 0..n {
                    let (xp, xq) = (s[[p, k]], s[[q, k]]);
                    s[[p, k]] = c * xp - sn * xq;
                    s[[q, k]] = sn * xp + c * xq;
                }
                for k in 0..n {
                    let (xp, xq) = (v[[k, p]], v[[k, q]]);
                    v[[k, p]] = c * xp - sn * xq;
                    v[[k, q]] = sn * xp + c * xq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| s[[i, i]].total_cmp(&s[[j, j]]));
    let w = order.iter().map(|&i| s[[i, i]]).collect();
    let mut out = Array2::<f64>::zeros((n, n));
    for (col, &i) in order.iter().enumerate() {
        let lead = (0..n).map(|r| v[[r, i]]).find(|x| x.abs() > sqrt_eps).unwrap_or(1.0);
        let sign = if lead < 0.0 { -1.0 } else { 1.0 };
        for r in 0..n {
            out[[r, col]] = sign * v[[r, i]];
        }
    }
    Some((w, out))
}

/// One part of `eigh(a)` (`vectors`: the eigenvectors, else the eigenvalues) in `T`,
/// computed in f64.
fn eigh_of<T: Float>(a: &ArrayD<T>, vectors: bool, sqrt_eps: f64) -> ArrayD<T> {
    let a = matrix(a).mapv(|x| x.to_f64().unwrap_or(f64::NAN));
    let n = a.nrows();
    let back = |x: f64| T::from(x).unwrap_or_else(T::nan);
    match (eigh_f64(&a, sqrt_eps), vectors) {
        (Some((_, v)), true) => v.mapv(back).into_dyn(),
        (Some((w, _)), false) => ArrayD::from_shape_vec(ndarray::IxDyn(&[n]), w.into_iter().map(back).collect()).expect("one eigenvalue per row"),
        (None, true) => ArrayD::from_elem(ndarray::IxDyn(&[n, n]), T::nan()),
        (None, false) => ArrayD::from_elem(ndarray::IxDyn(&[n]), T::nan()),
    }
}

pub(crate) fn eigh(node: &Node, a: &Value, vectors: bool) -> Result<Value> {
    square(node, a, "eigh")?;
    match a {
        Value::F32(a) => Ok(Value::F32(eigh_of(a, vectors, (f32::EPSILON as f64).sqrt()))),
        Value::F64(a) => Ok(Value::F64(eigh_of(a, vectors, f64::EPSILON.sqrt()))),
        _ => Err(InterpError::internal("`eigh` of a non-float matrix", &node.expr.span)),
    }
}
