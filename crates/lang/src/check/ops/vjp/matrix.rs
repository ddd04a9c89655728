//! Derivatives of the matrix ops: `tril`/`triu` keep the same band of the cotangent;
//! `diagonal` (and so `trace`) puts the cotangent on the diagonal of a zero matrix, when the
//! checker knows which side of the matrix is the shorter.

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::{BinaryOp, Op};
use crate::typed::TExpr;
use crate::types::{DType, Dim};

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    let x = n.x().clone();
    match op {
        Op::Tri { .. } => Ok(vec![Some(b.op(op.clone(), vec![ct], x.ty.clone()))]),
        Op::Diagonal => {
            // Element (i, j) of the result is ct[i] (or ct[j]) where i == j, else 0.
            let rows_shorter = match (&x.ty.dims[0], &x.ty.dims[1]) {
                (Dim::Static(r), Dim::Static(c)) => r <= c,
                (r, c) if r == c => true,
                _ => return Err("the derivative of `diagonal` needs to know which side of the matrix is shorter: give it static dims or one dimension name for both".into()),
            };
            let ones = b.ones_like(&x, DType::I64);
            let row = b.op(Op::Scan { prod: false, axis: 0 }, vec![ones.clone()], ones.ty.clone());
            let col = b.op(Op::Scan { prod: false, axis: 1 }, vec![ones.clone()], ones.ty.clone());
            let on = b.bin(BinaryOp::Eq, row, col);
            let spread = b.expand(ct, if rows_shorter { 1 } else { 0 });
            let spread = b.like(spread, &x);
            Ok(vec![Some(b.keep(on, spread))])
        }
        _ => Err(format!("`{}` has no derivative yet", op.name())),
    }
}
