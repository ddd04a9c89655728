//! The typed program: the checker's output, and the one tree that both the reference
//! interpreter and the MLIR lowering consume.
//!
//! Invariants the checker guarantees (consumers may rely on them without re-checking):
//! - every `TExpr::ty` is the exact result type of its node;
//! - operands of `Binary` have the same dtype (promotions are explicit `Cast` nodes), and
//!   broadcast against each other by the PyTensor rule (right-aligned; only a static `1`
//!   stretches); the result dims are in `ty`;
//! - `Div` operands are float (integer division is cast to f64 first, as NumPy does);
//! - `Reduce` axes are sorted, unique and in range; the reduced dims are removed from `ty`;
//! - `Transpose` holds a full permutation: result dim `i` is operand dim `perm[i]`;
//! - `Where`'s condition is bool; its branches have the result dtype;
//! - a `Literal`'s value has exactly `ty`'s dtype and (static) shape;
//! - `Var` names refer to a parameter or an earlier `let` in the enclosing function (or top level);
//!   a later `let` of the same name shadows the earlier one from that point on.

use crate::span::Span;
use crate::types::{DType, Dim, TensorType};
use crate::value::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct TProgram {
    pub fns: Vec<TFn>,
    /// The script's top-level `let` and `print` statements, in order.
    pub top: Vec<TStmt>,
}

impl TProgram {
    pub fn function(&self, name: &str) -> Option<&TFn> {
        self.fns.iter().find(|f| f.name == name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TFn {
    pub name: String,
    pub params: Vec<TParam>,
    pub body: TBlock,
    /// One type per result (a function may return a tuple `(a, b)`).
    pub results: Vec<TensorType>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TParam {
    pub name: String,
    pub ty: TensorType,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TBlock {
    pub lets: Vec<TLet>,
    /// One expression per function result.
    pub results: Vec<TExpr>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TLet {
    pub name: String,
    pub value: TExpr,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TStmt {
    Let(TLet),
    /// Prints each value (several when the expression calls a function returning a tuple).
    Print(Vec<TExpr>, Span),
}

#[derive(Debug, Clone, PartialEq)]
pub struct TExpr {
    pub kind: TExprKind,
    pub ty: TensorType,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Exp,
    Log,
    Log1p,
    Sqrt,
    Tanh,
    Abs,
    Sigmoid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Maximum,
    Minimum,
    /// Comparisons produce bool.
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Max,
    Min,
    /// Always on a float operand (ints are cast to f64 first).
    Mean,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TExprKind {
    Literal(Value),
    Var(String),
    Unary(UnaryOp, Box<TExpr>),
    Binary(BinaryOp, Box<TExpr>, Box<TExpr>),
    /// `where(cond, a, b)`: all three broadcast to `ty`.
    Where(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    /// Converts to `ty.dtype` (float -> int truncates toward zero; x -> bool is x != 0).
    Cast(Box<TExpr>),
    /// `a @ b` with NumPy matmul semantics for ranks: 1x1 -> scalar, 2x1 -> vector,
    /// 1x2 -> vector, 2x2 -> matrix, and rank >= 3 on both sides with equal batch dims.
    MatMul(Box<TExpr>, Box<TExpr>),
    Transpose(Box<TExpr>, Vec<usize>),
    /// Explicit broadcast of the operand to `ty.dims` (right-aligned, static 1 stretches).
    Broadcast(Box<TExpr>),
    /// Inserts a size-1 dim at the given axis.
    Expand(Box<TExpr>, usize),
    /// Removes the size-1 dim at the given axis.
    Squeeze(Box<TExpr>, usize),
    /// Row-major reshape to `ty.dims` (same element count).
    Reshape(Box<TExpr>),
    Reduce(ReduceOp, Box<TExpr>, Vec<usize>),
    Softmax(Box<TExpr>, usize),
    LogSoftmax(Box<TExpr>, usize),
    /// Call of a user function with a single result.
    Call(String, Vec<TExpr>),
    /// Call of a user function with several results; appears only as the whole operand of a
    /// top-level `print`. `ty` holds the first result's type, `TFn::results` all of them.
    CallMulti(String, Vec<TExpr>),
}

impl TExpr {
    pub fn new(kind: TExprKind, ty: TensorType, span: Span) -> Self {
        TExpr { kind, ty, span }
    }

    pub fn dtype(&self) -> DType {
        self.ty.dtype
    }

    pub fn dims(&self) -> &[Dim] {
        &self.ty.dims
    }

    /// The direct operands of this node, in order.
    pub fn children(&self) -> Vec<&TExpr> {
        match &self.kind {
            TExprKind::Literal(_) | TExprKind::Var(_) => vec![],
            TExprKind::Unary(_, x)
            | TExprKind::Cast(x)
            | TExprKind::Transpose(x, _)
            | TExprKind::Broadcast(x)
            | TExprKind::Expand(x, _)
            | TExprKind::Squeeze(x, _)
            | TExprKind::Reshape(x)
            | TExprKind::Reduce(_, x, _)
            | TExprKind::Softmax(x, _)
            | TExprKind::LogSoftmax(x, _) => vec![x],
            TExprKind::Binary(_, a, b) | TExprKind::MatMul(a, b) => vec![a, b],
            TExprKind::Where(c, a, b) => vec![c, a, b],
            TExprKind::Call(_, args) | TExprKind::CallMulti(_, args) => args.iter().collect(),
        }
    }
}
