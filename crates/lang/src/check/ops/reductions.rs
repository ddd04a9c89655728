//! Type rules of the reductions: `sum`, `max`, `min`, `mean`, `prod`, `any`, `all`,
//! `logsumexp`, `var`, `std` over a set of axes, and `argmax` / `argmin` along one axis.

use crate::ast::Expr;
use crate::check::env::Scope;
use crate::check::expr::literal_int;
use crate::check::{Checker, Typed, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::{ReduceOp, TExpr};
use crate::types::{DType, TensorType};

/// The dtype a reduction computes in and returns, as NumPy's: integer sums and products of
/// `bool` and `i32` accumulate in `i64`; means and statistics of integers are `f64`.
pub(crate) fn reduce_dtype(op: ReduceOp, d: DType) -> DType {
    match (op, d) {
        (ReduceOp::Sum | ReduceOp::Prod, DType::Bool | DType::I32) => DType::I64,
        (ReduceOp::Any | ReduceOp::All, _) => DType::Bool,
        (ReduceOp::Mean | ReduceOp::LogSumExp | ReduceOp::Var(_) | ReduceOp::Std(_), d) if !d.is_float() => DType::F64,
        (_, d) => d,
    }
}

impl Checker {
    pub(crate) fn reduce_builtin(
        &mut self,
        sc: &Scope,
        op: ReduceOp,
        fname: &str,
        args: &[Expr],
        span: Span,
    ) -> Option<Typed> {
        let x = self.expr(sc, &args[0])?;
        let rank = x.ty().rank();
        let axes = match args.get(1) {
            Some(a) => self.axes(a, fname, x.ty())?,
            None => (0..rank).collect(),
        };
        let op = match (op, args.get(2)) {
            (ReduceOp::Var(_), Some(a)) => ReduceOp::Var(self.ddof(a, fname)?),
            (ReduceOp::Std(_), Some(a)) => ReduceOp::Std(self.ddof(a, fname)?),
            (op, _) => op,
        };
        let target = reduce_dtype(op, x.dtype());
        let operand = match op {
            // Any number converts to bool (`x != 0`), literals included.
            ReduceOp::Any | ReduceOp::All => crate::check::cast(x.e, DType::Bool),
            _ => self.convert(x, target)?,
        };
        // Over no axes a reduction is the (converted) operand itself, except the statistics,
        // whose value over one element depends on `ddof`.
        if axes.is_empty() && !matches!(op, ReduceOp::Var(_) | ReduceOp::Std(_)) {
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

    /// The `ddof` argument of `var` / `std`: a non-negative integer literal.
    fn ddof(&mut self, arg: &Expr, fname: &str) -> Option<u32> {
        match literal_int(arg).map(u32::try_from) {
            Some(Ok(v)) => Some(v),
            _ => self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                format!("the `ddof` of `{fname}` must be a non-negative integer literal"),
                "not a non-negative integer literal",
            ),
        }
    }

    /// An optional axis argument: given, or axis 0 of a rank-1 operand.
    pub(crate) fn single_axis(&mut self, arg: Option<&Expr>, fname: &str, x: &Typed, span: &Span) -> Option<usize> {
        let rank = x.ty().rank();
        if rank == 0 {
            let d = Diagnostic::new(ErrorKind::Rank, span.clone(), format!("`{fname}` needs an operand of rank 1 or more"))
                .with_label(x.e.span.clone(), has_type(x.ty()));
            self.report(d);
            return None;
        }
        match arg {
            Some(a) => self.axis(a, fname, x.ty(), rank),
            None if rank == 1 => Some(0),
            None => {
                let d = Diagnostic::new(
                    ErrorKind::Arity,
                    span.clone(),
                    format!("`{fname}` of an operand of rank {rank} needs an axis"),
                )
                .with_label(x.e.span.clone(), has_type(x.ty()))
                .with_note(format!("write `{fname}(x, axis)`; only a rank-1 operand may leave it out"));
                self.report(d);
                None
            }
        }
    }

    pub(crate) fn arg_builtin(&mut self, sc: &Scope, max: bool, fname: &str, args: &[Expr], span: Span) -> Option<Typed> {
        let x = self.expr(sc, &args[0])?;
        let axis = self.single_axis(args.get(1), fname, &x, &span)?;
        let mut dims = x.ty().dims.clone();
        dims.remove(axis);
        let ty = TensorType::new(DType::I64, dims);
        Some(Typed::strong(TExpr::op(Op::Arg { max, axis }, vec![x.e], ty, span)))
    }
}
