//! Derivatives of the layout ops: each moves the cotangent back the way the op moved its
//! operand. A broadcast sums the cotangent over the axes it stretched.

use super::{Grads, Node};
use crate::ad::build::{Builder, inverse};
use crate::ops::{Op, ReduceOp};
use crate::typed::TExpr;
use crate::types::Dim;

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    let x = n.x();
    let g = match op {
        Op::Broadcast => {
            let (rank, off) = (ct.ty.rank(), ct.ty.rank() - x.ty.rank());
            let stretched: Vec<usize> = (0..rank)
                .filter(|&i| i < off || (x.ty.dims[i - off] == Dim::Static(1) && ct.ty.dims[i] != Dim::Static(1)))
                .collect();
            let mut g = b.reduce(ReduceOp::Sum, ct, &stretched);
            for i in off..rank {
                if stretched.contains(&i) {
                    g = b.expand(g, i - off);
                }
            }
            let g = b.retype(g, x.ty.dims.clone());
            // The shape witness only lends its size.
            return Ok(vec![Some(g), None].into_iter().take(n.args.len()).collect());
        }
        Op::Transpose(perm) => b.transpose(ct, &inverse(perm)),
        Op::Expand(axis) => b.op(Op::Squeeze(*axis), vec![ct], x.ty.clone()),
        Op::Squeeze(axis) => b.op(Op::Expand(*axis), vec![ct], x.ty.clone()),
        Op::Reshape => {
            // A count fixes one `?` of the operand's; more take their sizes from the operand.
            let unknown = x.ty.dims.iter().filter(|d| **d == Dim::Unknown).count();
            let args = if unknown > 1 { vec![ct, x.clone()] } else { vec![ct] };
            let g = b.op(Op::Reshape, args, x.ty.clone());
            let g = b.retype(g, x.ty.dims.clone());
            // The shape witness only lends its size.
            return Ok(vec![Some(g), None].into_iter().take(n.args.len()).collect());
        }
        // The guarded value is the second operand; the condition has no derivative.
        Op::Guard(_) => return Ok(vec![None, Some(ct)]),
        _ => return Err(format!("`{}` has no derivative yet", op.name())),
    };
    let g = b.retype(g, x.ty.dims.clone());
    Ok(vec![Some(g)])
}
