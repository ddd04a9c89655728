//! The op table's reference semantics: one file per op family, dispatched here. Each family
//! gets the evaluated operands, the node (for its static types and span) and the result dims
//! known from the static type and the call's symbol bindings.

mod bessel;
mod bessel_k;
mod contraction;
pub(crate) mod elementwise;
mod incbeta;
mod incbeta_inv;
mod incgamma;
mod incgamma_inv;
mod indexing;
mod layout;
mod linalg;
mod math;
mod joining;
mod matrix;
mod owens;
mod quadrature;
mod reduction;
mod scans;
mod special;
mod statistics;

use ptl_lang::ops::Op;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::typed::TExpr;
use ptl_lang::value::Value;

use crate::error::{InterpError, Result, shape_str};

/// The run-time facts a family needs about the node it evaluates.
pub(crate) struct Node<'e> {
    pub expr: &'e TExpr,
    pub operands: &'e [TExpr],
    /// The result dims where known: static dims and symbols the call bound.
    pub dims: Vec<Option<usize>>,
}

/// Evaluates `op` on `values` (one per operand, in order).
pub(crate) fn apply(op: &Op, node: &Node, values: Vec<Value>) -> Result<Value> {
    let (lo, hi) = op.arity();
    if values.len() < lo || values.len() > hi {
        return Err(InterpError::internal(format!("`{op}` with {} operands", values.len()), &node.expr.span));
    }
    let span = &node.expr.span;
    match op {
        Op::Unary(_) | Op::Binary(_) | Op::Ternary(_) | Op::Select | Op::Cast => {
            same_dims(op, node, &values)?;
            elementwise::apply(op, node.expr.ty.dtype, values, span)
        }
        Op::Broadcast => layout::broadcast(node, values),
        Op::Transpose(perm) => layout::transpose(one(values, node)?, perm, span),
        Op::Expand(axis) => layout::expand(one(values, node)?, *axis, span),
        Op::Squeeze(axis) => layout::squeeze(one(values, node)?, *axis, span),
        Op::Reshape => layout::reshape(node, values),
        Op::Guard(code) => layout::guard(values, *code, span),
        Op::Reduce(r, axes) => reduction::reduce(*r, node, one(values, node)?, axes),
        Op::Softmax { axis, log } => reduction::softmax(&one(values, node)?, *axis, *log, span),
        Op::Slice(axes) => indexing::slice(node, values, axes),
        Op::Take { axis } => indexing::take(node, values, *axis),
        Op::Scatter { add } => indexing::scatter(node, values, *add),
        Op::SetSlice => indexing::set_slice(node, values),
        Op::Nonzero => indexing::flatnonzero(node, values),
        Op::Arg { max, axis } => statistics::arg(*max, node, &one(values, node)?, *axis),
        Op::Scan { prod, axis } => scans::scan(*prod, &one(values, node)?, *axis, span),
        Op::Sort { axis, arg } => scans::sort(&one(values, node)?, *axis, *arg, span),
        Op::Concat(axis) => joining::concat(node, values, *axis),
        Op::SplitPart { axis, start, len, total } => joining::split_part(node, one(values, node)?, *axis, *start, *len, *total),
        Op::Diagonal => matrix::diagonal(&one(values, node)?, span),
        Op::Tri { upper, k } => matrix::tri(&one(values, node)?, *upper, *k, span),
        Op::Cholesky => linalg::cholesky(node, &one(values, node)?),
        Op::SolveTriangular { lower } => match values.as_slice() {
            [a, b] => linalg::solve(node, a, b, Some(*lower)),
            _ => Err(InterpError::internal("`solve_triangular` without two operands", span)),
        },
        Op::Solve => match values.as_slice() {
            [a, b] => linalg::solve(node, a, b, None),
            _ => Err(InterpError::internal("`solve` without two operands", span)),
        },
        Op::Det => linalg::det(node, &one(values, node)?),
        Op::Slogdet { log } => linalg::slogdet(node, &one(values, node)?, *log),
        Op::LuFactor { pivots } => linalg::lu_factor(node, &one(values, node)?, *pivots),
        Op::LuPermutation => linalg::lu_permutation(node, &one(values, node)?),
        Op::Eigh { vectors } => linalg::eigh(node, &one(values, node)?, *vectors),
        Op::MatMul => {
            let mut it = values.into_iter();
            let (a, b) = (it.next(), it.next());
            match (a, b) {
                (Some(a), Some(b)) => contraction::matmul(node, &a, &b),
                _ => Err(InterpError::internal("`@` without two operands", span)),
            }
        }
    }
}

/// The single operand of a one-operand op (the arity was checked in `apply`).
fn one(values: Vec<Value>, node: &Node) -> Result<Value> {
    values.into_iter().next().ok_or_else(|| InterpError::internal("an op without its operand", &node.expr.span))
}

/// Operands of an elementwise op have the result's static dims (the checker made every
/// broadcast explicit); where those dims are `?`, the run-time sizes must agree.
fn same_dims(op: &Op, node: &Node, values: &[Value]) -> Result<()> {
    let Some(first) = values.first() else { return Ok(()) };
    let rank = node.expr.ty.rank();
    for v in values {
        if v.shape().len() != rank {
            return Err(InterpError::internal(format!("`{op}` operand of rank {} for a rank-{rank} result", v.shape().len()), &node.expr.span));
        }
    }
    for axis in 0..rank {
        if values.iter().any(|v| v.shape()[axis] != first.shape()[axis]) {
            let check = RuntimeCheck::SameDims {
                op: op.name().to_string(),
                axis,
                types: node.operands.iter().map(|o| o.ty.clone()).collect(),
            };
            let shapes: Vec<String> = values.iter().map(|v| shape_str(v.shape())).collect();
            return Err(InterpError::check(check, &node.expr.span, format!("the operands have shapes {}", shapes.join(", "))));
        }
    }
    Ok(())
}
