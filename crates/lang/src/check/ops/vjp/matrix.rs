//! Derivatives of the matrix ops: `tril`/`triu` keep the same band of the cotangent.

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::Op;
use crate::typed::TExpr;

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    match op {
        Op::Tri { .. } => {
            let ty = n.x().ty.clone();
            Ok(vec![Some(b.op(op.clone(), vec![ct], ty))])
        }
        _ => Err(format!("`{}` has no derivative yet", op.name())),
    }
}
