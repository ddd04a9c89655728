//! Linear algebra: each op is lowered as its decomposition (`ptl_lang::decompose`), a loop
//! of other ops that runs inside the compiled call, after the run-time checks its operands'
//! types leave open (a square matrix, as many right-hand-side rows as matrix rows). A module
//! with such a loop is compiled without data tiling (`crate::iree::WITHOUT_DATA_TILING`).

use melior::ir::Value;
use ptl_lang::decompose::{self, Decomposition};
use ptl_lang::ops::Op;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::typed::{TExpr, TExprKind, TProgram};
use ptl_lang::{Dim, TensorType};

use crate::emitter::Emitter;
use crate::error::{LowerError, Result};
use crate::expr;
use crate::loops::bind_let;
use crate::scope::Scope;
use crate::types::tensor_type;

/// Whether two dims are the same size whatever the arguments (no run-time check needed).
fn known_equal(a: &Dim, b: &Dim) -> bool {
    a == b && *a != Dim::Unknown
}

/// `value` (of type `from`) seen with type `to`, after checking the sizes where `from` leaves
/// them open.
fn retyped<'c, 'a>(e: &Emitter<'c, 'a>, value: Value<'c, 'a>, to: &TensorType, check: &RuntimeCheck) -> Result<Value<'c, 'a>> {
    e.cast_tensor_checked(value, tensor_type(e.ctx, to), |_| check.clone())
}

pub fn lower<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    node: &TExpr,
    op: &Op,
    operands: &[TExpr],
) -> Result<Value<'c, 'a>> {
    let a = &operands[0];
    let av = expr::lower(e, scope, prog, a)?;
    let square = check_square(e, op.name(), a, av)?;
    let mut sc = scope.clone();
    // A size the types leave open (`?`) gets a name of its own here, read from the operand,
    // so that every value of the decomposition's loop has sizes the loop can state (IREE
    // 3.13 failed to compile the loop with `?` sizes: "'arith.subf' op requires the same
    // type for all operands and results").
    let mut named = |dim: &Dim, name: &str, v: Value<'c, 'a>, axis: usize| match dim {
        Dim::Unknown => {
            sc.bind_symbol(name, v, axis);
            Dim::Symbol(name.to_string())
        }
        d => d.clone(),
    };
    let n = named(a.ty.dims.iter().find(|d| **d != Dim::Unknown).unwrap_or(&Dim::Unknown), "%n", av, 0);
    let a_ty = TensorType::new(a.ty.dtype, vec![n.clone(), n.clone()]);
    let av = retyped(e, av, &a_ty, &square)?;
    let var = |name: &str, ty: &TensorType| TExpr::new(TExprKind::Var(name.to_string()), ty.clone(), node.span.clone());
    let a_var = var("%a", &a_ty);
    // The result's shape is `a`'s (cholesky), the right-hand side's (solves) or a scalar.
    let mut shaped_like = Some(av);
    let (lets, result): Decomposition = match op {
        Op::Cholesky => {
            sc.bind("%a", av);
            decompose::cholesky(&a_var)
        }
        Op::Det => {
            shaped_like = None;
            sc.bind("%a", av);
            decompose::det(&a_var)
        }
        Op::Slogdet { log } => {
            shaped_like = None;
            sc.bind("%a", av);
            decompose::slogdet(&a_var, *log)
        }
        Op::LuFactor { pivots } => {
            shaped_like = Some(av);
            sc.bind("%a", av);
            decompose::lu_factor(&a_var, *pivots)
        }
        Op::Eigh { vectors } => {
            sc.bind("%a", av);
            decompose::eigh(&a_var, *vectors)
        }
        Op::SolveTriangular { .. } | Op::Solve => {
            let b = &operands[1];
            let bv = expr::lower(e, scope, prog, b)?;
            let rows = RuntimeCheck::SolveRows { op: op.name().to_string(), a: a.ty.clone(), b: b.ty.clone() };
            if !known_equal(&a.ty.dims[0], &b.ty.dims[0]) {
                let (r, k) = (e.dim(av, 0)?, e.dim(bv, 0)?);
                e.check_equal(r, k, rows.clone())?;
            }
            let mut dims = vec![n.clone()];
            if let Some(k) = node.ty.dims.get(1) {
                dims.push(named(k, "%k", bv, 1));
            }
            let b_ty = TensorType::new(node.ty.dtype, dims);
            let bv = retyped(e, bv, &b_ty, &rows)?;
            shaped_like = Some(bv);
            sc.bind("%a", av);
            sc.bind("%b", bv);
            match op {
                Op::SolveTriangular { lower } => decompose::solve_triangular(&a_var, &var("%b", &b_ty), *lower),
                _ => decompose::solve(&a_var, &var("%b", &b_ty)),
            }
        }
        _ => return Err(LowerError::Internal(format!("`{op}` is not a linear-algebra op"))),
    };
    if let Some(v) = on_host(e, op, node, av, shaped_like)? {
        return Ok(v);
    }
    crate::checks::note_decomposition();
    if crate::checks::in_twin() {
        // A checks-only twin has every check of the op above; the decomposition's own checks
        // (indices it makes in range) cannot fail. It stands as zeros of the result's shape:
        // IREE 3.13 failed to compile some twins holding the loops ("'arith.subf' op requires
        // the same type for all operands and results", two solves in a row).
        let mut dynamic = Vec::new();
        for (axis, d) in node.ty.dims.iter().enumerate() {
            if !matches!(d, Dim::Static(_)) {
                let like = shaped_like.ok_or_else(|| LowerError::Internal(format!("`{op}` with a dynamic result")))?;
                dynamic.push(e.dim(like, axis)?);
            }
        }
        let zero = e.const_scalar(node.ty.dtype, 0.0)?;
        let zeros = e.filled(&crate::emitter::static_shape(&node.ty.dims), node.ty.dtype, &dynamic, zero)?;
        return e.cast_tensor(zeros, tensor_type(e.ctx, &node.ty), &node.ty);
    }
    for l in &lets {
        bind_let(e, &mut sc, prog, l)?;
    }
    let out = expr::lower(e, &sc, prog, &result)?;
    // IREE 3.13 miscomputed a product with `transpose` of a Cholesky factor that was also
    // read by another op (the product saw only the factor's diagonal); a barrier after the
    // loop avoids it.
    e.optimization_barrier(out)
}

/// The op by the runtime's host kernel (faer), where the lowering may call it: `cholesky`,
/// `eigh`, `solve_triangular` and `solve` of `a` (and `b`, `rhs`), after the checks above.
fn on_host<'c, 'a>(e: &Emitter<'c, 'a>, op: &Op, node: &TExpr, a: Value<'c, 'a>, rhs: Option<Value<'c, 'a>>) -> Result<Option<Value<'c, 'a>>> {
    use crate::host::names;
    let Some(dtype) = host_elem(node.ty.dtype).filter(|_| crate::host::linalg()) else { return Ok(None) };
    let vector = node.ty.rank() == 1;
    let (name, args) = match (op, rhs) {
        (Op::Cholesky, _) => (names::cholesky(dtype), vec![a]),
        (Op::Eigh { vectors }, _) => (names::eigh(dtype, *vectors), vec![a]),
        (Op::SolveTriangular { lower }, Some(b)) => (names::solve_triangular(dtype, *lower, vector), vec![a, b]),
        (Op::Solve, Some(b)) => (names::solve(dtype, vector), vec![a, b]),
        _ => return Ok(None),
    };
    // The result has the shape of `b` (solves) or of `a` (cholesky, eigh; the eigenvalues
    // its rows): the last argument's.
    let like = args[args.len() - 1];
    let sizes = (0..node.ty.rank()).map(|axis| e.dim(like, axis)).collect::<Result<Vec<_>>>()?;
    let out = crate::host::call(e, &name, &args, node.ty.dtype, tensor_type(e.ctx, &node.ty), &sizes)?;
    Ok(Some(out))
}

/// `let (w, v) = eigh(a)`: both values from one host call (one decomposition, not one per
/// value), where the lowering may call the host; `None` where it may not (each value is then
/// lowered on its own).
pub fn lower_eigh_pair<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    w: &TExpr,
    v: &TExpr,
) -> Result<Option<(Value<'c, 'a>, Value<'c, 'a>)>> {
    let (TExprKind::Op(Op::Eigh { vectors: false }, wa), TExprKind::Op(Op::Eigh { vectors: true }, va)) = (&w.kind, &v.kind) else {
        return Ok(None);
    };
    let Some(dtype) = host_elem(v.ty.dtype).filter(|_| wa == va && crate::host::linalg()) else { return Ok(None) };
    let a = &wa[0];
    let av = expr::lower(e, scope, prog, a)?;
    check_square(e, "eigh", a, av)?;
    use crate::ops::slices::{Pos, extract_window};
    let n = e.dim(av, 0)?;
    let one = e.const_index(1)?;
    let rows = e.append(melior::dialect::arith::addi(n, one, e.loc))?;
    let packed_ty = crate::types::tensor_type_with_shape(e.ctx, &[i64::MIN as u64, i64::MIN as u64], v.ty.dtype);
    let packed = crate::host::call(e, &crate::host::names::eigh_both(dtype), &[av], v.ty.dtype, packed_ty, &[rows, n])?;
    let side = match a.ty.dims.iter().find_map(|d| if let Dim::Static(k) = d { Some(*k) } else { None }) {
        Some(k) => Pos::Static(k as i64),
        None => Pos::Dynamic(n),
    };
    let values = extract_window(e, packed, &[Pos::Static(0), Pos::Static(0)], &[Pos::Static(1), side], tensor_type(e.ctx, &w.ty))?;
    let vectors = extract_window(e, packed, &[Pos::Static(1), Pos::Static(0)], &[side, side], tensor_type(e.ctx, &v.ty))?;
    Ok(Some((values, vectors)))
}

/// The host kernels' name of a float dtype (`f32`, `f64`); `None` for the others, which they
/// do not take.
fn host_elem(dtype: ptl_lang::DType) -> Option<&'static str> {
    match dtype {
        ptl_lang::DType::F32 => Some("f32"),
        ptl_lang::DType::F64 => Some("f64"),
        _ => None,
    }
}

/// The check that `a` (lowered as `av`), the matrix of `op`, is square; made at run time
/// where its type leaves that open.
fn check_square<'c, 'a>(e: &Emitter<'c, 'a>, op: &str, a: &TExpr, av: Value<'c, 'a>) -> Result<RuntimeCheck> {
    let square = RuntimeCheck::Square { op: op.to_string(), ty: a.ty.clone() };
    if !known_equal(&a.ty.dims[0], &a.ty.dims[1]) {
        let (r, c) = (e.dim(av, 0)?, e.dim(av, 1)?);
        e.check_equal(r, c, square.clone())?;
    }
    Ok(square)
}

/// `lu_permutation(piv)`: its decomposition, a loop of swaps. Unlike the factorisations its
/// loop reads indices the caller gives (the pivots), whose bounds checks can fail, so a
/// checks-only twin runs it too.
pub fn lower_permutation<'c, 'a>(e: &Emitter<'c, 'a>, scope: &Scope<'c, 'a>, prog: &TProgram, node: &TExpr, operands: &[TExpr]) -> Result<Value<'c, 'a>> {
    crate::checks::note_decomposition();
    let piv = operands.first().ok_or_else(|| LowerError::Internal("`lu_permutation` without pivots".into()))?;
    let pv = expr::lower(e, scope, prog, piv)?;
    let mut sc = scope.clone();
    let ty = piv.ty.clone();
    sc.bind("%piv", pv);
    let (lets, result) = decompose::lu_permutation(&TExpr::new(TExprKind::Var("%piv".to_string()), ty, node.span.clone()));
    for l in &lets {
        bind_let(e, &mut sc, prog, l)?;
    }
    let out = expr::lower(e, &sc, prog, &result)?;
    e.optimization_barrier(out)
}

