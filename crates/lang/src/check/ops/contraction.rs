//! Type rules of the contraction family: `@`.

use crate::check::dims::unify;
use crate::check::dtype::common;
use crate::check::{Checker, Typed, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::TExpr;
use crate::types::{DType, Dim, TensorType};

impl Checker {
    pub(crate) fn matmul(&mut self, l: Typed, r: Typed, span: Span) -> Option<Typed> {
        if l.dtype() == DType::Bool || r.dtype() == DType::Bool {
            let mut d = Diagnostic::new(
                ErrorKind::DType,
                span.clone(),
                "`@` is not defined on bool operands",
            );
            for t in [&l, &r] {
                if t.dtype() == DType::Bool {
                    d = d.with_label(t.e.span.clone(), has_type(t.ty()));
                }
            }
            self.report(d);
            return None;
        }
        let (ld, rd) = (&l.ty().dims, &r.ty().dims);
        let (lr, rr) = (ld.len(), rd.len());
        let rank_error = |this: &mut Checker, msg: String| {
            let d = Diagnostic::new(ErrorKind::Rank, span.clone(), msg)
                .with_label(l.e.span.clone(), has_type(l.ty()))
                .with_label(r.e.span.clone(), has_type(r.ty()));
            this.report(d);
        };
        if lr == 0 || rr == 0 {
            rank_error(
                self,
                "`@` needs operands of rank 1 or more; use `*` to multiply by a scalar".to_string(),
            );
            return None;
        }
        // (left inner, right inner, result dims without the batch dims)
        let (li, ri, tail): (&Dim, &Dim, Vec<Dim>) = match (lr, rr) {
            (1, 1) => (&ld[0], &rd[0], vec![]),
            (2, 1) => (&ld[1], &rd[0], vec![ld[0].clone()]),
            (1, 2) => (&ld[0], &rd[0], vec![rd[1].clone()]),
            (a, b) if a == b => (
                &ld[a - 1],
                &rd[a - 2],
                vec![ld[a - 2].clone(), rd[a - 1].clone()],
            ),
            _ => {
                rank_error(
                    self,
                    format!(
                        "`@` cannot multiply rank {lr} by rank {rr}: a batched product needs operands of the same rank"
                    ),
                );
                return None;
            }
        };
        if unify(li, ri).is_none() {
            let d = Diagnostic::new(
                ErrorKind::Shape,
                span.clone(),
                format!("inner dimensions differ: `{li}` vs `{ri}`"),
            )
            .with_label(l.e.span.clone(), has_type(l.ty()))
            .with_label(r.e.span.clone(), has_type(r.ty()));
            self.report(d);
            return None;
        }
        let mut dims = Vec::new();
        if lr >= 3 {
            for i in 0..lr - 2 {
                match unify(&ld[i], &rd[i]) {
                    Some(d) => dims.push(d),
                    None => {
                        let d = Diagnostic::new(
                            ErrorKind::Shape,
                            span.clone(),
                            format!("batch dimensions differ: `{}` vs `{}`", ld[i], rd[i]),
                        )
                        .with_label(l.e.span.clone(), has_type(l.ty()))
                        .with_label(r.e.span.clone(), has_type(r.ty()))
                        .with_note("the batch dims of `@` must be equal (they do not broadcast)");
                        self.report(d);
                        return None;
                    }
                }
            }
        }
        dims.extend(tail);
        let target = common(l.key(), r.key());
        let le = self.convert(l, target);
        let re = self.convert(r, target);
        Some(Typed::strong(TExpr::op(Op::MatMul, vec![le?, re?], TensorType::new(target, dims), span)))
    }

}
