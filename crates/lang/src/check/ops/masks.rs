//! Boolean masks as indices, NumPy's boolean indexing: `x[mask]` reads the elements (or the
//! rows of the remaining axes) where a bool `mask` over `x`'s leading axes is true, and
//! `scatter_add(x, mask, v)` / `scatter_set(x, mask, v)` are `x[mask] += v` / `x[mask] = v`.
//!
//! Both are ops of the table: the positions `flatnonzero` finds (with the mask's dims checked
//! against `x`'s), and a gather from (or a scatter into) `x` with its masked axes made one.

use crate::check::{Checker, Typed, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::TExpr;
use crate::types::{DType, Dim, TensorType};

impl Checker {
    /// `x[mask]` for a bool `mask` of rank `k <= rank(x)` with `x`'s leading `k` dims: the
    /// selected elements (`k == rank(x)`) or rows of the remaining axes, in row-major order.
    /// It is a gather of the positions `flatnonzero` finds, from `x` with its leading `k` axes
    /// made one.
    pub(super) fn mask_select(&mut self, x: Typed, mask: Typed, span: Span) -> Option<Typed> {
        let (positions, rows) = self.mask_rows(&x, mask, span.clone())?;
        let mut dims = vec![Dim::Unknown];
        dims.extend(rows.ty.dims[1..].iter().cloned());
        let ty = TensorType::new(rows.ty.dtype, dims);
        Some(Typed::strong(TExpr::op(Op::Take { axis: 0 }, vec![rows, positions], ty, span)))
    }

    /// `scatter_add(x, mask, values)` / `scatter_set(...)` for a bool `mask` over `x`'s leading
    /// axes: `x[mask] += values` / `x[mask] = values`, `values` broadcast to the shape of
    /// `x[mask]`. A scatter into `x` with its masked axes made one, at the positions
    /// `flatnonzero` finds, reshaped back to `x`'s shape.
    pub(super) fn mask_scatter(&mut self, target: Typed, mask: Typed, values: Typed, add: bool, span: Span) -> Option<Typed> {
        let tty = target.ty().clone();
        let k = mask.ty().rank();
        let (positions, rows) = self.mask_rows(&target, mask, span.clone())?;
        let scattered = self.scatter_at(Typed::strong(rows), positions, values, add, span.clone())?.e;
        if k == 1 {
            return Some(Typed::strong(scattered));
        }
        // Back to the target's shape; a count fixes one `?`, the target lends the others.
        let unknown = tty.dims.iter().filter(|d| **d == Dim::Unknown).count();
        let mut args = vec![scattered];
        if unknown > 1 {
            args.push(crate::check::broadcast::witness(&target.e));
        }
        Some(Typed::strong(TExpr::op(Op::Reshape, args, tty, span)))
    }

    /// The positions the bool `mask` selects (the mask's dims checked against `x`'s leading
    /// ones, statically where both are known, else when the program runs), and `x` with the
    /// mask's `k` axes made one (`x` itself for `k == 1`).
    fn mask_rows(&mut self, x: &Typed, mask: Typed, span: Span) -> Option<(TExpr, TExpr)> {
        let (xty, mty) = (x.ty().clone(), mask.ty().clone());
        let k = mty.rank();
        if k > xty.rank() {
            let d = Diagnostic::new(
                ErrorKind::Rank,
                span,
                format!("too many indices: a boolean index of rank {k} on `{xty}`, which has rank {}", xty.rank()),
            )
            .with_label(mask.e.span.clone(), has_type(&mty))
            .with_label(x.e.span.clone(), has_type(&xty));
            self.report(d);
            return None;
        }
        for axis in 0..k {
            if let (Dim::Static(m), Dim::Static(n)) = (&mty.dims[axis], &xty.dims[axis])
                && m != n
            {
                let d = Diagnostic::new(
                    ErrorKind::Shape,
                    mask.e.span.clone(),
                    format!("the boolean index `{mty}` does not match `{xty}` at axis {axis}"),
                )
                .with_label(mask.e.span.clone(), format!("{m} here"))
                .with_label(x.e.span.clone(), format!("{n} here"))
                .with_note("a boolean index has the sizes of the axes it selects from; it does not broadcast");
                self.report(d);
                return None;
            }
        }
        let mask_span = mask.e.span.clone();
        let witness = crate::check::broadcast::witness(&x.e);
        let positions = TExpr::op(Op::Nonzero, vec![mask.e, witness], TensorType::new(DType::I64, vec![Dim::Unknown]), span.clone());
        if k == 1 {
            return Some((positions, x.e.clone()));
        }
        let rest = &xty.dims[k..];
        let lead = xty.dims[..k].iter().try_fold(1u64, |n, d| d.as_static().and_then(|d| n.checked_mul(d)));
        if lead.is_none() && rest.contains(&Dim::Unknown) {
            let d = Diagnostic::new(
                ErrorKind::Shape,
                span,
                format!("a boolean index of rank {k} on `{xty}` needs static sizes for the axes it selects from, or for those it keeps"),
            )
            .with_label(mask_span, has_type(&mty))
            .with_note("the selected axes are read as one axis, and a shape has at most one `?` size to infer; name the sizes of the kept axes in the signature, or index a reshaped array");
            self.report(d);
            return None;
        }
        let mut dims = vec![lead.map_or(Dim::Unknown, Dim::Static)];
        dims.extend(rest.iter().cloned());
        let rows = TExpr::op(Op::Reshape, vec![x.e.clone()], TensorType::new(xty.dtype, dims), span);
        Some((positions, rows))
    }
}
