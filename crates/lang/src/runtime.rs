//! The run-time checks of a well-typed program: what the checker could not prove and each
//! backend verifies where the op stands. The interpreter and compiled code report a failed
//! check with the same message and span (the interpreter adds the sizes it saw as a note), as
//! a [`Diagnostic`] of kind [`ErrorKind::Runtime`].

use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::types::TensorType;

/// One check, with what the message needs to name.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeCheck {
    /// A `Broadcast` operand dim that is not a static 1 must equal the target dim.
    Broadcast { from: TensorType, to: TensorType, axis: usize },
    /// Operands of an elementwise op whose dims are not known to be equal must be equal.
    SameDims { op: String, axis: usize, types: Vec<TensorType> },
    /// The inner dims of `@` must be equal.
    MatMulInner { lhs: TensorType, rhs: TensorType },
    /// The batch dims of `@` must be equal (they do not broadcast).
    MatMulBatch { lhs: TensorType, rhs: TensorType, axis: usize },
    /// `reshape` keeps the element count.
    Reshape { from: TensorType, to: TensorType },
    /// `max` / `min` over axes of size 0 has no identity.
    EmptyReduction { op: String, operand: TensorType },
    /// The operands of `concat` / `stack` have equal sizes except along the joining axis.
    Join { axis: usize, types: Vec<TensorType> },
    /// The argument of a call of a user function fits the parameter's dims (a `?` passed
    /// where a static dim is declared, a dimension name bound consistently).
    Argument { function: String, param: String, axis: usize, expected: String },
    /// An integer index (of `x[i]`, `take`, `scatter_add`, `scatter_set`) is within
    /// `-size <= i < size` of the axis it indexes; `op` names the op.
    Index { op: String, ty: TensorType, axis: usize },
    /// A boolean index (`x[mask]`) has the dims of the leading axes of `ty` it selects from.
    Mask { mask: TensorType, ty: TensorType, axis: usize },
    /// A slice step is not zero.
    SliceStep { ty: TensorType, axis: usize },
    /// The value of `set_slice` has as many rows as the slice it replaces (or one).
    SetSlice { ty: TensorType, value: TensorType },
    /// The sizes given to `split` add up to the size of the axis it splits.
    Split { ty: TensorType, axis: usize, total: u64 },
    /// `guard(cond, x, code)`: every element of `cond` is true.
    Guard { code: i64 },
    /// The matrix operand of a linear-algebra op (`op`) is square.
    Square { op: String, ty: TensorType },
    /// `solve_triangular(a, b)`, `solve(a, b)` (`op`): `b` has as many rows as the matrix `a`.
    SolveRows { op: String, a: TensorType, b: TensorType },
    /// A value has its static type's sizes: the typed program's invariants imply it, so a
    /// failure is an internal error.
    Value { ty: TensorType, axis: usize },
}

impl RuntimeCheck {
    /// What must hold, as the error message says it.
    pub fn message(&self) -> String {
        match self {
            RuntimeCheck::Broadcast { from, to, axis } => {
                let want = &to.dims[*axis];
                if *want == crate::types::Dim::Unknown {
                    format!("cannot broadcast `{from}` to `{to}`: its size at axis {axis} differs from the size it meets there")
                } else {
                    format!("cannot broadcast `{from}` to `{to}`: axis {axis} must be `{want}`")
                }
            }
            RuntimeCheck::SameDims { op, axis, types } => {
                let tys: Vec<String> = types.iter().map(|t| format!("`{t}`")).collect();
                format!("the operands of `{op}` differ in size at axis {axis} ({})", tys.join(", "))
            }
            RuntimeCheck::MatMulInner { lhs, rhs } => {
                format!("the inner dimensions of `{lhs}` @ `{rhs}` differ")
            }
            RuntimeCheck::MatMulBatch { lhs, rhs, axis } => {
                format!("batch dimension {axis} of `{lhs}` @ `{rhs}` differs")
            }
            RuntimeCheck::Reshape { from, to } if to.dims.contains(&crate::types::Dim::Unknown) => {
                format!("cannot reshape `{from}` to `{to}`: the element count is not a multiple of the other dims")
            }
            RuntimeCheck::Reshape { from, to } => {
                format!("cannot reshape `{from}` to `{to}`: the element count differs")
            }
            RuntimeCheck::EmptyReduction { op, operand } => {
                format!("`{op}` of `{operand}` reduces over an empty axis, and has no identity")
            }
            RuntimeCheck::Split { ty, axis, total } => {
                format!("the sizes given to `split` add up to {total}, but axis {axis} of `{ty}` has another size")
            }
            RuntimeCheck::Join { axis, types } => {
                let tys: Vec<String> = types.iter().map(|t| format!("`{t}`")).collect();
                format!("the arrays joined by `concat` differ in size at axis {axis} ({})", tys.join(", "))
            }
            RuntimeCheck::Argument { function, param, axis, expected } => {
                format!("argument `{param}` of `{function}`: dim {axis} must be `{expected}`")
            }
            RuntimeCheck::Index { op, ty, axis } => {
                let d = match &ty.dims[*axis] {
                    crate::types::Dim::Unknown => "size".to_string(),
                    d => d.to_string(),
                };
                let what = if op == "[]" { "an index".to_string() } else { format!("an index of `{op}`") };
                format!("{what} is out of range for axis {axis} of `{ty}`: it must satisfy -{d} <= i < {d}")
            }
            RuntimeCheck::Mask { mask, ty, axis } => {
                format!("the boolean index `{mask}` does not match `{ty}` at axis {axis}")
            }
            RuntimeCheck::SliceStep { ty, axis } => {
                format!("the slice step for axis {axis} of `{ty}` is zero")
            }
            RuntimeCheck::SetSlice { ty, value } => {
                format!("the value `{value}` of `set_slice` does not fit the slice of `{ty}` it replaces")
            }
            RuntimeCheck::Guard { code } => format!("guard {code} failed: its condition is false"),
            RuntimeCheck::Square { op, ty } => format!("`{op}` needs a square matrix, but `{ty}` is not square"),
            RuntimeCheck::SolveRows { op, a, b } => {
                format!("`{op}` of `{a}` and `{b}`: the right-hand side has another number of rows than the matrix")
            }
            RuntimeCheck::Value { ty, axis } => {
                format!("internal error: a value of type `{ty}` has another size at axis {axis}")
            }
        }
    }

    /// A note that says why the rule exists, where one helps.
    pub fn rule(&self) -> Option<&'static str> {
        match self {
            RuntimeCheck::Broadcast { .. } | RuntimeCheck::SameDims { .. } => {
                Some("only a dim that is statically 1 stretches; a `?` dim must equal the dim it meets")
            }
            RuntimeCheck::MatMulBatch { .. } => Some("the batch dims of `@` must be equal (they do not broadcast)"),
            RuntimeCheck::EmptyReduction { op, .. } if op.starts_with("arg") => {
                Some("the index of the largest or smallest element of nothing does not exist")
            }
            RuntimeCheck::EmptyReduction { .. } => Some("use `sum`, or make sure the reduced axes are not empty"),
            RuntimeCheck::Index { .. } => Some("a negative index counts from the end; slices clamp, but single indices do not"),
            RuntimeCheck::Mask { .. } => Some("a boolean index has the sizes of the axes it selects from; it does not broadcast"),
            RuntimeCheck::SetSlice { .. } => Some("the value's first dim is the slice's length, or a static 1 that stretches"),
            RuntimeCheck::Join { .. } => {
                Some("joined arrays must have equal sizes on every axis except the one they are joined along")
            }
            _ => None,
        }
    }

    /// The report: the message at `span` (when the failing op has one), the rule as a note,
    /// and what was seen at run time when the backend knows it.
    pub fn diagnostic(&self, span: Option<Span>, seen: Option<String>) -> Diagnostic {
        let span = span.unwrap_or(0..0);
        let mut d = Diagnostic::new(ErrorKind::Runtime, span.clone(), self.message())
            .with_label(span, "this check failed when the program ran");
        if let Some(rule) = self.rule() {
            d = d.with_note(rule);
        }
        if let Some(seen) = seen {
            d = d.with_note(seen);
        }
        d
    }
}
