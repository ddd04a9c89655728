//! Derivatives of `@`: `d a = ct @ b^T`, `d b = a^T @ ct`, with the vector cases written as
//! outer products and broadcasts.

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::Op;
use crate::typed::TExpr;

/// The permutation swapping the last two axes.
fn swap_last(rank: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..rank).collect();
    p.swap(rank - 2, rank - 1);
    p
}

/// `u[:, None] * v[None, :]` with the type of `like`.
fn outer(b: &mut Builder, u: TExpr, v: TExpr, like: &TExpr) -> TExpr {
    let u = b.expand(u, 1);
    let u = b.like(u, like);
    let v = b.expand(v, 0);
    let v = b.like(v, like);
    b.mul(u, v)
}

pub(super) fn vjp(b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    let (x, y) = (n.args[0].clone(), n.args[1].clone());
    let (ax, ay) = (n.active[0], n.active[1]);
    let mm = |b: &mut Builder, l: TExpr, r: TExpr, like: &TExpr| b.op(Op::MatMul, vec![l, r], like.ty.clone());
    let (gx, gy) = match (x.ty.rank(), y.ty.rank()) {
        (1, 1) => {
            let gx = ax.then(|| {
                let c = b.like(ct.clone(), &y);
                b.mul(c, y.clone())
            });
            let gy = ay.then(|| {
                let c = b.like(ct.clone(), &x);
                b.mul(c, x.clone())
            });
            (gx, gy)
        }
        (2, 1) => {
            let gx = ax.then(|| outer(b, ct.clone(), y.clone(), &x));
            let gy = ay.then(|| {
                let xt = b.transpose(x.clone(), &[1, 0]);
                mm(b, xt, ct.clone(), &y)
            });
            (gx, gy)
        }
        (1, 2) => {
            let gx = ax.then(|| mm(b, y.clone(), ct.clone(), &x));
            let gy = ay.then(|| outer(b, x.clone(), ct.clone(), &y));
            (gx, gy)
        }
        (r, _) => {
            let gx = ax.then(|| {
                let yt = b.transpose(y.clone(), &swap_last(r));
                mm(b, ct.clone(), yt, &x)
            });
            let gy = ay.then(|| {
                let xt = b.transpose(x.clone(), &swap_last(r));
                mm(b, xt, ct.clone(), &y)
            });
            (gx, gy)
        }
    };
    let gx = gx.map(|g| b.retype(g, x.ty.dims.clone()));
    let gy = gy.map(|g| b.retype(g, y.ty.dims.clone()));
    Ok(vec![gx, gy])
}
