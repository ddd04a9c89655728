//! Derivatives of the cumulative ops: the cotangent of `cumsum` is the reversed cumulative
//! sum of the result's cotangent, `sum(ct) - cumsum(ct) + ct` along the axis.

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::{Op, ReduceOp};
use crate::typed::TExpr;

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    match op {
        Op::Scan { prod: false, axis } => {
            let ty = ct.ty.clone();
            let running = b.op(op.clone(), vec![ct.clone()], ty);
            let total = b.reduce(ReduceOp::Sum, ct.clone(), &[*axis]);
            let total = b.unreduce(total, &[*axis], n.x());
            let rest = b.sub(total, running);
            Ok(vec![Some(b.add(rest, ct))])
        }
        _ => Err(format!("`{}` has no derivative yet", op.name())),
    }
}
