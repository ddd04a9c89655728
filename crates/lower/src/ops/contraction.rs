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
use crate::scope::Scope;

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
    let sizes = dynamic_sizes(e, scope, &result.dims, &[(a, to_out(&a_idx)), (b, to_out(&b_idx))])?;
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
        return e.named_linalg(name, &[a, b], init);
    }
    let el = e.elem(dt);
    e.generic(&[(a, a_idx, el), (b, b_idx, el)], init, &out_idx, el, &iters, |inner, args| {
        let p = scalar::binary(inner, BinaryOp::Mul, dt, args[0], args[1])?;
        scalar::binary(inner, BinaryOp::Add, dt, args[2], p)
    })
}
