//! Parser errors to diagnostics.

use chumsky::error::{RichPattern, RichReason};

use super::lexer::Token;
use super::parser::ParseError;
use crate::diag::{Diagnostic, ErrorKind};

/// Converts one parser error. Custom errors carry message, label and notes one per line
/// (see [`super::parser::custom`]); expected/found errors are phrased "expected X, found Y".
pub fn to_diagnostic(err: &ParseError<'_, '_>) -> Diagnostic {
    let span = err.span().into_range();
    match err.reason() {
        RichReason::Custom(text) => {
            let mut lines = text.lines();
            let message = lines.next().unwrap_or("syntax error");
            let label = lines.next().unwrap_or("here");
            let mut d =
                Diagnostic::new(ErrorKind::Syntax, span.clone(), message).with_label(span, label);
            for note in lines {
                d = d.with_note(note);
            }
            d
        }
        RichReason::ExpectedFound { expected, found } => {
            let expected = describe_expected(expected);
            let found_tok = found.as_deref();
            let found = found_tok.map_or_else(|| "end of input".to_string(), Token::to_string);
            let mut d = Diagnostic::new(
                ErrorKind::Syntax,
                span.clone(),
                format!("expected {expected}, found {found}"),
            )
            .with_label(span, format!("expected {expected}"));
            let wants_type = err
                .expected()
                .any(|p| matches!(p, RichPattern::Label(l) if l == "type"));
            if wants_type && matches!(found_tok, Some(Token::Ident(_))) {
                d = d.with_note("types are `f32`, `f64`, `i32`, `i64` or `bool`, with dims in brackets: `f64[n, 3, ?]`");
            }
            if let Some((RichPattern::Label(ctx), ctx_span)) = err.contexts().last() {
                d = d.with_label(ctx_span.into_range(), format!("in this {ctx}"));
            }
            d
        }
    }
}

fn is_operator(t: &Token<'_>) -> bool {
    matches!(
        t,
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
    )
}

/// "`;`", "`)` or `,`", "`;`, `:` or an operator", "expression".
fn describe_expected(expected: &[RichPattern<'_, Token<'_>>]) -> String {
    let mut items: Vec<String> = Vec::new();
    let mut operators = 0;
    let mut eoi = false;
    for p in expected {
        let text = match p {
            RichPattern::Token(t) if is_operator(t) => {
                operators += 1;
                continue;
            }
            RichPattern::Token(t) if **t == Token::Dot => "`.T`".to_string(),
            RichPattern::Token(t) => t.to_string(),
            RichPattern::Label(l) => l.to_string(),
            RichPattern::Identifier(s) => format!("`{s}`"),
            RichPattern::Any => "a token".to_string(),
            RichPattern::SomethingElse => continue,
            RichPattern::EndOfInput => {
                eoi = true;
                continue;
            }
            _ => continue,
        };
        if !items.contains(&text) {
            items.push(text);
        }
    }
    if operators > 0 {
        items.push("an operator".to_string());
    }
    if eoi {
        items.push("end of input".to_string());
    }
    match items.len() {
        0 => "something else".to_string(),
        1 => items.remove(0),
        n => format!("{} or {}", items[..n - 1].join(", "), items[n - 1]),
    }
}
