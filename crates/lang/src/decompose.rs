//! Ops that compiled code computes as a loop of other ops: the decomposition of each into
//! typed-program code, which a backend evaluates in place of the op. The reference
//! interpreter does not use these: it computes each op directly (`ptl-interp`), so the two
//! stay independent answers.
//!
//! Each decomposition takes its operands as names (or literals) of the op's operand types,
//! with the result's dims (the backend checks squareness and row counts first), and gives
//! `let` statements whose names start with `%` (no source program can use them) and the
//! result.

use crate::ad::build::Builder;
use crate::ops::{BinaryOp, Op, ReduceOp, SliceAxis, UnaryOp};
use crate::typed::{TBlock, TExpr, TExprKind, TLet, TLoop};
use crate::types::{DType, TensorType};

/// `let` statements, then the value.
pub type Decomposition = (Vec<TLet>, TExpr);

/// Names from `%1000000` up: the decomposition's own, apart from derivative code's.
const FIRST_NAME: usize = 1_000_000;

fn index(b: &mut Builder, x: TExpr, axes: Vec<SliceAxis>, idx: Vec<TExpr>, ty: TensorType) -> TExpr {
    let mut args = vec![x];
    args.extend(idx);
    b.op(Op::Slice(axes), args, ty)
}

/// `v @ m` for a vector `v` (`[n]`) and `m` (`[n]` or `[n, k]`), as a product and a sum
/// rather than a contraction op: IREE 3.13's data tiling crashed on some programs with
/// contractions inside these loops.
fn row_times(b: &mut Builder, v: TExpr, m: TExpr) -> TExpr {
    let v = if m.ty.rank() == 2 {
        let col = b.expand(v, 1);
        b.like(col, &m)
    } else {
        v
    };
    let p = b.mul(v, m);
    b.reduce(ReduceOp::Sum, p, &[0])
}

/// `0, 1, ..., n - 1` (`i64`), as long as the vector `like`.
fn counts(b: &mut Builder, like: &TExpr) -> TExpr {
    let ones = b.ones_like(like, DType::I64);
    let run = b.op(Op::Scan { prod: false, axis: 0 }, vec![ones.clone()], ones.ty.clone());
    let one = b.lit(DType::I64, 1.0);
    b.sub(run, one)
}

/// A `loop` with several state values, from `inits`, over `0..stop`; `step` makes the next
/// values from the builder, the state and the counter.
fn loop_many(b: &mut Builder, inits: Vec<TExpr>, stop: TExpr, step: impl FnOnce(&mut Builder, Vec<TExpr>, TExpr) -> Vec<TExpr>) -> Vec<TExpr> {
    let tys: Vec<TensorType> = inits.iter().map(|x| x.ty.clone()).collect();
    let names: Vec<String> = tys.iter().map(|_| b.fresh()).collect();
    let counter = b.fresh();
    let mut inner = b.nested();
    let state = names.iter().zip(&tys).map(|(n, t)| inner.var(n, t.clone())).collect();
    let j = inner.var(&counter, TensorType::scalar(DType::I64));
    let next = step(&mut inner, state, j);
    b.resume(&inner);
    let start = b.lit(DType::I64, 0.0);
    let l = TLoop {
        scan: false,
        state: names,
        init: inits,
        counter,
        start,
        stop,
        body: TBlock { lets: inner.lets, results: next },
        results: tys.clone(),
        until: None,
    };
    let span = b.span.clone();
    b.bind_multi(TExpr::new(TExprKind::Loop(Box::new(l)), tys[0].clone(), span))
}

/// A `loop` with one state value.
fn loop_over(b: &mut Builder, init: TExpr, stop: TExpr, step: impl FnOnce(&mut Builder, TExpr, TExpr) -> TExpr) -> TExpr {
    let out = loop_many(b, vec![init], stop, |b, s, j| vec![step(b, s[0].clone(), j)]);
    out[0].clone()
}

/// A builder for the decomposition of the square `a`, with what its loops over the rows
/// share: the type of a column, the vector `0, 1, ..., n - 1` and `n`.
fn rows_of(a: &TExpr) -> (Builder, TensorType, TExpr, TExpr) {
    let mut b = Builder::new(a.span.clone(), FIRST_NAME);
    let vec_ty = TensorType::new(a.ty.dtype, vec![a.ty.dims[0].clone()]);
    let diag = b.op(Op::Diagonal, vec![a.clone()], vec_ty.clone());
    let idx = counts(&mut b, &diag);
    let n = b.dim_size(a, 0);
    (b, vec_ty, idx, n)
}

/// `x` with rows `i` and `j` swapped (`i`, `j`: `i64` scalars).
fn swap_rows(b: &mut Builder, x: TExpr, i: &TExpr, j: &TExpr) -> TExpr {
    let mut axes = vec![SliceAxis::Index];
    axes.extend(vec![SliceAxis::Full; x.ty.rank() - 1]);
    let row_ty = TensorType::new(x.ty.dtype, x.ty.dims[1..].to_vec());
    let ri = index(b, x.clone(), axes.clone(), vec![i.clone()], row_ty.clone());
    let rj = index(b, x.clone(), axes, vec![j.clone()], row_ty);
    let one = b.lit(DType::I64, 1.0);
    let (i1, j1) = (b.add(i.clone(), one.clone()), b.add(j.clone(), one));
    let rj = b.expand(rj, 0);
    let ri = b.expand(ri, 0);
    let x = b.op(Op::SetSlice, vec![x.clone(), rj, i.clone(), i1], x.ty.clone());
    b.op(Op::SetSlice, vec![x.clone(), ri, j.clone(), j1], x.ty.clone())
}

/// One step `j` of Gaussian elimination with partial pivoting on the square `u` (and the
/// right-hand sides `c`, rows swapped and eliminated alike): the row of the largest `|u[i,
/// j]|` for `i >= j` (the first such) becomes row `j`, then the rows below lose their
/// multiple of it. Gives the new `u`, the new `c`, and whether rows were swapped.
fn eliminate(b: &mut Builder, idx: &TExpr, u: TExpr, c: Option<TExpr>, j: TExpr) -> (TExpr, Option<TExpr>, TExpr) {
    let dt = u.ty.dtype;
    let vec_ty = TensorType::new(dt, vec![u.ty.dims[0].clone()]);
    let column = vec![SliceAxis::Full, SliceAxis::Index];
    let col = index(b, u.clone(), column.clone(), vec![j.clone()], vec_ty.clone());
    let size = b.un(UnaryOp::Abs, col);
    let below = b.bin(BinaryOp::Ge, idx.clone(), j.clone());
    let none = b.lit(dt, -1.0);
    let size = b.select(below, size, none);
    let p = b.op(Op::Arg { max: true, axis: 0 }, vec![size], TensorType::scalar(DType::I64));
    let swapped = b.bin(BinaryOp::Ne, p.clone(), j.clone());
    let u = swap_rows(b, u, &j, &p);
    let c = c.map(|c| swap_rows(b, c, &j, &p));
    let pivot = index(b, u.clone(), vec![SliceAxis::Index, SliceAxis::Index], vec![j.clone(), j.clone()], TensorType::scalar(dt));
    let col = index(b, u.clone(), column, vec![j.clone()], vec_ty.clone());
    // Times the pivot's reciprocal, as LAPACK's `getrf` scales the column.
    let one = b.lit(dt, 1.0);
    let reciprocal = b.div(one, pivot);
    let ratio = b.mul(col, reciprocal);
    let after = b.bin(BinaryOp::Gt, idx.clone(), j.clone());
    let f = b.keep(after, ratio);
    let eliminate_from = |b: &mut Builder, x: TExpr| {
        let mut axes = vec![SliceAxis::Index];
        axes.extend(vec![SliceAxis::Full; x.ty.rank() - 1]);
        let row = index(b, x.clone(), axes, vec![j.clone()], TensorType::new(dt, x.ty.dims[1..].to_vec()));
        let less = if x.ty.rank() == 1 {
            b.mul(f.clone(), row)
        } else {
            let col = b.expand(f.clone(), 1);
            let col = b.like(col, &x);
            let row = b.expand(row, 0);
            let row = b.like(row, &x);
            b.mul(col, row)
        };
        b.sub(x, less)
    };
    let u = eliminate_from(b, u);
    let c = c.map(|c| eliminate_from(b, c));
    (u, c, swapped)
}

/// `solve(a, rhs)`, `a` of type `T[n, n]`, `rhs` (`T[n]` or `T[n, k]`) of the result's type:
/// Gaussian elimination with partial pivoting (as LAPACK's `getrf`) on `a` and `rhs`
/// together, then the upper-triangular system that remains.
pub fn solve(a: &TExpr, rhs: &TExpr) -> Decomposition {
    let (mut b, _, idx, n) = rows_of(a);
    let out = loop_many(&mut b, vec![a.clone(), rhs.clone()], n, |b, s, j| {
        let (u, c, _) = eliminate(b, &idx, s[0].clone(), Some(s[1].clone()), j);
        vec![u, c.expect("the right-hand side")]
    });
    let x = b.op(Op::SolveTriangular { lower: false }, vec![out[0].clone(), out[1].clone()], rhs.ty.clone());
    (b.lets, x)
}

/// The pivots of Gaussian elimination with partial pivoting on the square `a`, and the sign
/// of the row permutation (-1 to the number of swaps), with the builder that made them.
fn pivots_and_sign(a: &TExpr) -> (Builder, TExpr, TExpr) {
    let (mut b, vec_ty, idx, n) = rows_of(a);
    let one = b.lit(a.ty.dtype, 1.0);
    let out = loop_many(&mut b, vec![a.clone(), one], n, |b, s, j| {
        let (u, _, swapped) = eliminate(b, &idx, s[0].clone(), None, j);
        let flipped = b.neg(s[1].clone());
        let sign = b.select(swapped, flipped, s[1].clone());
        vec![u, sign]
    });
    let pivots = b.op(Op::Diagonal, vec![out[0].clone()], vec_ty);
    (b, pivots, out[1].clone())
}

/// `det(a)`, `a` of type `T[n, n]`: the product of the pivots of Gaussian elimination with
/// partial pivoting, negated once per row swap.
pub fn det(a: &TExpr) -> Decomposition {
    let (mut b, pivots, sign) = pivots_and_sign(a);
    let product = b.reduce(ReduceOp::Prod, pivots, &[0]);
    let d = b.mul(sign, product);
    (b.lets, d)
}

/// One part of `slogdet(a)`, `a` of type `T[n, n]`, from the pivots of the elimination `det`
/// runs: their signs' product, negated once per row swap (`log` false), or the sum of the logs
/// of their absolute values (`log` true).
pub fn slogdet(a: &TExpr, log: bool) -> Decomposition {
    let (mut b, pivots, swaps) = pivots_and_sign(a);
    let part = if log {
        let magnitudes = b.un(UnaryOp::Abs, pivots);
        let logs = b.un(UnaryOp::Log, magnitudes);
        b.reduce(ReduceOp::Sum, logs, &[0])
    } else {
        let signs = b.un(UnaryOp::Sign, pivots);
        let product = b.reduce(ReduceOp::Prod, signs, &[0]);
        let signed = b.mul(swaps, product);
        // A singular matrix's sign is 0, not -0.
        let zero = b.lit(a.ty.dtype, 0.0);
        b.add(signed, zero)
    };
    (b.lets, part)
}

/// One part of `lu_factor(a)`, `a` of type `T[n, n]`: LAPACK's `getrf` step by step. At
/// step `j` the row of the largest `|lu[i, j]|`, `i >= j` (the first such), is swapped with
/// row `j` (whole rows, the multipliers stored so far included), the rows below lose their
/// multiple of row `j` on the columns after `j`, and the multipliers fill column `j` below
/// the diagonal. Gives the packed factors, or (`pivots`) the swapped rows as `i32`.
pub fn lu_factor(a: &TExpr, pivots: bool) -> Decomposition {
    let (mut b, vec_ty, idx, n) = rows_of(a);
    let dt = a.ty.dtype;
    let zero = b.lit(DType::I64, 0.0);
    let piv0 = b.like(zero, &idx);
    let out = loop_many(&mut b, vec![a.clone(), piv0], n, |b, s, j| {
        let (lu, piv) = (s[0].clone(), s[1].clone());
        let column = vec![SliceAxis::Full, SliceAxis::Index];
        let col = index(b, lu.clone(), column.clone(), vec![j.clone()], vec_ty.clone());
        let size = b.un(UnaryOp::Abs, col);
        let below = b.bin(BinaryOp::Ge, idx.clone(), j.clone());
        let none = b.lit(dt, -1.0);
        let size = b.select(below, size, none);
        let p = b.op(Op::Arg { max: true, axis: 0 }, vec![size], TensorType::scalar(DType::I64));
        let here = b.bin(BinaryOp::Eq, idx.clone(), j.clone());
        let p_all = b.like(p.clone(), &idx);
        let piv = b.select(here.clone(), p_all, piv);
        let lu = swap_rows(b, lu, &j, &p);
        let pivot = index(b, lu.clone(), vec![SliceAxis::Index, SliceAxis::Index], vec![j.clone(), j.clone()], TensorType::scalar(dt));
        let col = index(b, lu.clone(), column, vec![j.clone()], vec_ty.clone());
        let one = b.lit(dt, 1.0);
        let reciprocal = b.div(one, pivot);
        let ratio = b.mul(col, reciprocal);
        let after = b.bin(BinaryOp::Gt, idx.clone(), j.clone());
        let f = b.keep(after.clone(), ratio);
        let row = index(b, lu.clone(), vec![SliceAxis::Index, SliceAxis::Full], vec![j.clone()], vec_ty.clone());
        let row = b.keep(after.clone(), row);
        let f_col = b.expand(f, 1);
        let f_col = b.like(f_col, &lu);
        let row = b.expand(row, 0);
        let row = b.like(row, &lu);
        let less = b.mul(f_col.clone(), row);
        let lu = b.sub(lu, less);
        // Column `j` below the diagonal holds the multipliers.
        let rows_after = b.expand(after, 1);
        let rows_after = b.like(rows_after, &lu);
        let col_j = b.expand(here, 0);
        let col_j = b.like(col_j, &lu);
        let place = b.bin(BinaryOp::LogicalAnd, rows_after, col_j);
        let lu = b.select(place, f_col, lu);
        vec![lu, piv]
    });
    let part = if pivots { b.cast(out[1].clone(), DType::I32) } else { out[0].clone() };
    (b.lets, part)
}

/// `lu_permutation(piv)`, `piv` an `i64` vector: `p = 0, 1, ..., n - 1`, then for each `i`
/// in order `p[i]` and `p[piv[i]]` swapped (a negative pivot counts from the end).
pub fn lu_permutation(piv: &TExpr) -> Decomposition {
    let mut b = Builder::new(piv.span.clone(), FIRST_NAME);
    let idx = counts(&mut b, piv);
    let n = b.dim_size(piv, 0);
    let scalar = TensorType::scalar(DType::I64);
    let p = loop_over(&mut b, idx.clone(), n.clone(), |b, p, i| {
        let t = index(b, piv.clone(), vec![SliceAxis::Index], vec![i.clone()], scalar.clone());
        let zero = b.lit(DType::I64, 0.0);
        let negative = b.bin(BinaryOp::Lt, t.clone(), zero);
        let wrapped = b.add(t.clone(), n.clone());
        let t = b.select(negative, wrapped, t);
        let at_i = index(b, p.clone(), vec![SliceAxis::Index], vec![i.clone()], scalar.clone());
        let at_t = index(b, p.clone(), vec![SliceAxis::Index], vec![t.clone()], scalar.clone());
        let is_t = b.bin(BinaryOp::Eq, idx.clone(), t);
        let at_i = b.like(at_i, &idx);
        let p = b.select(is_t, at_i, p);
        let is_i = b.bin(BinaryOp::Eq, idx.clone(), i);
        let at_t = b.like(at_t, &idx);
        b.select(is_i, at_t, p)
    });
    (b.lets, p)
}

/// `cholesky(a)`, `a` of type `T[n, n]`. Row `j` of `r = transpose(l)` is, from
/// `w = a[:, j] - r[:, j] @ r` (rows `j..` of `r` are still zero, so the product sums over
/// the finished rows only): `sqrt(w[j])` at `j`, `w[i] / sqrt(w[j])` after it, zero before.
/// A pivot `w[j]` that is not positive makes the row NaN; a NaN anywhere makes all of it NaN.
pub fn cholesky(a: &TExpr) -> Decomposition {
    let (mut b, vec_ty, idx, n) = rows_of(a);
    let dt = a.ty.dtype;
    let zeros = b.zeros_like(a);
    let r = loop_over(&mut b, zeros, n, |b, r, j| {
        let column = vec![SliceAxis::Full, SliceAxis::Index];
        let col = index(b, a.clone(), column.clone(), vec![j.clone()], vec_ty.clone());
        let rc = index(b, r.clone(), column, vec![j.clone()], vec_ty.clone());
        let t = row_times(b, rc, r.clone());
        let w = b.sub(col, t);
        let pivot = index(b, w.clone(), vec![SliceAxis::Index], vec![j.clone()], TensorType::scalar(dt));
        let zero = b.lit(dt, 0.0);
        let positive = b.bin(BinaryOp::Gt, pivot.clone(), zero);
        let root = b.un(UnaryOp::Sqrt, pivot);
        let nan = b.lit(dt, f64::NAN);
        let d = b.select(positive, root, nan);
        let below = b.div(w.clone(), d.clone());
        let after = b.bin(BinaryOp::Gt, idx.clone(), j.clone());
        let at = b.bin(BinaryOp::Eq, idx.clone(), j.clone());
        let on = b.keep(at, d);
        let row = b.select(after, below, on);
        let row = b.expand(row, 0);
        let one = b.lit(DType::I64, 1.0);
        let j1 = b.add(j.clone(), one);
        b.op(Op::SetSlice, vec![r.clone(), row, j, j1], r.ty.clone())
    });
    let l = b.transpose(r, &[1, 0]);
    let nan = b.op(Op::Unary(UnaryOp::Isnan), vec![l.clone()], TensorType::new(DType::Bool, l.ty.dims.clone()));
    let any = b.reduce(ReduceOp::Any, nan, &[0, 1]);
    let any = b.like(any, &l);
    let nan = b.lit(dt, f64::NAN);
    let out = b.select(any, nan, l);
    (b.lets, out)
}

/// `x[::-1]` along each of `axes`.
fn reversed(b: &mut Builder, x: TExpr, axes: &[usize]) -> TExpr {
    let mut spec = vec![SliceAxis::Full; x.ty.rank()];
    let mut args = vec![x.clone()];
    for &axis in axes {
        spec[axis] = SliceAxis::Range { start: false, stop: false, step: true };
    }
    for _ in axes {
        args.push(b.lit(DType::I64, -1.0));
    }
    let ty = x.ty.clone();
    b.op(Op::Slice(spec), args, ty)
}

/// `solve_triangular(a, rhs, lower)`, `a` of type `T[n, n]`, `rhs` (`T[n]` or `T[n, k]`)
/// of the result's type. Forward substitution row by row, `x[i] = (rhs[i] - s[i, :] @ x) /
/// a[i, i]`, where `s` is `a`'s strict lower triangle and the rows of `x` not yet solved are
/// zero. An upper-triangular system is the lower one of `a` and `rhs` with their rows and
/// columns reversed, and its solution reversed back.
pub fn solve_triangular(a: &TExpr, rhs: &TExpr, lower: bool) -> Decomposition {
    let mut b = Builder::new(a.span.clone(), FIRST_NAME);
    let (a, rhs) = if lower {
        (a.clone(), rhs.clone())
    } else {
        (reversed(&mut b, a.clone(), &[0, 1]), reversed(&mut b, rhs.clone(), &[0]))
    };
    let dt = a.ty.dtype;
    let n_dim = a.ty.dims[0].clone();
    let strict = b.op(Op::Tri { upper: false, k: -1 }, vec![a.clone()], a.ty.clone());
    let n = b.dim_size(&a, 0);
    let zeros = b.zeros_like(&rhs);
    let row_ty = TensorType::new(dt, rhs.ty.dims[1..].to_vec());
    let mut row_axes = vec![SliceAxis::Index];
    row_axes.extend(vec![SliceAxis::Full; rhs.ty.rank() - 1]);
    let x = loop_over(&mut b, zeros, n, |b, x, i| {
        let s_row = index(b, strict.clone(), vec![SliceAxis::Index, SliceAxis::Full], vec![i.clone()], TensorType::new(dt, vec![n_dim.clone()]));
        let known = row_times(b, s_row, x.clone());
        let target = index(b, rhs.clone(), row_axes.clone(), vec![i.clone()], row_ty.clone());
        let diff = b.sub(target, known);
        let pivot = index(b, a.clone(), vec![SliceAxis::Index, SliceAxis::Index], vec![i.clone(), i.clone()], TensorType::scalar(dt));
        let value = b.div(diff, pivot);
        let value = b.expand(value, 0);
        let one = b.lit(DType::I64, 1.0);
        let i1 = b.add(i.clone(), one);
        b.op(Op::SetSlice, vec![x.clone(), value, i, i1], x.ty.clone())
    });
    let x = if lower { x } else { reversed(&mut b, x, &[0]) };
    (b.lets, x)
}

/// How many sweeps of rotations `eigh`'s decomposition makes. Cyclic Jacobi converges
/// quadratically once the off-diagonal elements are small, within about ten sweeps for the
/// sizes it serves; a sweep after convergence rotates by zero angles.
pub const EIGH_SWEEPS: u32 = 14;

/// One part of `eigh(a)`, `a` of type `T[n, n]` (its lower triangle read), computed in f64
/// and rounded to `T`: cyclic Jacobi on the symmetric matrix `s`, [`EIGH_SWEEPS`] sweeps of
/// the pairs `p < q` in row order. Step `(p, q)` rotates rows and columns `p` and `q` of `s`
/// by `J` (`c` on their diagonal, `s` at `(p, q)`, `-s` at `(q, p)`; Golub and Van Loan's
/// `sym.schur2`) so that `s[p, q]` becomes zero, and the columns of `v` (from the identity)
/// alike. The eigenvalues are `s`'s diagonal, sorted ascending with `v`'s columns; each
/// column is then signed so that its first component above `sqrt(eps)` of `T` in magnitude is
/// positive. A NaN or infinity in the lower triangle makes every element NaN.
pub fn eigh(a: &TExpr, vectors: bool) -> Decomposition {
    let (mut b, _, idx, n) = rows_of(a);
    let dt = a.ty.dtype;
    let f64_dims = |dims: Vec<crate::types::Dim>| TensorType::new(DType::F64, dims);
    let mat_ty = f64_dims(a.ty.dims.clone());
    let vec_ty = f64_dims(vec![a.ty.dims[0].clone()]);
    let a64 = b.cast(a.clone(), DType::F64);
    let low = b.op(Op::Tri { upper: false, k: 0 }, vec![a64.clone()], mat_ty.clone());
    let strict = b.op(Op::Tri { upper: false, k: -1 }, vec![a64], mat_ty.clone());
    let above = b.transpose(strict, &[1, 0]);
    let s = b.add(low.clone(), above);
    let finite = b.op(Op::Unary(UnaryOp::Isfinite), vec![low.clone()], TensorType::new(DType::Bool, mat_ty.dims.clone()));
    let all_finite = b.reduce(ReduceOp::All, finite, &[0, 1]);
    // Row and column numbers of every element.
    let rows = b.expand(idx.clone(), 1);
    let rows = b.like(rows, &s);
    let cols = b.expand(idx.clone(), 0);
    let cols = b.like(cols, &s);
    let diagonal = b.bin(BinaryOp::Eq, rows.clone(), cols.clone());
    let eye = b.cast(diagonal, DType::F64);
    let per_sweep = b.mul(n.clone(), n.clone());
    let sweeps = b.lit(DType::I64, EIGH_SWEEPS as f64);
    let steps = b.mul(per_sweep, sweeps);
    let scalar = TensorType::scalar(DType::F64);
    let out = loop_many(&mut b, vec![s, eye], steps, |b, st, k| {
        let (s, v) = (st[0].clone(), st[1].clone());
        let row_of_k = b.bin(BinaryOp::FloorDivide, k.clone(), n.clone());
        let p = b.bin(BinaryOp::Mod, row_of_k, n.clone());
        let q = b.bin(BinaryOp::Mod, k, n.clone());
        let at = |b: &mut Builder, i: &TExpr, j: &TExpr| index(b, s.clone(), vec![SliceAxis::Index, SliceAxis::Index], vec![i.clone(), j.clone()], scalar.clone());
        let (spp, sqq, spq) = (at(b, &p, &p), at(b, &q, &q), at(b, &p, &q));
        let zero = b.lit(DType::F64, 0.0);
        let after = b.bin(BinaryOp::Gt, q.clone(), p.clone());
        let nonzero = b.bin(BinaryOp::Ne, spq.clone(), zero.clone());
        let active = b.bin(BinaryOp::LogicalAnd, after, nonzero);
        let gap = b.sub(sqq, spp);
        let twice = b.scale(spq, 2.0);
        let tau = b.div(gap, twice);
        let negative = b.bin(BinaryOp::Lt, tau.clone(), zero.clone());
        let (minus, plus) = (b.lit(DType::F64, -1.0), b.lit(DType::F64, 1.0));
        let sign = b.select(negative, minus, plus.clone());
        let size = b.un(UnaryOp::Abs, tau.clone());
        let square = b.mul(tau.clone(), tau);
        let square = b.add(square, plus.clone());
        let root = b.un(UnaryOp::Sqrt, square);
        let denominator = b.add(size, root);
        let t = b.div(sign, denominator);
        let t2 = b.mul(t.clone(), t.clone());
        let t2 = b.add(t2, plus.clone());
        let root = b.un(UnaryOp::Sqrt, t2);
        let c = b.div(plus.clone(), root);
        let sn = b.mul(t, c.clone());
        let c = b.select(active.clone(), c, plus);
        let sn = b.select(active, sn, zero);
        let pair = Pair { p: &p, q: &q, c: &c, s: &sn, line: &vec_ty };
        // `s J` and `v J` (columns p and q rotated), then `J^T s J` (rows p and q).
        let s = pair.rotate(b, s, &cols, true);
        let v = pair.rotate(b, v, &cols, true);
        let s = pair.rotate(b, s, &rows, false);
        vec![s, v]
    });
    let w = b.op(Op::Diagonal, vec![out[0].clone()], vec_ty.clone());
    let order = b.op(Op::Sort { axis: 0, arg: true }, vec![w.clone()], TensorType::new(DType::I64, vec_ty.dims.clone()));
    let part = if vectors {
        let v = b.op(Op::Take { axis: 1 }, vec![out[1].clone(), order], mat_ty.clone());
        let size = b.un(UnaryOp::Abs, v.clone());
        let tol = b.lit(DType::F64, sqrt_eps(dt));
        let tol = b.like(tol, &v);
        let large = b.bin(BinaryOp::Gt, size, tol);
        let large = b.cast(large, DType::F64);
        let first = b.op(Op::Arg { max: true, axis: 0 }, vec![large], TensorType::new(DType::I64, vec_ty.dims.clone()));
        let first = b.expand(first, 0);
        let first = b.like(first, &v);
        let picked = b.bin(BinaryOp::Eq, rows, first);
        let leading = b.keep(picked, v.clone());
        let leading = b.reduce(ReduceOp::Sum, leading, &[0]);
        let zero = b.lit(DType::F64, 0.0);
        let negative = b.bin(BinaryOp::Lt, leading, zero);
        let (minus, plus) = (b.lit(DType::F64, -1.0), b.lit(DType::F64, 1.0));
        let flip = b.select(negative, minus, plus);
        let flip = b.expand(flip, 0);
        let flip = b.like(flip, &v);
        b.mul(v, flip)
    } else {
        b.op(Op::Take { axis: 0 }, vec![w, order], vec_ty)
    };
    let ok = b.like(all_finite, &part);
    let nan = b.lit(DType::F64, f64::NAN);
    let part = b.select(ok, part, nan);
    let part = b.cast(part, dt);
    (b.lets, part)
}

/// One Jacobi rotation of `eigh`'s decomposition: of lines (rows or columns) `p` and `q` by
/// `c` and `s`, each line of type `line`.
struct Pair<'x> {
    p: &'x TExpr,
    q: &'x TExpr,
    c: &'x TExpr,
    s: &'x TExpr,
    line: &'x TensorType,
}

impl Pair<'_> {
    /// `x J` (`columns`: columns p and q become `c x_p - s x_q` and `s x_p + c x_q`) or `J^T x`
    /// (rows alike); `at` holds each element's column (row) number.
    fn rotate(&self, b: &mut Builder, x: TExpr, at: &TExpr, columns: bool) -> TExpr {
        let spec = if columns { vec![SliceAxis::Full, SliceAxis::Index] } else { vec![SliceAxis::Index, SliceAxis::Full] };
        let line = |b: &mut Builder, j: &TExpr| index(b, x.clone(), spec.clone(), vec![j.clone()], self.line.clone());
        let (xp, xq) = (line(b, self.p), line(b, self.q));
        let new_p = combine(b, self.c, &xp, self.s, &xq, true);
        let new_q = combine(b, self.s, &xp, self.c, &xq, false);
        let mut out = x;
        for (j, new) in [(self.q, new_q), (self.p, new_p)] {
            let j = b.like(j.clone(), &out);
            let here = b.bin(BinaryOp::Eq, at.clone(), j);
            let new = b.expand(new, if columns { 1 } else { 0 });
            let new = b.like(new, &out);
            out = b.select(here, new, out);
        }
        out
    }
}

/// `x * xs + y * ys` (`plus`) or `x * xs - y * ys`, for scalars `x`, `y` and vectors `xs`, `ys`.
fn combine(b: &mut Builder, x: &TExpr, xs: &TExpr, y: &TExpr, ys: &TExpr, minus: bool) -> TExpr {
    let x = b.like(x.clone(), xs);
    let y = b.like(y.clone(), ys);
    let l = b.mul(x, xs.clone());
    let r = b.mul(y, ys.clone());
    if minus { b.sub(l, r) } else { b.add(l, r) }
}

/// The square root of the machine epsilon of `dtype` (f32 or f64): `eigh`'s threshold for
/// the component that signs an eigenvector.
pub fn sqrt_eps(dtype: DType) -> f64 {
    if dtype == DType::F32 { (f32::EPSILON as f64).sqrt() } else { f64::EPSILON.sqrt() }
}
