//! Type rules of the ops along one axis: `cumsum`, `cumprod`, `sort` and `argsort`.

use crate::ast::Expr;
use crate::check::env::Scope;
use crate::check::ops::reductions::reduce_dtype;
use crate::check::{Checker, Typed};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::{ReduceOp, TExpr};
use crate::types::{DType, TensorType};

impl Checker {
    /// `cumsum(x, axis)` / `cumprod(x, axis)`: `x`'s dims; the dtype of `sum` / `prod` (`bool`
    /// and `i32` accumulate in `i64`, as NumPy's do).
    pub(crate) fn scan_builtin(&mut self, sc: &Scope, prod: bool, fname: &str, args: &[Expr], span: Span) -> Option<Typed> {
        let x = self.expr(sc, &args[0])?;
        let axis = self.single_axis(args.get(1), fname, &x, &span)?;
        let like = if prod { ReduceOp::Prod } else { ReduceOp::Sum };
        let target = reduce_dtype(like, x.dtype());
        let operand = self.convert(x, target)?;
        let ty = TensorType::new(target, operand.ty.dims.clone());
        Some(Typed::strong(TExpr::op(Op::Scan { prod, axis }, vec![operand], ty, span)))
    }

    /// `sort(x, axis)`: `x`'s type; `argsort(x, axis)`: `x`'s dims of `i64`. The axis is the
    /// last one when left out, as in NumPy.
    pub(crate) fn sort_builtin(&mut self, sc: &Scope, arg: bool, fname: &str, args: &[Expr], span: Span) -> Option<Typed> {
        let x = self.expr(sc, &args[0])?;
        let rank = x.ty().rank();
        let axis = match args.get(1) {
            None if rank > 0 => rank - 1,
            _ => self.single_axis(args.get(1), fname, &x, &span)?,
        };
        let dtype = if arg { DType::I64 } else { x.dtype() };
        let ty = TensorType::new(dtype, x.ty().dims.clone());
        Some(Typed::strong(TExpr::op(Op::Sort { axis, arg }, vec![x.e], ty, span)))
    }
}
