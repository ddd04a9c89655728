//! Type rules of the math library's elementwise ops that are not plain numeric functions:
//! the tests (`isnan`, `isinf`, `isfinite`, `logical_not`), the logical pair ops and `clip`.

use crate::check::dims::broadcast;
use crate::check::broadcast::explicit;
use crate::check::dtype::{Weak, common};
use crate::check::{Checker, Typed, cast, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::{Op, TernaryOp};
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

    /// A float function of three operands (`betainc`): not defined on bool; integers are
    /// computed in `f64`, as NumPy does; the operands broadcast together.
    pub(crate) fn ternary(&mut self, op: TernaryOp, fname: &str, args: [Typed; 3], span: Span) -> Option<Typed> {
        if let Some(t) = args.iter().find(|t| t.dtype() == DType::Bool) {
            let d = Diagnostic::new(ErrorKind::DType, span, format!("`{fname}` is not defined on bool"))
                .with_label(t.e.span.clone(), has_type(t.ty()))
                .with_note("cast to a number first, e.g. `cast(b, f64)`");
            self.report(d);
            return None;
        }
        let mut dims = args[0].ty().dims.clone();
        for i in 1..3 {
            dims = match broadcast(&dims, &args[i].ty().dims) {
                Ok(d) => d,
                Err(clash) => {
                    let (l, r) = (&args[i - 1].e, &args[i].e);
                    self.broadcast_error(l, r, clash, span);
                    return None;
                }
            };
        }
        let [a, b, x] = &args;
        let ab = common(a.key(), b.key());
        let ab_weak = (a.weak.is_some() && b.weak.is_some()).then(|| Weak::of(ab));
        let target = common((ab, ab_weak), x.key());
        let target = if target.is_float() { target } else { DType::F64 };
        let mut operands = Vec::with_capacity(3);
        for t in args {
            operands.push(self.convert(t, target)?);
        }
        let operands = explicit(operands, &dims);
        Some(Typed::strong(TExpr::op(Op::Ternary(op), operands, TensorType::new(target, dims), span)))
    }

    /// `clip(x, lo, hi)` is `minimum(maximum(x, lo), hi)`: NaN propagates, and where
    /// `lo > hi` the result is `hi`, as in NumPy; dtypes promote as for `maximum`.
    pub(crate) fn clip(&mut self, x: Typed, lo: Typed, hi: Typed, span: Span) -> Option<Typed> {
        let low = self.binary(BinaryOp::Maximum, "clip", x, lo, span.clone())?;
        let r = self.binary(BinaryOp::Minimum, "clip", low, hi, span)?;
        Some(Typed::strong(r.e))
    }
}
