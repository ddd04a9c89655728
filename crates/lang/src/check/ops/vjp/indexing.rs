//! Derivatives of indexing: the cotangent of a read goes back to the positions read, with
//! `scatter_add` (an index, a gather or a slice with a step; repeated indices add up) or
//! `set_slice` (a range) into zeros. The forward code slices one axis at a time (`crate::ad`), so a slice here has one
//! axis that is not `:`. A `scatter_set` value that loses to a later repeated index still gets
//! the cotangent of its row.

use super::{Grads, Node};
use crate::ad::build::{Builder, inverse, to_front};
use crate::ops::{Op, ReduceOp, SliceAxis};
use crate::typed::TExpr;
use crate::types::{DType, Dim, TensorType};

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    let x = n.x().clone();
    let none = |k: usize| vec![None; k];
    match op {
        Op::Slice(axes) => {
            let mut grads = none(n.args.len());
            let Some(k) = axes.iter().position(|a| *a != SliceAxis::Full) else {
                grads[0] = Some(ct);
                return Ok(grads);
            };
            let perm = to_front(k, x.ty.rank());
            let xt = b.transpose(x.clone(), &perm);
            let zeros = b.zeros_like(&xt);
            let g = match axes[k] {
                SliceAxis::Index => {
                    let i = n.args[1].clone();
                    b.op(Op::Scatter { add: true }, vec![zeros, i, ct], xt.ty.clone())
                }
                SliceAxis::Range { step: true, start, stop } => {
                    // The positions the slice reads, as the same slice of 0, 1, ..., n - 1.
                    let ones = b.ones_like(&xt, DType::I64);
                    let rest: Vec<usize> = (1..xt.ty.rank()).collect();
                    let per_row = b.reduce(ReduceOp::Sum, ones, &rest);
                    let ones = b.ones_like(&per_row, DType::I64);
                    let counts = b.op(Op::Scan { prod: false, axis: 0 }, vec![ones.clone()], ones.ty.clone());
                    let one = b.lit(DType::I64, 1.0);
                    let iota = b.sub(counts, one);
                    let mut operands = vec![iota];
                    operands.extend(n.args[1..].iter().cloned());
                    let picked = TensorType::new(DType::I64, vec![Dim::Unknown]);
                    let axis = SliceAxis::Range { start, stop, step: true };
                    let idx = b.op(Op::Slice(vec![axis]), operands, picked);
                    let ct = b.transpose(ct, &perm);
                    b.op(Op::Scatter { add: true }, vec![zeros, idx, ct], xt.ty.clone())
                }
                SliceAxis::Range { start, stop, .. } => {
                    let mut bounds = n.args[1..].iter().cloned();
                    let a = if start { bounds.next() } else { None }.unwrap_or_else(|| b.lit(DType::I64, 0.0));
                    let e = if stop { bounds.next() } else { None }.unwrap_or_else(|| b.lit(DType::I64, i64::MAX as f64));
                    let ct = b.transpose(ct, &perm);
                    b.op(Op::SetSlice, vec![zeros, ct, a, e], xt.ty.clone())
                }
                SliceAxis::Full => unreachable!("the axis is not `:`"),
            };
            let g = b.transpose(g, &inverse(&perm));
            grads[0] = Some(b.retype(g, x.ty.dims.clone()));
            Ok(grads)
        }
        Op::Take { axis } => {
            let idx = n.args[1].clone();
            let (r, ri) = (x.ty.rank(), idx.ty.rank());
            let perm = to_front(*axis, r);
            let xt = b.transpose(x.clone(), &perm);
            // The cotangent's index axes first, then `x`'s axes before and after `axis`.
            let mut cperm: Vec<usize> = (*axis..axis + ri).collect();
            cperm.extend(0..*axis);
            cperm.extend(axis + ri..ct.ty.rank());
            let ct = b.transpose(ct, &cperm);
            let zeros = b.zeros_like(&xt);
            let g = b.op(Op::Scatter { add: true }, vec![zeros, idx, ct], xt.ty.clone());
            let g = b.transpose(g, &inverse(&perm));
            Ok(vec![Some(b.retype(g, x.ty.dims.clone())), None])
        }
        Op::Scatter { add } => {
            let (idx, values) = (n.args[1].clone(), n.args[2].clone());
            let gt = if *add {
                ct.clone()
            } else {
                let z = b.zeros_like(&values);
                b.op(Op::Scatter { add: false }, vec![ct.clone(), idx.clone(), z], x.ty.clone())
            };
            let gv = n.active[2].then(|| b.op(Op::Take { axis: 0 }, vec![ct, idx], values.ty.clone()));
            Ok(vec![n.active[0].then_some(gt), None, gv])
        }
        Op::SetSlice => {
            let (value, a, e) = (n.args[1].clone(), n.args[2].clone(), n.args[3].clone());
            let gx = n.active[0].then(|| {
                let z = b.zeros_like(&value);
                b.op(Op::SetSlice, vec![ct.clone(), z, a.clone(), e.clone()], x.ty.clone())
            });
            let gv = n.active[1].then(|| {
                let mut dims = x.ty.dims.clone();
                dims[0] = Dim::Unknown;
                let ty = TensorType::new(x.ty.dtype, dims);
                let part = b.slice_axis(ct, 0, a, Some(e), ty);
                if value.ty.rank() == 0 {
                    let all: Vec<usize> = (0..part.ty.rank()).collect();
                    b.reduce(ReduceOp::Sum, part, &all)
                } else {
                    b.retype(part, value.ty.dims.clone())
                }
            });
            Ok(vec![gx, gv, None, None])
        }
        _ => Err(format!("`{}` has no derivative yet", op.name())),
    }
}
