//! Type rules of joining: `concat([a, b, ...], axis)`, `stack([a, b, ...], axis)`, and array
//! literals whose elements are expressions (`[x, y]` stacks them along a new first axis).

use crate::ast::{Expr, ExprKind};
use crate::check::dims::unify;
use crate::check::dtype::{Weak, common};
use crate::check::env::Scope;
use crate::check::expr::clash_note;
use crate::check::{Checker, Typed, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::TExpr;
use crate::types::{Dim, TensorType};

/// Whether an array literal holds only number and bool literals (at any depth), so that it is
/// a constant rather than a stack of expressions.
pub(crate) fn is_constant_array(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Array(items) => items.iter().all(is_constant_array),
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) => true,
        ExprKind::Unary(crate::ast::UnOp::Neg, inner) => is_constant_array(inner),
        _ => false,
    }
}

impl Checker {
    /// The elements of a list `[a, b, ...]`, checked and converted to their common dtype
    /// (promoted as arithmetic operands are; literals adapt). `None` after reporting.
    fn list_items(&mut self, sc: &Scope, items: &[Expr]) -> Option<(Vec<TExpr>, Option<Weak>)> {
        let typed: Vec<Option<Typed>> = items.iter().map(|i| self.expr(sc, i)).collect();
        let typed: Vec<Typed> = typed.into_iter().collect::<Option<_>>()?;
        let first = typed.first()?;
        let mut key = first.key();
        for t in &typed[1..] {
            let dtype = common(key, t.key());
            let weak = if key.1.is_some() && t.weak.is_some() { Some(Weak::of(dtype)) } else { None };
            key = (dtype, weak);
        }
        let mut out = Vec::with_capacity(typed.len());
        for t in typed {
            out.push(self.convert(t, key.0)?);
        }
        Some((out, key.1))
    }

    pub(crate) fn join_builtin(&mut self, sc: &Scope, stack: bool, fname: &str, args: &[Expr], span: Span) -> Option<Typed> {
        let ExprKind::Array(items) = &args[0].kind else {
            return self.error(
                ErrorKind::BadArgument,
                args[0].span.clone(),
                format!("the first argument of `{fname}` must be a list of arrays, like `[a, b]`"),
                "not a list",
            );
        };
        if items.is_empty() {
            return self.error(
                ErrorKind::BadArgument,
                args[0].span.clone(),
                format!("`{fname}` needs at least one array to join"),
                "an empty list",
            );
        }
        let (operands, _) = self.list_items(sc, items)?;
        let rank = operands[0].ty.rank();
        if let Some(bad) = operands.iter().find(|o| o.ty.rank() != rank) {
            let d = Diagnostic::new(
                ErrorKind::Rank,
                span,
                format!("the arrays joined by `{fname}` must have the same rank"),
            )
            .with_label(operands[0].span.clone(), has_type(&operands[0].ty))
            .with_label(bad.span.clone(), has_type(&bad.ty));
            self.report(d);
            return None;
        }
        if !stack && rank == 0 {
            let d = Diagnostic::new(ErrorKind::Rank, span, "`concat` cannot join scalars")
                .with_label(operands[0].span.clone(), has_type(&operands[0].ty))
                .with_note("use `stack` to make a new axis");
            self.report(d);
            return None;
        }
        let out_rank = if stack { rank + 1 } else { rank };
        let axis = match args.get(1) {
            Some(a) => self.axis(a, fname, &operands[0].ty, out_rank)?,
            None => 0,
        };
        let operands = if stack {
            self.unify_dims(&operands, None, &format!("`{fname}`"), &span)?;
            operands.into_iter().map(|o| expand(o, axis)).collect()
        } else {
            operands
        };
        self.concat(operands, axis, &format!("`{fname}`"), span).map(Typed::strong)
    }

    /// Unifies the dims of `operands` on every axis but `skip`; a clash is a `Shape` error
    /// labelling the first operand and the one that differs. `None` after reporting.
    fn unify_dims(&mut self, operands: &[TExpr], skip: Option<usize>, what: &str, span: &Span) -> Option<Vec<Dim>> {
        let first = &operands[0];
        let mut dims = first.ty.dims.clone();
        for o in &operands[1..] {
            for (i, d) in o.ty.dims.iter().enumerate() {
                if Some(i) == skip {
                    continue;
                }
                match unify(&dims[i], d) {
                    Some(u) => dims[i] = u,
                    None => {
                        let note = match (&dims[i], d) {
                            (Dim::Static(_), Dim::Static(_)) => format!("`{}` and `{d}` differ", dims[i]),
                            (a, b) => clash_note(a, b),
                        };
                        let mut diag = Diagnostic::new(
                            ErrorKind::Shape,
                            span.clone(),
                            format!("the arrays joined by {what} differ at axis {i}"),
                        )
                        .with_label(first.span.clone(), has_type(&first.ty))
                        .with_label(o.span.clone(), has_type(&o.ty))
                        .with_note(note);
                        if let Some(axis) = skip {
                            diag = diag.with_note(format!("only the sizes along the joining axis {axis} may differ"));
                        }
                        self.report(diag);
                        return None;
                    }
                }
            }
        }
        Some(dims)
    }

    /// Joins operands of one dtype and rank along `axis`: the other dims must unify (a static
    /// clash is an error here; `?`s are checked at run time).
    pub(crate) fn concat(&mut self, operands: Vec<TExpr>, axis: usize, what: &str, span: Span) -> Option<TExpr> {
        let mut dims = self.unify_dims(&operands, Some(axis), what, &span)?;
        let first = &operands[0];
        let mut total = Some(0u64);
        for o in &operands {
            total = match (&o.ty.dims[axis], total) {
                (Dim::Static(n), Some(t)) => t.checked_add(*n),
                _ => None,
            };
        }
        dims[axis] = match total {
            Some(n) => Dim::Static(n),
            None if operands.len() == 1 => first.ty.dims[axis].clone(),
            None => Dim::Unknown,
        };
        if operands.len() == 1 {
            let only = operands.into_iter().next()?;
            return Some(TExpr { span, ..only });
        }
        let ty = TensorType::new(first.ty.dtype, dims);
        Some(TExpr::op(Op::Concat(axis), operands, ty, span))
    }

    /// An array literal with an element that is not a literal: `[a, b]` stacks its elements
    /// along a new first axis, as `stack([a, b], 0)`.
    pub(crate) fn stack_literal(&mut self, sc: &Scope, items: &[Expr], span: Span) -> Option<Typed> {
        if items.is_empty() {
            return self.error(ErrorKind::BadArgument, span, "an empty array literal has no elements to stack", "empty");
        }
        let (operands, _) = self.list_items(sc, items)?;
        let rank = operands[0].ty.rank();
        if let Some(bad) = operands.iter().find(|o| o.ty.rank() != rank) {
            let d = Diagnostic::new(ErrorKind::Shape, bad.span.clone(), "ragged array literal")
                .with_label(bad.span.clone(), has_type(&bad.ty))
                .with_label(operands[0].span.clone(), format!("but the first element {}", has_type(&operands[0].ty)))
                .with_note("every element of an array literal must have the same shape");
            self.report(d);
            return None;
        }
        self.unify_dims(&operands, None, "an array literal", &span)?;
        let operands = operands.into_iter().map(|o| expand(o, 0)).collect();
        self.concat(operands, 0, "an array literal", span).map(Typed::strong)
    }
}

/// Inserts a size-1 axis at `axis`.
fn expand(o: TExpr, axis: usize) -> TExpr {
    let mut dims = o.ty.dims.clone();
    dims.insert(axis, Dim::Static(1));
    let ty = TensorType::new(o.ty.dtype, dims);
    let span = o.span.clone();
    TExpr::op(Op::Expand(axis), vec![o], ty, span)
}
