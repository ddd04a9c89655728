//! Derivatives of `concat` (and so `stack`): each operand gets its own part of the
//! cotangent, sliced along the axis at the operand's offset.

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::Op;
use crate::typed::TExpr;
use crate::types::DType;

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    let Op::Concat(axis) = op else {
        return Err(format!("`{}` has no derivative yet", op.name()));
    };
    let mut offset = b.lit(DType::I64, 0.0);
    let mut grads = Vec::new();
    for (x, active) in n.args.iter().zip(n.active) {
        let len = b.dim_size(x, *axis);
        let end = b.add(offset.clone(), len);
        grads.push(active.then(|| b.slice_axis(ct.clone(), *axis, offset.clone(), Some(end.clone()), x.ty.clone())));
        offset = end;
    }
    Ok(grads)
}
