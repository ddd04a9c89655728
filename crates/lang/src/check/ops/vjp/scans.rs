//! Derivatives of the cumulative ops: the cotangent of `cumsum` is the reversed cumulative
//! sum of the result's cotangent, `sum(ct) - cumsum(ct) + ct` along the axis; that of
//! `cumprod` is the reversed cumulative sum of `ct * cumprod(x)`, divided by `x` (as for
//! `prod`: not finite where an element is 0).

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::{Op, ReduceOp};
use crate::typed::TExpr;

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    match op {
        Op::Scan { prod: false, axis } => Ok(vec![Some(reversed_cumsum(b, n, ct, *axis))]),
        Op::Scan { prod: true, axis } => {
            let weighted = b.mul(ct, n.out.clone());
            let back = reversed_cumsum(b, n, weighted, *axis);
            Ok(vec![Some(b.div(back, n.x().clone()))])
        }
        _ => Err(format!("`{}` has no derivative yet", op.name())),
    }
}

/// `v` summed from each position to the end of `axis`: `sum(v) - cumsum(v) + v`.
fn reversed_cumsum(b: &mut Builder, n: &Node, v: TExpr, axis: usize) -> TExpr {
    let ty = v.ty.clone();
    let running = b.op(Op::Scan { prod: false, axis }, vec![v.clone()], ty);
    let total = b.reduce(ReduceOp::Sum, v.clone(), &[axis]);
    let total = b.unreduce(total, &[axis], n.x());
    let rest = b.sub(total, running);
    b.add(rest, v)
}
