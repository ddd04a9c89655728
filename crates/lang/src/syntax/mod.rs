//! The syntax layer: lexer, parser and pretty-printer.
//!
//! [`parse`] turns source text into a [`Program`] and reports every lexical and syntax
//! error of the file in one run; [`pretty::print_program`] turns a program back into
//! canonical source.

pub mod comments;
pub mod lexer;
mod loops;
mod parser;
pub mod pretty;
mod report;
mod strip;

use chumsky::prelude::*;

use crate::ast::{Expr, Program};
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use lexer::Token;

/// Deepest expression nesting accepted; deeper input is reported rather than risking the
/// stack in later passes.
pub const MAX_NESTING: usize = 256;

/// Parses a whole program.
///
/// Returns the program (partial, with `ExprKind::Error` holes, when there are errors) and
/// every diagnostic, in source order. The program is usable only when the list is empty.
pub fn parse(src: &str) -> (Option<Program>, Vec<Diagnostic>) {
    let lexer::Lexed {
        tokens,
        diagnostics: mut diags,
        skipped,
    } = lexer::lex(src);
    if let Some(d) = nesting_error(&tokens) {
        diags.push(d);
        return (None, diags);
    }
    let layout = parser::Layout::new(src, &tokens);
    let spanned: Vec<(Token<'_>, SimpleSpan)> = tokens
        .iter()
        .map(|(t, s)| (*t, SimpleSpan::from(s.clone())))
        .collect();
    let eoi = SimpleSpan::from(src.len()..src.len());
    let (program, errors) = parser::program(&layout)
        .parse(spanned.as_slice().split_token_span(eoi))
        .into_output_errors();
    finish(&tokens, &skipped, &errors, &mut diags);
    (program, diags)
}

/// Parses a single expression, as typed at a REPL prompt.
pub fn parse_expr(src: &str) -> (Option<Expr>, Vec<Diagnostic>) {
    let lexer::Lexed {
        tokens,
        diagnostics: mut diags,
        skipped,
    } = lexer::lex(src);
    if let Some(d) = nesting_error(&tokens) {
        diags.push(d);
        return (None, diags);
    }
    let spanned: Vec<(Token<'_>, SimpleSpan)> = tokens
        .iter()
        .map(|(t, s)| (*t, SimpleSpan::from(s.clone())))
        .collect();
    let eoi = SimpleSpan::from(src.len()..src.len());
    let (expr, errors) = parser::expr()
        .then_ignore(end())
        .parse(spanned.as_slice().split_token_span(eoi))
        .into_output_errors();
    finish(&tokens, &skipped, &errors, &mut diags);
    (expr, diags)
}

/// Adds the parser's errors to the lexer's, minus cascades, in source order.
fn finish(
    tokens: &[(Token<'_>, Span)],
    skipped: &[Span],
    errors: &[parser::ParseError<'_, '_>],
    diags: &mut Vec<Diagnostic>,
) {
    let cascades = cascade_zones(tokens, skipped);
    diags.extend(
        errors
            .iter()
            .map(report::to_diagnostic)
            .filter(|d| !cascades.iter().any(|z| z.contains(&d.span.start))),
    );
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    diags.dedup();
}

/// Where a syntax error is only a consequence of dropped characters: from a dropped run
/// through the end of the token after it.
fn cascade_zones(tokens: &[(Token<'_>, Span)], skipped: &[Span]) -> Vec<Span> {
    skipped
        .iter()
        .map(|s| {
            let next = tokens.partition_point(|(_, t)| t.start < s.end);
            let next_end = tokens.get(next).map_or(usize::MAX, |(_, t)| t.end);
            s.start..next_end
        })
        .collect()
}

/// Reports input whose expressions would nest deeper than [`MAX_NESTING`]. The estimate is
/// an upper bound on tree depth: per open bracket, the number of operators in its current
/// comma-separated element.
fn nesting_error(tokens: &[(Token<'_>, Span)]) -> Option<Diagnostic> {
    let mut frames: Vec<usize> = vec![0];
    let mut depth = 0usize;
    for (tok, span) in tokens {
        match tok {
            Token::LParen | Token::LBracket | Token::LBrace => {
                frames.push(0);
                depth += 1;
            }
            Token::RParen | Token::RBracket | Token::RBrace if frames.len() > 1 => {
                depth -= 1 + frames.pop().unwrap_or(0);
            }
            Token::Comma | Token::Semi => {
                if let Some(top) = frames.last_mut() {
                    depth -= *top;
                    *top = 0;
                }
            }
            Token::Plus
            | Token::Minus
            | Token::Star
            | Token::StarStar
            | Token::Slash
            | Token::At
            | Token::Lt
            | Token::Le
            | Token::Gt
            | Token::Ge
            | Token::EqEq
            | Token::Ne
            | Token::Colon
            | Token::Dot => {
                if let Some(top) = frames.last_mut() {
                    *top += 1;
                    depth += 1;
                }
            }
            _ => {}
        }
        if depth > MAX_NESTING {
            return Some(
                Diagnostic::new(
                    ErrorKind::Syntax,
                    span.clone(),
                    format!("expression nested too deeply (more than {MAX_NESTING} levels)"),
                )
                .with_label(span.clone(), "nesting limit reached here")
                .with_note("split the expression with `let` bindings"),
            );
        }
    }
    None
}
