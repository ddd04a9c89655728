//! Type rules of the matrix helpers: `outer`, `diagonal`, `trace`, `tril`, `triu`.

use crate::ast::Expr;
use crate::check::env::Scope;
use crate::check::expr::literal_int;
use crate::check::ops::reductions::reduce_dtype;
use crate::check::{Checker, Typed, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::{Builtin, Op};
use crate::span::Span;
use crate::typed::{BinaryOp, ReduceOp, TExpr};
use crate::types::{Dim, TensorType};

impl Checker {
    fn need_rank(&mut self, x: &Typed, fname: &str, ok: bool, want: &str, span: &Span) -> Option<()> {
        if ok {
            return Some(());
        }
        let d = Diagnostic::new(ErrorKind::Rank, span.clone(), format!("`{fname}` needs {want}"))
            .with_label(x.e.span.clone(), has_type(x.ty()));
        self.report(d);
        None
    }

    pub(crate) fn matrix_builtin(&mut self, sc: &Scope, b: Builtin, fname: &str, args: &[Expr], span: Span) -> Option<Typed> {
        match b {
            Builtin::Outer => {
                let a = self.expr(sc, &args[0]);
                let c = self.expr(sc, &args[1]);
                let (a, c) = (a?, c?);
                let ok = a.ty().rank() == 1;
                self.need_rank(&a, fname, ok, "vectors (rank 1)", &span)?;
                let ok = c.ty().rank() == 1;
                self.need_rank(&c, fname, ok, "vectors (rank 1)", &span)?;
                // a[:, None] * b[None, :]
                let column = expand(a, 1);
                let row = expand(c, 0);
                let r = self.binary(BinaryOp::Mul, &format!("`{fname}`"), column, row, span)?;
                Some(Typed::strong(r.e))
            }
            Builtin::Diagonal | Builtin::Trace => {
                let m = self.expr(sc, &args[0])?;
                let ok = m.ty().rank() == 2;
                self.need_rank(&m, fname, ok, "a matrix (rank 2)", &span)?;
                let n = match (&m.ty().dims[0], &m.ty().dims[1]) {
                    (Dim::Static(r), Dim::Static(c)) => Dim::Static(*r.min(c)),
                    (r, c) if r == c => r.clone(),
                    _ => Dim::Unknown,
                };
                let ty = TensorType::new(m.dtype(), vec![n]);
                let diag = TExpr::op(Op::Diagonal, vec![m.e], ty, span.clone());
                if b == Builtin::Diagonal {
                    return Some(Typed::strong(diag));
                }
                let target = reduce_dtype(ReduceOp::Sum, diag.ty.dtype);
                let diag = crate::check::cast(diag, target);
                let ty = TensorType::new(target, vec![]);
                Some(Typed::strong(TExpr::op(Op::Reduce(ReduceOp::Sum, vec![0]), vec![diag], ty, span)))
            }
            Builtin::Tri { upper } => {
                let m = self.expr(sc, &args[0])?;
                let ok = m.ty().rank() >= 2;
                self.need_rank(&m, fname, ok, "an operand of rank 2 or more", &span)?;
                let k = match args.get(1) {
                    None => 0,
                    Some(a) => match literal_int(a) {
                        Some(k) => k,
                        None => {
                            return self.error(
                                ErrorKind::BadArgument,
                                a.span.clone(),
                                format!("the diagonal offset of `{fname}` must be an integer literal"),
                                "not an integer literal",
                            );
                        }
                    },
                };
                let ty = m.ty().clone();
                Some(Typed::strong(TExpr::op(Op::Tri { upper, k }, vec![m.e], ty, span)))
            }
            _ => None,
        }
    }
}

/// Inserts a size-1 axis at `axis`, keeping the operand's weakness.
pub(crate) fn expand(x: Typed, axis: usize) -> Typed {
    let mut dims = x.ty().dims.clone();
    dims.insert(axis, Dim::Static(1));
    let ty = TensorType::new(x.dtype(), dims);
    let span = x.e.span.clone();
    Typed { e: TExpr::op(Op::Expand(axis), vec![x.e], ty, span), weak: x.weak }
}
