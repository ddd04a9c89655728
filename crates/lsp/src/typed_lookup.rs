//! Finding nodes of the typed program by source position.
//!
//! Only the functions written in the source are searched (the derivative functions that
//! `grad` generates reuse the spans of the code they differentiate).

use std::collections::HashMap;

use ptl_lang::TensorType;
use ptl_lang::ops::Op;
use ptl_lang::typed::{TBlock, TExpr, TExprKind, TFn, TLet, TProgram, TStmt};
use ptl_lang::Span;

use crate::resolve::Index;

/// A node of the typed program.
#[derive(Debug, Clone, Copy)]
pub enum Node<'a> {
    Expr(&'a TExpr),
    Let(&'a TLet),
}

/// The typed program of a source, with the index of its names.
#[derive(Clone, Copy)]
pub struct Typed<'a> {
    pub program: &'a TProgram,
    pub index: &'a Index,
}

impl<'a> Typed<'a> {
    /// The typed function written in the source as `name`.
    pub fn function(&self, name: &str) -> Option<&'a TFn> {
        self.index.functions.contains_key(name).then(|| self.program.function(name)).flatten()
    }

    /// Visits every node, parents before children, in source order.
    pub fn visit(&self, f: &mut impl FnMut(Node<'a>)) {
        let mut seen: Vec<&str> = Vec::new();
        for func in &self.program.fns {
            if !self.index.functions.contains_key(&func.name) || seen.contains(&func.name.as_str()) {
                continue;
            }
            seen.push(&func.name);
            block(&func.body, f);
        }
        for s in &self.program.top {
            match s {
                TStmt::Let(l) => {
                    f(Node::Let(l));
                    expr(&l.value, f);
                }
                TStmt::Print(xs, _) => xs.iter().for_each(|x| expr(x, f)),
            }
        }
    }

    /// The type of value `index` of the `let` statement at `stmt`.
    pub fn let_type(&self, stmt: &Span, index: usize) -> Option<TensorType> {
        let mut out = None;
        self.visit(&mut |n| {
            if let Node::Let(l) = n
                && l.span == *stmt
                && out.is_none()
            {
                out = l.value.result_types().get(index).cloned();
            }
        });
        out
    }

    /// Every `let` statement, by its span (for looking up many at once).
    pub fn lets(&self) -> HashMap<(usize, usize), &'a TLet> {
        let mut out = HashMap::new();
        self.visit(&mut |n| {
            if let Node::Let(l) = n {
                out.entry((l.span.start, l.span.end)).or_insert(l);
            }
        });
        out
    }

    /// The type of value `index` of `let` statement `stmt`, from a map made by [`Self::lets`].
    pub fn value_type(lets: &HashMap<(usize, usize), &TLet>, stmt: &Span, index: usize) -> Option<TensorType> {
        lets.get(&(stmt.start, stmt.end)).and_then(|l| l.value.result_types().into_iter().nth(index))
    }

    /// The type of state value `index` of the loop expression at `span`.
    pub fn loop_state_type(&self, span: &Span, index: usize) -> Option<TensorType> {
        let mut out = None;
        self.visit(&mut |n| {
            if let Node::Expr(TExpr { kind: TExprKind::Loop(l), span: s, .. }) = n
                && s == span
                && out.is_none()
            {
                out = l.results.get(index).cloned();
            }
        });
        out
    }

    /// The node of a name used as a value at `span`.
    pub fn name_at(&self, span: &Span) -> Option<&'a TExpr> {
        let mut out = None;
        self.visit(&mut |n| {
            if let Node::Expr(e) = n
                && e.span == *span
                && matches!(e.kind, TExprKind::Var(_) | TExprKind::DimValue(_))
            {
                out = out.or(Some(e));
            }
        });
        out
    }

    /// The outermost node of the expression at exactly `span` (a call's node, not the
    /// conversions the checker put inside it).
    pub fn outermost_at(&self, span: &Span) -> Option<&'a TExpr> {
        let mut out = None;
        self.visit(&mut |n| {
            if let Node::Expr(e) = n
                && e.span == *span
            {
                out = out.or(Some(e));
            }
        });
        out
    }

    /// The smallest expression whose span contains `offset`. Of nodes with the same span, the
    /// outermost, but not an implicit conversion (a cast or broadcast the checker inserted
    /// around an operand): hovering an operand shows its own type.
    pub fn smallest_containing(&self, offset: usize) -> Option<&'a TExpr> {
        let mut best: Option<&TExpr> = None;
        self.visit(&mut |n| {
            let Node::Expr(e) = n else { return };
            if !(e.span.start <= offset && offset < e.span.end) {
                return;
            }
            if best.is_none_or(|b| e.span.len() < b.span.len()) {
                best = Some(e);
            }
        });
        let mut e = best?;
        while let TExprKind::Op(Op::Cast | Op::Broadcast, xs) = &e.kind
            && let Some(inner) = xs.first()
            && inner.span == e.span
        {
            e = inner;
        }
        Some(e)
    }
}

fn block<'a>(b: &'a TBlock, f: &mut impl FnMut(Node<'a>)) {
    for l in &b.lets {
        f(Node::Let(l));
        expr(&l.value, f);
    }
    b.results.iter().for_each(|r| expr(r, f));
}

fn expr<'a>(e: &'a TExpr, f: &mut impl FnMut(Node<'a>)) {
    f(Node::Expr(e));
    match &e.kind {
        TExprKind::Literal(_) | TExprKind::Var(_) | TExprKind::DimValue(_) => {}
        TExprKind::Op(_, xs) | TExprKind::Call(_, xs) | TExprKind::CallMulti(_, xs, _) | TExprKind::Tuple(xs) => {
            xs.iter().for_each(|x| expr(x, f))
        }
        TExprKind::Loop(l) => {
            l.init.iter().for_each(|x| expr(x, f));
            expr(&l.start, f);
            expr(&l.stop, f);
            block(&l.body, f);
            if let Some(c) = &l.until {
                expr(c, f);
            }
        }
        TExprKind::If(c) => {
            expr(&c.cond, f);
            block(&c.then, f);
            block(&c.otherwise, f);
        }
    }
}
