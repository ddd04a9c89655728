//! Explicit broadcasting: the checker wraps every operand of an elementwise op whose dims
//! differ from the result's in an `Op::Broadcast` node, so the backends see operands of the
//! result's shape and implement the broadcasting rule once, at that node.
//!
//! A result dim that is `?` has no size of its own: an operand that stretches into it (a static
//! 1, or a missing leading dim) takes the size from a sibling that carries the `?`. That
//! sibling is named as the broadcast's second operand, the *shape witness*: a copy of the
//! smallest sub-expression with the sibling's shape (usually a parameter), so the copy costs
//! next to nothing.

use crate::ops::{Family, Op};
use crate::typed::{TExpr, TExprKind};
use crate::types::{Dim, TensorType};

/// `dims` padded on the left with static 1s to `rank`.
fn aligned(dims: &[Dim], rank: usize) -> Vec<Dim> {
    let mut v = vec![Dim::Static(1); rank - dims.len()];
    v.extend(dims.iter().cloned());
    v
}

/// Whether an operand of dims `have` carries result axis `i` at full size.
fn carries(have: &[Dim], rank: usize, i: usize) -> bool {
    let off = rank - have.len();
    i >= off && have[i - off] != Dim::Static(1)
}

/// Wraps each operand in the broadcasts that give it `dims` (the operands broadcast together
/// to `dims` by the checker's rule).
pub(crate) fn explicit(operands: Vec<TExpr>, dims: &[Dim]) -> Vec<TExpr> {
    let rank = dims.len();
    let shapes: Vec<Vec<Dim>> = operands.iter().map(|o| o.ty.dims.clone()).collect();
    // For every `?` result axis, the first operand that carries it, and that operand's witness.
    let mut witnesses: Vec<Option<TExpr>> = vec![None; operands.len()];
    for i in 0..rank {
        if dims[i] != Dim::Unknown {
            continue;
        }
        if let Some(j) = (0..shapes.len()).find(|&j| carries(&shapes[j], rank, i)) {
            if witnesses[j].is_none() {
                witnesses[j] = Some(witness(&operands[j]));
            }
        }
    }
    operands
        .into_iter()
        .enumerate()
        .map(|(k, operand)| {
            if operand.ty.dims == dims {
                return operand;
            }
            let mut current = operand;
            // One stage per witness that carries some of the `?` axes this operand stretches
            // into; each stage stretches just those axes.
            let mut needed: Vec<usize> =
                (0..rank).filter(|&i| dims[i] == Dim::Unknown && !carries(&shapes[k], rank, i)).collect();
            while let Some(&first) = needed.first() {
                let Some(j) = (0..shapes.len()).find(|&j| j != k && carries(&shapes[j], rank, first)) else {
                    break;
                };
                let (_, rest): (Vec<usize>, Vec<usize>) = needed.iter().partition(|&&i| carries(&shapes[j], rank, i));
                let cur = aligned(&current.ty.dims, rank);
                let target: Vec<Dim> = (0..rank).map(|i| if rest.contains(&i) { cur[i].clone() } else { dims[i].clone() }).collect();
                current = broadcast(current, &target, witnesses[j].clone());
                needed = rest;
            }
            if current.ty.dims != dims {
                current = broadcast(current, dims, None);
            }
            current
        })
        .collect()
}

fn broadcast(x: TExpr, dims: &[Dim], like: Option<TExpr>) -> TExpr {
    let ty = TensorType::new(x.ty.dtype, dims.to_vec());
    let span = x.span.clone();
    let mut operands = vec![x];
    operands.extend(like);
    TExpr::op(Op::Broadcast, operands, ty, span)
}

/// An expression with the same run-time shape as `e`, as small as can be: elementwise nodes
/// have their operands' shape, so the witness descends into one operand; other ops keep
/// their node over witnesses of their operands (their result shape depends only on their
/// operands' shapes); leaves and calls are copied.
pub(crate) fn witness(e: &TExpr) -> TExpr {
    match &e.kind {
        TExprKind::Op(op, args) if op.family() == Family::Elementwise => {
            // Prefer an operand that is not itself a broadcast: it carries the dims natively.
            let pick = args
                .iter()
                .find(|a| !matches!(a.kind, TExprKind::Op(Op::Broadcast, _)))
                .unwrap_or(&args[0]);
            witness(pick)
        }
        // An index's values decide the result's shape (a slice's bounds) or may fail a check
        // (an index out of range): keep the node whole.
        TExprKind::Op(op, _) if op.family() == Family::Indexing => e.clone(),
        TExprKind::Op(op, args) => {
            // A witness of an elementwise operand may have another dtype (the bool condition
            // of a `where`); an op that needs its operand's dtype keeps the operand then.
            let args: Vec<TExpr> = args
                .iter()
                .map(|a| {
                    let w = witness(a);
                    if w.ty == a.ty { w } else { a.clone() }
                })
                .collect();
            // Keep the dtypes the op's invariants need (a reduction's operand dtype, a
            // matmul's equal dtypes): a witness found through an elementwise node (a cast)
            // may have another dtype, so it is cast back to the original operand's.
            let args: Vec<TExpr> = args.iter().map(|a| super::cast(witness(a), a.ty.dtype)).collect();
            TExpr::op(op.clone(), args, e.ty.clone(), e.span.clone())
        }
        _ => e.clone(),
    }
}
