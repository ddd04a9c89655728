//! Type rules, one file per op family (the names and arities are the op table's, `crate::ops`).
//! This file dispatches a call of a builtin by name; the reduction rules are short and live in
//! the dispatch itself.

mod args;
mod constructors;
mod contraction;
mod elementwise;
mod indexing;
mod layout;
mod masks;
mod math;
pub(crate) mod joining;
mod linalg;
pub(crate) mod matrix;
mod reductions;
mod scans;
mod split;
pub(crate) mod vjp;

use crate::ast::{Expr, ExprKind, Ident};
use crate::check::env::Scope;
use crate::check::{Checker, Typed, has_type, literal};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::{Builtin, Op};
use crate::span::Span;
use crate::typed::TExpr;
use crate::types::{Dim, TensorType};

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}


impl Checker {
    pub(crate) fn builtin(
        &mut self,
        sc: &Scope,
        b: Builtin,
        name: &Ident,
        args: &[Expr],
        span: Span,
        allow_multi: bool,
    ) -> Option<Typed> {
        let fname = name.name.as_str();
        let (lo, hi) = b.arity();
        if args.len() < lo || args.len() > hi {
            let takes = if lo == hi {
                format!("{lo} argument{}", plural(lo))
            } else {
                format!("{lo} or {hi} arguments")
            };
            let d = Diagnostic::new(
                ErrorKind::Arity,
                span.clone(),
                format!("`{fname}` takes {takes}, got {}", args.len()),
            )
            .with_label(
                span,
                format!("{} argument{} given", args.len(), plural(args.len())),
            );
            self.report(d);
            return None;
        }
        match b {
            Builtin::Unary(op) => {
                let x = self.expr(sc, &args[0])?;
                self.math(op, fname, x, span)
            }
            Builtin::Pair(op) => {
                let l = self.expr(sc, &args[0]);
                let r = self.expr(sc, &args[1]);
                let r = self.binary(op, fname, l?, r?, span)?;
                Some(Typed::strong(r.e))
            }
            Builtin::Triple(op) => {
                let a = self.expr(sc, &args[0]);
                let b = self.expr(sc, &args[1]);
                let x = self.expr(sc, &args[2]);
                self.ternary(op, fname, [a?, b?, x?], span)
            }
            Builtin::Reduce(op) => self.reduce_builtin(sc, op, fname, args, span),
            Builtin::Arg { max } => self.arg_builtin(sc, max, fname, args, span),
            Builtin::Scan { prod } => self.scan_builtin(sc, prod, fname, args, span),
            Builtin::Sort { arg } => self.sort_builtin(sc, arg, fname, args, span),
            Builtin::Concat | Builtin::Stack => self.join_builtin(sc, b == Builtin::Stack, fname, args, span),
            Builtin::Split => self.split_builtin(sc, args, span, allow_multi),
            Builtin::Fill { .. } | Builtin::Full | Builtin::Arange | Builtin::Eye => {
                self.constructor_builtin(sc, b, fname, args, span)
            }
            Builtin::Outer | Builtin::Diagonal | Builtin::Trace | Builtin::Tri { .. } => {
                self.matrix_builtin(sc, b, fname, args, span)
            }
            Builtin::Cholesky | Builtin::SolveTriangular | Builtin::Solve | Builtin::Inv | Builtin::Det | Builtin::Diag => self.linalg_builtin(sc, b, fname, args, span),
            Builtin::Slogdet => self.slogdet_builtin(sc, args, span, allow_multi),
            Builtin::LuFactor => self.lu_factor_builtin(sc, args, span, allow_multi),
            Builtin::Eigh => self.eigh_builtin(sc, args, span, allow_multi),
            Builtin::LuPermutation => self.lu_permutation_builtin(sc, args, span),
            Builtin::Softmax { log } => {
                let x = self.expr(sc, &args[0])?;
                if !x.dtype().is_float() {
                    let d = Diagnostic::new(
                        ErrorKind::DType,
                        span,
                        format!("`{fname}` needs a float operand"),
                    )
                    .with_label(x.e.span.clone(), has_type(x.ty()))
                    .with_note(format!("cast it first: `{fname}(cast(x, f64), axis)`"));
                    self.report(d);
                    return None;
                }
                if x.ty().rank() == 0 {
                    let d = Diagnostic::new(
                        ErrorKind::Rank,
                        span,
                        format!("`{fname}` needs an operand of rank 1 or more"),
                    )
                    .with_label(x.e.span.clone(), has_type(x.ty()));
                    self.report(d);
                    return None;
                }
                let axis = self.axis(&args[1], fname, x.ty(), x.ty().rank())?;
                let ty = x.ty().clone();
                Some(Typed::strong(TExpr::op(Op::Softmax { axis, log }, vec![x.e], ty, span)))
            }
            Builtin::Transpose => {
                let x = self.expr(sc, &args[0])?;
                let perm = self.permutation(&args[1], x.ty())?;
                let dims = perm.iter().map(|&i| x.ty().dims[i].clone()).collect();
                let ty = TensorType::new(x.dtype(), dims);
                Some(Typed::strong(TExpr::op(Op::Transpose(perm), vec![x.e], ty, span)))
            }
            Builtin::Expand => {
                let x = self.expr(sc, &args[0])?;
                let rank = x.ty().rank();
                let axis = self.axis(&args[1], fname, x.ty(), rank + 1)?;
                let mut dims = x.ty().dims.clone();
                dims.insert(axis, Dim::Static(1));
                let ty = TensorType::new(x.dtype(), dims);
                Some(Typed::strong(TExpr::op(Op::Expand(axis), vec![x.e], ty, span)))
            }
            Builtin::Squeeze => {
                let x = self.expr(sc, &args[0])?;
                let axis = self.axis(&args[1], fname, x.ty(), x.ty().rank())?;
                let dim = &x.ty().dims[axis];
                if *dim != Dim::Static(1) {
                    let d = Diagnostic::new(
                        ErrorKind::Shape,
                        span,
                        format!(
                            "`squeeze` needs a dim of size 1, but axis {axis} of `{}` is `{dim}`",
                            x.ty()
                        ),
                    )
                    .with_label(x.e.span.clone(), has_type(x.ty()))
                    .with_label(args[1].span.clone(), format!("axis {axis}"));
                    self.report(d);
                    return None;
                }
                let mut dims = x.ty().dims.clone();
                dims.remove(axis);
                let ty = TensorType::new(x.dtype(), dims);
                Some(Typed::strong(TExpr::op(Op::Squeeze(axis), vec![x.e], ty, span)))
            }
            Builtin::Broadcast => {
                let x = self.expr(sc, &args[0]);
                let target = self.shape_list(sc, &args[1], fname);
                let (x, target) = (x?, target?);
                self.broadcast_to(x, target, &args[1], span)
            }
            Builtin::Reshape => {
                let x = self.expr(sc, &args[0]);
                let target = self.shape_list(sc, &args[1], fname);
                let (x, target) = (x?, target?);
                self.reshape(x, target, &args[1], span)
            }
            Builtin::Where => {
                let c = self.expr(sc, &args[0]);
                let a = self.expr(sc, &args[1]);
                let bb = self.expr(sc, &args[2]);
                let (c, a, bb) = (c?, a?, bb?);
                self.where_(c, a, bb, span)
            }
            Builtin::Take => self.take(sc, args, span),
            Builtin::FlatNonzero => self.flatnonzero(sc, args, span),
            Builtin::Guard => self.guard(sc, args, span),
            Builtin::Scatter { add } => self.scatter(sc, add, args, span),
            Builtin::SetSlice => self.set_slice(sc, args, span),
            Builtin::Clip => {
                let x = self.expr(sc, &args[0]);
                let lo = self.expr(sc, &args[1]);
                let hi = self.expr(sc, &args[2]);
                let (x, lo, hi) = (x?, lo?, hi?);
                self.clip(x, lo, hi, span)
            }
            Builtin::Cast => {
                let x = self.expr(sc, &args[0]);
                let ExprKind::DType(to) = args[1].kind else {
                    return self.error(
                        ErrorKind::BadArgument,
                        args[1].span.clone(),
                        "the second argument of `cast` must be a dtype",
                        "expected one of `bool`, `i32`, `i64`, `f32`, `f64`",
                    );
                };
                let x = x?;
                let e = if x.weak.is_some() {
                    match literal::retype(x.e.clone(), to) {
                        Ok(e) => e,
                        Err(_) => crate::check::cast(x.e, to),
                    }
                } else {
                    crate::check::cast(x.e, to)
                };
                Some(Typed::strong(TExpr { span, ..e }))
            }
        }
    }

}
