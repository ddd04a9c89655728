//! `if cond { a } else { b }`: a `bool` scalar condition and two blocks, each seeing the
//! enclosing scope. The value's dtype is the branches' common one (as for `where`); both
//! branches have one rank, and a dim where they differ is `?` in the result.

use super::dtype::common;
use super::env::Scope;
use super::{Checker, Typed, has_type};
use crate::ast::{Block, IfExpr};
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::typed::{TBlock, TExpr, TExprKind, TIf};
use crate::types::{DType, Dim, TensorType};

impl Checker {
    /// One branch: its `let`s in a scope of its own, and its value.
    fn branch(&mut self, sc: &Scope, b: &Block) -> Option<(Vec<crate::typed::TLet>, Typed)> {
        let mut inner = sc.clone();
        let mut lets = Vec::new();
        let mut ok = true;
        for let_ in &b.lets {
            match self.let_stmt(&mut inner, let_) {
                Some(l) => lets.push(l),
                None => ok = false,
            }
        }
        let value = self.expr(&inner, &b.result);
        if !ok {
            return None;
        }
        Some((lets, value?))
    }

    pub(crate) fn if_expr(&mut self, sc: &Scope, c: &IfExpr, span: Span) -> Option<Typed> {
        let cond = self.expr(sc, &c.cond);
        let then = self.branch(sc, &c.then);
        let otherwise = self.branch(sc, &c.otherwise);
        let (cond, (then_lets, a), (else_lets, b)) = (cond?, then?, otherwise?);
        if cond.dtype() != DType::Bool || !cond.ty().is_scalar() {
            let d = Diagnostic::new(ErrorKind::DType, c.cond.span.clone(), "the condition of `if` must be a `bool` scalar")
                .with_label(c.cond.span.clone(), has_type(cond.ty()))
                .with_note("reduce a `bool` array with `all` or `any`; `where(cond, a, b)` chooses element by element");
            self.report(d);
            return None;
        }
        let (ta, tb) = (a.ty().clone(), b.ty().clone());
        if ta.rank() != tb.rank() {
            let d = Diagnostic::new(
                ErrorKind::Rank,
                span,
                format!("the branches of `if` have ranks {} and {}", ta.rank(), tb.rank()),
            )
            .with_label(c.then.result.span.clone(), has_type(&ta))
            .with_label(c.otherwise.result.span.clone(), has_type(&tb))
            .with_note("both branches give a value of one rank; `broadcast(x, [dims])` gives a value more axes");
            self.report(d);
            return None;
        }
        let dims: Vec<Dim> = ta.dims.iter().zip(&tb.dims).map(|(x, y)| if x == y { x.clone() } else { Dim::Unknown }).collect();
        let weak = if a.weak.is_some() && a.weak == b.weak { a.weak } else { None };
        let target = common(a.key(), b.key());
        let ae = self.convert(a, target);
        let be = self.convert(b, target);
        let (ae, be) = (ae?, be?);
        let tif = TIf {
            cond: cond.e,
            then: TBlock { lets: then_lets, results: vec![ae] },
            otherwise: TBlock { lets: else_lets, results: vec![be] },
        };
        let e = TExpr::new(TExprKind::If(Box::new(tif)), TensorType::new(target, dims), span);
        Some(Typed { e, weak })
    }
}
