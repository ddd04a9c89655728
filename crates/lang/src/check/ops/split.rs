//! The type rule of `split(x, [sizes], axis)`: several values, one part of `x` per size, in
//! order along the axis (default 0). Sizes are non-negative integer literals; they must add up
//! to the axis's size, which is checked here when the dim is static and at run time otherwise.
//! Each part is an [`Op::SplitPart`] of `x`, and the call is a [`TExprKind::Tuple`] of them, so
//! it stands where several values may: `let (a, b) = split(...)`, a top-level `print`, a
//! function's results.

use crate::ast::{Expr, ExprKind};
use crate::check::env::Scope;
use crate::check::expr::literal_int;
use crate::check::{Checker, Typed, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::{TExpr, TExprKind};
use crate::types::{Dim, TensorType};

impl Checker {
    pub(crate) fn split_builtin(&mut self, sc: &Scope, args: &[Expr], span: Span, allow_multi: bool) -> Option<Typed> {
        let x = self.expr(sc, &args[0]);
        let sizes = self.split_sizes(&args[1]);
        let (x, sizes) = (x?, sizes?);
        let ty = x.ty().clone();
        if ty.rank() == 0 {
            let d = Diagnostic::new(ErrorKind::Rank, span, "`split` cannot split a scalar")
                .with_label(x.e.span.clone(), has_type(&ty));
            self.report(d);
            return None;
        }
        let axis = match args.get(2) {
            Some(a) => self.axis(a, "split", &ty, ty.rank())?,
            None => 0,
        };
        let total: u64 = sizes.iter().sum();
        if let Dim::Static(n) = ty.dims[axis]
            && n != total
        {
            let d = Diagnostic::new(
                ErrorKind::Shape,
                args[1].span.clone(),
                format!("the sizes given to `split` add up to {total}, but axis {axis} of `{ty}` has size {n}"),
            )
            .with_label(args[1].span.clone(), format!("these add up to {total}"))
            .with_label(x.e.span.clone(), has_type(&ty));
            self.report(d);
            return None;
        }
        if sizes.len() > 1 && !allow_multi {
            let d = Diagnostic::new(
                ErrorKind::Mismatch,
                span.clone(),
                format!("`split` gives {} values here, but one value is expected", sizes.len()),
            )
            .with_label(span, format!("{} parts", sizes.len()))
            .with_note("bind the parts with `let (a, b) = split(...)`, or print them whole");
            self.report(d);
            return None;
        }
        let mut parts = Vec::new();
        let mut start = 0;
        for len in sizes {
            let mut dims = ty.dims.clone();
            dims[axis] = Dim::Static(len);
            let part_ty = TensorType::new(ty.dtype, dims);
            let op = Op::SplitPart { axis, start, len, total };
            parts.push(TExpr::op(op, vec![x.e.clone()], part_ty, span.clone()));
            start += len;
        }
        if parts.len() == 1 {
            return Some(Typed::strong(parts.remove(0)));
        }
        let first = parts[0].ty.clone();
        Some(Typed::strong(TExpr::new(TExprKind::Tuple(parts), first, span)))
    }

    /// A non-empty list of non-negative integer literals.
    fn split_sizes(&mut self, arg: &Expr) -> Option<Vec<u64>> {
        let items = match &arg.kind {
            ExprKind::Array(items) if !items.is_empty() => items,
            _ => {
                return self.error(
                    ErrorKind::BadArgument,
                    arg.span.clone(),
                    "the sizes of `split` must be a list of integer literals, like `[2, 3]`",
                    "not a list of sizes",
                );
            }
        };
        let mut sizes = Vec::new();
        for item in items {
            match literal_int(item) {
                Some(v) if v >= 0 => sizes.push(v as u64),
                _ => {
                    return self.error(
                        ErrorKind::BadArgument,
                        item.span.clone(),
                        "a size given to `split` must be a non-negative integer literal",
                        "not a non-negative integer literal",
                    );
                }
            }
        }
        Some(sizes)
    }
}
