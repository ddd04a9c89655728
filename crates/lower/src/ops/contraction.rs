//! The contraction family: `@` as linalg's named products (dot / matvec / vecmat / matmul /
//! batch matmul, which IREE tiles well) or a contraction `linalg.generic`.

use melior::ir::Value;
use ptl_lang::TensorType;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::typed::BinaryOp;

use super::elementwise::dynamic_sizes;
use super::scalar;
use crate::emitter::{Emitter, Idx, Iter, static_shape};
use crate::error::{LowerError, Result};
use crate::host;
use crate::scope::Scope;
use melior::ir::Block;

pub fn matmul<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    a: Value<'c, 'a>,
    a_ty: &TensorType,
    b: Value<'c, 'a>,
    b_ty: &TensorType,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    use Idx::Loop;
    let (ra, rb) = (a_ty.rank(), b_ty.rank());
    // Loop order: batch dims, result rows, result cols, then the contracted dim last.
    let (a_idx, b_idx, out_idx, n_loops): (Vec<Idx>, Vec<Idx>, Vec<Idx>, usize) = match (ra, rb) {
        (1, 1) => (vec![Loop(0)], vec![Loop(0)], vec![], 1),
        (2, 1) => (vec![Loop(0), Loop(1)], vec![Loop(1)], vec![Loop(0)], 2),
        (1, 2) => (vec![Loop(1)], vec![Loop(1), Loop(0)], vec![Loop(0)], 2),
        (n, m) if n == m && n >= 2 => {
            let batch: Vec<Idx> = (0..n - 2).map(Loop).collect();
            let (i, j, k) = (Loop(n - 2), Loop(n - 1), Loop(n));
            let mut ai = batch.clone();
            ai.extend([i, k]);
            let mut bi = batch.clone();
            bi.extend([k, j]);
            let mut oi = batch;
            oi.extend([i, j]);
            (ai, bi, oi, n + 1)
        }
        _ => {
            return Err(LowerError::Internal(format!("matmul of ranks {ra} and {rb}")));
        }
    };
    // Dims that must agree, in the interpreter's order: the contracted one, then the batch
    // dims (which do not broadcast).
    let inner = match (ra, rb) {
        (1, 1) | (1, 2) => (0, 0),
        (2, 1) => (1, 0),
        (n, _) => (n - 1, n - 2),
    };
    let mut pairs = vec![(inner, RuntimeCheck::MatMulInner { lhs: a_ty.clone(), rhs: b_ty.clone() })];
    if ra == rb && ra > 2 {
        pairs.extend((0..ra - 2).map(|i| ((i, i), RuntimeCheck::MatMulBatch { lhs: a_ty.clone(), rhs: b_ty.clone(), axis: i })));
    }
    for ((i, j), check) in pairs {
        if e.static_dim(a, i).is_none() || e.static_dim(b, j).is_none() {
            let (da, db) = (e.dim_value(a, i)?, e.dim_value(b, j)?);
            e.check_equal(da, db, check)?;
        }
    }
    let dt = result.dtype;
    if let (2, 2, ptl_lang::DType::F64, Some(from)) = (ra, rb, dt, crate::host::matmul_from()) {
        let ty = crate::types::tensor_type(e.ctx, result);
        let idx = (&a_idx[..], &b_idx[..], &out_idx[..]);
        return match host::plan_matmul(e, a, b, from)? {
            host::Plan::Host => host::call_matmul(e, a, b, ty),
            host::Plan::Compiled => compiled(e, scope, a, b, result, idx, n_loops),
            host::Plan::Either(large) => {
                let then_block = Block::new(&[]);
                {
                    let inner = Emitter::new(e.ctx, &then_block, e.loc);
                    let v = host::call_matmul(&inner, a, b, ty)?;
                    host::yield_value(&inner, v);
                }
                let else_block = Block::new(&[]);
                {
                    let inner = Emitter::new(e.ctx, &else_block, e.loc);
                    let v = compiled(&inner, scope, a, b, result, idx, n_loops)?;
                    host::yield_value(&inner, v);
                }
                let mut dims = Vec::new();
                // The result's rows are `a`'s, its columns `b`'s.
                for (out_axis, (v, axis)) in [(a, 0), (b, 1)].into_iter().enumerate() {
                    if crate::emitter::static_dims(ty)[out_axis].is_none() {
                        dims.push(e.dim(v, axis)?);
                    }
                }
                host::branch(e, large, ty, &dims, then_block, else_block)
            }
        };
    }
    compiled(e, scope, a, b, result, (&a_idx, &b_idx, &out_idx), n_loops)
}

/// The product as IREE compiles it.
fn compiled<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    result: &TensorType,
    (a_idx, b_idx, out_idx): (&[Idx], &[Idx], &[Idx]),
    n_loops: usize,
) -> Result<Value<'c, 'a>> {
    use Idx::Loop;
    let (ra, rb) = (a_idx.len(), b_idx.len());
    let iters: Vec<Iter> = (0..n_loops).map(|l| if l == n_loops - 1 { Iter::Reduction } else { Iter::Parallel }).collect();
    // Sizes of the result dims, read off the operands at the positions feeding each loop.
    let to_out = |idx: &[Idx]| -> Vec<Idx> {
        idx.iter()
            .map(|x| match x {
                Loop(l) => out_idx.iter().position(|o| *o == Loop(*l)).map(Loop).unwrap_or(Idx::Zero),
                Idx::Zero => Idx::Zero,
            })
            .collect()
    };
    let sizes = dynamic_sizes(e, scope, &result.dims, &[(a, to_out(a_idx)), (b, to_out(b_idx))])?;
    let dt = result.dtype;
    let zero = e.const_scalar(dt, 0.0)?;
    let init = e.filled(&static_shape(&result.dims), dt, &sizes, zero)?;
    // The named ops IREE knows best; other ranks (and bool) as a contraction generic.
    let named = match (ra, rb) {
        (1, 1) => Some("linalg.dot"),
        (2, 1) => Some("linalg.matvec"),
        (1, 2) => Some("linalg.vecmat"),
        (2, 2) => Some("linalg.matmul"),
        (3, 3) => Some("linalg.batch_matmul"),
        _ => None,
    };
    // IREE 3.13 with data tiling miscomputes an f32 batched product whose operand is fused
    // from a normalisation (`w / sum(w)`, softmax) when the batch is static and the other
    // dims dynamic: every batch after the first came out zero. Operands behind a barrier are
    // materialised first, which avoids it (crates/rt/tests/it/iree_workarounds.rs).
    let (a, b) = if ra == rb && ra >= 3 && dt == ptl_lang::DType::F32 {
        (e.optimization_barrier(a)?, e.optimization_barrier(b)?)
    } else {
        (a, b)
    };
    if let Some(name) = named.filter(|_| dt != ptl_lang::DType::Bool) {
        if ra >= 3 {
            return unless_empty(e, name, a, b, init);
        }
        return e.named_linalg(name, &[a, b], init);
    }
    let el = e.elem(dt);
    e.generic(&[(a, a_idx.to_vec(), el), (b, b_idx.to_vec(), el)], init, out_idx, el, &iters, |inner, args| {
        let p = scalar::binary(inner, BinaryOp::Mul, dt, args[0], args[1])?;
        scalar::binary(inner, BinaryOp::Add, dt, args[2], p)
    })
}

/// The named product `name` of `a` and `b` into `init`, or `init` itself (the zero-filled
/// result) when an operand has a zero-size dim, decided on the host. IREE 3.13's code for some batched products with a zero-size dim
/// divides by zero (SIGFPE, the process killed): seen with a constant splat operand and an
/// empty contracted or column dim (`crates/rt/tests/it/iree_workarounds.rs`).
fn unless_empty<'c, 'a>(
    e: &Emitter<'c, 'a>,
    name: &str,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    init: Value<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    use melior::dialect::arith;
    use melior::ir::ValueLike;
    let mut empty = None;
    let zero = e.const_index(0)?;
    for v in [a, b] {
        for (axis, size) in crate::emitter::static_dims(v.r#type()).into_iter().enumerate() {
            match size {
                Some(0) => return Ok(init),
                Some(_) => {}
                None => {
                    let is_zero = e.append(arith::cmpi(e.ctx, arith::CmpiPredicate::Eq, e.dim(v, axis)?, zero, e.loc))?;
                    empty = Some(match empty {
                        Some(any) => e.append(arith::ori(any, is_zero, e.loc))?,
                        None => is_zero,
                    });
                }
            }
        }
    }
    let Some(empty) = empty else { return e.named_linalg(name, &[a, b], init) };
    let ty = init.r#type();
    let then_block = Block::new(&[]);
    host::yield_value(&Emitter::new(e.ctx, &then_block, e.loc), init);
    let else_block = Block::new(&[]);
    {
        let inner = Emitter::new(e.ctx, &else_block, e.loc);
        let v = inner.named_linalg(name, &[a, b], init)?;
        host::yield_value(&inner, v);
    }
    let mut dims = Vec::new();
    for (axis, size) in crate::emitter::static_dims(ty).into_iter().enumerate() {
        if size.is_none() {
            dims.push(e.dim(init, axis)?);
        }
    }
    host::branch(e, empty, ty, &dims, then_block, else_block)
}
