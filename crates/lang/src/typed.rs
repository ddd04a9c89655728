//! The typed program: the checker's output, and the one tree that both the reference
//! interpreter and the MLIR lowering consume.
//!
//! Invariants the checker guarantees (consumers may rely on them without re-checking):
//! - every `TExpr::ty` is the exact result type of its node;
//! - every `Op` node has `op.arity()` operands;
//! - operands of `Binary` have the same dtype (promotions are explicit `Cast` nodes);
//! - operands of elementwise ops (`Unary`, `Binary`, `Select`, `Cast`) have the result's rank
//!   and dims: broadcasting is explicit, a `Broadcast` node the checker inserts by the
//!   PyTensor rule (right-aligned; only a static `1` stretches). Where two operand dims are
//!   both not static (a `?`, or a `?` and a symbol), their run-time sizes must be equal, and
//!   each backend checks that at the elementwise node;
//! - `Div` operands are float (integer division is cast to f64 first, as NumPy does);
//! - `Reduce` axes are sorted, unique and in range; the reduced dims are removed from `ty`;
//! - `Transpose` holds a full permutation: result dim `i` is operand dim `perm[i]`;
//! - `Select`'s condition is bool; its branches have the result dtype;
//! - a `Literal`'s value has exactly `ty`'s dtype and (static) shape;
//! - `Slice` operands after the first are `i64` scalars, one per bound its axes name;
//!   `Take` and `Scatter` indices are `i64`; `Scatter` values have the dims of the index
//!   followed by the target's after the first (broadcasts are explicit);
//! - `DimValue` names a dimension name of the enclosing function's signature;
//! - `Var` names refer to a parameter or an earlier `let` in the enclosing function (or top level),
//!   or to a loop's state or counter inside its body;
//!   a later `let` of the same name shadows the earlier one from that point on;
//! - a node giving several values (`CallMulti`, a multi-value `Loop`, a `Tuple`) appears only as a whole
//!   operand of a top-level `print`, the value of a destructuring `let`, a loop's initial
//!   state or a loop body's result.

pub use crate::ops::{BinaryOp, Op, ReduceOp, TernaryOp, UnaryOp};
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

    /// Whether any function or top-level statement has a `loop` or `scan` (the only
    /// constructs whose running time the input's size does not bound).
    pub fn has_loops(&self) -> bool {
        fn any(x: &TExpr) -> bool {
            matches!(x.kind, TExprKind::Loop(_)) || x.children().into_iter().any(any)
        }
        let block = |b: &TBlock| b.lets.iter().any(|l| any(&l.value)) || b.results.iter().any(any);
        self.fns.iter().any(|f| block(&f.body))
            || self.top.iter().any(|s| match s {
                TStmt::Let(l) => any(&l.value),
                TStmt::Print(xs, _) => xs.iter().any(any),
            })
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
    /// `let (a, b) = value`: the names after the first, one per further value of `value`
    /// (a multi-result call or loop); empty for a plain `let`.
    pub rest: Vec<String>,
}

impl TLet {
    /// Every name the statement binds, in order: one per value of `value`.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.name).chain(&self.rest)
    }
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

/// An expression node: an op of the op table applied to operands, or a leaf, or a call.
#[derive(Debug, Clone, PartialEq)]
pub enum TExprKind {
    Literal(Value),
    Var(String),
    /// The run-time size of a dimension name of the enclosing function's signature, as an
    /// `i64` scalar (each backend reads it from the shape of an argument that carries it).
    DimValue(String),
    /// An op of the op table; the operands are in order and `op.arity()` of them.
    Op(Op, Vec<TExpr>),
    /// Call of a user function with a single result.
    Call(String, Vec<TExpr>),
    /// Call of a user function with several results; appears only as the whole operand of a
    /// top-level `print`. `results` are the call's result types (with the caller's dims
    /// substituted); the node's `ty` is the first of them.
    CallMulti(String, Vec<TExpr>, Vec<TensorType>),
    /// A `loop` or `scan` (see [`TLoop`]). It gives several values when it carries several
    /// state values or is a `scan`; such a node appears only where a multi-result call may,
    /// and its `ty` is the first of [`TLoop::results`].
    Loop(Box<TLoop>),
    /// `if cond { then } else { otherwise }` (see [`TIf`]): one value, of the node's type.
    If(Box<TIf>),
    /// Several values computed independently (the parts of `split`): one per item, each of
    /// the item's type. It appears only where a multi-result call may, and its `ty` is the
    /// first item's.
    Tuple(Vec<TExpr>),
}

/// `loop` / `scan` over `counter` in `start..stop` (both `i64` scalars; no step runs when
/// `stop <= start`).
///
/// Invariants: `state` names one value per element of `results` up to `state.len()`; the
/// values of `init` (each may be a multi-result call) are one per state value and have the
/// state's types exactly; the body sees the enclosing scope plus the state and `counter`
/// (an `i64` scalar), and its results' values are the next state (the state's dtypes, and
/// dims that fit the state's: a `?` state dim takes any size) followed, for a scan, by one
/// output per stacked result. A stacked result has the type
/// of its output with a leading dim of the trip count (`max(stop - start, 0)`); an output's
/// dims are static or names of the enclosing signature (never `?`), so the stack can be
/// allocated before the first step.
#[derive(Debug, Clone, PartialEq)]
pub struct TLoop {
    pub scan: bool,
    pub state: Vec<String>,
    pub init: Vec<TExpr>,
    pub counter: String,
    pub start: TExpr,
    pub stop: TExpr,
    pub body: TBlock,
    /// The state's types, then (scan) the stacked outputs' types.
    pub results: Vec<TensorType>,
    /// `until COND`: a `bool` scalar over the enclosing scope, the state after a step and
    /// that step's counter; the loop stops after the first step that makes it true (a
    /// scan's stacks then have as many rows as steps ran).
    pub until: Option<TExpr>,
}

/// `if cond { then } else { otherwise }`: `cond` is a `bool` scalar, and only the chosen
/// block runs. Each block sees the enclosing scope and gives one value (`results` has one
/// expression) of the node's dtype and rank; where the two blocks' dims differ, the node's
/// dim is `?` (each block's value keeps its own type).
#[derive(Debug, Clone, PartialEq)]
pub struct TIf {
    pub cond: TExpr,
    pub then: TBlock,
    pub otherwise: TBlock,
}

impl TIf {
    /// Every expression the conditional may evaluate: the condition, then each block's.
    pub fn exprs(&self) -> Vec<&TExpr> {
        let mut out = vec![&self.cond];
        for b in [&self.then, &self.otherwise] {
            out.extend(b.lets.iter().map(|l| &l.value));
            out.extend(b.results.iter());
        }
        out
    }
}

impl TLoop {
    /// The types of the per-step outputs of a scan (without the leading dim).
    pub fn output_types(&self) -> Vec<TensorType> {
        self.results[self.state.len()..]
            .iter()
            .map(|t| TensorType::new(t.dtype, t.dims[1..].to_vec()))
            .collect()
    }

    /// Every expression the loop evaluates, in evaluation order.
    pub fn exprs(&self) -> Vec<&TExpr> {
        let mut out: Vec<&TExpr> = self.init.iter().collect();
        out.push(&self.start);
        out.push(&self.stop);
        out.extend(self.body.lets.iter().map(|l| &l.value));
        out.extend(self.body.results.iter());
        out.extend(self.until.iter());
        out
    }
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

    pub fn op(op: Op, operands: Vec<TExpr>, ty: TensorType, span: Span) -> Self {
        TExpr { kind: TExprKind::Op(op, operands), ty, span }
    }

    /// The direct operands of this node, in order.
    pub fn children(&self) -> Vec<&TExpr> {
        match &self.kind {
            TExprKind::Literal(_) | TExprKind::Var(_) | TExprKind::DimValue(_) => vec![],
            TExprKind::Op(_, args) | TExprKind::Call(_, args) | TExprKind::CallMulti(_, args, _) => args.iter().collect(),
            TExprKind::Loop(l) => l.exprs(),
            TExprKind::If(c) => c.exprs(),
            TExprKind::Tuple(items) => items.iter().collect(),
        }
    }

    /// The types of the values this node produces: one, except for a multi-result call.
    pub fn result_types(&self) -> Vec<TensorType> {
        match &self.kind {
            TExprKind::CallMulti(_, _, results) => results.clone(),
            TExprKind::Loop(l) => l.results.clone(),
            TExprKind::Tuple(items) => items.iter().map(|x| x.ty.clone()).collect(),
            _ => vec![self.ty.clone()],
        }
    }
}
