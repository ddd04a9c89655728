//! The indexing family. Every read at a computed position is a `tensor.extract` inside a
//! parallel `linalg.generic` over the result, at a position that is in range by construction:
//! slice positions come from NumPy's clamped bounds, and single indices and gather indices
//! are clamped to the axis after their range check (IREE checks no bounds, and a failed
//! assertion need not stop a dispatch that was already scheduled). Where the axis read may be
//! empty, the read sits in an `scf.if` that skips it. Scatters read only through indexing
//! maps: a generic over the target with a reduction over the index positions, in order, so
//! repeated indices add up (`scatter_add`) or the last one wins (`scatter_set`).
//!
//! Bound arithmetic is in `i64` with NumPy's rules: no sum or difference here can overflow,
//! since each adds a negative value to a size or subtracts values clamped to `-1..=size`.

use melior::dialect::{arith, ods::linalg, ods::tensor, scf};
use melior::ir::attribute::IntegerAttribute;
use melior::ir::{Block, BlockLike, Region, RegionLike, Type, Value, ValueLike};
use ptl_lang::ops::SliceAxis;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::typed::{TExpr, TProgram};
use ptl_lang::{DType, Dim, TensorType};

use super::elementwise::dynamic_sizes;
use crate::emitter::{Emitter, Idx, Iter, static_shape};
use crate::error::{LowerError, Result};
use crate::expr;
use crate::scope::Scope;
use crate::types::DYNAMIC;

use arith::CmpiPredicate as P;

fn i64_ty<'c>(e: &Emitter<'c, '_>) -> Type<'c> {
    e.elem(DType::I64)
}

pub(super) fn c64<'c, 'a>(e: &Emitter<'c, 'a>, v: i64) -> Result<Value<'c, 'a>> {
    e.const_int(DType::I64, v)
}

pub(super) fn cmp<'c, 'a>(e: &Emitter<'c, 'a>, p: P, a: Value<'c, '_>, b: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    e.append(arith::cmpi(e.ctx, p, a, b, e.loc))
}

pub(super) fn sel<'c, 'a>(e: &Emitter<'c, 'a>, c: Value<'c, '_>, a: Value<'c, '_>, b: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    e.append(arith::select(c, a, b, e.loc))
}

pub(super) fn add<'c, 'a>(e: &Emitter<'c, 'a>, a: Value<'c, '_>, b: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    e.append(arith::addi(a, b, e.loc))
}

pub(super) fn sub<'c, 'a>(e: &Emitter<'c, 'a>, a: Value<'c, '_>, b: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    e.append(arith::subi(a, b, e.loc))
}

pub(super) fn to_index<'c, 'a>(e: &Emitter<'c, 'a>, v: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    e.append(arith::index_cast(v, e.index_type(), e.loc))
}

pub(super) fn to_i64<'c, 'a>(e: &Emitter<'c, 'a>, v: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    e.append(arith::index_cast(v, i64_ty(e), e.loc))
}

/// The value of a rank-0 tensor.
pub(super) fn scalar<'c, 'a>(e: &Emitter<'c, 'a>, t: Value<'c, 'a>, dtype: DType) -> Result<Value<'c, 'a>> {
    e.append(tensor::extract(e.ctx, e.elem(dtype), t, &[], e.loc).into())
}

/// `axis`'s size as `i64`.
fn size<'c, 'a>(e: &Emitter<'c, 'a>, x: Value<'c, 'a>, axis: usize) -> Result<Value<'c, 'a>> {
    let d = e.dim_value(x, axis)?;
    to_i64(e, d)
}

/// `i` counted from the end when negative: `i + len` (cannot overflow).
fn from_end<'c, 'a>(e: &Emitter<'c, 'a>, i: Value<'c, '_>, len: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    let zero = c64(e, 0)?;
    let neg = cmp(e, P::Slt, i, zero)?;
    let shifted = add(e, i, len)?;
    sel(e, neg, shifted, i)
}

/// Whether `0 <= p < len`.
fn in_range<'c, 'a>(e: &Emitter<'c, 'a>, p: Value<'c, '_>, len: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    let zero = c64(e, 0)?;
    let lo = cmp(e, P::Sge, p, zero)?;
    let hi = cmp(e, P::Slt, p, len)?;
    e.append(arith::andi(lo, hi, e.loc))
}

/// `p` clamped to `lo..=hi`.
fn clamp<'c, 'a>(e: &Emitter<'c, 'a>, p: Value<'c, '_>, lo: Value<'c, '_>, hi: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    let p = e.append(arith::maxsi(p, lo, e.loc))?;
    e.append(arith::minsi(p, hi, e.loc))
}

/// `p` clamped to a valid position of an axis of `len` elements (0 when it has none).
pub(super) fn clamp_to_axis<'c, 'a>(e: &Emitter<'c, 'a>, p: Value<'c, '_>, len: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    let zero = c64(e, 0)?;
    let one = c64(e, 1)?;
    let last = sub(e, len, one)?;
    let last = e.append(arith::maxsi(last, zero, e.loc))?;
    clamp(e, p, zero, last)
}

/// Reads `x[pos]` (positions as `i64`); under `guard` (an `i1`), only when it holds, else 0.
fn read<'c, 'a>(
    e: &Emitter<'c, 'a>,
    x: Value<'c, '_>,
    pos: &[Value<'c, 'a>],
    dtype: DType,
    guard: Option<Value<'c, '_>>,
) -> Result<Value<'c, 'a>> {
    let extract = |inner: &Emitter<'c, '_>| -> Result<()> {
        let idx = pos.iter().map(|p| to_index(inner, *p)).collect::<Result<Vec<_>>>()?;
        let v = inner.append(tensor::extract(inner.ctx, inner.elem(dtype), x, &idx, inner.loc).into())?;
        inner.block.append_operation(scf::r#yield(&[v], inner.loc));
        Ok(())
    };
    let Some(guard) = guard else {
        let idx = pos.iter().map(|p| to_index(e, *p)).collect::<Result<Vec<_>>>()?;
        return e.append(tensor::extract(e.ctx, e.elem(dtype), x, &idx, e.loc).into());
    };
    let then_block = Block::new(&[]);
    extract(&Emitter::new(e.ctx, &then_block, e.loc))?;
    let else_block = Block::new(&[]);
    {
        let inner = Emitter::new(e.ctx, &else_block, e.loc);
        let zero = inner.const_scalar(dtype, 0.0)?;
        inner.block.append_operation(scf::r#yield(&[zero], inner.loc));
    }
    let (then_region, else_region) = (Region::new(), Region::new());
    then_region.append_block(then_block);
    else_region.append_block(else_block);
    e.append(scf::r#if(guard, &[e.elem(dtype)], then_region, else_region, e.loc))
}

/// `linalg.index` of loop `d`, as `i64`.
pub(super) fn loop_index<'c, 'a>(e: &Emitter<'c, 'a>, d: usize) -> Result<Value<'c, 'a>> {
    let attr = IntegerAttribute::new(Type::parse(e.ctx, "i64").ok_or_else(|| LowerError::Internal("i64".into()))?, d as i64);
    let i = e.append(linalg::index(e.ctx, e.index_type(), attr, e.loc).into())?;
    to_i64(e, i)
}

/// The `i1` that is true when every dim of `guards` (sizes as `i64`) is nonzero.
fn all_nonzero<'c, 'a>(e: &Emitter<'c, 'a>, sizes: &[Value<'c, 'a>]) -> Result<Option<Value<'c, 'a>>> {
    let mut g: Option<Value<'c, 'a>> = None;
    for s in sizes {
        let zero = c64(e, 0)?;
        let nz = cmp(e, P::Sgt, *s, zero)?;
        g = Some(match g {
            Some(prev) => e.append(arith::andi(prev, nz, e.loc))?,
            None => nz,
        });
    }
    Ok(g)
}

/// The value of an integer literal operand.
fn literal_int(o: &TExpr) -> Option<i64> {
    match &o.kind {
        ptl_lang::typed::TExprKind::Literal(ptl_lang::Value::I64(a)) if a.len() == 1 => a.iter().next().copied(),
        ptl_lang::typed::TExprKind::Literal(ptl_lang::Value::I32(a)) if a.len() == 1 => a.iter().next().map(|&v| v as i64),
        _ => None,
    }
}

/// Where a read axis of `x` may be empty, its size (for the guard of `read`).
fn maybe_empty<'c, 'a>(e: &Emitter<'c, 'a>, x: Value<'c, 'a>, axis: usize, len: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
    match e.static_dim(x, axis) {
        Some(n) if n > 0 => None,
        _ => Some(len),
    }
}

/// A tensor read by `tensor.extract` inside a generic, behind a barrier, and the generic's
/// result behind another: fused with its producer or its consumers, the reading dispatch
/// would need a buffer sized by dynamic dims on the stack, which IREE 3.13 refuses
/// ("unbounded stack allocations", "exceeded stack allocation limit").
fn read_source<'c, 'a>(e: &Emitter<'c, 'a>, x: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    fence(e, x)
}

/// The most elements a tensor of static shape may have and still fuse across an indexing op.
const FUSED_STATIC_ELEMENTS: u64 = 512;

/// `value` behind a barrier (a dispatch of its own), unless its shape is static and small:
/// such a buffer fits IREE's stack limit whatever it fuses with, and each barrier costs a
/// dispatch and a buffer per call (a PyMC regression's logp and gradient, with eight slices
/// of static shapes: 22.1 us a call with the barriers, 16.6 us without).
pub(super) fn fence<'c, 'a>(e: &Emitter<'c, 'a>, value: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    let dims = crate::emitter::static_dims(value.r#type());
    let elements = dims.iter().try_fold(1u64, |n, d| d.and_then(|d| n.checked_mul(d)));
    match elements {
        Some(n) if n <= FUSED_STATIC_ELEMENTS => Ok(value),
        _ => e.optimization_barrier(value),
    }
}

/// How a source axis is read: position `start + i * step` for result loop `i`, or the fixed
/// position `start` (`loop_dim` None).
struct AxisRead<'c, 'a> {
    start: Value<'c, 'a>,
    step: Value<'c, 'a>,
    loop_dim: Option<usize>,
}

pub fn slice<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    node: &TExpr,
    operands: &[TExpr],
    axes: &[SliceAxis],
) -> Result<Value<'c, 'a>> {
    let x_ty = &operands[0].ty;
    let x = read_source(e, expr::lower(e, scope, prog, &operands[0])?)?;
    let mut bounds = Vec::new();
    for o in &operands[1..] {
        let v = expr::lower(e, scope, prog, o)?;
        let literal = matches!(o.kind, ptl_lang::typed::TExprKind::Literal(_));
        bounds.push((scalar(e, v, DType::I64)?, literal, literal_int(o)));
    }
    let mut bounds = bounds.into_iter();
    let mut next = || bounds.next().ok_or_else(|| LowerError::Internal("a missing slice bound".into()));
    let zero = c64(e, 0)?;
    let one = c64(e, 1)?;
    let mut reads = Vec::new();
    let mut counts = Vec::new();
    let mut maybe_empty_axes = Vec::new();
    for (axis, a) in axes.iter().enumerate() {
        let len = size(e, x, axis)?;
        match *a {
            SliceAxis::Full => {
                reads.push(AxisRead { start: zero, step: one, loop_dim: Some(counts.len()) });
                counts.push(len);
            }
            SliceAxis::Index => {
                let (i, _, literal) = next()?;
                let p = from_end(e, i, len)?;
                // A literal index into a static axis is checked here, once: in range, it needs
                // no run-time check (and a function without checks needs no checks-only run).
                let known_in_range = match (literal, &x_ty.dims[axis]) {
                    (Some(i), ptl_lang::Dim::Static(n)) => i >= -(*n as i64) && i < *n as i64,
                    _ => false,
                };
                if !known_in_range {
                    let ok = in_range(e, p, len)?;
                    e.check(ok, RuntimeCheck::Index { op: "[]".into(), ty: x_ty.clone(), axis })?;
                }
                maybe_empty_axes.extend(maybe_empty(e, x, axis, len));
                reads.push(AxisRead { start: clamp_to_axis(e, p, len)?, step: zero, loop_dim: None });
            }
            SliceAxis::Range { start, stop, step } => {
                let start = if start { Some(next()?.0) } else { None };
                let stop = if stop { Some(next()?.0) } else { None };
                let step = match step {
                    true => {
                        // A literal step is nonzero (the checker said so); another is checked,
                        // and 1 stands in for a 0 so that no division below is by zero.
                        let (s, literal, _) = next()?;
                        let nz = cmp(e, P::Ne, s, zero)?;
                        if !literal {
                            e.check(nz, RuntimeCheck::SliceStep { ty: x_ty.clone(), axis })?;
                        }
                        sel(e, nz, s, one)?
                    }
                    false => one,
                };
                let neg = cmp(e, P::Slt, step, zero)?;
                let minus_one = c64(e, -1)?;
                let last = sub(e, len, one)?;
                let lo = sel(e, neg, minus_one, zero)?;
                let hi = sel(e, neg, last, len)?;
                let bound = |v: Option<Value<'c, 'a>>, default: Value<'c, 'a>| -> Result<Value<'c, 'a>> {
                    match v {
                        Some(v) => {
                            let v = from_end(e, v, len)?;
                            clamp(e, v, lo, hi)
                        }
                        None => Ok(default),
                    }
                };
                let first = bound(start, sel(e, neg, hi, lo)?)?;
                let end = bound(stop, sel(e, neg, lo, hi)?)?;
                let fwd = sub(e, end, first)?;
                let back = sub(e, first, end)?;
                let span = sel(e, neg, back, fwd)?;
                let neg_step = sub(e, zero, step)?;
                let magnitude = sel(e, neg, neg_step, step)?;
                let span_1 = sub(e, span, one)?;
                let q = e.append(arith::divui(span_1, magnitude, e.loc))?;
                let q1 = add(e, q, one)?;
                let nonempty = cmp(e, P::Sgt, span, zero)?;
                let count = sel(e, nonempty, q1, zero)?;
                reads.push(AxisRead { start: first, step, loop_dim: Some(counts.len()) });
                counts.push(count);
            }
        }
    }
    let result = &node.ty;
    let shape = static_shape(&result.dims);
    let mut dynamic = Vec::new();
    for (i, s) in shape.iter().enumerate() {
        if *s == DYNAMIC {
            dynamic.push(to_index(e, counts[i])?);
        }
    }
    let init = e.empty(&shape, result.dtype, &dynamic)?;
    let guard = all_nonzero(e, &maybe_empty_axes)?;
    let dtype = result.dtype;
    let iters = vec![Iter::Parallel; result.rank()];
    let out_idx: Vec<Idx> = (0..result.rank()).map(Idx::Loop).collect();
    let sliced = e.generic(&[], init, &out_idx, e.elem(dtype), &iters, |inner, _| {
        let mut pos = Vec::new();
        for r in &reads {
            pos.push(match r.loop_dim {
                None => add(inner, r.start, inner.const_int(DType::I64, 0)?)?,
                Some(d) => {
                    let i = loop_index(inner, d)?;
                    let off = inner.append(arith::muli(i, r.step, inner.loc))?;
                    add(inner, r.start, off)?
                }
            });
        }
        read(inner, x, &pos, dtype, guard)
    })?;
    fence(e, sliced)
}

/// Checks that every element of `idx` is a valid position on an axis of `len` elements.
fn check_indices<'c, 'a>(
    e: &Emitter<'c, 'a>,
    idx: Value<'c, 'a>,
    idx_ty: &TensorType,
    len: Value<'c, 'a>,
    check: RuntimeCheck,
) -> Result<()> {
    let rank = idx_ty.rank();
    let yes = e.const_scalar(DType::Bool, 1.0)?;
    let init = e.filled(&[], DType::Bool, &[], yes)?;
    let all = e.generic(
        &[(idx, (0..rank).map(Idx::Loop).collect(), e.elem(DType::I64))],
        init,
        &[],
        e.i1(),
        &vec![Iter::Reduction; rank],
        |inner, args| {
            let p = from_end(inner, args[0], len)?;
            let ok = in_range(inner, p, len)?;
            inner.append(arith::andi(args[1], ok, inner.loc))
        },
    )?;
    let ok = scalar(e, all, DType::Bool)?;
    e.check(ok, check)
}

/// `take(x, idx, axis)`.
pub fn take<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    node: &TExpr,
    operands: &[TExpr],
    axis: usize,
) -> Result<Value<'c, 'a>> {
    let (x_ty, idx_ty) = (&operands[0].ty, &operands[1].ty);
    let x = read_source(e, expr::lower(e, scope, prog, &operands[0])?)?;
    let idx = expr::lower(e, scope, prog, &operands[1])?;
    let len = size(e, x, axis)?;
    check_indices(e, idx, idx_ty, len, RuntimeCheck::Index { op: "take".into(), ty: x_ty.clone(), axis })?;
    let k = idx_ty.rank();
    let result = &node.ty;
    let x_map: Vec<Idx> = (0..x_ty.rank())
        .map(|j| match j.cmp(&axis) {
            std::cmp::Ordering::Less => Idx::Loop(j),
            std::cmp::Ordering::Equal => Idx::Zero,
            std::cmp::Ordering::Greater => Idx::Loop(j - 1 + k),
        })
        .collect();
    let idx_map: Vec<Idx> = (0..k).map(|j| Idx::Loop(axis + j)).collect();
    let sizes = dynamic_sizes(e, scope, &result.dims, &[(x, x_map.clone()), (idx, idx_map.clone())])?;
    let init = e.empty(&static_shape(&result.dims), result.dtype, &sizes)?;
    let guard = all_nonzero(e, &maybe_empty(e, x, axis, len).into_iter().collect::<Vec<_>>())?;
    let dtype = result.dtype;
    let out_idx: Vec<Idx> = (0..result.rank()).map(Idx::Loop).collect();
    let iters = vec![Iter::Parallel; result.rank()];
    let gathered = e.generic(&[(idx, idx_map, e.elem(DType::I64))], init, &out_idx, e.elem(dtype), &iters, |inner, args| {
        let p = from_end(inner, args[0], len)?;
        let p = clamp_to_axis(inner, p, len)?;
        let mut pos = Vec::new();
        for m in &x_map {
            pos.push(match m {
                Idx::Loop(d) => loop_index(inner, *d)?,
                Idx::Zero => p,
            });
        }
        read(inner, x, &pos, dtype, guard)
    })?;
    fence(e, gathered)
}

/// `scatter_add` / `scatter_set`: a generic over the target's dims (parallel) and the index
/// positions (reduction, in row-major order), starting from the target.
pub fn scatter<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    _node: &TExpr,
    operands: &[TExpr],
    add_up: bool,
) -> Result<Value<'c, 'a>> {
    let (t_ty, idx_ty) = (&operands[0].ty, &operands[1].ty);
    let target = expr::lower(e, scope, prog, &operands[0])?;
    let idx = expr::lower(e, scope, prog, &operands[1])?;
    let values = expr::lower(e, scope, prog, &operands[2])?;
    let op = if add_up { "scatter_add" } else { "scatter_set" };
    let len = size(e, target, 0)?;
    check_indices(e, idx, idx_ty, len, RuntimeCheck::Index { op: op.into(), ty: t_ty.clone(), axis: 0 })?;
    // Loops: the target's dims (0..n), then the index's (n..n+k).
    let (n, k) = (t_ty.rank(), idx_ty.rank());
    // The values have the index's dims, then the target's after the first; their sizes must
    // agree with the loops that read them.
    let v_ty = &operands[2].ty;
    let mut checked = false;
    let mut sizes = Vec::new();
    let idx_loops: Vec<Idx> = (0..k).map(|j| Idx::Loop(n + j)).collect();
    let mut v_map = idx_loops.clone();
    v_map.extend((1..n).map(Idx::Loop));
    for (j, m) in v_map.iter().enumerate() {
        let Idx::Loop(l) = *m else { continue };
        let (carrier, axis) = if l >= n { (idx, l - n) } else { (target, l) };
        if let (Some(a), Some(b)) = (e.static_dim(values, j), e.static_dim(carrier, axis))
            && a == b
        {
            sizes.push(None);
            continue;
        }
        let (have, want) = (e.dim_value(values, j)?, e.dim_value(carrier, axis)?);
        sizes.push(Some(want));
        let check = RuntimeCheck::Broadcast { from: v_ty.clone(), to: v_ty.clone(), axis: j };
        e.check_equal(have, want, check)?;
        checked = true;
    }
    // Past the check, sizes IREE can see (of constant operands) must not contradict the
    // loops: the values take the sizes they were checked to have.
    let values = if checked { e.with_checked_sizes(values, &sizes)? } else { values };
    let dtype = t_ty.dtype;
    // The accumulator starts from a computed copy of the target, not the target itself:
    // IREE 3.13 cannot update a constant target in place, and folds a plain copy away. The
    // copy is the target where the index is empty and zeros otherwise; then the first index
    // position (all index loops at 0) starts from the target.
    let ident: Vec<Idx> = (0..n).map(Idx::Loop).collect();
    let mut count = e.const_index(1)?;
    for j in 0..k {
        let d = e.dim_value(idx, j)?;
        count = e.append(arith::muli(count, d, e.loc))?;
    }
    let none = e.const_index(0)?;
    let empty = cmp(e, P::Eq, count, none)?;
    let init = super::elementwise::remap(e, scope, t_ty, &[(target, ident.clone())], &[dtype], |inner, args| {
        let zero = inner.const_scalar(dtype, 0.0)?;
        sel(inner, empty, args[0], zero)
    })?;
    let mut iters = vec![Iter::Parallel; n];
    iters.extend(vec![Iter::Reduction; k]);
    let scattered = e.generic(
        &[(target, ident.clone(), e.elem(dtype)), (idx, idx_loops, e.elem(DType::I64)), (values, v_map, e.elem(dtype))],
        init,
        &ident,
        e.elem(dtype),
        &iters,
        |inner, args| {
            let mut first = inner.const_scalar(DType::Bool, 1.0)?;
            for l in n..n + k {
                let i = loop_index(inner, l)?;
                let z = inner.const_int(DType::I64, 0)?;
                let at0 = cmp(inner, P::Eq, i, z)?;
                first = inner.append(arith::andi(first, at0, inner.loc))?;
            }
            let base = sel(inner, first, args[0], args[3])?;
            let row = loop_index(inner, 0)?;
            let p = from_end(inner, args[1], len)?;
            let hit = cmp(inner, P::Eq, p, row)?;
            let new = if add_up { super::scalar::binary(inner, ptl_lang::typed::BinaryOp::Add, dtype, base, args[2])? } else { args[2] };
            sel(inner, hit, new, base)
        },
    )?;
    // A dispatch of its own unless small and static: fused with a consumer that reduces,
    // IREE 3.13 sizes a stack buffer by the unbounded dynamic dims and fails to compile.
    fence(e, scattered)
}

/// `set_slice(x, value, a, b)`: a generic over `x` that reads `value` inside rows `a:b`.
pub fn set_slice<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    node: &TExpr,
    operands: &[TExpr],
) -> Result<Value<'c, 'a>> {
    let x_ty = &operands[0].ty;
    let v_ty = &operands[1].ty;
    let x = expr::lower(e, scope, prog, &operands[0])?;
    let value = read_source(e, expr::lower(e, scope, prog, &operands[1])?)?;
    let a = expr::lower(e, scope, prog, &operands[2])?;
    let b = expr::lower(e, scope, prog, &operands[3])?;
    let (a, b) = (scalar(e, a, DType::I64)?, scalar(e, b, DType::I64)?);
    let len = size(e, x, 0)?;
    let zero = c64(e, 0)?;
    let start = from_end(e, a, len)?;
    let start = clamp(e, start, zero, len)?;
    let stop = from_end(e, b, len)?;
    let stop = clamp(e, stop, zero, len)?;
    let stop = e.append(arith::maxsi(stop, start, e.loc))?;
    let count = sub(e, stop, start)?;
    let stretched = v_ty.dims[0] == Dim::Static(1);
    let lead = size(e, value, 0)?;
    if !stretched {
        let fits = cmp(e, P::Eq, lead, count)?;
        e.check(fits, RuntimeCheck::SetSlice { ty: x_ty.clone(), value: v_ty.clone() })?;
    }
    // The value's other dims equal x's (the checker broadcast them); where either is not
    // static they are checked as a broadcast.
    for j in 1..x_ty.rank() {
        if let (Some(p), Some(q)) = (e.static_dim(value, j), e.static_dim(x, j))
            && p == q
        {
            continue;
        }
        let (have, want) = (e.dim_value(value, j)?, e.dim_value(x, j)?);
        e.check_equal(have, want, RuntimeCheck::Broadcast { from: v_ty.clone(), to: x_ty.clone(), axis: j })?;
    }
    let result = &node.ty;
    let dtype = result.dtype;
    let rank = result.rank();
    let ident: Vec<Idx> = (0..rank).map(Idx::Loop).collect();
    let sizes = dynamic_sizes(e, scope, &result.dims, &[(x, ident.clone())])?;
    let init = e.empty(&static_shape(&result.dims), dtype, &sizes)?;
    let v_dims: Vec<Value<'c, 'a>> = (1..rank).map(|j| size(e, value, j)).collect::<Result<_>>()?;
    let replaced = e.generic(&[(x, ident.clone(), e.elem(dtype))], init, &ident, e.elem(dtype), &vec![Iter::Parallel; rank], |inner, args| {
        let r = loop_index(inner, 0)?;
        let rel = sub(inner, r, start)?;
        let zero = inner.const_int(DType::I64, 0)?;
        let mut inside = in_range(inner, rel, count)?;
        let row = if stretched { zero } else {
            let fits = in_range(inner, rel, lead)?;
            inside = inner.append(arith::andi(inside, fits, inner.loc))?;
            clamp_to_axis(inner, rel, lead)?
        };
        let mut pos = vec![row];
        for (j, d) in v_dims.iter().enumerate() {
            let i = loop_index(inner, j + 1)?;
            let ok = in_range(inner, i, *d)?;
            inside = inner.append(arith::andi(inside, ok, inner.loc))?;
            pos.push(i);
        }
        let then_block = Block::new(&[]);
        {
            let t = Emitter::new(inner.ctx, &then_block, inner.loc);
            let idx = pos.iter().map(|p| to_index(&t, *p)).collect::<Result<Vec<_>>>()?;
            let v = t.append(tensor::extract(t.ctx, t.elem(dtype), value, &idx, t.loc).into())?;
            t.block.append_operation(scf::r#yield(&[v], t.loc));
        }
        let else_block = Block::new(&[]);
        else_block.append_operation(scf::r#yield(&[args[0]], inner.loc));
        let (tr, er) = (Region::new(), Region::new());
        tr.append_block(then_block);
        er.append_block(else_block);
        inner.append(scf::r#if(inside, &[inner.elem(dtype)], tr, er, inner.loc))
    })?;
    fence(e, replaced)
}
