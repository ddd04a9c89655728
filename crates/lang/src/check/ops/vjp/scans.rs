//! Derivatives of the cumulative ops: the cotangent of `cumsum` is the reversed cumulative
//! sum of the result's cotangent, `sum(ct) - cumsum(ct) + ct` along the axis; that of
//! `cumprod` is the reversed cumulative sum of `ct * cumprod(x)`, divided by `x` (as for
//! `prod`: not finite where an element is 0). The cotangent of `sort` goes back to where each
//! element came from: `take(ct, argsort(argsort(x)))` of a vector; `argsort` gives indices,
//! which have none.

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::{Op, ReduceOp};
use crate::typed::TExpr;
use crate::types::{DType, TensorType};

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    match op {
        Op::Scan { prod: false, axis } => Ok(vec![Some(reversed_cumsum(b, n, ct, *axis))]),
        Op::Scan { prod: true, axis } => {
            let weighted = b.mul(ct, n.out.clone());
            let back = reversed_cumsum(b, n, weighted, *axis);
            Ok(vec![Some(b.div(back, n.x().clone()))])
        }
        Op::Sort { arg: true, .. } => Err("`argsort` has no derivative: its result is an index".to_string()),
        Op::Sort { arg: false, axis } => {
            if n.x().ty.rank() != 1 {
                return Err(format!(
                    "`sort` has a derivative only of a vector; this operand has rank {}",
                    n.x().ty.rank()
                ));
            }
            let idx_ty = TensorType::new(DType::I64, n.x().ty.dims.clone());
            let order = b.op(Op::Sort { axis: *axis, arg: true }, vec![n.x().clone()], idx_ty.clone());
            let rank = b.op(Op::Sort { axis: 0, arg: true }, vec![order], idx_ty);
            let ty = ct.ty.clone();
            Ok(vec![Some(b.op(Op::Take { axis: 0 }, vec![ct, rank], ty))])
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
