//! Type rules of the constructors: `zeros`, `ones`, `full`, `arange`, `eye`. Shapes and sizes
//! are integer literals or dimension names of the enclosing signature (`zeros([n, 3])`), so
//! every constructed array has static or named dims. `zeros`, `ones` and `full` are a scalar
//! broadcast to the shape; `eye` is the diagonal band of `ones`; `arange` of literals is a
//! literal (its values are known here), and `arange(n)` of a dimension name is the running
//! sum of `n` ones, less one.

use ndarray::{ArrayD, IxDyn};

use crate::ast::{Expr, ExprKind, UnOp};
use crate::check::env::{Lookup, Scope};
use crate::check::expr::{literal_expr, literal_int};
use crate::check::literal::{self, Scalar};
use crate::check::{Checker, Typed, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::{BinaryOp, Builtin, Op};
use crate::span::Span;
use crate::typed::TExpr;
use crate::types::{DType, Dim, TensorType};
use crate::value::Value;

/// A number literal, possibly negated.
fn literal_number(e: &Expr) -> Option<Scalar> {
    match &e.kind {
        ExprKind::Int(v) => Some(Scalar::Int(*v)),
        ExprKind::Float(v) => Some(Scalar::Float(*v)),
        ExprKind::Unary(UnOp::Neg, inner) => match literal_number(inner)? {
            Scalar::Int(v) => v.checked_neg().map(Scalar::Int),
            Scalar::Float(v) => Some(Scalar::Float(-v)),
            Scalar::Bool(_) => None,
        },
        _ => None,
    }
}

/// 0 or 1 (`false` or `true`) as a scalar of `dtype`.
fn unit(dtype: DType, one: bool) -> Value {
    let at = IxDyn(&[]);
    match dtype {
        DType::Bool => Value::Bool(ArrayD::from_elem(at, one)),
        DType::I32 => Value::I32(ArrayD::from_elem(at, i32::from(one))),
        DType::I64 => Value::I64(ArrayD::from_elem(at, i64::from(one))),
        DType::F32 => Value::F32(ArrayD::from_elem(at, f32::from(u8::from(one)))),
        DType::F64 => Value::F64(ArrayD::from_elem(at, f64::from(u8::from(one)))),
    }
}

/// `x` broadcast to the static `dims`.
fn broadcast_scalar(x: TExpr, dims: Vec<Dim>, span: Span) -> TExpr {
    let ty = TensorType::new(x.ty.dtype, dims);
    TExpr::op(Op::Broadcast, vec![x], ty, span)
}

/// The dimension name of the enclosing signature that `e` names, unless a variable of that
/// name hides it.
fn dim_name(sc: &Scope, e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Var(name) if sc.has_symbol(name) && matches!(sc.lookup(name), Lookup::Missing) => Some(name.clone()),
        _ => None,
    }
}

/// `arange(n)` for a dimension name: `cumsum(ones) - ones` over `i64[n]`.
fn arange_of_dim(n: String, span: Span) -> TExpr {
    let ty = TensorType::new(DType::I64, vec![Dim::Symbol(n)]);
    let one = literal_expr(unit(DType::I64, true), span.clone());
    let ones = broadcast_scalar(one, ty.dims.clone(), span.clone());
    let counts = TExpr::op(Op::Scan { prod: false, axis: 0 }, vec![ones.clone()], ty.clone(), span.clone());
    TExpr::op(Op::Binary(BinaryOp::Sub), vec![counts, ones], ty, span)
}

impl Checker {
    /// A shape: an integer literal or a dimension name of the enclosing signature, or a list
    /// of them; literals `>= 0`.
    fn static_shape(&mut self, sc: &Scope, arg: &Expr, fname: &str) -> Option<Vec<Dim>> {
        let items: Vec<&Expr> = match &arg.kind {
            ExprKind::Array(items) => items.iter().collect(),
            _ => vec![arg],
        };
        let mut dims = Vec::new();
        for item in items {
            match (literal_int(item), dim_name(sc, item)) {
                (Some(v), _) if v >= 0 => dims.push(Dim::Static(v as u64)),
                (_, Some(name)) => dims.push(Dim::Symbol(name)),
                _ => {
                    let d = Diagnostic::new(
                        ErrorKind::BadArgument,
                        item.span.clone(),
                        format!("a dim of the shape of `{fname}` must be a non-negative integer literal or a dimension name"),
                    )
                    .with_label(item.span.clone(), "neither a non-negative integer literal nor a dimension name")
                    .with_note(
                        "constructed arrays have static or named shapes: write sizes as literals or dimension names of the signature, like `[n, 3]`",
                    );
                    self.report(d);
                    return None;
                }
            }
        }
        if self.too_large(&dims, arg.span.clone()) {
            return None;
        }
        Some(dims)
    }

    fn dtype_arg(&mut self, arg: Option<&Expr>, fname: &str) -> Option<DType> {
        match arg.map(|a| (&a.kind, a)) {
            None => Some(DType::F64),
            Some((ExprKind::DType(d), _)) => Some(*d),
            Some((_, a)) => self.error(
                ErrorKind::BadArgument,
                a.span.clone(),
                format!("the second argument of `{fname}` must be a dtype"),
                "expected one of `bool`, `i32`, `i64`, `f32`, `f64`",
            ),
        }
    }

    pub(crate) fn constructor_builtin(
        &mut self,
        sc: &Scope,
        b: Builtin,
        fname: &str,
        args: &[Expr],
        span: Span,
    ) -> Option<Typed> {
        match b {
            Builtin::Fill { one } => {
                let dims = self.static_shape(sc, &args[0], fname);
                let dtype = self.dtype_arg(args.get(1), fname)?;
                let dims = dims?;
                let x = literal_expr(unit(dtype, one), span.clone());
                Some(Typed::strong(broadcast_scalar(x, dims, span)))
            }
            Builtin::Full => {
                let dims = self.static_shape(sc, &args[0], fname);
                let x = self.expr(sc, &args[1]);
                let (dims, x) = (dims?, x?);
                if x.ty().rank() != 0 {
                    let d = Diagnostic::new(ErrorKind::Rank, span, "the value of `full` must be a scalar")
                        .with_label(x.e.span.clone(), has_type(x.ty()))
                        .with_note("use `broadcast(x, [dims])` to repeat an array");
                    self.report(d);
                    return None;
                }
                Some(Typed::strong(broadcast_scalar(x.e, dims, span)))
            }
            Builtin::Eye => {
                let n = self.static_shape(sc, &args[0], fname)?;
                let [n] = &n[..] else {
                    return self.error(
                        ErrorKind::BadArgument,
                        args[0].span.clone(),
                        "`eye` takes one size",
                        "one integer literal or dimension name",
                    );
                };
                let one = literal_expr(literal::scalar(Scalar::Float(1.0)), span.clone());
                let dims = vec![n.clone(), n.clone()];
                if self.too_large(&dims, span.clone()) {
                    return None;
                }
                let ty = TensorType::new(DType::F64, dims.clone());
                let ones = broadcast_scalar(one, dims, span.clone());
                let lower = TExpr::op(Op::Tri { upper: false, k: 0 }, vec![ones], ty.clone(), span.clone());
                Some(Typed::strong(TExpr::op(Op::Tri { upper: true, k: 0 }, vec![lower], ty, span)))
            }
            Builtin::Arange => match &args[..] {
                [a] if dim_name(sc, a).is_some() => Some(Typed::strong(arange_of_dim(dim_name(sc, a)?, span))),
                _ => self.arange(args, span),
            },
            _ => None,
        }
    }

    /// `arange(stop)`, `arange(start, stop)`, `arange(start, stop, step)`: NumPy's values
    /// `start + i * step` for `i` in `0..ceil((stop - start) / step)`; `i64` when every
    /// argument is an integer, else `f64`.
    fn arange(&mut self, args: &[Expr], span: Span) -> Option<Typed> {
        let mut nums = Vec::new();
        for a in args {
            match literal_number(a) {
                Some(s) => nums.push(s),
                None => {
                    return self.error(
                        ErrorKind::BadArgument,
                        a.span.clone(),
                        "the arguments of `arange` must be number literals, or one dimension name",
                        "not a number literal",
                    );
                }
            }
        }
        let as_f64 = |s: Scalar| match s {
            Scalar::Int(v) => v as f64,
            Scalar::Float(v) => v,
            Scalar::Bool(b) => f64::from(u8::from(b)),
        };
        let ints = nums.iter().all(|s| matches!(s, Scalar::Int(_)));
        let (start, stop, step) = match nums[..] {
            [stop] => (Scalar::Int(0), stop, Scalar::Int(1)),
            [start, stop] => (start, stop, Scalar::Int(1)),
            [start, stop, step] => (start, stop, step),
            _ => return None,
        };
        if as_f64(step) == 0.0 {
            let at = args.get(2).map_or(span.clone(), |a| a.span.clone());
            return self.error(ErrorKind::BadArgument, at, "the step of `arange` cannot be zero", "a zero step");
        }
        let len = ((as_f64(stop) - as_f64(start)) / as_f64(step)).ceil();
        let len = if len.is_finite() && len > 0.0 { len as u64 } else { 0 };
        if len > 1 << 24 {
            return self.error(
                ErrorKind::Shape,
                span,
                format!("`arange` of {len} elements is too large for a literal"),
                "at most 2^24 elements",
            );
        }
        let n = len as usize;
        let v = match (ints, start, step) {
            (true, Scalar::Int(a), Scalar::Int(d)) => {
                Value::I64(ArrayD::from_shape_fn(IxDyn(&[n]), |i| a.wrapping_add((i[0] as i64).wrapping_mul(d))))
            }
            _ => {
                // NumPy fills `start`, `start + step`, then `start + i * delta` with `delta`
                // the difference of those two, which may differ from `step` in the last bit.
                let (a, d) = (as_f64(start), as_f64(step));
                let delta = (a + d) - a;
                Value::F64(ArrayD::from_shape_fn(IxDyn(&[n]), |i| match i[0] {
                    0 => a,
                    1 => a + d,
                    k => a + k as f64 * delta,
                }))
            }
        };
        Some(Typed::strong(literal_expr(v, span)))
    }
}
