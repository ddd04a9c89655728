//! Tokens to the surface AST, with error recovery.
//!
//! Recovery works at three levels so that one run reports every mistake:
//! - inside an expression, a broken `( .. )`, `[ .. ]` or argument list becomes an
//!   `ExprKind::Error` spanning the delimiters;
//! - a broken `let` / `print` statement is skipped up to its `;` (or the next statement);
//!   a missing `;` at the end of a line or before the next statement is reported and assumed;
//! - a broken function header or a stray token at the top level is skipped up to the next
//!   `fn`, `let` or `print`.
//!
//! Custom error messages are built with [`error_msg`] so that they carry a label and notes.

use std::collections::{HashMap, HashSet};

use chumsky::input::{InputRef, MappedInput};
use chumsky::prelude::*;

use super::lexer::Token;
use crate::ast::*;
use crate::span::Span;
use crate::types::Dim;

/// The parser's input: tokens with their spans.
pub type TokenInput<'t, 's> = MappedInput<'t, Token<'s>, SimpleSpan, &'t [(Token<'s>, SimpleSpan)]>;
pub type ParseError<'t, 's> = Rich<'t, Token<'s>, SimpleSpan>;
pub(super) type Extra<'t, 's> = extra::Err<ParseError<'t, 's>>;

/// Line structure of the token stream, used to decide where a `;` was forgotten.
pub struct Layout {
    /// Start offsets of tokens that begin a line.
    pub line_starts: HashSet<usize>,
    /// For each token start (and the end of input), the span of the token before it.
    pub previous: HashMap<usize, Span>,
}

impl Layout {
    pub fn new(src: &str, tokens: &[(Token<'_>, Span)]) -> Layout {
        let mut line_starts = HashSet::new();
        let mut previous = HashMap::new();
        let mut prev: Option<Span> = None;
        for (_, span) in tokens {
            let gap_start = prev.as_ref().map_or(0, |p| p.end);
            if src
                .get(gap_start..span.start)
                .is_some_and(|gap| gap.contains('\n'))
            {
                line_starts.insert(span.start);
            }
            if let Some(p) = prev {
                previous.insert(span.start, p);
            }
            prev = Some(span.clone());
        }
        if let Some(p) = prev {
            previous.insert(src.len(), p);
        }
        Layout {
            line_starts,
            previous,
        }
    }
}

/// A custom error: the message, then the label for the span, then notes, one per line.
/// [`super::report`] splits them back apart.
pub fn error_msg<'t, 's>(
    span: SimpleSpan,
    message: &str,
    label: &str,
    notes: &[&str],
) -> ParseError<'t, 's> {
    let mut text = format!("{message}\n{label}");
    for n in notes {
        text.push('\n');
        text.push_str(n);
    }
    Rich::custom(span, text)
}

/// A chumsky span as a byte range.
fn range(span: SimpleSpan) -> Span {
    span.into_range()
}

fn found_text(tok: Option<Token<'_>>) -> String {
    tok.map_or_else(|| "end of input".to_string(), |t| t.to_string())
}

pub(super) fn ident<'t, 's: 't>() -> impl Parser<'t, TokenInput<'t, 's>, Ident, Extra<'t, 's>> + Clone {
    select! { Token::Ident(s) => s }
        .map_with(|s: &str, e| {
            let span: SimpleSpan = e.span();
            Ident {
                name: s.to_string(),
                span: span.into_range(),
            }
        })
        .labelled("name")
}

/// `f64`, `f64[n, 3, ?]`.
pub fn type_expr<'t, 's: 't>()
-> impl Parser<'t, TokenInput<'t, 's>, TypeExpr, Extra<'t, 's>> + Clone {
    let dim = select! {
        Token::Int(n) => Dim::Static(n.unsigned_abs()),
        Token::Ident(s) => Dim::Symbol(s.to_string()),
        Token::Question => Dim::Unknown,
    }
    .map_with(|dim, e| {
        let span: SimpleSpan = e.span();
        DimExpr {
            dim,
            span: span.into_range(),
        }
    })
    .labelled("dimension (an integer, a name or `?`)");
    let dims = dim
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBracket), just(Token::RBracket));
    select! { Token::DType(d) => d }
        .labelled("type")
        .then(dims.or_not())
        .map_with(|(dtype, dims), e| TypeExpr {
            dtype,
            dims: dims.unwrap_or_default(),
            span: range(e.span()),
        })
}

fn error_expr(span: SimpleSpan) -> Expr {
    Expr {
        kind: ExprKind::Error,
        span: span.into_range(),
    }
}

fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = a.span.start..b.span.end;
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

/// Skips tokens up to, not including, a token in `stop` outside any `( .. )`, `[ .. ]` or
/// `{ .. }` group; with `skip_first`, the first token is skipped whatever it is. Never
/// fails and records no expected-token errors, so it cannot blur the next real error.
///
/// A group that is not closed ends where it cannot go on: at a `;`, `}` or statement keyword
/// inside `( .. )` / `[ .. ]`, at `fn` inside `{ .. }`, or at the end of input.
fn skip_until<'t, 's: 't>(
    stop: &'static [Token<'static>],
    skip_first: bool,
) -> impl Parser<'t, TokenInput<'t, 's>, (), Extra<'t, 's>> + Clone {
    chumsky::primitive::custom(
        move |inp: &mut InputRef<'t, '_, TokenInput<'t, 's>, Extra<'t, 's>>| {
            let mut closers: Vec<Token<'s>> = Vec::new();
            let mut first = skip_first;
            while let Some(tok) = inp.peek() {
                while let Some(top) = closers.last() {
                    let abandoned = match top {
                        Token::RBrace => tok == Token::Fn,
                        _ => matches!(
                            tok,
                            Token::Semi | Token::Let | Token::Print | Token::Fn | Token::RBrace
                        ),
                    };
                    if !abandoned {
                        break;
                    }
                    closers.pop();
                }
                if !first && closers.is_empty() && stop.contains(&tok) {
                    break;
                }
                first = false;
                match tok {
                    Token::LParen => closers.push(Token::RParen),
                    Token::LBracket => closers.push(Token::RBracket),
                    Token::LBrace => closers.push(Token::RBrace),
                    Token::RParen | Token::RBracket | Token::RBrace
                        if closers.last() == Some(&tok) =>
                    {
                        closers.pop();
                    }
                    _ => {}
                }
                inp.skip();
            }
            Ok(())
        },
    )
}

pub fn expr<'t, 's: 't>() -> impl Parser<'t, TokenInput<'t, 's>, Expr, Extra<'t, 's>> + Clone {
    recursive(|expr| {
        let others = [
            (Token::LBracket, Token::RBracket),
            (Token::LBrace, Token::RBrace),
        ];
        let list = expr
            .clone()
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>();

        let call_args = list
            .clone()
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .recover_with(via_parser(nested_delimiters(
                Token::LParen,
                Token::RParen,
                others,
                |span| vec![error_expr(span)],
            )));
        // `f(a)(b)`: the second list calls the function the first call gives.
        let call = ident()
            .then(call_args.clone())
            .map_with(|(name, args), e| Expr { kind: ExprKind::Call(name, args), span: range(e.span()) });
        let applied = call.then(call_args.clone().or_not()).map(|(inner, more)| match more {
            Some(more) => ExprKind::Apply(Box::new(inner), more),
            None => inner.kind,
        });
        let name_or_call = choice((applied, ident().map(|name| ExprKind::Var(name.name))));

        let literal = select! {
            Token::Int(n) => ExprKind::Int(n),
            Token::Float(x) => ExprKind::Float(x),
            Token::True => ExprKind::Bool(true),
            Token::False => ExprKind::Bool(false),
            Token::DType(d) => ExprKind::DType(d),
            Token::Question => ExprKind::UnknownDim,
        };

        let array = list
            .clone()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map(ExprKind::Array)
            .recover_with(via_parser(nested_delimiters(
                Token::LBracket,
                Token::RBracket,
                [
                    (Token::LParen, Token::RParen),
                    (Token::LBrace, Token::RBrace),
                ],
                |_| ExprKind::Error,
            )));

        // `()` and `(a, b)` are tuples, `(a,)` a one-element tuple, `(a)` just `a`.
        let paren = expr
            .clone()
            .then(
                just(Token::Comma)
                    .ignore_then(expr.clone())
                    .repeated()
                    .collect::<Vec<_>>(),
            )
            .then(just(Token::Comma).or_not())
            .or_not()
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map(|inner| match inner {
                None => ExprKind::Tuple(Vec::new()),
                Some(((first, rest), comma)) if rest.is_empty() && comma.is_none() => first.kind,
                Some(((first, rest), _)) => {
                    ExprKind::Tuple(std::iter::once(first).chain(rest).collect())
                }
            })
            .recover_with(via_parser(nested_delimiters(
                Token::LParen,
                Token::RParen,
                others,
                |_| ExprKind::Error,
            )));

        let looped = super::loops::loop_expr(expr.clone());
        let conditional = super::loops::if_expr(expr.clone());
        let atom = choice((literal, looped, conditional, name_or_call, array, paren))
            .map_with(|kind, e| Expr {
                kind,
                span: range(e.span()),
            })
            .boxed();

        // `.T`; any other name after `.` is an error.
        let dot_t =
            just(Token::Dot).ignore_then(any().or_not().try_map(|tok: Option<Token<'s>>, span| {
                match tok {
                    Some(Token::Ident("T")) => Ok(()),
                    other => Err(error_msg(
                        span,
                        &format!("expected `T` after `.`, found {}", found_text(other)),
                        "expected `T`",
                        &["`.T` (transpose) is the only postfix `.` form"],
                    )),
                }
            }));
        // `x[i, a:b:s, ...]`: each slice bound may be left out. A bound is a whole
        // expression; the `:` after it is the slice's, since no type follows it. An item's
        // first expression is parsed once, whether a `:` follows or not: trying the slice
        // and then the single index parsed it twice, and nested brackets (`m[m[m[...`)
        // took time exponential in their depth.
        let bound = expr.clone().or_not();
        let tail = just(Token::Colon).ignore_then(bound.clone()).then(just(Token::Colon).ignore_then(bound).or_not());
        let slice = |start, (stop, step): (Option<Expr>, Option<Option<Expr>>), span| IndexItem::Slice {
            start,
            stop,
            step: step.flatten(),
            span,
        };
        let index_item = expr
            .clone()
            .then(tail.clone().or_not())
            .map_with(move |(first, tail), e| match tail {
                Some(tail) => slice(Some(first), tail, range(e.span())),
                None => IndexItem::Single(first),
            })
            .or(tail.map_with(move |tail, e| slice(None, tail, range(e.span()))));
        let index = index_item
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .at_least(1)
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .recover_with(via_parser(nested_delimiters(
                Token::LBracket,
                Token::RBracket,
                [
                    (Token::LParen, Token::RParen),
                    (Token::LBrace, Token::RBrace),
                ],
                |span| vec![IndexItem::Single(error_expr(span))],
            )));
        #[derive(Clone)]
        enum Postfix {
            T,
            Index(Vec<IndexItem>),
        }
        let postfix_op = dot_t
            .to(Postfix::T)
            .or(index.map(Postfix::Index))
            .map_with(|p, e| (p, e.span()));
        let postfix = atom.foldl_with(
            postfix_op.repeated(),
            |x, (p, t): (Postfix, SimpleSpan), _| {
                let span = x.span.start..t.end;
                let kind = match p {
                    Postfix::T => ExprKind::Transpose(Box::new(x)),
                    Postfix::Index(items) => ExprKind::Index(Box::new(x), items),
                };
                Expr { kind, span }
            },
        );

        // `-` binds looser than `**`: `-x ** 2` is `-(x ** 2)`; `**` is right-associative and
        // takes a signed exponent: `2 ** -1`.
        let unary = recursive(|unary| {
            let power = postfix
                .clone()
                .then(just(Token::StarStar).ignore_then(unary.clone()).or_not())
                .map(|(base, exp)| match exp {
                    Some(exp) => binary(BinOp::Pow, base, exp),
                    None => base,
                });
            just(Token::Minus)
                .ignore_then(unary)
                .map_with(|x, e| Expr {
                    kind: ExprKind::Unary(UnOp::Neg, Box::new(x)),
                    span: range(e.span()),
                })
                .or(power)
                .labelled("expression")
                .boxed()
        });

        let product_op = choice((
            just(Token::Star).to(BinOp::Mul),
            just(Token::Slash).to(BinOp::Div),
            just(Token::At).to(BinOp::MatMul),
        ));
        let product = unary
            .clone()
            .foldl(product_op.then(unary).repeated(), |a, (op, b)| {
                binary(op, a, b)
            });
        let sum_op = choice((
            just(Token::Plus).to(BinOp::Add),
            just(Token::Minus).to(BinOp::Sub),
        ));
        let sum = product
            .clone()
            .foldl(sum_op.then(product).repeated(), |a, (op, b)| {
                binary(op, a, b)
            })
            .boxed();

        let cmp_op = choice((
            just(Token::Lt).to(BinOp::Lt),
            just(Token::Le).to(BinOp::Le),
            just(Token::Gt).to(BinOp::Gt),
            just(Token::Ge).to(BinOp::Ge),
            just(Token::EqEq).to(BinOp::Eq),
            just(Token::Ne).to(BinOp::Ne),
        ))
        .map_with(|op, e| (op, e.span()));
        let comparison = sum
            .clone()
            .then(cmp_op.then(sum).repeated().collect::<Vec<_>>())
            .validate(|(first, rest), _, emitter| {
                if let Some(((op, span), _)) = rest.get(1) {
                    let msg = format!(
                        "comparison operators cannot be chained: found a second `{}`",
                        op.symbol()
                    );
                    emitter.emit(error_msg(
                        *span,
                        &msg,
                        "second comparison",
                        &["comparisons are non-associative; add parentheses, e.g. `(a < b) == c`"],
                    ));
                }
                rest.into_iter()
                    .fold(first, |a, ((op, _), b)| binary(op, a, b))
            });

        comparison
            .then(just(Token::Colon).ignore_then(type_expr()).or_not())
            .map(|(x, ty)| match ty {
                Some(ty) => {
                    let span = x.span.start..ty.span.end;
                    Expr {
                        kind: ExprKind::Ascribe(Box::new(x), ty),
                        span,
                    }
                }
                None => x,
            })
            .labelled("expression")
            .boxed()
    })
}

/// The `;` ending a `let` or `print` statement. When it is missing but the statement
/// clearly ended (the next token starts a line, a statement, or closes the block), the error
/// is reported and the `;` assumed; otherwise the statement fails and is skipped.
fn terminator<'t, 's: 't>(
    what: &'static str,
    layout: &'t Layout,
) -> impl Parser<'t, TokenInput<'t, 's>, (), Extra<'t, 's>> + Clone {
    let next = any()
        .map_with(|t, e| (Some(t), e.span()))
        .or(end().map_with(|_, e| (None, e.span())))
        .rewind();
    let missing = next
        .try_map(move |(tok, span): (Option<Token<'s>>, SimpleSpan), _| {
            let ended = matches!(
                tok,
                None | Some(Token::Let | Token::Print | Token::Fn | Token::RBrace)
            ) || layout.line_starts.contains(&span.start);
            let prev = layout
                .previous
                .get(&span.start)
                .cloned()
                .map(SimpleSpan::from);
            let msg = format!(
                "expected `;` after `{what}` statement, found {}",
                found_text(tok)
            );
            if ended {
                Ok(error_msg(
                    prev.unwrap_or(span),
                    &msg,
                    "expected `;` after this",
                    &[],
                ))
            } else {
                Err(error_msg(span, &msg, "expected `;` here", &[]))
            }
        })
        .validate(|err, _, emitter| emitter.emit(err));
    just(Token::Semi).ignored().or(missing)
}

const ITEM_START: [Token<'static>; 3] = [Token::Fn, Token::Let, Token::Print];
const STATEMENT_END: [Token<'static>; 5] = [
    Token::Semi,
    Token::Let,
    Token::Print,
    Token::Fn,
    Token::RBrace,
];

/// Skips the rest of a broken statement, through its `;` if it has one.
fn skip_statement<'t, 's: 't>()
-> impl Parser<'t, TokenInput<'t, 's>, SimpleSpan, Extra<'t, 's>> + Clone {
    skip_until(&STATEMENT_END, false)
        .then(just(Token::Semi).or_not())
        .map_with(|_, e| e.span())
}

fn let_stmt<'t, 's: 't>(
    layout: &'t Layout,
) -> impl Parser<'t, TokenInput<'t, 's>, Let, Extra<'t, 's>> + Clone {
    let body = super::loops::pattern()
        .map(|(names, _)| names)
        .then(just(Token::Colon).ignore_then(type_expr()).or_not())
        .then_ignore(just(Token::Assign))
        .then(expr())
        .then_ignore(terminator("let", layout));
    let recovered = ident()
        .or_not()
        .then(skip_statement())
        .map_with(|(name, skipped), e| {
            let name = name.unwrap_or(Ident {
                name: String::new(),
                span: range(e.span()),
            });
            ((vec![name], None), error_expr(skipped))
        });
    just(Token::Let)
        .ignore_then(body.recover_with(via_parser(recovered)))
        .map_with(|((names, ty), value), e| super::loops::make_let(names, ty, value, range(e.span())))
        .boxed()
}

fn print_stmt<'t, 's: 't>(
    layout: &'t Layout,
) -> impl Parser<'t, TokenInput<'t, 's>, Print, Extra<'t, 's>> + Clone {
    let body = expr().then_ignore(terminator("print", layout));
    just(Token::Print)
        .ignore_then(body.recover_with(via_parser(skip_statement().map(error_expr))))
        .map_with(|value, e| Print {
            value,
            span: range(e.span()),
        })
        .boxed()
}

fn block<'t, 's: 't>(
    layout: &'t Layout,
) -> impl Parser<'t, TokenInput<'t, 's>, Block, Extra<'t, 's>> + Clone {
    const TAIL_END: [Token<'static>; 4] = [Token::RBrace, Token::Fn, Token::Let, Token::Print];
    let tail = expr()
        .then_ignore(just(Token::RBrace))
        .map(Ok)
        .recover_with(via_parser(
            skip_until(&TAIL_END, false)
                .then(just(Token::RBrace).or_not())
                .map_with(|_, e| Ok(error_expr(e.span()))),
        ));
    // `}` right after the last `let`: the result expression is missing.
    let no_tail = just(Token::RBrace).map_with(|_, e| Err(e.span()));
    just(Token::LBrace)
        .ignore_then(let_stmt(layout).repeated().collect::<Vec<_>>())
        .then(no_tail.or(tail))
        .validate(
            |(lets, tail): (Vec<Let>, Result<Expr, SimpleSpan>), e, emitter| {
                let result = tail.unwrap_or_else(|span| {
                    // After a broken `let`, the error has been reported already.
                    if !lets
                        .last()
                        .is_some_and(|l| matches!(l.value.kind, ExprKind::Error))
                    {
                        emitter.emit(error_msg(
                            span,
                            "expected the result expression of the block, found `}`",
                            "expected an expression before this `}`",
                            &["a function body ends with the expression whose value it returns"],
                        ));
                    }
                    error_expr(span)
                });
                Block {
                    lets,
                    result,
                    span: range(e.span()),
                }
            },
        )
        .recover_with(via_parser(nested_delimiters(
            Token::LBrace,
            Token::RBrace,
            [
                (Token::LParen, Token::RParen),
                (Token::LBracket, Token::RBracket),
            ],
            |span: SimpleSpan| Block {
                lets: Vec::new(),
                result: error_expr(span),
                span: span.into_range(),
            },
        )))
        .labelled("function body")
}

fn fn_def<'t, 's: 't>(
    layout: &'t Layout,
) -> impl Parser<'t, TokenInput<'t, 's>, Option<FnDef>, Extra<'t, 's>> + Clone {
    let others = [
        (Token::LBracket, Token::RBracket),
        (Token::LBrace, Token::RBrace),
    ];
    let param = ident()
        .labelled("parameter name")
        .then_ignore(just(Token::Colon))
        .then(type_expr())
        .map(|(name, ty)| Param { name, ty });
    let params = param
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LParen), just(Token::RParen))
        .recover_with(via_parser(nested_delimiters(
            Token::LParen,
            Token::RParen,
            others,
            |_| Vec::new(),
        )));
    let ret = type_expr().map(|t| vec![t]).or(type_expr()
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LParen), just(Token::RParen)));
    let rest = ident()
        .labelled("function name")
        .then(params)
        .then(just(Token::Arrow).ignore_then(ret).or_not())
        .then(block(layout))
        .map(Some)
        .recover_with(via_parser(skip_until(&ITEM_START, false).to(None)));
    just(Token::Fn)
        .ignore_then(rest)
        .map_with(|def, e| {
            def.map(|(((name, params), ret), body)| FnDef {
                name,
                params,
                ret,
                body,
                span: range(e.span()),
            })
        })
        .boxed()
}

/// The whole program. Never fails: anything that is not an item is reported and skipped.
pub fn program<'t, 's: 't>(
    layout: &'t Layout,
) -> impl Parser<'t, TokenInput<'t, 's>, Program, Extra<'t, 's>> {
    let item = choice((
        fn_def(layout).map(|f| f.map(Item::Fn)),
        let_stmt(layout).map(|l| Some(Item::Let(l))),
        print_stmt(layout).map(|p| Some(Item::Print(p))),
    ));
    let stray = any()
        .map_with(|t, e| (t, e.span()))
        .rewind()
        .then_ignore(skip_until(&ITEM_START, true))
        .validate(|(tok, span), _, emitter| {
            let msg = format!("expected `fn`, `let` or `print`, found {}", found_text(Some(tok)));
            let mut notes = vec!["a program is a sequence of `fn` definitions, `let` bindings and `print` statements"];
            if matches!(tok, Token::RBrace) {
                notes.push("this `}` closes nothing");
            }
            emitter.emit(error_msg(span, &msg, "expected an item here", &notes));
            None
        });
    item.or(stray)
        .repeated()
        .collect::<Vec<_>>()
        .then_ignore(end())
        .map(|items| Program {
            items: items.into_iter().flatten().collect(),
        })
}
