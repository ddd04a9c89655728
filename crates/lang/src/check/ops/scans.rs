//! Type rules of the scans: `cumsum` and `cumprod` along one axis.

use crate::ast::Expr;
use crate::check::env::Scope;
use crate::check::ops::reductions::reduce_dtype;
use crate::check::{Checker, Typed};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::{ReduceOp, TExpr};
use crate::types::TensorType;

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
}
