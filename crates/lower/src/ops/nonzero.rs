//! `flatnonzero(a)`, and the positions `x[mask]` gathers: the row-major positions of the
//! nonzero elements, whose number is known only when the program runs.
//!
//! The flattened operand is cut into blocks of [`BLOCK`] elements. One generic counts each
//! block's nonzero elements, a second sums the counts of the blocks before each block (the
//! work is quadratic in the number of blocks: about 10^6 steps for 10^6 elements), and the
//! total sizes the result. Result element `k` then finds its block by a binary search over
//! those offsets and walks the block to its element, so every element is found
//! independently. Every read is clamped into the operand, as the other indexing ops' reads.

use melior::dialect::arith;
use melior::ir::Value;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::typed::{TExpr, TProgram};
use ptl_lang::{DType, Dim, TensorType};

use super::control::while_loop;
use super::fbuild::{F, V};
use super::indexing::{c64, clamp_to_axis, cmp, fence, loop_index, scalar, sel, to_index, to_i64};
use super::layout;
use crate::emitter::{Emitter, Idx, Iter};
use crate::error::Result;
use crate::expr;
use crate::scope::Scope;

use arith::CmpiPredicate as P;

/// Elements per block.
const BLOCK: i64 = 1024;

/// Whether the element `v` of dtype `dt` is not zero (a NaN is not zero), as an `i1`.
fn is_nonzero<'c, 'a>(e: &Emitter<'c, 'a>, dt: DType, v: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    match dt {
        DType::Bool => Ok(v),
        DType::F32 | DType::F64 => {
            let zero = e.const_scalar(dt, 0.0)?;
            e.append(arith::cmpf(e.ctx, arith::CmpfPredicate::Une, v, zero, e.loc))
        }
        _ => {
            let zero = e.const_scalar(dt, 0.0)?;
            e.append(arith::cmpi(e.ctx, P::Ne, v, zero, e.loc))
        }
    }
}

/// Whether the flat operand's element at `p` (an `i64` clamped into it) is not zero.
fn nonzero_at<'c, 'a>(e: &Emitter<'c, 'a>, flat: Value<'c, '_>, dt: DType, p: Value<'c, '_>, n: Value<'c, '_>) -> Result<Value<'c, 'a>> {
    let p = clamp_to_axis(e, p, n)?;
    let i = to_index(e, p)?;
    let v = e.append(melior::dialect::ods::tensor::extract(e.ctx, e.elem(dt), flat, &[i], e.loc).into())?;
    is_nonzero(e, dt, v)
}

/// For each block `b` of `nb`, the sum over the elements of the `i64` vector `along` (at `j`)
/// of `term(b, j, along[j])` (as `i64`s).
fn block_sums<'c, 'a>(
    e: &Emitter<'c, 'a>,
    along: Value<'c, 'a>,
    nb: Value<'c, 'a>,
    term: impl for<'b> FnOnce(&Emitter<'c, 'b>, Value<'c, 'b>, Value<'c, 'b>, Value<'c, 'b>) -> Result<Value<'c, 'b>>,
) -> Result<Value<'c, 'a>> {
    let i64_ty = e.elem(DType::I64);
    let zero = c64(e, 0)?;
    let init = e.filled(&[crate::types::DYNAMIC as u64], DType::I64, &[nb], zero)?;
    e.generic(&[(along, vec![Idx::Loop(1)], i64_ty)], init, &[Idx::Loop(0)], i64_ty, &[Iter::Parallel, Iter::Reduction], |g, args| {
        let (b, j) = (loop_index(g, 0)?, loop_index(g, 1)?);
        let t = term(g, b, j, args[0])?;
        g.append(arith::addi(args[1], t, g.loc))
    })
}

/// `flatnonzero(a)`, or with a second operand (`x[mask]`) after checking that `a`'s dims are
/// that operand's leading dims.
pub fn flatnonzero<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    operands: &[TExpr],
) -> Result<Value<'c, 'a>> {
    let a_ty = &operands[0].ty;
    let dt = a_ty.dtype;
    let a = expr::lower(e, scope, prog, &operands[0])?;
    if let Some(like) = operands.get(1) {
        let w = expr::lower(e, scope, prog, like)?;
        for axis in 0..a_ty.rank() {
            if matches!((&a_ty.dims[axis], &like.ty.dims[axis]), (Dim::Static(m), Dim::Static(n)) if m == n) {
                continue;
            }
            let (m, n) = (e.dim_value(a, axis)?, e.dim_value(w, axis)?);
            e.check_equal(m, n, RuntimeCheck::Mask { mask: a_ty.clone(), ty: like.ty.clone(), axis })?;
        }
    }
    let flat_ty = TensorType::new(dt, vec![Dim::Unknown]);
    let flat = if a_ty.rank() == 1 { a } else { layout::reshape(e, scope, a, a_ty, None, &flat_ty)? };
    let flat = fence(e, flat)?;
    let n = to_i64(e, e.dim_value(flat, 0)?)?;
    let block = c64(e, BLOCK)?;
    let nb = {
        let up = e.append(arith::addi(n, c64(e, BLOCK - 1)?, e.loc))?;
        e.append(arith::divsi(up, block, e.loc))?
    };
    let nb_index = to_index(e, nb)?;
    let i64_ty = e.elem(DType::I64);
    let zero = c64(e, 0)?;

    // Each block's count. The loop over a block's elements takes its range from a static
    // operand of BLOCK zeros, added to the count.
    let lanes = e.filled(&[BLOCK as u64], DType::I64, &[], zero)?;
    let counts = block_sums(e, lanes, nb_index, |g, b, j, lane| {
        let base = g.append(arith::muli(b, c64(g, BLOCK)?, g.loc))?;
        let p = g.append(arith::addi(base, j, g.loc))?;
        let inside = cmp(g, P::Slt, p, n)?;
        let nz = nonzero_at(g, flat, dt, p, n)?;
        let hit = g.append(arith::andi(inside, nz, g.loc))?;
        let one = g.append(arith::extui(hit, g.elem(DType::I64), g.loc))?;
        g.append(arith::addi(one, lane, g.loc))
    })?;
    // The counts of the blocks before each block.
    let offsets = block_sums(e, counts, nb_index, |g, b, j, count| {
        let before = cmp(g, P::Slt, j, b)?;
        sel(g, before, count, c64(g, 0)?)
    })?;
    let offsets = fence(e, offsets)?;
    let total = {
        let init = e.filled(&[], DType::I64, &[], zero)?;
        let sum = e.generic(&[(counts, vec![Idx::Loop(0)], i64_ty)], init, &[], i64_ty, &[Iter::Reduction], |g, args| {
            g.append(arith::addi(args[1], args[0], g.loc))
        })?;
        scalar(e, sum, DType::I64)?
    };
    let total_index = to_index(e, total)?;

    let init = e.empty(&[crate::types::DYNAMIC as u64], DType::I64, &[total_index])?;
    let positions = e.generic(&[], init, &[Idx::Loop(0)], i64_ty, &[Iter::Parallel], |g, _| {
        let k = loop_index(g, 0)?;
        let f = F::new(g);
        // The last block whose offset is at most k: it holds element k.
        let last = g.append(arith::subi(nb, c64(g, 1)?, g.loc))?;
        let found = while_loop(f, &[], &[c64(g, 0)?, last], 64, |h, _, s| {
            let e = h.e;
            let (lo, hi) = (s[0], s[1]);
            let sum = e.append(arith::addi(lo, hi, e.loc))?;
            let sum = e.append(arith::addi(sum, c64(e, 1)?, e.loc))?;
            let mid = e.append(arith::shrsi(sum, c64(e, 1)?, e.loc))?;
            let mid_at = clamp_to_axis(e, mid, nb)?;
            let at = to_index(e, mid_at)?;
            let offset = e.append(melior::dialect::ods::tensor::extract(e.ctx, e.elem(DType::I64), offsets, &[at], e.loc).into())?;
            let le = cmp(e, P::Sle, offset, k)?;
            let below = e.append(arith::subi(mid, c64(e, 1)?, e.loc))?;
            let lo2 = sel(e, le, mid, lo)?;
            let hi2 = sel(e, le, hi, below)?;
            let go = cmp(e, P::Slt, lo2, hi2)?;
            Ok((vec![lo2, hi2], go))
        })?;
        let b = clamp_to_axis(g, found[0], nb)?;
        let at = to_index(g, b)?;
        let offset = g.append(melior::dialect::ods::tensor::extract(g.ctx, g.elem(DType::I64), offsets, &[at], g.loc).into())?;
        let base = g.append(arith::muli(b, c64(g, BLOCK)?, g.loc))?;
        let rank_in_block = g.append(arith::subi(k, offset, g.loc))?;
        // Walk the block to its (rank_in_block + 1)-th nonzero element.
        let walked = while_loop(f, &[], &[c64(g, 0)?, rank_in_block], BLOCK + 1, |h, _, s| {
            let e = h.e;
            let (j, left) = (s[0], s[1]);
            let p = e.append(arith::addi(base, j, e.loc))?;
            let nz = nonzero_at(e, flat, dt, p, n)?;
            let none_left = cmp(e, P::Eq, left, c64(e, 0)?)?;
            let hit = e.append(arith::andi(nz, none_left, e.loc))?;
            let dec = e.append(arith::extui(nz, e.elem(DType::I64), e.loc))?;
            let left2 = e.append(arith::subi(left, dec, e.loc))?;
            let next = e.append(arith::addi(j, c64(e, 1)?, e.loc))?;
            let j2 = sel(e, hit, j, next)?;
            let room = cmp(e, P::Slt, j2, c64(e, BLOCK)?)?;
            let miss = h.not(hit)?;
            let go = e.append(arith::andi(miss, room, e.loc))?;
            Ok((vec![j2, left2], go))
        })?;
        let p = g.append(arith::addi(base, walked[0], g.loc))?;
        clamp_to_axis(g, p, n)
    })?;
    let _: V = positions;
    fence(e, positions)
}
