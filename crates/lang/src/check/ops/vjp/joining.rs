//! Derivatives of `concat` (and so `stack`): each operand gets its own part of the
//! cotangent, sliced along the axis at the operand's offset; and of each part of `split`:
//! its cotangent in its place along the axis, zeros elsewhere.

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::Op;
use crate::typed::TExpr;
use crate::types::{DType, Dim};

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    if let Op::SplitPart { axis, start, len, total } = *op {
        let x = n.x().clone();
        let zeros = b.zeros_like(&x);
        let zeros_of = |b: &mut Builder, from: u64, to: u64| {
            let mut ty = x.ty.clone();
            ty.dims[axis] = Dim::Static(to - from);
            let (a, e) = (b.lit(DType::I64, from as f64), b.lit(DType::I64, to as f64));
            b.slice_axis(zeros.clone(), axis, a, Some(e), ty)
        };
        let mut parts = Vec::new();
        if start > 0 {
            parts.push(zeros_of(b, 0, start));
        }
        parts.push(ct);
        if start + len < total {
            parts.push(zeros_of(b, start + len, total));
        }
        return Ok(vec![Some(b.op(Op::Concat(axis), parts, x.ty.clone()))]);
    }
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
