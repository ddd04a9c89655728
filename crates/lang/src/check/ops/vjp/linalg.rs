//! Derivatives of the linear-algebra ops, as PyTensor writes them.
//!
//! `x = solve_triangular(a, b, lower)`: `db = solve_triangular(a^T, dx, !lower)` and
//! `da = -db x^T`, kept on the triangle that `a` is read from.
//!
//! `x = solve(a, b)`: `db = solve(a^T, dx)`, `da = -db x^T`; `d = det(a)`: `da = dd d inv(a)^T`;
//! `(s, l) = slogdet(a)`: `da = dl inv(a)^T`, nothing through the sign.
//!
//! `l = cholesky(a)` (Murray, "Differentiation of the Cholesky decomposition", 2016):
//! `p = Φ(l^T dl)` (the lower triangle, its diagonal halved), `s = l^-T p l^-1`, and
//! `da = tril(s + s^T) - diag(s)`, on the lower triangle that `a` is read from.
//!
//! `(w, v) = eigh(a)`: `g = v (diag(dw) + f * (v^T dv)) v^T` with `f[i, j] = 1 / (w[j] -
//! w[i])` off the diagonal and 0 on it (an eigenvalue repeated divides by zero, as PyTensor's
//! does), and `da = tril(g + g^T) - diag(g)`, on the lower triangle that `a` is read from.

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::Op;
use crate::typed::TExpr;

fn tri(b: &mut Builder, x: TExpr, upper: bool) -> TExpr {
    let ty = x.ty.clone();
    b.op(Op::Tri { upper, k: 0 }, vec![x], ty)
}

/// The diagonal of the square matrix `x` as a matrix (zero elsewhere).
fn diagonal_part(b: &mut Builder, x: TExpr) -> TExpr {
    let u = tri(b, x, true);
    tri(b, u, false)
}

fn solve(b: &mut Builder, a: TExpr, rhs: TExpr, lower: bool) -> TExpr {
    let ty = rhs.ty.clone();
    b.op(Op::SolveTriangular { lower }, vec![a, rhs], ty)
}

fn t(b: &mut Builder, x: TExpr) -> TExpr {
    b.transpose(x, &[1, 0])
}

/// `u v^T` of the type of `a`: an outer product of vectors, or a matrix product.
fn outer_or_product(b: &mut Builder, u: TExpr, v: TExpr, a: &TExpr) -> TExpr {
    if v.ty.rank() == 1 {
        let col = b.expand(u, 1);
        let col = b.like(col, a);
        let row = b.expand(v, 0);
        let row = b.like(row, a);
        b.mul(col, row)
    } else {
        let vt = t(b, v);
        b.op(Op::MatMul, vec![u, vt], a.ty.clone())
    }
}

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    match op {
        Op::SolveTriangular { lower } => {
            let (a, x) = (n.args[0].clone(), n.out.clone());
            let at = t(b, a.clone());
            let db = solve(b, at, ct, !lower);
            let da = n.active[0].then(|| {
                let prod = outer_or_product(b, db.clone(), x.clone(), &a);
                let prod = b.neg(prod);
                tri(b, prod, !lower)
            });
            Ok(vec![da, n.active[1].then_some(db)])
        }
        Op::Cholesky => {
            let l = n.out.clone();
            let lt = t(b, l.clone());
            let q = b.op(Op::MatMul, vec![lt.clone(), ct], l.ty.clone());
            let low = tri(b, q.clone(), false);
            let d = diagonal_part(b, q);
            let half = b.scale(d, 0.5);
            let p = b.sub(low, half);
            // s = l^-T p l^-1 = solve(l^T, solve(l^T, p^T)^T), both upper-triangular solves.
            let pt = t(b, p);
            let inner = solve(b, lt.clone(), pt, false);
            let inner_t = t(b, inner);
            let s = solve(b, lt, inner_t, false);
            let st = t(b, s.clone());
            let sum = b.add(s.clone(), st);
            let low = tri(b, sum, false);
            let ds = diagonal_part(b, s);
            Ok(vec![Some(b.sub(low, ds))])
        }
        Op::Solve => {
            // db = solve(a^T, dx); da = -db x^T (every element of `a` is read).
            let (a, x) = (n.args[0].clone(), n.out.clone());
            let at = t(b, a.clone());
            let db = b.op(Op::Solve, vec![at, ct], x.ty.clone());
            let da = n.active[0].then(|| {
                let prod = outer_or_product(b, db.clone(), x.clone(), &a);
                b.neg(prod)
            });
            Ok(vec![da, n.active[1].then_some(db)])
        }
        Op::Det => {
            // d det(a) / da = det(a) * inv(a)^T = det(a) * solve(a^T, I).
            let (a, d) = (n.args[0].clone(), n.out.clone());
            let at = t(b, a.clone());
            let one = b.lit(a.ty.dtype, 1.0);
            let ones = b.like(one, &a);
            let eye = diagonal_part(b, ones);
            let inv_t = b.op(Op::Solve, vec![at, eye], a.ty.clone());
            let scale = b.mul(ct, d);
            let scale = b.like(scale, &a);
            Ok(vec![Some(b.mul(scale, inv_t))])
        }
        // The sign is constant wherever it is defined.
        Op::Slogdet { log: false } => Ok(vec![None]),
        Op::Slogdet { log: true } => {
            // d log|det(a)| / da = inv(a)^T = solve(a^T, I).
            let a = n.args[0].clone();
            let at = t(b, a.clone());
            let one = b.lit(a.ty.dtype, 1.0);
            let ones = b.like(one, &a);
            let eye = diagonal_part(b, ones);
            let inv_t = b.op(Op::Solve, vec![at, eye], a.ty.clone());
            let scale = b.like(ct, &a);
            Ok(vec![Some(b.mul(scale, inv_t))])
        }
        Op::Eigh { vectors } => {
            let a = n.args[0].clone();
            let v_ty = a.ty.clone();
            let w_ty = crate::types::TensorType::new(a.ty.dtype, vec![a.ty.dims[0].clone()]);
            let (w, v) = if *vectors {
                (b.op(Op::Eigh { vectors: false }, vec![a.clone()], w_ty), n.out.clone())
            } else {
                (n.out.clone(), b.op(Op::Eigh { vectors: true }, vec![a.clone()], v_ty.clone()))
            };
            let vt = t(b, v.clone());
            // v m v^T for the middle matrix m of this part.
            let middle = if *vectors {
                let vt_dv = b.op(Op::MatMul, vec![vt.clone(), ct], v_ty.clone());
                let row = b.expand(w.clone(), 0);
                let wj = b.like(row, &a);
                let col = b.expand(w, 1);
                let wi = b.like(col, &a);
                let gaps = b.sub(wj, wi);
                let one = b.lit(a.ty.dtype, 1.0);
                let ones = b.like(one.clone(), &a);
                let eye = diagonal_part(b, ones);
                let on = b.bin(crate::ops::BinaryOp::Eq, eye, one);
                let f = b.div(vt_dv.clone(), gaps);
                b.keep_not(on, f)
            } else {
                let one = b.lit(a.ty.dtype, 1.0);
                let ones = b.like(one, &a);
                let eye = diagonal_part(b, ones);
                let row = b.expand(ct, 0);
                let dw = b.like(row, &a);
                b.mul(eye, dw)
            };
            let vm = b.op(Op::MatMul, vec![v, middle], v_ty.clone());
            let g = b.op(Op::MatMul, vec![vm, vt], v_ty);
            let gt = t(b, g.clone());
            let sum = b.add(g.clone(), gt);
            let low = tri(b, sum, false);
            let dg = diagonal_part(b, g);
            Ok(vec![Some(b.sub(low, dg))])
        }
        _ => Err(format!("`{}` has no derivative yet", op.name())),
    }
}
