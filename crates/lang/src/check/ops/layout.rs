//! Type rules of the layout family: `broadcast` and `reshape` to a shape list.

use crate::ast::Expr;
use crate::check::dims::Count;
use crate::check::expr::clash_note;
use crate::check::{Checker, Typed, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::TExpr;
use crate::types::{Dim, TensorType};

/// A shape list as written: `[2, n, ?]`.
fn shape_text(dims: &[Dim]) -> String {
    let dims: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

impl Checker {
    pub(crate) fn broadcast_to(
        &mut self,
        x: Typed,
        target: Vec<Dim>,
        arg: &Expr,
        span: Span,
    ) -> Option<Typed> {
        let src = x.ty().clone();
        let shape_text = shape_text(&target);
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
                .with_note(clash_note(d, t));
                self.report(d);
                return None;
            }
        }
        let ty = TensorType::new(src.dtype, dims);
        Some(Typed::strong(TExpr::op(Op::Broadcast, vec![x.e], ty, span)))
    }

    pub(crate) fn reshape(&mut self, x: Typed, mut target: Vec<Dim>, arg: &Expr, span: Span) -> Option<Typed> {
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
        let shape_text = shape_text(&target);
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

}

impl Checker {
    /// `guard(cond, x, code)`: `x` itself, with a run-time check that every element of the
    /// bool `cond` (any shape) is true; `code`, an integer literal, names the guard in the
    /// error (the PyTensor importer maps it back to the assertion it came from).
    pub(crate) fn guard(&mut self, sc: &crate::check::env::Scope, args: &[Expr], span: Span) -> Option<Typed> {
        let cond = self.expr(sc, &args[0]);
        let x = self.expr(sc, &args[1]);
        let code = crate::check::expr::literal_int(&args[2]);
        let (cond, x) = (cond?, x?);
        let Some(code) = code else {
            return self.error(
                ErrorKind::BadArgument,
                args[2].span.clone(),
                "the code of `guard` must be an integer literal",
                "not an integer literal",
            );
        };
        if cond.dtype() != crate::types::DType::Bool {
            let d = Diagnostic::new(ErrorKind::DType, span, "the condition of `guard` must be bool")
                .with_label(cond.e.span.clone(), has_type(cond.ty()));
            self.report(d);
            return None;
        }
        let ty = x.ty().clone();
        Some(Typed::strong(TExpr::op(Op::Guard(code), vec![cond.e, x.e], ty, span)))
    }
}
