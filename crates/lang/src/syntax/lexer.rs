//! Source text to tokens.
//!
//! Lexing never fails: characters that start no token become a diagnostic and are skipped,
//! malformed number literals become a diagnostic and the nearest sensible token, so the parser
//! still sees a useful token stream and can report its own errors in the same run.

use std::fmt;

use chumsky::prelude::*;

use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::types::DType;

/// One token. Identifiers borrow from the source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Token<'src> {
    Int(i64),
    Float(f64),
    Ident(&'src str),
    DType(DType),
    Fn,
    Let,
    Print,
    Loop,
    Scan,
    For,
    In,
    If,
    Else,
    Until,
    DotDot,
    True,
    False,
    Plus,
    Minus,
    Star,
    StarStar,
    Slash,
    At,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    Ne,
    Assign,
    Arrow,
    Colon,
    Semi,
    Comma,
    Dot,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Question,
}

impl Token<'_> {
    /// The source form of a fixed token (keyword or punctuation).
    pub fn text(&self) -> Option<&'static str> {
        Some(match self {
            Token::Fn => "fn",
            Token::Let => "let",
            Token::Print => "print",
            Token::Loop => "loop",
            Token::Scan => "scan",
            Token::For => "for",
            Token::In => "in",
            Token::If => "if",
            Token::Else => "else",
            Token::Until => "until",
            Token::DotDot => "..",
            Token::True => "true",
            Token::False => "false",
            Token::DType(d) => d.name(),
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star => "*",
            Token::StarStar => "**",
            Token::Slash => "/",
            Token::At => "@",
            Token::Lt => "<",
            Token::Le => "<=",
            Token::Gt => ">",
            Token::Ge => ">=",
            Token::EqEq => "==",
            Token::Ne => "!=",
            Token::Assign => "=",
            Token::Arrow => "->",
            Token::Colon => ":",
            Token::Semi => ";",
            Token::Comma => ",",
            Token::Dot => ".",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::Question => "?",
            Token::Int(_) | Token::Float(_) | Token::Ident(_) => return None,
        })
    }
}

/// How a token is named in an error message: "`;`", "identifier `x`", "integer `3`".
impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Int(n) => write!(f, "integer `{n}`"),
            Token::Float(x) => write!(f, "float `{}`", super::pretty::float_literal(*x)),
            Token::Ident(s) => write!(f, "identifier `{s}`"),
            Token::DType(d) => write!(f, "type `{d}`"),
            other => write!(f, "`{}`", other.text().unwrap_or("?")),
        }
    }
}

/// The reserved words other than the dtype names, and the tokens they lex to. The float
/// constants `inf` and `nan` are literals (`-inf` is a negation, as `-1.0` is).
const WORDS: [(&str, Token<'static>); 14] = [
    ("fn", Token::Fn),
    ("let", Token::Let),
    ("print", Token::Print),
    ("loop", Token::Loop),
    ("scan", Token::Scan),
    ("for", Token::For),
    ("in", Token::In),
    ("if", Token::If),
    ("else", Token::Else),
    ("until", Token::Until),
    ("true", Token::True),
    ("false", Token::False),
    ("inf", Token::Float(f64::INFINITY)),
    ("nan", Token::Float(f64::NAN)),
];

/// Every word the lexer reserves besides the dtype names ([`DType::name`]): the keywords and
/// the literals `true`, `false`, `inf` and `nan`. None of them can be used as a name.
pub const KEYWORDS: [&str; WORDS.len()] = {
    let mut names = [""; WORDS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = WORDS[i].0;
        i += 1;
    }
    names
};

/// What the character-level lexer produces before numbers are checked.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Raw<'src> {
    Tok(Token<'src>),
    /// A number literal as written; `shape` tells what is wrong with it, if anything.
    Number(&'src str, NumShape),
    /// A run of characters that start no token.
    Bad(&'src str),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum NumShape {
    /// `42`, `1.5`, `2e-3`.
    Ok,
    /// `.5`: no digit before the point.
    LeadingDot,
    /// `1.` followed by something that is not a digit or a name.
    TrailingDot,
    /// Letters glued to a number, as in `1e`, `2x`, `1.0f`. The number part ends at the byte offset.
    Suffix(usize),
}

type LexErr<'src> = extra::Err<Rich<'src, char>>;

fn raw_lexer<'src>() -> impl Parser<'src, &'src str, Vec<(Raw<'src>, SimpleSpan)>, LexErr<'src>> {
    let digit = any().filter(|c: &char| c.is_ascii_digit());
    let digits = digit.repeated().at_least(1);
    let ident_char = any().filter(|c: &char| c.is_ascii_alphanumeric() || *c == '_');
    let ident_start = any().filter(|c: &char| c.is_ascii_alphabetic() || *c == '_');
    let exponent = one_of("eE").then(one_of("+-").or_not()).then(digits);

    // `1`, `1.5`, `1e3`, `1.5e-3`; `1.T` is the integer 1 followed by `.T`.
    let number_core = digits
        .then(just('.').then(digits).or_not())
        .then(exponent.or_not())
        .to_slice();
    let plain_number = number_core
        .then(ident_char.repeated().at_least(1).to_slice().or_not())
        .map_with(|(core, suffix): (&'src str, Option<&'src str>), e| {
            let whole: &'src str = e.slice();
            match suffix {
                Some(_) => Raw::Number(whole, NumShape::Suffix(core.len())),
                None => Raw::Number(whole, NumShape::Ok),
            }
        });
    // `1.` not followed by a digit or a name start (which would be `1.T`), nor by a second
    // `.` (`0..n` is a range).
    let trailing_dot = digits
        .then(just('.'))
        .then_ignore(ident_start.or(digit).or(just('.')).not())
        .to_slice()
        .map(|s: &'src str| Raw::Number(s, NumShape::TrailingDot));
    let leading_dot = just('.')
        .then(digits)
        .then(exponent.or_not())
        .to_slice()
        .map(|s: &'src str| Raw::Number(s, NumShape::LeadingDot));

    let word = text::ascii::ident().map(|s: &'src str| {
        Raw::Tok(match WORDS.iter().find(|(w, _)| *w == s) {
            Some(&(_, tok)) => tok,
            None => match DType::from_name(s) {
                Some(d) => Token::DType(d),
                None => Token::Ident(s),
            },
        })
    });

    let long_op = choice((
        just("**").to(Token::StarStar),
        just("..").to(Token::DotDot),
        just("->").to(Token::Arrow),
        just("<=").to(Token::Le),
        just(">=").to(Token::Ge),
        just("==").to(Token::EqEq),
        just("!=").to(Token::Ne),
    ));
    let short_op = choice((
        just('+').to(Token::Plus),
        just('-').to(Token::Minus),
        just('*').to(Token::Star),
        just('/').to(Token::Slash),
        just('@').to(Token::At),
        just('<').to(Token::Lt),
        just('>').to(Token::Gt),
        just('=').to(Token::Assign),
        just(':').to(Token::Colon),
        just(';').to(Token::Semi),
        just(',').to(Token::Comma),
        just('.').to(Token::Dot),
        just('?').to(Token::Question),
    ));
    let delim = choice((
        just('(').to(Token::LParen),
        just(')').to(Token::RParen),
        just('[').to(Token::LBracket),
        just(']').to(Token::RBracket),
        just('{').to(Token::LBrace),
        just('}').to(Token::RBrace),
    ));

    // Characters that can start no token; a run of them is reported once.
    let starts_nothing = |c: &char| {
        !(c.is_whitespace() || c.is_ascii_alphanumeric() || "_+-*/@<>=!:;,.?()[]{}".contains(*c))
    };
    let bad = any()
        .then(any().filter(move |c: &char| starts_nothing(c)).repeated())
        .to_slice()
        .map(Raw::Bad);

    let comment = just("//")
        .then(any().and_is(just('\n').not()).repeated())
        .ignored();
    let blank = any()
        .filter(|c: &char| c.is_whitespace())
        .ignored()
        .or(comment)
        .repeated();

    let token = choice((
        trailing_dot,
        plain_number,
        leading_dot,
        word,
        long_op.map(Raw::Tok),
        short_op.map(Raw::Tok),
        delim.map(Raw::Tok),
        bad,
    ));

    blank
        .ignore_then(
            token
                .map_with(|t, e| (t, e.span()))
                .then_ignore(blank)
                .repeated()
                .collect(),
        )
        .then_ignore(end())
}

/// The result of lexing: tokens with byte spans, a diagnostic for every lexical error, and
/// the spans of characters that were dropped because they start no token.
pub struct Lexed<'src> {
    pub tokens: Vec<(Token<'src>, Span)>,
    pub diagnostics: Vec<Diagnostic>,
    pub skipped: Vec<Span>,
}

/// Splits `src` into tokens. Never fails; see [`Lexed`].
pub fn lex(src: &str) -> Lexed<'_> {
    let (raw, errs) = raw_lexer().parse(src).into_output_errors();
    let mut diags: Vec<Diagnostic> = errs
        .into_iter()
        .map(|e| {
            let span = e.span().into_range();
            Diagnostic::new(
                ErrorKind::Lex,
                span.clone(),
                format!("cannot read the source here: {e}"),
            )
            .with_label(span, "unreadable")
        })
        .collect();
    let mut tokens = Vec::new();
    let mut skipped = Vec::new();
    for (raw, span) in raw.unwrap_or_default() {
        let span = span.into_range();
        match raw {
            Raw::Tok(t) => tokens.push((t, span)),
            Raw::Bad(text) => {
                diags.push(bad_chars(text, span.clone()));
                skipped.push(span);
            }
            Raw::Number(text, shape) => {
                let (tok, diag) = number(text, shape, span.clone());
                diags.extend(diag);
                tokens.push((tok, span));
            }
        }
    }
    Lexed {
        tokens,
        diagnostics: diags,
        skipped,
    }
}

fn bad_chars(text: &str, span: Span) -> Diagnostic {
    let (what, label) = if text.chars().count() == 1 {
        (
            format!("unexpected character `{text}`"),
            "this character starts no token",
        )
    } else {
        (
            format!("unexpected characters `{text}`"),
            "these characters start no token",
        )
    };
    let d = Diagnostic::new(ErrorKind::Lex, span.clone(), what).with_label(span, label);
    match text.chars().next() {
        Some('!') => d.with_note("ptl has no `!` operator; not-equal is written `!=`"),
        Some('&') | Some('|') => d.with_note("ptl has no logical operators"),
        Some('"') | Some('\'') => d.with_note("ptl has no string or character literals"),
        Some('#') => d.with_note("comments start with `//`"),
        Some('%') => d.with_note("ptl has no `%` operator"),
        _ => d,
    }
}

/// Turns a number literal into its token, with a diagnostic when it is malformed. The token
/// is always the closest reading, so parsing can go on.
fn number<'src>(text: &str, shape: NumShape, span: Span) -> (Token<'src>, Option<Diagnostic>) {
    let err = |msg: String, label: &str| {
        Some(Diagnostic::new(ErrorKind::Lex, span.clone(), msg).with_label(span.clone(), label))
    };
    match shape {
        NumShape::Ok => {
            if text.contains(['.', 'e', 'E']) {
                float(text, span.clone())
            } else {
                match text.parse::<i64>() {
                    Ok(n) => (Token::Int(n), None),
                    Err(_) => (
                        Token::Int(0),
                        err(
                            format!("integer literal `{text}` is too large"),
                            "does not fit in 64 bits",
                        )
                        .map(|d| {
                            d.with_note(format!("the largest integer literal is {}", i64::MAX))
                        }),
                    ),
                }
            }
        }
        NumShape::LeadingDot => {
            let fixed = format!("0{text}");
            let (tok, _) = float(&fixed, span.clone());
            (
                tok,
                err(
                    format!("float literal `{text}` needs a digit before the `.`"),
                    "no leading digit",
                )
                .map(|d| d.with_note(format!("write `{fixed}`"))),
            )
        }
        NumShape::TrailingDot => {
            let fixed = format!("{text}0");
            let (tok, _) = float(&fixed, span.clone());
            (
                tok,
                err(
                    format!("float literal `{text}` needs a digit after the `.`"),
                    "no digit after `.`",
                )
                .map(|d| d.with_note(format!("write `{fixed}`"))),
            )
        }
        NumShape::Suffix(at) => {
            let core = &text[..at];
            let (tok, _) = number(core, NumShape::Ok, span.clone());
            (
                tok,
                err(format!("invalid number literal `{text}`"), "letters directly after a number")
                    .map(|d| d.with_note("numbers are written `42`, `1.5`, `1e-3` or `2.5e10`; put a space or an operator between a number and a name")),
            )
        }
    }
}

fn float<'src>(text: &str, span: Span) -> (Token<'src>, Option<Diagnostic>) {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() => (Token::Float(x), None),
        _ => (
            Token::Float(0.0),
            Some(
                Diagnostic::new(
                    ErrorKind::Lex,
                    span.clone(),
                    format!("float literal `{text}` is out of range"),
                )
                .with_label(span, "too large for a 64-bit float")
                .with_note(format!("the largest finite float is about {:e}", f64::MAX)),
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Token<'_>> {
        let lexed = lex(src);
        assert!(
            lexed.diagnostics.is_empty(),
            "{src:?}: {:?}",
            lexed.diagnostics
        );
        lexed.tokens.into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn operators_take_the_longest_match() {
        use Token::*;
        assert_eq!(
            kinds("** * -> - <= < >= > == = != ; // gone"),
            [
                StarStar, Star, Arrow, Minus, Le, Lt, Ge, Gt, EqEq, Assign, Ne, Semi
            ]
        );
    }

    #[test]
    fn keywords_dtypes_and_names() {
        use Token::*;
        assert_eq!(
            kinds("fn let print true false f32 f64 i32 i64 bool fnx _a T"),
            [
                Fn,
                Let,
                Print,
                True,
                False,
                DType(crate::types::DType::F32),
                DType(crate::types::DType::F64),
                DType(crate::types::DType::I32),
                DType(crate::types::DType::I64),
                DType(crate::types::DType::Bool),
                Ident("fnx"),
                Ident("_a"),
                Ident("T"),
            ]
        );
    }

    #[test]
    fn numbers() {
        use Token::*;
        assert_eq!(
            kinds("0 42 1.5 1e3 2.5E-2 1.T"),
            [
                Int(0),
                Int(42),
                Float(1.5),
                Float(1e3),
                Float(2.5e-2),
                Int(1),
                Dot,
                Ident("T")
            ]
        );
    }

    #[test]
    fn spans_are_byte_offsets() {
        let lexed = lex("é x");
        assert_eq!(lexed.skipped, vec![0..2]);
        assert_eq!(lexed.tokens, [(Token::Ident("x"), 3..4)]);
    }

    #[test]
    fn malformed_numbers_still_yield_a_token() {
        for (src, tok) in [
            (".5", Token::Float(0.5)),
            ("1.", Token::Float(1.0)),
            ("3abc", Token::Int(3)),
            ("1e400", Token::Float(0.0)),
        ] {
            let lexed = lex(src);
            assert_eq!(lexed.diagnostics.len(), 1, "{src}");
            assert_eq!(lexed.diagnostics[0].kind, ErrorKind::Lex);
            assert_eq!(lexed.tokens, [(tok, 0..src.len())], "{src}");
        }
    }
}
