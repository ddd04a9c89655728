//! Derivatives of the reductions and softmax. `max`/`min` split the cotangent equally between
//! the elements that tie for the extreme; `prod` divides the product by each element (not
//! finite where an element is 0); `argmax`/`argmin` give indices and have no derivative.

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::{BinaryOp, Op, ReduceOp, UnaryOp};
use crate::typed::TExpr;

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    let (x, y) = (n.x().clone(), n.out.clone());
    let dt = x.ty.dtype;
    let g = match op {
        Op::Reduce(r, axes) => {
            let target = x.clone();
            let back = |b: &mut Builder, v: TExpr| b.unreduce(v, axes, &target);
            match r {
                ReduceOp::Sum => back(b, ct),
                ReduceOp::Mean => {
                    let ones = b.ones_like(&x, dt);
                    let count = b.reduce(ReduceOp::Sum, ones, axes);
                    let share = b.div(ct, count);
                    back(b, share)
                }
                ReduceOp::Prod => {
                    let p = b.mul(ct, y);
                    let p = back(b, p);
                    b.div(p, x.clone())
                }
                ReduceOp::Max | ReduceOp::Min => {
                    let yb = back(b, y);
                    let hit = b.bin(BinaryOp::Eq, x.clone(), yb);
                    let hit = b.cast(hit, dt);
                    let ties = b.reduce(ReduceOp::Sum, hit.clone(), axes);
                    let share = b.div(ct, ties);
                    let share = back(b, share);
                    b.mul(hit, share)
                }
                ReduceOp::LogSumExp => {
                    let yb = back(b, y);
                    let d = b.sub(x.clone(), yb);
                    let e = b.un(UnaryOp::Exp, d);
                    let c = back(b, ct);
                    b.mul(e, c)
                }
                ReduceOp::Var(ddof) | ReduceOp::Std(ddof) => {
                    // d var / dx = 2 (x - mean) / (n - ddof); d std = d var / (2 std).
                    let m = b.reduce(ReduceOp::Mean, x.clone(), axes);
                    let m = back(b, m);
                    let centred = b.sub(x.clone(), m);
                    let ones = b.ones_like(&x, dt);
                    let count = b.reduce(ReduceOp::Sum, ones, axes);
                    let ddof = b.lit(dt, f64::from(*ddof));
                    let dof = b.sub(count, ddof);
                    let share = if matches!(r, ReduceOp::Var(_)) {
                        let s = b.div(ct, dof);
                        b.scale(s, 2.0)
                    } else {
                        let d = b.mul(dof, y);
                        b.div(ct, d)
                    };
                    let share = back(b, share);
                    b.mul(centred, share)
                }
                ReduceOp::Any | ReduceOp::All => return Ok(vec![None]),
            }
        }
        Op::Softmax { axis, log: false } => {
            let cy = b.mul(ct.clone(), y.clone());
            let s = b.reduce(ReduceOp::Sum, cy, &[*axis]);
            let s = b.unreduce(s, &[*axis], &x);
            let d = b.sub(ct, s);
            b.mul(y, d)
        }
        Op::Softmax { axis, log: true } => {
            let s = b.reduce(ReduceOp::Sum, ct.clone(), &[*axis]);
            let s = b.unreduce(s, &[*axis], &x);
            let p = b.un(UnaryOp::Exp, y);
            let d = b.mul(p, s);
            b.sub(ct, d)
        }
        Op::Arg { .. } => {
            return Err(format!("`{}` has no derivative: its result is an index", op.name()));
        }
        _ => return Err(format!("`{}` has no derivative yet", op.name())),
    };
    let g = b.retype(g, x.ty.dims.clone());
    Ok(vec![Some(g)])
}
