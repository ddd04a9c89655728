//! Lexer, parser and pretty-printer: structure, spans, error messages, round trips.

use ptl_lang::ast::*;
use ptl_lang::diag::render_all;
use ptl_lang::syntax::parse_expr;
use ptl_lang::syntax::pretty::print_expr;
use ptl_lang::types::{DType, Dim};
use ptl_lang::{Diagnostic, ErrorKind, parse, print_program};

fn parse_ok(src: &str) -> Program {
    let (program, diags) = parse(src);
    assert!(
        diags.is_empty(),
        "unexpected diagnostics for {src:?}:\n{}",
        render_all(&diags, "t.ptl", src, false)
    );
    program.expect("a program when there are no diagnostics")
}

/// The value of `print <expr>;`.
fn expr_of(src: &str) -> Expr {
    let p = parse_ok(&format!("print {src};"));
    match p.items.as_slice() {
        [Item::Print(pr)] => pr.value.clone(),
        other => panic!("expected one print, got {other:?}"),
    }
}

/// Canonical form of an expression: parse, then print.
fn canon(src: &str) -> String {
    print_expr(&expr_of(src))
}

fn errors(src: &str) -> Vec<Diagnostic> {
    let (_, diags) = parse(src);
    assert!(!diags.is_empty(), "expected errors for {src:?}");
    diags
}

fn rendered(src: &str) -> String {
    render_all(&parse(src).1, "test.ptl", src, false)
}

// ---------------------------------------------------------------- structure and precedence

#[test]
fn precedence_is_reflected_by_minimal_parentheses() {
    let cases = [
        ("a + b * c", "a + b * c"),
        ("(a + b) * c", "(a + b) * c"),
        ("a - b - c", "a - b - c"),
        ("a - (b - c)", "a - (b - c)"),
        ("a / b / c", "a / b / c"),
        ("a / (b * c)", "a / (b * c)"),
        ("-x ** 2", "-x ** 2"),
        ("(-x) ** 2", "(-x) ** 2"),
        ("a ** b ** c", "a ** b ** c"),
        ("(a ** b) ** c", "(a ** b) ** c"),
        ("2 ** -1", "2 ** -1"),
        ("a @ b.T", "a @ b.T"),
        ("(a @ b).T", "(a @ b).T"),
        ("-(a + b)", "-(a + b)"),
        ("--x", "--x"),
        ("(a < b) == c", "(a < b) == c"),
        ("a + 1 < b * 2", "a + 1 < b * 2"),
        ("x : f64[n, 3]", "x: f64[n, 3]"),
        ("(x : f64) + 1", "(x: f64) + 1"),
        ("a < b : bool", "a < b: bool"),
        ("((a))", "a"),
        ("(a, b)", "(a, b)"),
        ("(a,)", "(a,)"),
        ("()", "()"),
        ("[[1.0, 2.0], [3.0, 4.0]]", "[[1.0, 2.0], [3.0, 4.0]]"),
        ("[]", "[]"),
        ("sum(x, [0, 1])", "sum(x, [0, 1])"),
        ("cast(x, f32)", "cast(x, f32)"),
        ("reshape(x, [n, ?, 3])", "reshape(x, [n, ?, 3])"),
        ("f()", "f()"),
        ("f(a, b,)", "f(a, b)"),
        ("-1.0", "-1.0"),
        ("1.T", "1.T"),
        ("x.T.T", "x.T.T"),
        ("true", "true"),
    ];
    for (src, want) in cases {
        assert_eq!(canon(src), want, "source {src:?}");
    }
}

#[test]
fn unary_minus_binds_looser_than_power() {
    let e = expr_of("-x ** 2").without_spans();
    let ExprKind::Unary(UnOp::Neg, inner) = e.kind else {
        panic!("expected negation, got {e:?}")
    };
    assert!(matches!(inner.kind, ExprKind::Binary(BinOp::Pow, _, _)));
}

#[test]
fn negative_literal_is_negation_of_literal() {
    let e = expr_of("-1.0").without_spans();
    let ExprKind::Unary(UnOp::Neg, inner) = e.kind else {
        panic!("expected negation, got {e:?}")
    };
    assert_eq!(inner.kind, ExprKind::Float(1.0));
}

#[test]
fn dtype_and_question_mark_are_expressions_in_argument_position() {
    let e = expr_of("reshape(cast(x, i32), [2, ?])").without_spans();
    let ExprKind::Call(f, args) = e.kind else {
        panic!()
    };
    assert_eq!(f.name, "reshape");
    let ExprKind::Call(_, inner) = &args[0].kind else {
        panic!()
    };
    assert_eq!(inner[1].kind, ExprKind::DType(DType::I32));
    let ExprKind::Array(dims) = &args[1].kind else {
        panic!()
    };
    assert_eq!(dims[1].kind, ExprKind::UnknownDim);
}

#[test]
fn number_literals() {
    assert_eq!(expr_of("42").kind, ExprKind::Int(42));
    assert_eq!(expr_of("1.0").kind, ExprKind::Float(1.0));
    assert_eq!(expr_of("1e-3").kind, ExprKind::Float(1e-3));
    assert_eq!(expr_of("2.5e10").kind, ExprKind::Float(2.5e10));
    assert_eq!(expr_of("2E+2").kind, ExprKind::Float(200.0));
    assert_eq!(expr_of("9223372036854775807").kind, ExprKind::Int(i64::MAX));
}

#[test]
fn spans_cover_their_source() {
    let src = "let y: f64[n] = -a + f(b, [1, 2]).T ** 2 : f64[n];";
    let p = parse_ok(src);
    let Item::Let(l) = &p.items[0] else { panic!() };
    assert_eq!(&src[l.span.clone()], src);
    assert_eq!(&src[l.name.span.clone()], "y");
    let ty = l.ty.as_ref().expect("declared type");
    assert_eq!(&src[ty.span.clone()], "f64[n]");
    assert_eq!(&src[ty.dims[0].span.clone()], "n");
    assert_eq!(
        &src[l.value.span.clone()],
        "-a + f(b, [1, 2]).T ** 2 : f64[n]"
    );
    let ExprKind::Ascribe(sum, _) = &l.value.kind else {
        panic!()
    };
    assert_eq!(&src[sum.span.clone()], "-a + f(b, [1, 2]).T ** 2");
    let ExprKind::Binary(BinOp::Add, neg, pow) = &sum.kind else {
        panic!()
    };
    assert_eq!(&src[neg.span.clone()], "-a");
    assert_eq!(&src[pow.span.clone()], "f(b, [1, 2]).T ** 2");
    let ExprKind::Binary(BinOp::Pow, t, _) = &pow.kind else {
        panic!()
    };
    assert_eq!(&src[t.span.clone()], "f(b, [1, 2]).T");
    let ExprKind::Transpose(call) = &t.kind else {
        panic!()
    };
    assert_eq!(&src[call.span.clone()], "f(b, [1, 2])");
    let ExprKind::Call(name, args) = &call.kind else {
        panic!()
    };
    assert_eq!(&src[name.span.clone()], "f");
    assert_eq!(&src[args[1].span.clone()], "[1, 2]");
}

#[test]
fn parenthesised_expression_span_includes_parentheses() {
    let src = "print (a + b) * c;";
    let e = expr_of("(a + b) * c");
    let ExprKind::Binary(_, lhs, _) = &e.kind else {
        panic!()
    };
    assert_eq!(&src[lhs.span.clone()], "(a + b)");
}

#[test]
fn function_definitions() {
    let src = "fn f(x: f64[n], y: f64[n],) -> (f64[n], f64) {\n    let s = sum(x * y, [0]);\n    (x, s)\n}\n";
    let p = parse_ok(src);
    let Item::Fn(f) = &p.items[0] else { panic!() };
    assert_eq!(f.name.name, "f");
    assert_eq!(f.params.len(), 2);
    assert_eq!(f.params[1].ty.dims[0].dim, Dim::Symbol("n".into()));
    assert_eq!(f.ret.as_ref().map(Vec::len), Some(2));
    assert_eq!(f.body.lets.len(), 1);
    assert!(matches!(f.body.result.kind, ExprKind::Tuple(ref xs) if xs.len() == 2));
    assert_eq!(&src[f.span.clone()], src.trim_end());
    assert_eq!(
        &src[f.body.span.clone()],
        &src[src.find('{').unwrap_or(0)..src.len() - 1]
    );
}

#[test]
fn function_without_declared_result() {
    let p = parse_ok("fn id(x: i32) { x }");
    let Item::Fn(f) = &p.items[0] else { panic!() };
    assert!(f.ret.is_none());
}

#[test]
fn comments_and_whitespace_are_ignored() {
    let a = parse_ok("// header\nlet x = 1; // one\n\n\t// more\nprint x; // end").without_spans();
    let b = parse_ok("let x=1;print x;").without_spans();
    assert_eq!(a, b);
}

#[test]
fn empty_source_is_an_empty_program() {
    assert!(parse_ok("").items.is_empty());
    assert!(parse_ok("  // nothing\n").items.is_empty());
}

#[test]
fn single_expressions() {
    let (e, diags) = parse_expr("  x @ w.T + 1.0 : f64[n] // trailing comment");
    assert!(diags.is_empty());
    let e = e.expect("expression");
    assert_eq!(print_expr(&e), "x @ w.T + 1.0: f64[n]");
    assert_eq!(e.span, 2..24);
    let (_, diags) = parse_expr("x + ");
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].message, "expected expression, found end of input");
    let (_, diags) = parse_expr("x y");
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].span, 2..3);
}

// ---------------------------------------------------------------- pretty-printer

#[test]
fn pretty_printer_canonical_layout() {
    let src = "// scaled difference\nfn f(x:f64[n],y:f64[n])->f64[n]{let d=x-y;d*2.0}\nfn g(a: f32[2, ?]) -> (f32[2, ?], f32[2, ?]) { (a, -a) }\nlet w:f64[2,2]=[[1.0,-2.5],[1e-300,4.0]];let v = f(w, w);\nprint v;print g(cast(w, f32));";
    let printed = print_program(&parse_ok(src));
    let want = "\
fn f(x: f64[n], y: f64[n]) -> f64[n] {
    let d = x - y;
    d * 2.0
}

fn g(a: f32[2, ?]) -> (f32[2, ?], f32[2, ?]) {
    (a, -a)
}

let w: f64[2, 2] = [[1.0, -2.5], [1e-300, 4.0]];
let v = f(w, w);
print v;
print g(cast(w, f32));
";
    assert_eq!(printed, want);
    assert_eq!(
        print_program(&parse_ok(&printed)),
        printed,
        "printing is idempotent"
    );
}

#[test]
fn floats_print_as_floats_and_read_back_exactly() {
    for x in [
        0.0,
        1.0,
        0.1,
        1e-300,
        5e-324,
        1e16,
        123456789.0,
        f64::MAX,
        2.5e10,
        1.0 / 3.0,
    ] {
        let e = Expr {
            kind: ExprKind::Float(x),
            span: 0..0,
        };
        let text = print_expr(&e);
        assert!(
            text.contains(['.', 'e']),
            "{text} does not look like a float"
        );
        assert_eq!(expr_of(&text).kind, ExprKind::Float(x), "{text}");
    }
}

// ---------------------------------------------------------------- errors

fn assert_single(src: &str, kind: ErrorKind, span_text: &str, message_part: &str) {
    let diags = errors(src);
    assert_eq!(
        diags.len(),
        1,
        "expected one diagnostic for {src:?}, got:\n{}",
        rendered(src)
    );
    let d = &diags[0];
    assert_eq!(d.kind, kind, "{src:?}");
    assert_eq!(
        &src[d.span.clone()],
        span_text,
        "span for {src:?}: {}",
        d.message
    );
    let text = format!("{} {}", d.message, d.notes.join(" "));
    assert!(
        text.contains(message_part),
        "message {text:?} lacks {message_part:?}"
    );
}

#[test]
fn single_errors_have_precise_spans() {
    use ErrorKind::{Lex, Syntax};
    assert_single(
        "let x = 1\nprint x;",
        Syntax,
        "1",
        "expected `;` after `let` statement, found `print`",
    );
    assert_single(
        "let x = 1 + ;",
        Syntax,
        ";",
        "expected expression, found `;`",
    );
    assert_single("print a < b < c;", Syntax, "<", "cannot be chained");
    assert_single("print x.y;", Syntax, "y", "expected `T` after `.`");
    assert_single("let x = .5;", Lex, ".5", "needs a digit before the `.`");
    assert_single("let x = 1.;", Lex, "1.", "needs a digit after the `.`");
    assert_single(
        "let x = 99999999999999999999;",
        Lex,
        "99999999999999999999",
        "too large",
    );
    assert_single("let x = 1e999;", Lex, "1e999", "out of range");
    assert_single("let x = 2x;", Lex, "2x", "invalid number literal");
    assert_single("let x = 1 # 2;", Lex, "#", "unexpected character `#`");
    assert_single("let x = é;", Lex, "é", "unexpected character");
    assert_single(
        "x = 1;",
        Syntax,
        "x",
        "expected `fn`, `let` or `print`, found identifier `x`",
    );
    assert_single("fn f(x: f65) { x }", Syntax, "f65", "expected type");
    assert_single("fn f(x f64) { x }", Syntax, "f64", "expected `:`");
    assert_single(
        "fn f(x: f64) { let y = x; }",
        Syntax,
        "}",
        "result expression",
    );
    assert_single("let x = f(1, 2 3);", Syntax, "3", "found integer `3`");
    assert_single("let x = [1, 2;", Syntax, ";", "`]`");
    assert_single("print (1, 2;", Syntax, ";", "`)`");
    assert_single("let x: f64[n = 1;", Syntax, "=", "expected");
    assert_single("}", Syntax, "}", "closes nothing");
}

#[test]
fn missing_semicolon_on_same_line_skips_the_statement() {
    let (p, diags) = parse("let x = 1 2;\nprint x;");
    assert_eq!(diags.len(), 1);
    assert!(diags[0].message.contains("found integer `2`"));
    let p = p.expect("partial program");
    assert_eq!(p.items.len(), 2, "the print statement survives");
    let Item::Let(l) = &p.items[0] else { panic!() };
    assert_eq!(l.name.name, "x");
    assert_eq!(l.value.kind, ExprKind::Error);
}

#[test]
fn a_file_with_three_mistakes_reports_three_errors() {
    let src = "\
fn f(x: f64[n]) -> f64[n] {
    let y = x * ;
    y + 1.0
}
let a = f([1.0, 2.0])
print a;
print [1.0, 2.0) + a;
";
    let diags = errors(src);
    let spans: Vec<&str> = diags.iter().map(|d| &src[d.span.clone()]).collect();
    assert_eq!(diags.len(), 3, "got {spans:?}:\n{}", rendered(src));
    assert!(diags.iter().all(|d| d.kind == ErrorKind::Syntax));
    let first = src.find("* ;").map(|i| i + 2).unwrap_or(0);
    assert_eq!(diags[0].span, first..first + 1);
    assert_eq!(spans[1], ")", "the `;` is missing right after the call");
    assert!(
        diags[1]
            .message
            .contains("expected `;` after `let` statement, found `print`")
    );
    assert_eq!(
        diags[2].span.start,
        src.find("2.0)").map(|i| i + 3).unwrap_or(0)
    );
    // The rest of the program is still there.
    let p = parse(src).0.expect("partial program");
    assert_eq!(p.items.len(), 4);
}

#[test]
fn errors_are_reported_across_functions_and_statements() {
    let src = "\
fn f(x: f64) -> f64 { x + }
fn g(x: f64) -> f64 { let a = ; a }
let b = (1 +) * 2;
print b.;
print @;
";
    let diags = errors(src);
    assert_eq!(diags.len(), 5, "{}", rendered(src));
    let lines: Vec<usize> = diags
        .iter()
        .map(|d| src[..d.span.start].matches('\n').count())
        .collect();
    assert_eq!(lines, [0, 1, 2, 3, 4]);
}

#[test]
fn error_snapshots() {
    let cases = [
        ("missing_semicolon", "let x = 1\nprint x;\n"),
        ("chained_comparison", "print a < b < c;\n"),
        ("leading_dot_float", "let x = .5 * y;\n"),
        (
            "integer_overflow",
            "let big = 123456789012345678901234567890;\n",
        ),
        ("bad_postfix", "print x.shape;\n"),
        ("stray_expression", "x + 1;\nprint x;\n"),
        (
            "missing_block_result",
            "fn f(x: f64) -> f64 {\n    let y = x * 2.0;\n}\n",
        ),
        ("bad_type", "fn f(x: float[n]) -> f64 { x }\n"),
        ("unclosed_call", "let y = sum(x, [0];\n"),
        (
            "three_errors",
            "fn f(x: f64[n]) -> f64[n] {\n    let y = x * ;\n    y\n}\nlet a = f([1.0, 2.0])\nprint a !;\n",
        ),
    ];
    for (name, src) in cases {
        insta::assert_snapshot!(name, rendered(src), src);
    }
}

// ---------------------------------------------------------------- robustness

#[test]
fn deep_nesting_is_reported_not_a_crash() {
    let deep = format!("print {}1{};", "(".repeat(100_000), ")".repeat(100_000));
    let diags = errors(&deep);
    assert!(
        diags
            .iter()
            .any(|d| d.message.contains("nested too deeply"))
    );
    let long = format!("print 1{};", " + 1".repeat(100_000));
    assert!(!errors(&long).is_empty());
    let negs = format!("print {}1;", "-".repeat(100_000));
    assert!(!errors(&negs).is_empty());
}

#[test]
fn moderate_nesting_parses() {
    let src = format!("print {}1{};", "(".repeat(200), ")".repeat(200));
    assert_eq!(expr_of(&src[6..src.len() - 1]).kind, ExprKind::Int(1));
    let src = format!("print [{}];", vec!["-1.0"; 10_000].join(", "));
    parse_ok(&src);
}

#[test]
fn unclosed_delimiters_do_not_hang() {
    for src in [
        "print (",
        "print [",
        "fn f(",
        "fn f(x: f64) {",
        "let x = ((((",
        "{{{{",
        ")))]]]}}}",
        "fn",
        "let",
        "print",
    ] {
        assert!(!parse(src).1.is_empty(), "{src:?}");
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    const KEYWORDS: [&str; 18] = [
        "fn", "let", "print", "true", "false", "f32", "f64", "i32", "i64", "bool", "loop", "scan",
        "for", "in", "inf", "nan", "if", "else",
    ];
    const NO_SPAN: std::ops::Range<usize> = 0..0;

    fn name() -> impl Strategy<Value = String> {
        "[a-z_][a-z0-9_]{0,4}".prop_filter("not a keyword", |s| !KEYWORDS.contains(&s.as_str()))
    }

    fn ident() -> impl Strategy<Value = Ident> {
        name().prop_map(|name| Ident {
            name,
            span: NO_SPAN,
        })
    }

    fn dtype() -> impl Strategy<Value = DType> {
        prop::sample::select(DType::ALL.to_vec())
    }

    fn ty() -> impl Strategy<Value = TypeExpr> {
        let dim = prop_oneof![
            (0u64..100).prop_map(Dim::Static),
            name().prop_map(Dim::Symbol),
            Just(Dim::Unknown),
        ]
        .prop_map(|dim| DimExpr { dim, span: NO_SPAN });
        (dtype(), prop::collection::vec(dim, 0..3)).prop_map(|(dtype, dims)| TypeExpr {
            dtype,
            dims,
            span: NO_SPAN,
        })
    }

    fn e(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: NO_SPAN,
        }
    }

    fn binop() -> impl Strategy<Value = BinOp> {
        use BinOp::*;
        prop::sample::select(vec![
            Add, Sub, Mul, Div, Pow, MatMul, Lt, Le, Gt, Ge, Eq, Ne,
        ])
    }

    fn float() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>()
                .prop_filter("finite", |x| x.is_finite())
                .prop_map(f64::abs),
            (0u32..1000).prop_map(|n| f64::from(n) / 8.0),
            prop::sample::select(vec![0.0, 1.0, 0.1, 1e-300, 5e-324, 1e16, f64::MAX]),
        ]
    }

    fn expr() -> impl Strategy<Value = Expr> {
        let leaf = prop_oneof![
            (0..=i64::MAX).prop_map(ExprKind::Int),
            float().prop_map(ExprKind::Float),
            any::<bool>().prop_map(ExprKind::Bool),
            name().prop_map(ExprKind::Var),
            dtype().prop_map(ExprKind::DType),
            Just(ExprKind::UnknownDim),
        ]
        .prop_map(e);
        leaf.prop_recursive(4, 48, 3, |inner| {
            let list = prop::collection::vec(inner.clone(), 0..3);
            prop_oneof![
                inner
                    .clone()
                    .prop_map(|x| e(ExprKind::Unary(UnOp::Neg, Box::new(x)))),
                (binop(), inner.clone(), inner.clone()).prop_map(|(op, a, b)| e(ExprKind::Binary(
                    op,
                    Box::new(a),
                    Box::new(b)
                ))),
                (ident(), list.clone()).prop_map(|(f, args)| e(ExprKind::Call(f, args))),
                inner
                    .clone()
                    .prop_map(|x| e(ExprKind::Transpose(Box::new(x)))),
                (inner.clone(), ty()).prop_map(|(x, t)| e(ExprKind::Ascribe(Box::new(x), t))),
                list.clone().prop_map(|xs| e(ExprKind::Array(xs))),
                list.prop_map(|xs| e(ExprKind::Tuple(xs))),
                (inner.clone(), prop::collection::vec(index_item(inner.clone()), 1..3))
                    .prop_map(|(x, items)| e(ExprKind::Index(Box::new(x), items))),
                loop_(inner.clone()),
                if_(inner.clone()),
            ]
        })
    }

    /// `if c { .. } else { .. }`, the `else` block sometimes only another `if`.
    fn if_(inner: impl Strategy<Value = Expr> + Clone + 'static) -> impl Strategy<Value = Expr> {
        let body_let = (ident(), inner.clone()).prop_map(|(name, value)| Let { name, ty: None, value, span: NO_SPAN, rest: Vec::new() });
        let block = (prop::collection::vec(body_let, 0..2), inner.clone()).prop_map(|(lets, result)| Block { lets, result, span: NO_SPAN }).boxed();
        (inner, block.clone(), block).prop_map(|(cond, then, otherwise)| e(ExprKind::If(Box::new(IfExpr { cond, then, otherwise }))))
    }

    /// `loop` / `scan` with one or more state names, a body of `let`s and a result, and
    /// sometimes `until`.
    fn loop_(inner: impl Strategy<Value = Expr> + Clone) -> impl Strategy<Value = Expr> {
        let body_let = (prop::collection::vec(ident(), 1..3), inner.clone()).prop_map(|(names, value)| {
            let mut names = names.into_iter();
            let name = names.next().expect("one name");
            Let { name, ty: None, value, span: NO_SPAN, rest: names.collect() }
        });
        (
            any::<bool>(),
            prop::collection::vec(ident(), 1..3),
            (inner.clone(), ident(), inner.clone(), inner.clone()),
            prop::collection::vec(body_let, 0..2),
            inner.clone(),
            prop::option::of(inner),
        )
            .prop_map(|(scan, state, (init, counter, start, stop), lets, result, until)| {
                e(ExprKind::Loop(Box::new(LoopExpr {
                    kind: if scan { LoopKind::Scan } else { LoopKind::Loop },
                    tuple: state.len() > 1,
                    state,
                    init,
                    counter,
                    start,
                    stop,
                    body: Block { lets, result, span: NO_SPAN },
                    until,
                })))
            })
    }

    fn index_item(inner: impl Strategy<Value = Expr> + Clone) -> impl Strategy<Value = IndexItem> {
        let bound = prop::option::of(inner.clone());
        prop_oneof![
            inner.prop_map(IndexItem::Single),
            (bound.clone(), bound.clone(), bound).prop_map(|(start, stop, step)| IndexItem::Slice {
                start,
                stop,
                step,
                span: NO_SPAN,
            }),
        ]
    }

    fn let_() -> impl Strategy<Value = Let> {
        (ident(), prop::option::of(ty()), expr(), prop::collection::vec(ident(), 0..2)).prop_map(|(name, ty, value, rest)| Let {
            rest,
            name,
            ty,
            value,
            span: NO_SPAN,
        })
    }

    fn item() -> impl Strategy<Value = Item> {
        let param = (ident(), ty()).prop_map(|(name, ty)| Param { name, ty });
        let fn_def = (
            ident(),
            prop::collection::vec(param, 0..3),
            prop::option::of(prop::collection::vec(ty(), 1..3)),
            prop::collection::vec(let_(), 0..3),
            expr(),
        )
            .prop_map(|(name, params, ret, lets, result)| {
                Item::Fn(FnDef {
                    name,
                    params,
                    ret,
                    body: Block {
                        lets,
                        result,
                        span: NO_SPAN,
                    },
                    span: NO_SPAN,
                })
            });
        prop_oneof![
            fn_def,
            let_().prop_map(Item::Let),
            expr().prop_map(|value| Item::Print(Print {
                value,
                span: NO_SPAN
            })),
        ]
    }

    fn program() -> impl Strategy<Value = Program> {
        prop::collection::vec(item(), 0..5).prop_map(|items| Program { items })
    }

    const TOKENS: [&str; 48] = [
        "fn", "let", "print", "true", "false", "f32", "f64", "i32", "i64", "bool", "x", "T", "sum",
        "42", "1.5", "1e-3", ".5", "1.", "1e", "+", "-", "*", "**", "/", "@", "<", "<=", ">", ">=",
        "==", "!=", "->", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}", "?", "=", "//", "\n",
        "é", "!",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn print_then_parse_round_trips(p in program()) {
            let text = print_program(&p);
            let (parsed, diags) = parse(&text);
            prop_assert!(diags.is_empty(), "{}\n{}", text, render_all(&diags, "t.ptl", &text, false));
            prop_assert_eq!(parsed.map(|q| q.without_spans()), Some(p), "{}", text);
        }

        #[test]
        fn expression_round_trips(x in expr()) {
            let text = print_expr(&x);
            let (parsed, diags) = parse_expr(&text);
            prop_assert!(diags.is_empty(), "{}", text);
            prop_assert_eq!(parsed.map(|y| y.without_spans()), Some(x), "{}", text);
        }

        #[test]
        fn parse_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let src = String::from_utf8_lossy(&bytes);
            let _ = parse(&src);
        }

        #[test]
        fn parse_never_panics_on_token_soup(
            toks in prop::collection::vec(prop::sample::select(TOKENS.to_vec()), 0..60),
            spaced in any::<bool>(),
        ) {
            let src = toks.join(if spaced { " " } else { "" });
            let (program, diags) = parse(&src);
            // Errors point into the source; a program with no errors has no holes.
            for d in &diags {
                prop_assert!(d.span.start <= d.span.end && d.span.end <= src.len());
                prop_assert!(src.is_char_boundary(d.span.start) && src.is_char_boundary(d.span.end));
            }
            if diags.is_empty() {
                let p = program.expect("program without errors");
                prop_assert!(!print_program(&p).contains("<error>"));
            }
        }
    }
}

/// Unclosed, nested index brackets: each level's first expression used to be parsed twice
/// (as a slice's start, then as a single index), so `m[m[m[...` took time exponential in its
/// depth; the fuzzer's input (fuzz/reproducers/parse-nested-index-brackets.ptl) took 21 s.
/// They must now be parsed, and reported, at once: the thread gets 60 s, where depth 40 took
/// hours before.
#[test]
fn nested_index_brackets_parse_in_linear_time() {
    let reproducer = include_str!("../../../fuzz/reproducers/parse-nested-index-brackets.ptl").to_string();
    let deep = format!("let x = {}", "m[".repeat(40));
    let slices = format!("let x = {}", "m[1:".repeat(40));
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for src in [reproducer, deep, slices] {
            let (_, diags) = ptl_lang::parse(&src);
            assert!(!diags.is_empty(), "unclosed brackets are errors: {src}");
            let _ = ptl_lang::diag::render_all(&diags, "deep.ptl", &src, false);
        }
        done.send(()).unwrap();
    });
    wait.recv_timeout(std::time::Duration::from_secs(60)).expect("parsing nested brackets took over a minute");
}
