//! The type rules of the builtins called by name (the names and arities are the op table's,
//! `crate::ops`): math, reductions, shape operations, `where`, `cast`.

use super::dims::{Count, broadcast, normalize_axis};
use super::dtype::{Weak, common};
use super::env::Scope;
use super::expr::literal_int;
use super::broadcast::explicit;
use super::{Checker, Typed, has_type, literal};
use crate::ast::{Expr, ExprKind, Ident};
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::ops::{Builtin, Op};
use crate::typed::{ReduceOp, TExpr, UnaryOp};
use crate::types::{DType, Dim, TensorType};

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// "valid axes are -2..=1" for rank 2.
fn axis_range(rank: usize) -> String {
    if rank == 0 {
        "a scalar has no axes".to_string()
    } else {
        format!("valid axes are -{rank}..={}", rank - 1)
    }
}

impl Checker {
    pub(crate) fn builtin(
        &mut self,
        sc: &Scope,
        b: Builtin,
        name: &Ident,
        args: &[Expr],
        span: Span,
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
                let r = self.binary(op, &format!("`{fname}`"), l?, r?, span)?;
                Some(Typed::strong(r.e))
            }
            Builtin::Reduce(op) => {
                let x = self.expr(sc, &args[0])?;
                let rank = x.ty().rank();
                let axes = match args.get(1) {
                    Some(a) => self.axes(a, fname, x.ty())?,
                    None => (0..rank).collect(),
                };
                let target = match (op, x.dtype()) {
                    (ReduceOp::Sum, DType::Bool | DType::I32) => DType::I64,
                    (ReduceOp::Mean, d) if !d.is_float() => DType::F64,
                    (_, d) => d,
                };
                let operand = self.convert(x, target)?;
                if axes.is_empty() {
                    return Some(Typed::strong(operand));
                }
                let dims = operand
                    .ty
                    .dims
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !axes.contains(i))
                    .map(|(_, d)| d.clone())
                    .collect();
                let ty = TensorType::new(target, dims);
                Some(Typed::strong(TExpr::op(Op::Reduce(op, axes), vec![operand], ty, span)))
            }
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
                        Err(_) => super::cast(x.e, to),
                    }
                } else {
                    super::cast(x.e, to)
                };
                Some(Typed::strong(TExpr { span, ..e }))
            }
        }
    }

    fn math(&mut self, op: UnaryOp, fname: &str, x: Typed, span: Span) -> Option<Typed> {
        if x.dtype() == DType::Bool {
            let d = Diagnostic::new(
                ErrorKind::DType,
                span,
                format!("`{fname}` is not defined on bool"),
            )
            .with_label(x.e.span.clone(), has_type(x.ty()))
            .with_note("cast to a number first, e.g. `cast(b, f64)`");
            self.report(d);
            return None;
        }
        let target = if op.keeps_integers() || x.dtype().is_float() {
            x.dtype()
        } else {
            DType::F64
        };
        let operand = self.convert(x, target)?;
        let ty = operand.ty.clone();
        Some(Typed::strong(TExpr::op(Op::Unary(op), vec![operand], ty, span)))
    }

    /// One axis argument (an integer literal, possibly negative) for an operand of `ty`, valid
    /// in `-rank..rank`; normalized.
    fn axis(&mut self, arg: &Expr, fname: &str, ty: &TensorType, rank: usize) -> Option<usize> {
        let Some(v) = literal_int(arg) else {
            return self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                format!("the axis of `{fname}` must be an integer literal"),
                "not an integer literal",
            );
        };
        match normalize_axis(v, rank) {
            Some(a) => Some(a),
            None => self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                format!("axis {v} is out of range for `{ty}` in `{fname}`"),
                axis_range(rank),
            ),
        }
    }

    /// The axes of a reduction: one axis or a list of them; sorted, unique.
    fn axes(&mut self, arg: &Expr, fname: &str, ty: &TensorType) -> Option<Vec<usize>> {
        let rank = ty.rank();
        let items: Vec<&Expr> = match &arg.kind {
            ExprKind::Array(items) => items.iter().collect(),
            _ if literal_int(arg).is_some() => vec![arg],
            _ => {
                return self.error(
                    ErrorKind::BadArgument,
                    arg.span.clone(),
                    format!("the axes of `{fname}` must be an integer literal or a list of them, like `[0, 1]`"),
                    "not an axis or a list of axes",
                );
            }
        };
        let mut axes: Vec<usize> = Vec::new();
        let mut ok = true;
        for item in items {
            let Some(a) = self.axis(item, fname, ty, rank) else {
                ok = false;
                continue;
            };
            if axes.contains(&a) {
                self.error::<()>(
                    ErrorKind::BadArgument,
                    item.span.clone(),
                    format!("axis {a} is repeated in the axes of `{fname}`"),
                    "repeated axis",
                );
                ok = false;
            }
            axes.push(a);
        }
        if !ok {
            return None;
        }
        axes.sort_unstable();
        Some(axes)
    }

    fn permutation(&mut self, arg: &Expr, ty: &TensorType) -> Option<Vec<usize>> {
        let rank = ty.rank();
        let ExprKind::Array(items) = &arg.kind else {
            return self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                "the axes of `transpose` must be a list of integer literals, like `[1, 0]`",
                "not a list of axes",
            );
        };
        if items.len() != rank {
            return self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                format!(
                    "`transpose` of `{ty}` needs a permutation of its {rank} axes, got {} axes",
                    items.len()
                ),
                format!("{} axes", items.len()),
            );
        }
        let mut perm = Vec::new();
        for item in items {
            let a = self.axis(item, "transpose", ty, rank)?;
            if perm.contains(&a) {
                return self.error(
                    ErrorKind::BadArgument,
                    item.span.clone(),
                    format!("the axes of `transpose` are not a permutation: axis {a} is repeated"),
                    "repeated axis",
                );
            }
            perm.push(a);
        }
        Some(perm)
    }

    /// A shape list `[2, n, ?]` for `broadcast` / `reshape`.
    fn shape_list(&mut self, sc: &Scope, arg: &Expr, fname: &str) -> Option<Vec<Dim>> {
        let ExprKind::Array(items) = &arg.kind else {
            return self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                format!("the shape of `{fname}` must be a list like `[2, n, ?]`"),
                "not a shape list",
            );
        };
        let mut dims = Vec::new();
        let mut ok = true;
        for item in items {
            let d = match &item.kind {
                ExprKind::UnknownDim => Some(Dim::Unknown),
                ExprKind::Var(n) if sc.has_symbol(n) => Some(Dim::Symbol(n.clone())),
                ExprKind::Var(n) => {
                    let mut d = Diagnostic::new(ErrorKind::UnknownName, item.span.clone(), format!("unknown dimension `{n}`"))
                        .with_label(item.span.clone(), "not a dimension name in scope");
                    d = d.with_note(match &sc.function {
                        Some(f) => format!("dimension names come from the parameter types of `{f}`"),
                        None => "dimension names are only in scope inside a function whose parameter types use them"
                            .to_string(),
                    });
                    self.report(d);
                    None
                }
                _ => match literal_int(item) {
                    Some(v) if v >= 0 => Some(Dim::Static(v as u64)),
                    Some(v) => self.error(
                        ErrorKind::BadArgument,
                        item.span.clone(),
                        format!("a dim cannot be negative, got {v}"),
                        "write `?` for a dim to infer",
                    ),
                    None => self.error(
                        ErrorKind::BadArgument,
                        item.span.clone(),
                        format!("a dim in the shape of `{fname}` must be an integer literal, a dimension name or `?`"),
                        "not a dim",
                    ),
                },
            };
            match d {
                Some(d) => dims.push(d),
                None => ok = false,
            }
        }
        ok.then_some(dims)
    }

    fn broadcast_to(
        &mut self,
        x: Typed,
        target: Vec<Dim>,
        arg: &Expr,
        span: Span,
    ) -> Option<Typed> {
        let src = x.ty().clone();
        let shape_text = format!(
            "[{}]",
            target
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if src.rank() > target.len() {
            let d = Diagnostic::new(
                ErrorKind::Rank,
                span,
                format!("cannot broadcast `{src}` to the shape {shape_text} of lower rank"),
            )
            .with_label(x.e.span.clone(), has_type(&src))
            .with_label(arg.span.clone(), format!("rank {}", target.len()));
            self.report(d);
            return None;
        }
        let offset = target.len() - src.rank();
        let mut dims = target.clone();
        for (i, d) in src.dims.iter().enumerate() {
            let t = &target[offset + i];
            let ok = match (d, t) {
                (Dim::Static(1), _) => true,
                (a, b) if a == b => true,
                (Dim::Unknown, _) => true,
                (a, Dim::Unknown) => {
                    dims[offset + i] = a.clone();
                    true
                }
                _ => false,
            };
            if !ok {
                let d = Diagnostic::new(
                    ErrorKind::Shape,
                    span,
                    format!("cannot broadcast `{src}` to the shape {shape_text}"),
                )
                .with_label(x.e.span.clone(), has_type(&src))
                .with_label(arg.span.clone(), "target shape")
                .with_note(super::expr::clash_note(d, t));
                self.report(d);
                return None;
            }
        }
        let ty = TensorType::new(src.dtype, dims);
        Some(Typed::strong(TExpr::op(Op::Broadcast, vec![x.e], ty, span)))
    }

    fn reshape(&mut self, x: Typed, mut target: Vec<Dim>, arg: &Expr, span: Span) -> Option<Typed> {
        let src = x.ty().clone();
        let unknowns = target.iter().filter(|d| **d == Dim::Unknown).count();
        if unknowns > 1 {
            return self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                "`reshape` allows at most one `?` in its shape",
                format!("{unknowns} `?`s"),
            );
        }
        let have = Count::of(&src.dims);
        let want = Count::of(&target);
        let shape_text = format!(
            "[{}]",
            target
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mismatch = |this: &mut Checker, note: String| {
            let d = Diagnostic::new(
                ErrorKind::Shape,
                span.clone(),
                format!("cannot reshape `{src}` to {shape_text}"),
            )
            .with_label(
                x.e.span.clone(),
                format!("{} ({} elements)", has_type(&src), have.describe()),
            )
            .with_label(arg.span.clone(), "target shape")
            .with_note(note);
            this.report(d);
        };
        let exact = have.unknown == 0 && !have.overflow && !want.overflow;
        if unknowns == 0 {
            if exact && (have.fixed != want.fixed || have.names != want.names) {
                mismatch(self, format!("the target has {} elements", want.describe()));
                return None;
            }
        } else if exact {
            match have.divide(&want) {
                Some((fixed, names)) if names.is_empty() => {
                    if let Some(slot) = target.iter_mut().find(|d| **d == Dim::Unknown) {
                        *slot = Dim::Static(fixed as u64);
                    }
                }
                Some((1, names)) if names.len() == 1 && names.values().all(|v| *v == 1) => {
                    if let (Some(slot), Some(n)) = (
                        target.iter_mut().find(|d| **d == Dim::Unknown),
                        names.keys().next(),
                    ) {
                        *slot = Dim::Symbol(n.clone());
                    }
                }
                Some(_) => {}
                None if have.names.is_empty() && want.names.is_empty() => {
                    mismatch(
                        self,
                        format!(
                            "{} elements cannot be split into rows of {}",
                            have.fixed, want.fixed
                        ),
                    );
                    return None;
                }
                None => {}
            }
        }
        let ty = TensorType::new(src.dtype, target);
        Some(Typed::strong(TExpr::op(Op::Reshape, vec![x.e], ty, span)))
    }

    fn where_(&mut self, c: Typed, a: Typed, b: Typed, span: Span) -> Option<Typed> {
        let mut ok = true;
        if c.dtype() != DType::Bool {
            let d = Diagnostic::new(
                ErrorKind::DType,
                c.e.span.clone(),
                "the condition of `where` must be bool",
            )
            .with_label(c.e.span.clone(), has_type(c.ty()))
            .with_note("compare to get a condition, e.g. `where(x > 0.0, x, 0.0)`");
            self.report(d);
            ok = false;
        }
        let ab = match broadcast(&a.ty().dims, &b.ty().dims) {
            Ok(d) => Some(d),
            Err(clash) => {
                self.broadcast_error(&a.e, &b.e, clash, span.clone());
                None
            }
        };
        let dims = match ab {
            Some(ab) => match broadcast(&c.ty().dims, &ab) {
                Ok(d) => Some(d),
                Err(clash) => {
                    let bt = TensorType::new(common(a.key(), b.key()), ab);
                    let d = Diagnostic::new(
                        ErrorKind::Shape,
                        span.clone(),
                        format!(
                            "cannot broadcast the condition `{}` with the branches `{bt}`",
                            c.ty()
                        ),
                    )
                    .with_label(c.e.span.clone(), has_type(c.ty()))
                    .with_label(
                        a.e.span.start..b.e.span.end,
                        format!("the branches broadcast to `{bt}`"),
                    )
                    .with_note(super::expr::clash_note(&clash.0, &clash.1));
                    self.report(d);
                    None
                }
            },
            None => None,
        };
        if !ok {
            return None;
        }
        let dims = dims?;
        let target = common(a.key(), b.key());
        let weak = None::<Weak>;
        let ae = self.convert(a, target);
        let be = self.convert(b, target);
        let operands = explicit(vec![c.e, ae?, be?], &dims);
        Some(Typed {
            e: TExpr::op(Op::Select, operands, TensorType::new(target, dims), span),
            weak,
        })
    }
}
