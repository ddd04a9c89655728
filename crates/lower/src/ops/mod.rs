//! The op table's lowering: one file per op family, dispatched here.

pub mod bessel;
pub mod bessel_k;
pub mod contraction;
pub mod control;
pub mod digamma;
pub mod elementwise;
pub mod erfinv;
pub mod indexing;
pub mod explog;
pub mod fbuild;
pub mod gamma;
pub mod incbeta;
pub mod incgamma;
mod incgamma_inv;
mod incbeta_inv;
mod roots;
pub mod invtrig;
pub mod layout;
pub mod lgamma;
pub mod linalg;
pub mod mathlib;
pub mod polygamma;
pub mod reduction;
pub mod scalar;
pub mod special;
pub mod joining;
pub mod matrix;
pub mod nonzero;
pub mod owens;
pub mod scans;
pub mod slices;
pub mod statistics;
pub mod trig;

use melior::ir::Value;
use ptl_lang::ops::{Family, Op};
use ptl_lang::typed::{TExpr, TProgram};

use crate::emitter::Emitter;
use crate::error::{LowerError, Result};
use crate::expr;
use crate::folding;
use crate::scope::Scope;

/// Lowers the node `node`, an application of `op` to `operands`.
pub fn lower<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    node: &TExpr,
    op: &Op,
    operands: &[TExpr],
) -> Result<Value<'c, 'a>> {
    let (lo, hi) = op.arity();
    if operands.len() < lo || operands.len() > hi {
        return Err(LowerError::Internal(format!("`{op}` with {} operands", operands.len())));
    }
    let ty = &node.ty;
    if op.family() == Family::Elementwise {
        return elementwise::lower(e, scope, prog, op, operands, ty);
    }
    match op {
        Op::Slice(axes) => return indexing::slice(e, scope, prog, node, operands, axes),
        Op::Take { axis } => return indexing::take(e, scope, prog, node, operands, *axis),
        Op::Scatter { add } => return indexing::scatter(e, scope, prog, node, operands, *add),
        Op::SetSlice => return indexing::set_slice(e, scope, prog, node, operands),
        Op::Nonzero => return nonzero::flatnonzero(e, scope, prog, operands),
        Op::Cholesky | Op::SolveTriangular { .. } | Op::Solve | Op::Det | Op::Slogdet { .. } | Op::LuFactor { .. } | Op::Eigh { .. } => return linalg::lower(e, scope, prog, node, op, operands),
        Op::LuPermutation => return linalg::lower_permutation(e, scope, prog, node, operands),
        _ => {}
    }
    let x = &operands[0];
    let xv = expr::lower(e, scope, prog, x)?;
    // See `crate::folding`: an operand that may fold to a constant is materialised first.
    let barrier = matches!(op.family(), Family::Reduction | Family::Scan | Family::Contraction);
    let xv = if barrier && folding::may_fold_to_constant(x) { e.optimization_barrier(xv)? } else { xv };
    match op {
        Op::Broadcast => {
            let like = match operands.get(1) {
                Some(w) => Some((expr::lower(e, scope, prog, w)?, &w.ty)),
                None => None,
            };
            layout::broadcast(e, scope, xv, &x.ty, like, ty, &node.span)
        }
        Op::Transpose(perm) => layout::relayout(e, scope, xv, &x.ty, ty, layout::transpose_map(perm)),
        Op::Expand(axis) => layout::relayout(e, scope, xv, &x.ty, ty, layout::expand_map(x.ty.rank(), *axis)),
        Op::Squeeze(axis) => layout::relayout(e, scope, xv, &x.ty, ty, layout::squeeze_map(x.ty.rank(), *axis)),
        Op::Reshape => {
            let like = match operands.get(1) {
                Some(w) => Some(expr::lower(e, scope, prog, w)?),
                None => None,
            };
            layout::reshape(e, scope, xv, &x.ty, like, ty)
        }
        Op::Guard(code) => {
            // Every element of the condition must hold: one `all`, then one check.
            let all = if x.ty.rank() == 0 {
                xv
            } else {
                let axes: Vec<usize> = (0..x.ty.rank()).collect();
                reduction::reduce(e, scope, ptl_lang::ops::ReduceOp::All, xv, &x.ty, &axes)?
            };
            let flag = e.append(melior::dialect::ods::tensor::extract(e.ctx, e.elem(ptl_lang::DType::Bool), all, &[], e.loc).into())?;
            e.check(flag, ptl_lang::runtime::RuntimeCheck::Guard { code: *code })?;
            expr::lower(e, scope, prog, &operands[1])
        }
        Op::Reduce(r, axes) => reduction::reduce(e, scope, *r, xv, &x.ty, axes),
        Op::Softmax { axis, log } => reduction::softmax(e, scope, xv, &x.ty, *axis, *log),
        Op::Arg { max, axis } => statistics::arg(e, scope, *max, xv, &x.ty, *axis),
        Op::Scan { prod, axis } => scans::scan(e, scope, *prod, xv, &x.ty, *axis),
        Op::Sort { axis, arg } => scans::sort(e, scope, xv, &x.ty, *axis, *arg),
        Op::Concat(axis) => {
            let mut values = vec![(xv, &x.ty)];
            for o in &operands[1..] {
                values.push((expr::lower(e, scope, prog, o)?, &o.ty));
            }
            joining::concat(e, &values, *axis, ty)
        }
        Op::SplitPart { axis, start, len, total } => joining::split_part(e, xv, &x.ty, *axis, *start, *len, *total, ty),
        Op::Diagonal => matrix::diagonal(e, xv, &x.ty, ty),
        Op::Tri { upper, k } => matrix::tri(e, scope, xv, &x.ty, *upper, *k),
        Op::MatMul => {
            let b = &operands[1];
            let bv = expr::lower(e, scope, prog, b)?;
            let bv = if folding::may_fold_to_constant(b) { e.optimization_barrier(bv)? } else { bv };
            contraction::matmul(e, scope, xv, &x.ty, bv, &b.ty, ty)
        }
        Op::Cholesky | Op::SolveTriangular { .. } | Op::Solve | Op::Det | Op::Slogdet { .. } | Op::LuFactor { .. } | Op::LuPermutation | Op::Eigh { .. } => {
            Err(LowerError::Internal(format!("`{op}` is a linear-algebra op")))
        }
        Op::Slice(_) | Op::Take { .. } | Op::Scatter { .. } | Op::SetSlice | Op::Nonzero => Err(LowerError::Internal(format!("`{op}` is an indexing op"))),
        Op::Unary(_) | Op::Binary(_) | Op::Ternary(_) | Op::Select | Op::Cast => Err(LowerError::Internal(format!("`{op}` is elementwise"))),
    }
}
