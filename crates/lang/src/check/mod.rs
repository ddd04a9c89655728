//! The type checker: resolves names, infers and checks tensor types with dimensions,
//! promotes dtypes, and produces the typed program (see [`crate::typed`] for the invariants
//! it guarantees).
//!
//! Errors do not stop checking: an expression whose checking failed yields `None` (the
//! "error type"), and anything built on it is skipped silently, so every independent mistake
//! is reported once.

mod broadcast;
mod conditional;
mod dims;
mod dtype;
mod env;
mod expr;
mod items;
mod literal;
mod grad;
mod loops;
pub(crate) mod ops;

use std::collections::{HashMap, HashSet};

use crate::ast;
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::ops::Op;
use crate::typed::{TExpr, TProgram};
use crate::types::{DType, TensorType};

use dtype::Weak;

/// Checks a parsed program. The typed program is returned only when there are no errors.
pub fn check(program: &ast::Program) -> (Option<TProgram>, Vec<Diagnostic>) {
    let mut checker = Checker::default();
    let typed = checker.program(program);
    let diags = checker.diags;
    if diags.is_empty() {
        (Some(typed), diags)
    } else {
        (None, diags)
    }
}

/// Checks a parsed program and keeps whatever checked, errors or not: every function whose
/// body checked, the `let`s and results that checked in a function with errors (its
/// parameters as declared), and the top-level statements that checked. Meant for tools that
/// show types while the source is being edited; a program with diagnostics does not hold the
/// invariants of [`crate::typed`] and must not be run. The diagnostics are those of [`check`].
pub fn check_partial(program: &ast::Program) -> (TProgram, Vec<Diagnostic>) {
    let mut checker = Checker { keep_partial: true, ..Checker::default() };
    let typed = checker.program(program);
    (typed, checker.diags)
}

/// A checked expression; `weak` is set when it is made only of number literals, whose dtype
/// adapts to the other operand.
#[derive(Debug, Clone)]
pub(crate) struct Typed {
    pub(crate) e: TExpr,
    pub(crate) weak: Option<Weak>,
}

impl Typed {
    pub(crate) fn strong(e: TExpr) -> Typed {
        Typed { e, weak: None }
    }

    pub(crate) fn ty(&self) -> &TensorType {
        &self.e.ty
    }

    pub(crate) fn dtype(&self) -> DType {
        self.e.ty.dtype
    }

    pub(crate) fn key(&self) -> (DType, Option<Weak>) {
        (self.e.ty.dtype, self.weak)
    }
}

/// A user function's signature as callers see it.
#[derive(Debug, Clone)]
pub(crate) struct FnSig {
    pub(crate) params: Vec<(String, TensorType, Span)>,
    /// Result types once known: declared, or inferred from a body that checked.
    pub(crate) results: Option<Vec<TensorType>>,
    pub(crate) symbols: Vec<String>,
    /// Whether every parameter type was valid.
    pub(crate) params_ok: bool,
}

#[derive(Default)]
pub(crate) struct Checker {
    pub(crate) diags: Vec<Diagnostic>,
    pub(crate) sigs: HashMap<String, FnSig>,
    /// Call sites (spans of the callee name) already reported as recursive.
    pub(crate) recursive_calls: HashSet<(usize, usize)>,
    /// Every function checked so far (user functions and generated derivatives).
    pub(crate) typed_fns: HashMap<String, crate::typed::TFn>,
    /// The generated derivative functions, in the order they were made.
    pub(crate) generated: Vec<String>,
    /// Whether to keep what checked of functions with errors (see [`check_partial`]).
    pub(crate) keep_partial: bool,
    /// Functions with errors, as far as they checked; filled only with `keep_partial`.
    pub(crate) partial_fns: HashMap<String, crate::typed::TFn>,
}

impl Checker {
    pub(crate) fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Reports an error with one label on its primary span; returns `None` for convenience.
    pub(crate) fn error<T>(
        &mut self,
        kind: ErrorKind,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Option<T> {
        let d = Diagnostic::new(kind, span.clone(), message).with_label(span, label);
        self.diags.push(d);
        None
    }

    /// Reports a type whose static dims multiply past [`dims::MAX_STATIC_ELEMENTS`]; such a
    /// shape can never be allocated, and its element count would wrap in compiled code.
    pub(crate) fn too_large(&mut self, dims: &[crate::types::Dim], span: Span) -> bool {
        let count = dims::Count::of(dims);
        if !count.too_large() {
            return false;
        }
        let shape = dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ");
        let label = if count.overflow {
            "more elements than 2^128".to_string()
        } else {
            format!("{} elements", count.fixed)
        };
        let d = Diagnostic::new(ErrorKind::Shape, span.clone(), format!("the shape [{shape}] has too many elements"))
            .with_label(span, label)
            .with_note("the static dims of a shape may multiply to at most 2^60 elements");
        self.report(d);
        true
    }

    /// Converts `t` to dtype `to`: weak literals take it directly, other values get an
    /// explicit cast (callers decide whether the conversion is allowed).
    pub(crate) fn convert(&mut self, t: Typed, to: DType) -> Option<TExpr> {
        if t.dtype() == to {
            return Some(t.e);
        }
        if t.weak.is_some() {
            let span = t.e.span.clone();
            return match literal::retype(t.e, to) {
                Ok(e) => Some(e),
                Err(msg) => self.error(ErrorKind::DType, span, msg, format!("used as `{to}` here")),
            };
        }
        Some(cast(t.e, to))
    }
}

/// An explicit conversion node (or the operand itself when the dtype already matches).
pub(crate) fn cast(e: TExpr, to: DType) -> TExpr {
    if e.ty.dtype == to {
        return e;
    }
    let ty = TensorType::new(to, e.ty.dims.clone());
    let span = e.span.clone();
    TExpr::op(Op::Cast, vec![e], ty, span)
}

/// "this has type `f64[n, 3]`": the label on an operand.
pub(crate) fn has_type(ty: &TensorType) -> String {
    format!("this has type `{ty}`")
}
