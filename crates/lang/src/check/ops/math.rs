//! Type rules of the math library's elementwise ops that are not plain numeric functions:
//! the tests (`isnan`, `isinf`, `isfinite`, `logical_not`), the logical pair ops and `clip`.

use crate::check::dims::broadcast;
use crate::check::broadcast::explicit;
use crate::check::{Checker, Typed, cast};
use crate::ops::Op;
use crate::span::Span;
use crate::typed::{BinaryOp, TExpr, UnaryOp};
use crate::types::{DType, TensorType};

impl Checker {
    /// `isnan`, `isinf`, `isfinite` on any dtype (integers and bool are finite numbers, so
    /// they are tested as `f64`, as NumPy answers), and `logical_not` (`x == 0`); all give bool.
    pub(crate) fn test(&mut self, op: UnaryOp, x: Typed, span: Span) -> Typed {
        let operand = if op == UnaryOp::LogicalNot {
            cast(x.e, DType::Bool)
        } else if x.dtype().is_float() {
            x.e
        } else {
            cast(x.e, DType::F64)
        };
        let ty = TensorType::new(DType::Bool, operand.ty.dims.clone());
        Typed::strong(TExpr::op(Op::Unary(op), vec![operand], ty, span))
    }

    /// `logical_and`, `logical_or`, `logical_xor`: each operand is cast to bool (`x != 0`,
    /// as NumPy's logical ops read numbers), the result is bool.
    pub(crate) fn logical(&mut self, op: BinaryOp, l: Typed, r: Typed, span: Span) -> Option<Typed> {
        let dims = match broadcast(&l.ty().dims, &r.ty().dims) {
            Ok(d) => d,
            Err(clash) => {
                self.broadcast_error(&l.e, &r.e, clash, span);
                return None;
            }
        };
        let operands = explicit(vec![cast(l.e, DType::Bool), cast(r.e, DType::Bool)], &dims);
        let ty = TensorType::new(DType::Bool, dims);
        Some(Typed::strong(TExpr::op(Op::Binary(op), operands, ty, span)))
    }

    /// `clip(x, lo, hi)` is `minimum(maximum(x, lo), hi)`: NaN propagates, and where
    /// `lo > hi` the result is `hi`, as in NumPy; dtypes promote as for `maximum`.
    pub(crate) fn clip(&mut self, x: Typed, lo: Typed, hi: Typed, span: Span) -> Option<Typed> {
        let low = self.binary(BinaryOp::Maximum, "clip", x, lo, span.clone())?;
        let r = self.binary(BinaryOp::Minimum, "clip", low, hi, span)?;
        Some(Typed::strong(r.e))
    }
}
