//! The reductions built from folds: `logsumexp` and `var` / `std` over a set of axes, and
//! `argmax` / `argmin` along one axis (a max/min fold, then a second fold for the first
//! index that holds it).

use melior::dialect::arith::{self, CmpfPredicate, CmpiPredicate};
use melior::ir::Value;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::typed::{BinaryOp, ReduceOp, UnaryOp};
use ptl_lang::{DType, TensorType};

use super::elementwise::remap;
use super::reduction::{count_index, fold, kept_map, reduced_type};
use super::{scalar, slices};
use crate::emitter::{Emitter, Idx, Iter, static_shape};
use crate::error::Result;
use crate::scope::Scope;

/// `m` where it is finite, else 0 (`m - m == 0` is false for infinities and NaN).
fn finite_or_zero<'c, 'b>(e: &Emitter<'c, 'b>, dt: DType, m: Value<'c, 'b>) -> Result<Value<'c, 'b>> {
    let diff = scalar::binary(e, BinaryOp::Sub, dt, m, m)?;
    let zero = e.const_scalar(dt, 0.0)?;
    let finite = e.append(arith::cmpf(e.ctx, CmpfPredicate::Oeq, diff, zero, e.loc))?;
    scalar::select(e, finite, m, zero)
}

/// `logsumexp(x, axes)`: `s + log(sum(exp(x - s)))` with `s` the max where finite, else 0,
/// so that all `-inf` (or nothing) gives `-inf` and a `+inf` gives `+inf`, as SciPy's.
pub fn logsumexp<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    axes: &[usize],
) -> Result<Value<'c, 'a>> {
    let dt = x_ty.dtype;
    let rank = x_ty.rank();
    let full: Vec<Idx> = (0..rank).map(Idx::Loop).collect();
    let kept = kept_map(rank, axes);
    let out_ty = reduced_type(x_ty, axes);
    let m = fold(e, scope, ReduceOp::Max, x, x_ty, axes)?;
    let shifted_exp = remap(e, scope, x_ty, &[(x, full), (m, kept)], &[dt, dt], |inner, a| {
        let s = finite_or_zero(inner, dt, a[1])?;
        let d = scalar::binary(inner, BinaryOp::Sub, dt, a[0], s)?;
        scalar::unary(inner, UnaryOp::Exp, dt, d)
    })?;
    let total = fold(e, scope, ReduceOp::Sum, shifted_exp, x_ty, axes)?;
    let ident: Vec<Idx> = (0..out_ty.rank()).map(Idx::Loop).collect();
    remap(e, scope, &out_ty, &[(total, ident.clone()), (m, ident)], &[dt, dt], |inner, a| {
        let l = scalar::unary(inner, UnaryOp::Log, dt, a[0])?;
        let s = finite_or_zero(inner, dt, a[1])?;
        scalar::binary(inner, BinaryOp::Add, dt, l, s)
    })
}

/// `var(x, axes, ddof)` (its square root when `sqrt`): NumPy's two passes, the mean and then
/// the sum of squared deviations, divided by `max(n - ddof, 0)`.
pub fn var<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    axes: &[usize],
    ddof: u32,
    sqrt: bool,
) -> Result<Value<'c, 'a>> {
    let dt = x_ty.dtype;
    let rank = x_ty.rank();
    let full: Vec<Idx> = (0..rank).map(Idx::Loop).collect();
    let kept = kept_map(rank, axes);
    let out_ty = reduced_type(x_ty, axes);
    let ident: Vec<Idx> = (0..out_ty.rank()).map(Idx::Loop).collect();
    let count = count_index(e, x, x_ty, axes)?;
    let i64_ty = crate::types::element_type(e.ctx, DType::I64);
    let n = e.append(arith::index_cast(count, i64_ty, e.loc))?;
    let n = scalar::convert(e, DType::I64, dt, n)?;
    let ddof_index = e.const_index(i64::from(ddof))?;
    let rest = e.append(arith::subi(count, ddof_index, e.loc))?;
    let zero = e.const_index(0)?;
    let rest = e.append(arith::maxsi(rest, zero, e.loc))?;
    let rest = e.append(arith::index_cast(rest, i64_ty, e.loc))?;
    let rest = scalar::convert(e, DType::I64, dt, rest)?;

    let total = fold(e, scope, ReduceOp::Sum, x, x_ty, axes)?;
    let mean = remap(e, scope, &out_ty, &[(total, ident.clone()), (n, vec![])], &[dt, dt], |inner, a| {
        scalar::binary(inner, BinaryOp::Div, dt, a[0], a[1])
    })?;
    let squares = remap(e, scope, x_ty, &[(x, full), (mean, kept)], &[dt, dt], |inner, a| {
        let d = scalar::binary(inner, BinaryOp::Sub, dt, a[0], a[1])?;
        scalar::binary(inner, BinaryOp::Mul, dt, d, d)
    })?;
    let ss = fold(e, scope, ReduceOp::Sum, squares, x_ty, axes)?;
    remap(e, scope, &out_ty, &[(ss, ident), (rest, vec![])], &[dt, dt], |inner, a| {
        let v = scalar::binary(inner, BinaryOp::Div, dt, a[0], a[1])?;
        if sqrt { scalar::unary(inner, UnaryOp::Sqrt, dt, v) } else { Ok(v) }
    })
}

/// `argmax(x, axis)` / `argmin`: the max (min) along the axis, NaN-propagating, then the
/// smallest index whose element equals it (or is NaN, when it is NaN). An empty axis fails.
pub fn arg<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    max: bool,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    axis: usize,
) -> Result<Value<'c, 'a>> {
    let dt = x_ty.dtype;
    let rank = x_ty.rank();
    if e.static_dim(x, axis).is_none_or(|n| n == 0) {
        let d = e.dim_value(x, axis)?;
        let zero = e.const_index(0)?;
        let nonzero = e.append(arith::cmpi(e.ctx, CmpiPredicate::Ne, d, zero, e.loc))?;
        let op = if max { "argmax" } else { "argmin" };
        e.check(nonzero, RuntimeCheck::EmptyReduction { op: op.to_string(), operand: x_ty.clone() })?;
    }
    let best_op = if max { ReduceOp::Max } else { ReduceOp::Min };
    let best = fold(e, scope, best_op, x, x_ty, &[axis])?;
    let full: Vec<Idx> = (0..rank).map(Idx::Loop).collect();
    let kept = kept_map(rank, &[axis]);
    let out_ty = TensorType::new(DType::I64, reduced_type(x_ty, &[axis]).dims);
    // Sizes of the result come from `best`, which has them.
    let ident: Vec<Idx> = (0..out_ty.rank()).map(Idx::Loop).collect();
    let sizes = super::elementwise::dynamic_sizes(e, scope, &out_ty.dims, &[(best, ident)])?;
    let none = e.const_int(DType::I64, i64::MAX)?;
    let init = e.filled(&static_shape(&out_ty.dims), DType::I64, &sizes, none)?;
    let iters: Vec<Iter> = (0..rank).map(|i| if i == axis { Iter::Reduction } else { Iter::Parallel }).collect();
    let inputs = [(x, full, e.elem(dt)), (best, kept.clone(), e.elem(dt))];
    e.generic(&inputs, init, &kept, e.elem(DType::I64), &iters, |inner, a| {
        let (v, b, acc) = (a[0], a[1], a[2]);
        let hit = if dt.is_float() {
            let equal = inner.append(arith::cmpf(inner.ctx, CmpfPredicate::Oeq, v, b, inner.loc))?;
            let nan = inner.append(arith::cmpf(inner.ctx, CmpfPredicate::Uno, v, v, inner.loc))?;
            inner.append(arith::ori(equal, nan, inner.loc))?
        } else {
            inner.append(arith::cmpi(inner.ctx, CmpiPredicate::Eq, v, b, inner.loc))?
        };
        let i = slices::loop_index(inner, axis)?;
        let i = inner.append(arith::index_cast(i, inner.elem(DType::I64), inner.loc))?;
        let none = inner.const_int(DType::I64, i64::MAX)?;
        let candidate = scalar::select(inner, hit, i, none)?;
        inner.append(arith::minsi(acc, candidate, inner.loc))
    })
}
