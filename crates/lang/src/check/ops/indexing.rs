//! Type rules of the indexing family: `x[i, a:b:s]`, `x[idx]` and `take` (gathers),
//! `scatter_add`, `scatter_set` and `set_slice` (boolean masks: `masks`).
//!
//! Bounds and indices are `i64` scalars (integer literals, variables, expressions, dimension
//! names). A result dim is static where the operand dim and every bound of its axis are
//! literals; `x[::1]` and `x[::-1]` keep the operand's dim; any other computed size is `?`.

use crate::ast::{Expr, IndexItem};
use crate::check::env::Scope;
use crate::check::expr::literal_int;
use crate::check::{Checker, Typed, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::{Op, SliceAxis};
use crate::span::Span;
use crate::typed::{TExpr, TExprKind};
use crate::types::{DType, Dim, TensorType};

/// `b`, a broadcast the checker just made, with a shape witness where it stretches its operand
/// into a `?` dim (without one, that dim would have no size to take).
fn with_witness(b: TExpr, witness: impl FnOnce() -> TExpr) -> TExpr {
    let TExprKind::Op(Op::Broadcast, args) = &b.kind else { return b };
    let [x] = args.as_slice() else { return b };
    let (from, to) = (&x.ty.dims, &b.ty.dims);
    let off = to.len() - from.len();
    // A `?` the value stretches into, or meets with a dim of its own (which must then equal
    // the witness's at run time).
    let stretched_unknown = (0..to.len()).any(|i| to[i] == Dim::Unknown && (i < off || from[i - off] != Dim::Unknown));
    if !stretched_unknown {
        return b;
    }
    let args = vec![x.clone(), witness()];
    TExpr { kind: TExprKind::Op(Op::Broadcast, args), ty: b.ty, span: b.span }
}

/// NumPy's slice rule on an axis of static size `len`: the number of elements of
/// `start:stop:step` (`step != 0`).
pub(crate) fn slice_len(len: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> i64 {
    let norm = |v: i64, lo: i64, hi: i64| {
        let v = if v < 0 { v.saturating_add(len) } else { v };
        v.clamp(lo, hi)
    };
    let (first, end) = if step > 0 {
        (start.map_or(0, |v| norm(v, 0, len)), stop.map_or(len, |v| norm(v, 0, len)))
    } else {
        (start.map_or(len - 1, |v| norm(v, -1, len - 1)), stop.map_or(-1, |v| norm(v, -1, len - 1)))
    };
    let span = if step > 0 { end - first } else { first - end };
    if span <= 0 { 0 } else { ((span - 1) as u64 / step.unsigned_abs()) as i64 + 1 }
}

impl Checker {
    /// An index or slice bound: an integer scalar, as `i64`.
    fn index_scalar(&mut self, sc: &Scope, e: &Expr, what: &str) -> Option<TExpr> {
        let t = self.expr(sc, e)?;
        if !t.ty().is_scalar() || !t.dtype().is_int() {
            let d = Diagnostic::new(ErrorKind::DType, e.span.clone(), format!("{what} must be an integer scalar"))
                .with_label(e.span.clone(), has_type(t.ty()))
                .with_note("indices and slice bounds are `i32` or `i64` scalars (dimension names count)");
            self.report(d);
            return None;
        }
        self.convert(t, DType::I64)
    }

    /// `x[items]`.
    pub(crate) fn index(&mut self, sc: &Scope, x: &Expr, items: &[IndexItem], span: Span) -> Option<Typed> {
        let xt = self.expr(sc, x);
        // One item that is an integer tensor: a gather along the first axis.
        if let [IndexItem::Single(i)] = items {
            let it = self.expr(sc, i)?;
            let xt = xt?;
            if it.ty().rank() > 0 && it.dtype() == DType::Bool {
                return self.mask_select(xt, it, span);
            }
            if it.ty().rank() > 0 {
                return self.gather(xt, it, 0, "x[idx]", span);
            }
            return self.index_axes(sc, xt, items, Some(it), span);
        }
        let xt = xt?;
        self.index_axes(sc, xt, items, None, span)
    }

    /// Integer indices and slices, one item per leading axis. `first` is the first item
    /// already checked (a scalar).
    fn index_axes(
        &mut self,
        sc: &Scope,
        xt: Typed,
        items: &[IndexItem],
        first: Option<Typed>,
        span: Span,
    ) -> Option<Typed> {
        let ty = xt.ty().clone();
        if items.len() > ty.rank() {
            let d = Diagnostic::new(
                ErrorKind::Rank,
                span.clone(),
                format!("too many indices: `{ty}` has rank {}, but {} are given", ty.rank(), items.len()),
            )
            .with_label(xt.e.span.clone(), has_type(&ty));
            self.report(d);
            return None;
        }
        let mut axes = Vec::new();
        let mut operands = vec![xt.e];
        let mut dims = Vec::new();
        let mut ok = true;
        let mut first = first;
        for (axis, item) in items.iter().enumerate() {
            let len = ty.dims[axis].as_static().map(|n| n as i64);
            match item {
                IndexItem::Single(e) => {
                    let t = match first.take() {
                        Some(t) => Some(t),
                        None => self.expr(sc, e),
                    };
                    let Some(t) = t else {
                        ok = false;
                        continue;
                    };
                    if t.ty().rank() > 0 {
                        let d = Diagnostic::new(
                            ErrorKind::Rank,
                            e.span.clone(),
                            "an index tensor must be the only index",
                        )
                        .with_label(e.span.clone(), has_type(t.ty()))
                        .with_note("use `take(x, idx, axis)` to gather along another axis");
                        self.report(d);
                        ok = false;
                        continue;
                    }
                    if !t.dtype().is_int() {
                        let d = Diagnostic::new(ErrorKind::DType, e.span.clone(), "an index must be an integer")
                            .with_label(e.span.clone(), has_type(t.ty()));
                        self.report(d);
                        ok = false;
                        continue;
                    }
                    if let (Some(i), Some(len)) = (literal_int(e), len)
                        && !(-len..len).contains(&i)
                    {
                        let d = Diagnostic::new(
                            ErrorKind::BadArgument,
                            e.span.clone(),
                            format!("index {i} is out of range for axis {axis} of `{ty}`"),
                        )
                        .with_label(e.span.clone(), format!("valid indices are {}..={}", -len, len - 1))
                        .with_note("a negative index counts from the end; slices clamp, but single indices do not");
                        self.report(d);
                        ok = false;
                        continue;
                    }
                    match self.convert(t, DType::I64) {
                        Some(i) => operands.push(i),
                        None => ok = false,
                    }
                    axes.push(SliceAxis::Index);
                }
                IndexItem::Slice { start, stop, step, span: item_span } => {
                    if start.is_none() && stop.is_none() && step.is_none() {
                        axes.push(SliceAxis::Full);
                        dims.push(ty.dims[axis].clone());
                        continue;
                    }
                    let step_lit = match step {
                        Some(s) => literal_int(s),
                        None => Some(1),
                    };
                    if step_lit == Some(0) {
                        let s = step.as_ref().map_or(item_span.clone(), |s| s.span.clone());
                        self.error::<()>(ErrorKind::BadArgument, s, "slice step cannot be zero", "this step is 0");
                        ok = false;
                        continue;
                    }
                    for b in [start, stop, step].into_iter().flatten() {
                        match self.index_scalar(sc, b, "a slice bound") {
                            Some(v) => operands.push(v),
                            None => ok = false,
                        }
                    }
                    axes.push(SliceAxis::Range { start: start.is_some(), stop: stop.is_some(), step: step.is_some() });
                    let start_lit = start.as_ref().map(literal_int);
                    let stop_lit = stop.as_ref().map(literal_int);
                    let dim = match (len, start_lit, stop_lit, step_lit) {
                        (Some(len), None | Some(Some(_)), None | Some(Some(_)), Some(st)) => {
                            Dim::Static(slice_len(len, start_lit.flatten(), stop_lit.flatten(), st) as u64)
                        }
                        (_, None, None, Some(1 | -1)) => ty.dims[axis].clone(),
                        _ => Dim::Unknown,
                    };
                    dims.push(dim);
                }
            }
        }
        if !ok {
            return None;
        }
        for axis in items.len()..ty.rank() {
            axes.push(SliceAxis::Full);
            dims.push(ty.dims[axis].clone());
        }
        if axes.iter().all(|a| *a == SliceAxis::Full) {
            return Some(Typed::strong(TExpr { span, ..operands.remove(0) }));
        }
        let rty = TensorType::new(ty.dtype, dims);
        Some(Typed::strong(TExpr::op(Op::Slice(axes), operands, rty, span)))
    }

    /// An integer index tensor, as `i64`.
    fn index_tensor(&mut self, idx: Typed, fname: &str) -> Option<TExpr> {
        if !idx.dtype().is_int() {
            let d = Diagnostic::new(ErrorKind::DType, idx.e.span.clone(), format!("the indices of `{fname}` must be integers"))
                .with_label(idx.e.span.clone(), has_type(idx.ty()))
                .with_note("indices are `i32` or `i64`; a boolean mask selects with `x[mask]`, or `take(x, flatnonzero(mask), axis)`");
            self.report(d);
            return None;
        }
        self.convert(idx, DType::I64)
    }

    /// `take(x, idx, axis)`: x's dims before `axis`, idx's, then x's after `axis`.
    pub(crate) fn gather(&mut self, x: Typed, idx: Typed, axis: usize, fname: &str, span: Span) -> Option<Typed> {
        let xty = x.ty().clone();
        if xty.rank() == 0 {
            let d = Diagnostic::new(ErrorKind::Rank, span, "cannot index a scalar")
                .with_label(x.e.span.clone(), has_type(&xty));
            self.report(d);
            return None;
        }
        let idx = self.index_tensor(idx, fname)?;
        let mut dims: Vec<Dim> = xty.dims[..axis].to_vec();
        dims.extend(idx.ty.dims.iter().cloned());
        dims.extend(xty.dims[axis + 1..].iter().cloned());
        let ty = TensorType::new(xty.dtype, dims);
        Some(Typed::strong(TExpr::op(Op::Take { axis }, vec![x.e, idx], ty, span)))
    }

    /// `flatnonzero(a)`: the `i64` positions of `a`'s nonzero elements in its row-major order.
    pub(crate) fn flatnonzero(&mut self, sc: &Scope, args: &[Expr], span: Span) -> Option<Typed> {
        let a = self.expr(sc, &args[0])?;
        let ty = TensorType::new(DType::I64, vec![Dim::Unknown]);
        Some(Typed::strong(TExpr::op(Op::Nonzero, vec![a.e], ty, span)))
    }

    pub(crate) fn take(&mut self, sc: &Scope, args: &[Expr], span: Span) -> Option<Typed> {
        let x = self.expr(sc, &args[0]);
        let idx = self.expr(sc, &args[1]);
        let (x, idx) = (x?, idx?);
        let rank = x.ty().rank();
        if rank == 0 {
            return self.gather(x, idx, 0, "take", span);
        }
        let axis = self.axis(&args[2], "take", &x.ty().clone(), rank)?;
        self.gather(x, idx, axis, "take", span)
    }

    /// `scatter_add(target, idx, values)` / `scatter_set(...)`: `values` broadcast to
    /// `idx`'s dims followed by `target`'s after the first.
    pub(crate) fn scatter(&mut self, sc: &Scope, add: bool, args: &[Expr], span: Span) -> Option<Typed> {
        let fname = if add { "scatter_add" } else { "scatter_set" };
        let target = self.expr(sc, &args[0]);
        let idx = self.expr(sc, &args[1]);
        let values = self.expr(sc, &args[2]);
        let (target, idx, values) = (target?, idx?, values?);
        let tty = target.ty().clone();
        if tty.rank() == 0 {
            let d = Diagnostic::new(ErrorKind::Rank, span, format!("the target of `{fname}` must have rank 1 or more"))
                .with_label(target.e.span.clone(), has_type(&tty));
            self.report(d);
            return None;
        }
        if add && tty.dtype == DType::Bool {
            let d = Diagnostic::new(ErrorKind::DType, span, "`scatter_add` needs a number target")
                .with_label(target.e.span.clone(), has_type(&tty));
            self.report(d);
            return None;
        }
        if idx.ty().rank() > 0 && idx.dtype() == DType::Bool {
            return self.mask_scatter(target, idx, values, add, span);
        }
        let idx = self.index_tensor(idx, fname)?;
        self.scatter_at(target, idx, values, add, span)
    }

    /// The scatter of `values` into `target`'s rows at the `i64` indices `idx`.
    pub(super) fn scatter_at(&mut self, target: Typed, idx: TExpr, values: Typed, add: bool, span: Span) -> Option<Typed> {
        let fname = if add { "scatter_add" } else { "scatter_set" };
        let tty = target.ty().clone();
        let values_span = values.e.span.clone();
        let values = self.coerce_dtype(values, tty.dtype, &format!("the values of `{fname}`"), target.e.span.clone())?;
        let mut want: Vec<Dim> = idx.ty.dims.clone();
        want.extend(tty.dims[1..].iter().cloned());
        let rows = || TExpr::op(Op::Take { axis: 0 }, vec![target.e.clone(), idx.clone()], TensorType::new(tty.dtype, want.clone()), span.clone());
        let values = if values.ty.dims == want {
            values
        } else {
            let arg = Expr { kind: crate::ast::ExprKind::Error, span: values_span };
            let b = self.broadcast_to(Typed::strong(values), want.clone(), &arg, span.clone())?.e;
            // The broadcast keeps the target's `?`s: a `?` the values stretch into takes its
            // size from the gathered rows' shape, and a dim of the values' own that meets one
            // is checked against it when the program runs.
            let b = TExpr { ty: TensorType::new(b.ty.dtype, want.clone()), ..b };
            with_witness(b, rows)
        };
        Some(Typed::strong(TExpr::op(Op::Scatter { add }, vec![target.e, idx, values], tty, span)))
    }

    /// `set_slice(x, value, a, b)`: `value` broadcasts to `x`'s dims after the first; a
    /// first dim of its own (of the same rank as `x`) must be the slice's length at run time,
    /// or a static 1.
    pub(crate) fn set_slice(&mut self, sc: &Scope, args: &[Expr], span: Span) -> Option<Typed> {
        let x = self.expr(sc, &args[0]);
        let value = self.expr(sc, &args[1]);
        let a = self.index_scalar(sc, &args[2], "a bound of `set_slice`");
        let b = self.index_scalar(sc, &args[3], "a bound of `set_slice`");
        let (x, value, a, b) = (x?, value?, a?, b?);
        let xty = x.ty().clone();
        if xty.rank() == 0 {
            let d = Diagnostic::new(ErrorKind::Rank, span, "the first argument of `set_slice` must have rank 1 or more")
                .with_label(x.e.span.clone(), has_type(&xty));
            self.report(d);
            return None;
        }
        let value_span = value.e.span.clone();
        let value = self.coerce_dtype(value, xty.dtype, "the value of `set_slice`", x.e.span.clone())?;
        // The value as rank x.rank(): a leading dim of `?` (the slice's length) where the
        // value has one of its own, else a static 1 that stretches.
        let rest = &xty.dims[1..];
        let lead = if value.ty.rank() == xty.rank() { value.ty.dims[0].clone() } else { Dim::Static(1) };
        let mut want = vec![lead];
        want.extend(rest.iter().cloned());
        let value = if value.ty.dims == want {
            value
        } else if value.ty.rank() <= xty.rank() {
            let arg = Expr { kind: crate::ast::ExprKind::Error, span: value_span };
            let b = self.broadcast_to(Typed::strong(value), want.clone(), &arg, span.clone())?.e;
            let b = TExpr { ty: TensorType::new(b.ty.dtype, want), ..b };
            // A `?` of `x`'s after the first that the value stretches into takes its size from
            // a row of `x`: `sum(x, 0)`, right-aligned (the first dim is the value's own, or a
            // static 1, never a stretched `?`), defined for an `x` without rows too.
            with_witness(b, || {
                let op = crate::ops::ReduceOp::Sum;
                let dtype = super::reductions::reduce_dtype(op, xty.dtype);
                let ty = TensorType::new(dtype, xty.dims[1..].to_vec());
                TExpr::op(Op::Reduce(op, vec![0]), vec![crate::check::broadcast::witness(&x.e)], ty, span.clone())
            })
        } else {
            let d = Diagnostic::new(ErrorKind::Rank, value_span.clone(), format!("the value of `set_slice` has a higher rank than `{xty}`"))
                .with_label(value_span, has_type(&value.ty));
            self.report(d);
            return None;
        };
        Some(Typed::strong(TExpr::op(Op::SetSlice, vec![x.e, value, a, b], xty, span)))
    }
}
