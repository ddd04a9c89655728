//! The surface syntax tree, as parsed. Every node carries the byte span it came from.
//!
//! ```text
//! program  := item*
//! item     := "fn" IDENT "(" params ")" ("->" rettype)? block
//!           | "let" IDENT (":" type)? "=" expr ";"
//!           | "print" expr ";"
//! block    := "{" ("let" IDENT (":" type)? "=" expr ";")* expr "}"
//! (a `let` may also destructure several values: "let" "(" IDENT ("," IDENT)+ ")" "=" expr)
//! loop     := ("loop" | "scan") pattern "=" expr "for" IDENT "in" expr ".." expr block
//! pattern  := IDENT | "(" IDENT ("," IDENT)+ ")"
//! rettype  := type | "(" type ("," type)* ")"
//! type     := DTYPE ("[" dim ("," dim)* "]")?
//! dim      := INT | IDENT | "?"
//! expr     := ascribed:  binary (":" type)?
//! ```
//! Binary precedence, loosest first: comparisons (non-associative), `+ -`, `* / @`,
//! unary `-`, `**` (right-associative, binds tighter than unary minus as in Python),
//! postfix `.T`, indexing `x[..]` and calls (a call may be called again: `grad(f, w)(x)`).
//!
//! ```text
//! index    := postfix "[" item ("," item)* "]"
//! item     := expr | expr? ":" expr? (":" expr?)?
//! ```

use crate::span::Span;
use crate::types::{DType, Dim};

#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Fn(FnDef),
    Let(Let),
    Print(Print),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FnDef {
    pub name: Ident,
    pub params: Vec<Param>,
    /// Declared result types; `None` when inferred. More than one for a tuple result.
    pub ret: Option<Vec<TypeExpr>>,
    pub body: Block,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub ty: TypeExpr,
}

/// A written type such as `f64[n, 3, ?]`.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeExpr {
    pub dtype: DType,
    pub dims: Vec<DimExpr>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DimExpr {
    pub dim: Dim,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub lets: Vec<Let>,
    /// The value of the block; an `ExprKind::Tuple` for a function with several results.
    pub result: Expr,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Let {
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub value: Expr,
    pub span: Span,
    /// `let (a, b) = value`: the names after the first (`name`), one per further value.
    /// Empty for a plain `let`; a destructuring `let` has no `ty`.
    pub rest: Vec<Ident>,
}

impl Let {
    /// Every name the statement binds, in order.
    pub fn names(&self) -> impl Iterator<Item = &Ident> {
        std::iter::once(&self.name).chain(&self.rest)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Print {
    pub value: Expr,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    MatMul,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// An integer literal; adapts to the other operand's dtype, else i64.
    Int(i64),
    /// A float literal; adapts to the other operand's float dtype, else f64.
    Float(f64),
    Bool(bool),
    /// A nested array literal `[[1.0, 2.0], [3.0, 4.0]]`; also the list argument of
    /// `transpose`, `reshape`, `broadcast` and reductions.
    Array(Vec<Expr>),
    Var(String),
    /// A dtype name used as an argument, as in `cast(x, f32)`.
    DType(DType),
    /// `?` used as a dim in the list argument of `reshape` / `broadcast`.
    UnknownDim,
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A call of a user function or a builtin (resolved by the checker).
    Call(Ident, Vec<Expr>),
    /// `grad(f, w)(args)`: a call of the function a call gives (the callee is a `Call`;
    /// only `grad` and `value_and_grad` give functions).
    Apply(Box<Expr>, Vec<Expr>),
    /// `x.T`: reverses the axes.
    Transpose(Box<Expr>),
    /// `expr : type`, giving a literal its dtype/shape or asserting a type.
    Ascribe(Box<Expr>, TypeExpr),
    /// `x[i, a:b, ::s]`: indexing and slicing, one item per leading axis; also `x[idx]`
    /// with an integer tensor (a gather).
    Index(Box<Expr>, Vec<IndexItem>),
    /// `(a, b)`: the result of a function or loop body, the value of a destructuring
    /// `let`, or a loop's initial state.
    Tuple(Vec<Expr>),
    /// `loop STATE = INIT for i in A..B { BODY }` and its `scan` form (see [`LoopExpr`]).
    Loop(Box<LoopExpr>),
    /// `if COND { THEN } else { OTHERWISE }` (see [`IfExpr`]).
    If(Box<IfExpr>),
    /// Placeholder left by error recovery; never survives a successful parse.
    Error,
}

/// `if cond { then } else { otherwise }`: `cond` is a `bool` scalar, and only the block it
/// chooses runs. `else if` is an `otherwise` block whose result is another `if`.
#[derive(Debug, Clone, PartialEq)]
pub struct IfExpr {
    pub cond: Expr,
    pub then: Block,
    pub otherwise: Block,
}

/// One item of an index list: a single index (or an index tensor), or a slice
/// `start:stop:step` with any part left out.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexItem {
    Single(Expr),
    Slice {
        start: Option<Expr>,
        stop: Option<Expr>,
        step: Option<Expr>,
        span: Span,
    },
}

/// Which loop form: `loop` gives the final state, `scan` also stacks per-step outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoopKind {
    Loop,
    Scan,
}

/// `loop (w, b) = (w0, b0) for i in 0..n { BODY }`: `state` names the carried values (one
/// name, or a parenthesised list of at least two), `init` gives their first values (a tuple
/// for several), `counter` runs over `start..stop` (Python's `range`: empty when
/// `stop <= start`), and the body's result is the next state. A `scan` body gives the next
/// state followed by the step's outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopExpr {
    pub kind: LoopKind,
    pub state: Vec<Ident>,
    /// Whether the state was written as a parenthesised list.
    pub tuple: bool,
    pub init: Expr,
    pub counter: Ident,
    pub start: Expr,
    pub stop: Expr,
    pub body: Block,
    /// `until COND` after the body: the loop stops after the first step whose new state (and
    /// counter) make `COND` true.
    pub until: Option<Expr>,
}
