//! The loop forms, the conditional and destructuring patterns:
//! `loop STATE = INIT for i in A..B { BODY }` (optionally `until COND`), `scan ...`, `if C { A } else { B }` and
//! `let (a, b) = ...`.

use chumsky::prelude::*;

use super::lexer::Token;
use super::parser::{Extra, TokenInput, ident, type_expr};
use crate::ast::{Block, Expr, ExprKind, Ident, IfExpr, Let, LoopExpr, LoopKind};

/// `x` or `(a, b, ...)` with at least two names; the flag tells whether it was a list.
pub(super) fn pattern<'t, 's: 't>()
-> impl Parser<'t, TokenInput<'t, 's>, (Vec<Ident>, bool), Extra<'t, 's>> + Clone {
    let list = ident()
        .separated_by(just(Token::Comma))
        .at_least(2)
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LParen), just(Token::RParen))
        .map(|names| (names, true));
    ident().map(|n| (vec![n], false)).or(list)
}

/// The loop forms, as an expression kind; `expr` is the enclosing expression parser.
pub(super) fn loop_expr<'t, 's: 't>(
    expr: impl Parser<'t, TokenInput<'t, 's>, Expr, Extra<'t, 's>> + Clone + 't,
) -> impl Parser<'t, TokenInput<'t, 's>, ExprKind, Extra<'t, 's>> + Clone {
    let kind = just(Token::Loop).to(LoopKind::Loop).or(just(Token::Scan).to(LoopKind::Scan));
    kind.then(pattern())
        .then_ignore(just(Token::Assign))
        .then(expr.clone())
        .then_ignore(just(Token::For))
        .then(ident().labelled("loop counter name"))
        .then_ignore(just(Token::In))
        .then(expr.clone())
        .then_ignore(just(Token::DotDot))
        .then(expr.clone())
        .then(body(expr.clone()).labelled("loop body"))
        .then(just(Token::Until).ignore_then(expr.labelled("stopping condition")).or_not())
        .map(|(((((((kind, (state, tuple)), init), counter), start), stop), body), until)| {
            ExprKind::Loop(Box::new(LoopExpr { kind, state, tuple, init, counter, start, stop, body, until }))
        })
        .boxed()
}

/// `if COND { A } else { B }`, with `else if` chains, as an expression kind.
pub(super) fn if_expr<'t, 's: 't>(
    expr: impl Parser<'t, TokenInput<'t, 's>, Expr, Extra<'t, 's>> + Clone + 't,
) -> impl Parser<'t, TokenInput<'t, 's>, ExprKind, Extra<'t, 's>> + Clone {
    recursive(|if_expr: Recursive<dyn Parser<'t, TokenInput<'t, 's>, ExprKind, Extra<'t, 's>>>| {
        let block = body(expr.clone()).labelled("block");
        // `else if ...`: a block whose value is the nested `if`.
        let chained = if_expr.map_with(|kind, e| {
            let span: SimpleSpan = e.span();
            let span = span.into_range();
            Block { lets: Vec::new(), result: Expr { kind, span: span.clone() }, span }
        });
        just(Token::If)
            .ignore_then(expr.clone().labelled("condition"))
            .then(block.clone())
            .then_ignore(just(Token::Else).labelled("`else`"))
            .then(block.or(chained))
            .map(|((cond, then), otherwise)| ExprKind::If(Box::new(IfExpr { cond, then, otherwise })))
            .boxed()
    })
}

/// `let PATTERN (: type)? = expr;` inside a loop body.
fn body_let<'t, 's: 't>(
    expr: impl Parser<'t, TokenInput<'t, 's>, Expr, Extra<'t, 's>> + Clone + 't,
) -> impl Parser<'t, TokenInput<'t, 's>, Let, Extra<'t, 's>> + Clone {
    just(Token::Let)
        .ignore_then(pattern())
        .then(just(Token::Colon).ignore_then(type_expr()).or_not())
        .then_ignore(just(Token::Assign))
        .then(expr)
        .then_ignore(just(Token::Semi))
        .map_with(|(((names, _), ty), value), e| {
            let span: SimpleSpan = e.span();
            make_let(names, ty, value, span.into_range())
        })
}

/// A loop body or a branch of an `if`: `{ let ...; ... result }`.
fn body<'t, 's: 't>(
    expr: impl Parser<'t, TokenInput<'t, 's>, Expr, Extra<'t, 's>> + Clone + 't,
) -> impl Parser<'t, TokenInput<'t, 's>, Block, Extra<'t, 's>> + Clone {
    body_let(expr.clone())
        .repeated()
        .collect::<Vec<_>>()
        .then(expr)
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .map_with(|(lets, result), e| {
            let span: SimpleSpan = e.span();
            Block { lets, result, span: span.into_range() }
        })
}

/// A `let` binding one name or destructuring several.
pub(super) fn make_let(
    names: Vec<Ident>,
    ty: Option<crate::ast::TypeExpr>,
    value: Expr,
    span: crate::span::Span,
) -> Let {
    let mut names = names.into_iter();
    let name = names.next().unwrap_or(Ident { name: String::new(), span: span.clone() });
    Let { name, ty, value, span, rest: names.collect() }
}
