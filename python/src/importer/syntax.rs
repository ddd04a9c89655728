//! Shorthands for building ptl syntax trees. The trees are printed and parsed again, so
//! every span is empty.

use ptl_lang::ast::{BinOp, DimExpr, Expr, ExprKind, Ident, TypeExpr, UnOp};
use ptl_lang::{DType, Dim, Span};

pub const SPAN: Span = 0..0;

pub fn ex(kind: ExprKind) -> Expr {
    Expr { kind, span: SPAN }
}

pub fn ident(name: &str) -> Ident {
    Ident { name: name.to_string(), span: SPAN }
}

pub fn var(name: &str) -> Expr {
    ex(ExprKind::Var(name.to_string()))
}

pub fn call(name: &str, args: Vec<Expr>) -> Expr {
    ex(ExprKind::Call(ident(name), args))
}

pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    ex(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

pub fn neg(x: Expr) -> Expr {
    ex(ExprKind::Unary(UnOp::Neg, Box::new(x)))
}

pub fn int(n: i64) -> Expr {
    ex(ExprKind::Int(n))
}

pub fn float(x: f64) -> Expr {
    ex(ExprKind::Float(x))
}

pub fn boolean(b: bool) -> Expr {
    ex(ExprKind::Bool(b))
}

pub fn int_list(xs: impl IntoIterator<Item = i64>) -> Expr {
    ex(ExprKind::Array(xs.into_iter().map(int).collect()))
}

pub fn type_expr(dtype: DType, dims: &[Dim]) -> TypeExpr {
    TypeExpr { dtype, dims: dims.iter().map(|d| DimExpr { dim: d.clone(), span: SPAN }).collect(), span: SPAN }
}

pub fn ascribe(e: Expr, dtype: DType, dims: &[Dim]) -> Expr {
    ex(ExprKind::Ascribe(Box::new(e), type_expr(dtype, dims)))
}

pub fn cast(e: Expr, dtype: DType) -> Expr {
    call("cast", vec![e, ex(ExprKind::DType(dtype))])
}
