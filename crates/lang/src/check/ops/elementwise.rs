//! Type rules of the elementwise family: unary math, binary operators, `where`; operands are
//! promoted and broadcast explicitly (`check::broadcast`).

use crate::check::broadcast::explicit;
use crate::check::dims::broadcast;
use crate::check::dtype::{Weak, common};
use crate::check::expr::{clash_note, literal_expr};
use crate::check::{Checker, Typed, has_type, literal};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::{BinaryOp, TExpr, TExprKind, UnaryOp};
use crate::types::{DType, Dim, TensorType};

impl Checker {
    pub(crate) fn math(&mut self, op: UnaryOp, fname: &str, x: Typed, span: Span) -> Option<Typed> {
        if op.gives_bool() {
            return Some(self.test(op, x, span));
        }
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

    pub(crate) fn negate(&mut self, t: Typed, span: Span) -> Option<Typed> {
        if t.dtype() == DType::Bool {
            let d = Diagnostic::new(ErrorKind::DType, span, "`-` is not defined on bool")
                .with_label(t.e.span.clone(), has_type(t.ty()))
                .with_note("negate a condition with `x == false`, or cast to a number first");
            self.report(d);
            return None;
        }
        if let TExprKind::Literal(v) = &t.e.kind {
            return match literal::negate(v) {
                Ok(v) => Some(Typed {
                    e: literal_expr(v, span),
                    weak: t.weak,
                }),
                Err(msg) => self.error(ErrorKind::BadArgument, span, msg, "this literal"),
            };
        }
        let ty = t.ty().clone();
        Some(Typed {
            e: TExpr::op(Op::Unary(UnaryOp::Neg), vec![t.e], ty, span),
            weak: t.weak,
        })
    }

    /// Reports that two operands do not broadcast, labelling both with their types.
    pub(crate) fn broadcast_error(&mut self, l: &TExpr, r: &TExpr, clash: (Dim, Dim), span: Span) {
        let d = Diagnostic::new(
            ErrorKind::Shape,
            span,
            format!("cannot broadcast `{}` with `{}`", l.ty, r.ty),
        )
        .with_label(l.span.clone(), has_type(&l.ty))
        .with_label(r.span.clone(), has_type(&r.ty))
        .with_note(clash_note(&clash.0, &clash.1));
        self.report(d);
    }

    /// An elementwise binary operator (also `maximum` and `minimum`).
    pub(crate) fn binary(
        &mut self,
        op: BinaryOp,
        sym: &str,
        l: Typed,
        r: Typed,
        span: Span,
    ) -> Option<Typed> {
        if op.is_logical() {
            return self.logical(op, l, r, span);
        }
        let arith = op.is_arithmetic();
        let mut ok = true;
        if arith && (l.dtype() == DType::Bool || r.dtype() == DType::Bool) {
            let mut d = Diagnostic::new(
                ErrorKind::DType,
                span.clone(),
                format!("`{sym}` is not defined on bool operands"),
            );
            for t in [&l, &r] {
                if t.dtype() == DType::Bool {
                    d = d.with_label(t.e.span.clone(), has_type(t.ty()));
                }
            }
            d = d.with_note("cast to a number first, e.g. `cast(b, i64)`");
            self.report(d);
            ok = false;
        }
        let dims = match broadcast(&l.ty().dims, &r.ty().dims) {
            Ok(d) => Some(d),
            Err(clash) => {
                self.broadcast_error(&l.e, &r.e, clash, span.clone());
                None
            }
        };
        if !ok {
            return None;
        }
        let dims = dims?;
        let mut target = common(l.key(), r.key());
        if op.is_float_function() && !target.is_float() {
            target = DType::F64;
        }
        let result = if op.is_comparison() {
            DType::Bool
        } else {
            target
        };
        let weak = if l.weak.is_some() && r.weak.is_some() && !op.is_comparison() {
            Some(Weak::of(result))
        } else {
            None
        };
        let le = self.convert(l, target);
        let re = self.convert(r, target);
        let operands = explicit(vec![le?, re?], &dims);
        Some(Typed {
            e: TExpr::op(Op::Binary(op), operands, TensorType::new(result, dims), span),
            weak,
        })
    }

    pub(crate) fn where_(&mut self, c: Typed, a: Typed, b: Typed, span: Span) -> Option<Typed> {
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
                    .with_note(clash_note(&clash.0, &clash.1));
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
