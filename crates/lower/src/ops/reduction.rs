//! The reduction family: `linalg.generic`s with reduction iterators for sum, max, min and
//! mean, and softmax / log-softmax built from them.

use melior::dialect::arith;
use melior::ir::Value;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::typed::{BinaryOp, ReduceOp, UnaryOp};
use ptl_lang::{DType, Dim, TensorType};

use super::elementwise::{dynamic_sizes, remap};
use super::scalar;
use crate::emitter::{Emitter, Idx, Iter, static_shape};
use crate::error::Result;
use crate::scope::Scope;

/// The type of `x` with `axes` removed.
pub(super) fn reduced_type(x_ty: &TensorType, axes: &[usize]) -> TensorType {
    let dims = x_ty.dims.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, d)| d.clone()).collect();
    TensorType::new(x_ty.dtype, dims)
}

/// Indexing of the reduced result inside the loop nest over all of `x`'s dims.
pub(super) fn kept_map(rank: usize, axes: &[usize]) -> Vec<Idx> {
    (0..rank).filter(|i| !axes.contains(i)).map(Idx::Loop).collect()
}

/// The value a reduction starts from.
fn identity<'c, 'a>(e: &Emitter<'c, 'a>, op: ReduceOp, dt: DType) -> Result<Value<'c, 'a>> {
    match (op, dt) {
        (ReduceOp::Sum | ReduceOp::Mean, _) => e.const_scalar(dt, 0.0),
        (ReduceOp::Max, DType::Bool) => e.const_scalar(dt, 0.0),
        (ReduceOp::Min, DType::Bool) => e.const_scalar(dt, 1.0),
        (ReduceOp::Max, DType::I32) => e.const_int(dt, i32::MIN as i64),
        (ReduceOp::Min, DType::I32) => e.const_int(dt, i32::MAX as i64),
        (ReduceOp::Max, DType::I64) => e.const_int(dt, i64::MIN),
        (ReduceOp::Min, DType::I64) => e.const_int(dt, i64::MAX),
        (ReduceOp::Max, _) => e.const_scalar(dt, f64::NEG_INFINITY),
        (ReduceOp::Min, _) => e.const_scalar(dt, f64::INFINITY),
        (ReduceOp::Prod | ReduceOp::All, _) => e.const_scalar(dt, 1.0),
        (ReduceOp::Any, _) => e.const_scalar(dt, 0.0),
        (ReduceOp::LogSumExp | ReduceOp::Var(_) | ReduceOp::Std(_), _) => {
            Err(crate::error::LowerError::Internal(format!("`{}` has no identity", op.name())))
        }
    }
}

/// `op` over `axes` of `x`; the result drops those axes.
pub fn reduce<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    op: ReduceOp,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    axes: &[usize],
) -> Result<Value<'c, 'a>> {
    if op.needs_elements() {
        check_not_empty(e, op, x, x_ty, axes)?;
    }
    let reduced = match op {
        ReduceOp::LogSumExp => super::statistics::logsumexp(e, scope, x, x_ty, axes)?,
        ReduceOp::Var(ddof) => super::statistics::var(e, scope, x, x_ty, axes, ddof, false)?,
        ReduceOp::Std(ddof) => super::statistics::var(e, scope, x, x_ty, axes, ddof, true)?,
        _ => fold(e, scope, op, x, x_ty, axes)?,
    };
    // IREE 3.13 miscompiles some reductions with dynamic dims fused into their consumers:
    // `sum(cast(min(broadcast(1, [1, 1, m]), 1), f32))` gave 1 for m = 4 (the MLIR is right;
    // iree-compile + iree-run-module alone give the same wrong value). Behind a barrier, such
    // a result is computed in its own dispatch.
    if reduced_type(x_ty, axes).dims.iter().any(|d| !matches!(d, ptl_lang::Dim::Static(_))) {
        return e.optimization_barrier(reduced);
    }
    Ok(reduced)
}

/// The reduction without the empty-axis check: softmax's max over an empty axis is never
/// read (the result is empty too).
pub(super) fn fold<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    op: ReduceOp,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    axes: &[usize],
) -> Result<Value<'c, 'a>> {
    let dt = x_ty.dtype;
    let out_ty = reduced_type(x_ty, axes);
    let rank = x_ty.rank();
    let in_idx: Vec<Idx> = (0..rank).map(Idx::Loop).collect();
    let out_idx = kept_map(rank, axes);

    // Result sizes come from x's kept dims.
    let kept: Vec<(Value<'c, 'a>, Vec<Idx>)> = vec![(x, (0..rank).map(|i| {
        match out_idx.iter().position(|o| *o == Idx::Loop(i)) {
            Some(p) => Idx::Loop(p),
            None => Idx::Zero,
        }
    }).collect())];
    let combine = match op {
        ReduceOp::Sum | ReduceOp::Mean => BinaryOp::Add,
        ReduceOp::Max | ReduceOp::Any => BinaryOp::Maximum,
        ReduceOp::Min | ReduceOp::All => BinaryOp::Minimum,
        ReduceOp::Prod => BinaryOp::Mul,
        ReduceOp::LogSumExp | ReduceOp::Var(_) | ReduceOp::Std(_) => {
            return Err(crate::error::LowerError::Internal(format!("`{}` is not a fold", op.name())));
        }
    };
    let total = if combine == BinaryOp::Add && axes.len() > 1 {
        // A sum over several axes is two sums: over the last of them, then over the others.
        // As one reduction, IREE 3.13 reads a sum of a broadcast product as a contraction
        // with several reduction dims, which it cannot compile (`sum(x * w)` with `x: f32[n,
        // m]`, `w: f32[m]`: "'vector.contract' op invalid accumulator/result vector shape")
        // or, with data tiling, crashes on (`sum(v * w, [1, 2])` with `v: f32[k, n, m]`).
        let last = *axes.iter().max().expect("several axes");
        let partial = fold(e, scope, ReduceOp::Sum, x, x_ty, &[last])?;
        let rest: Vec<usize> = axes.iter().copied().filter(|&a| a != last).collect();
        fold(e, scope, ReduceOp::Sum, partial, &reduced_type(x_ty, &[last]), &rest)?
    } else {
        let sizes = dynamic_sizes(e, scope, &out_ty.dims, &kept)?;
        let init_scalar = identity(e, op, dt)?;
        let init = e.filled(&static_shape(&out_ty.dims), dt, &sizes, init_scalar)?;
        let iters: Vec<Iter> = (0..rank).map(|i| if axes.contains(&i) { Iter::Reduction } else { Iter::Parallel }).collect();
        e.generic(&[(x, in_idx, e.elem(dt))], init, &out_idx, e.elem(dt), &iters, |inner, args| {
            scalar::binary(inner, combine, dt, args[1], args[0])
        })?
    };
    if op != ReduceOp::Mean {
        return Ok(total);
    }
    // mean = sum / count, with the count taken from the run-time sizes of the reduced axes.
    let count = count_index(e, x, x_ty, axes)?;
    let i64_ty = crate::types::element_type(e.ctx, DType::I64);
    let count = e.append(arith::index_cast(count, i64_ty, e.loc))?;
    let count = scalar::convert(e, DType::I64, dt, count)?;
    let n = out_ty.rank();
    let ident: Vec<Idx> = (0..n).map(Idx::Loop).collect();
    let count_input: Vec<(Value<'c, 'a>, Vec<Idx>)> = vec![(total, ident), (count, vec![])];
    remap(e, scope, &out_ty, &count_input, &[dt, dt], |inner, args| {
        scalar::binary(inner, BinaryOp::Div, dt, args[0], args[1])
    })
}

/// The number of elements each group of a reduction over `axes` has, as an `index`.
pub(super) fn count_index<'c, 'a>(e: &Emitter<'c, 'a>, x: Value<'c, 'a>, x_ty: &TensorType, axes: &[usize]) -> Result<Value<'c, 'a>> {
    let mut count = e.const_index(1)?;
    for &a in axes {
        let d = match &x_ty.dims[a] {
            Dim::Static(n) => e.const_index(*n as i64)?,
            _ => e.dim(x, a)?,
        };
        count = e.append(arith::muli(count, d, e.loc))?;
    }
    Ok(count)
}

/// `max` and `min` have no identity: the reduced axes must all be nonempty (NumPy's rule,
/// whether or not the result itself is empty).
fn check_not_empty<'c, 'a>(e: &Emitter<'c, 'a>, op: ReduceOp, x: Value<'c, 'a>, x_ty: &TensorType, axes: &[usize]) -> Result<()> {
    let mut ok: Option<Value<'c, 'a>> = None;
    for &a in axes {
        if matches!(x_ty.dims[a], Dim::Static(n) if n > 0) {
            continue;
        }
        let d = e.dim_value(x, a)?;
        let zero = e.const_index(0)?;
        let nonzero = e.append(arith::cmpi(e.ctx, arith::CmpiPredicate::Ne, d, zero, e.loc))?;
        ok = Some(match ok {
            Some(prev) => e.append(arith::andi(prev, nonzero, e.loc))?,
            None => nonzero,
        });
    }
    match ok {
        Some(cond) => e.check(cond, RuntimeCheck::EmptyReduction { op: op.name().to_string(), operand: x_ty.clone() }),
        None => Ok(()),
    }
}

/// `softmax(x, axis)` (or its log when `log`), subtracting the max along `axis` first.
pub fn softmax<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    axis: usize,
    log: bool,
) -> Result<Value<'c, 'a>> {
    let dt = x_ty.dtype;
    let rank = x_ty.rank();
    let full: Vec<Idx> = (0..rank).map(Idx::Loop).collect();
    let kept = kept_map(rank, &[axis]);
    let m = fold(e, scope, ReduceOp::Max, x, x_ty, &[axis])?;
    let shifted = remap(e, scope, x_ty, &[(x, full.clone()), (m, kept.clone())], &[dt, dt], |inner, a| {
        scalar::binary(inner, BinaryOp::Sub, dt, a[0], a[1])
    })?;
    let exps = remap(e, scope, x_ty, &[(shifted, full.clone())], &[dt], |inner, a| {
        scalar::unary(inner, UnaryOp::Exp, dt, a[0])
    })?;
    let s = reduce(e, scope, ReduceOp::Sum, exps, x_ty, &[axis])?;
    if log {
        remap(e, scope, x_ty, &[(shifted, full), (s, kept)], &[dt, dt], |inner, a| {
            let l = scalar::unary(inner, UnaryOp::Log, dt, a[1])?;
            scalar::binary(inner, BinaryOp::Sub, dt, a[0], l)
        })
    } else {
        remap(e, scope, x_ty, &[(exps, full), (s, kept)], &[dt, dt], |inner, a| {
            scalar::binary(inner, BinaryOp::Div, dt, a[0], a[1])
        })
    }
}
