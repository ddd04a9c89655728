//! `grad` in the frontend: the syntax, and the derivative functions the checker generates.

use ptl_lang::ast::{ExprKind, Item};
use ptl_lang::typed::{TExprKind, TStmt};
use ptl_lang::{ErrorKind, frontend, parse, print_program};

const LOSS: &str = "fn loss(w: f64[k], b: f64, x: f64[n, k]) -> f64 {\n    sum(tanh(x @ w + b))\n}\n";

#[test]
fn a_call_of_a_call_parses_and_prints_back() {
    let src = "let g = grad(loss, (w, b))(w, 1.0, x);\n";
    let (p, diags) = parse(src);
    assert!(diags.is_empty(), "{diags:?}");
    let p = p.expect("parses");
    let Item::Let(l) = &p.items[0] else { panic!("a let") };
    let ExprKind::Apply(callee, args) = &l.value.kind else { panic!("an application, got {:?}", l.value.kind) };
    assert!(matches!(&callee.kind, ExprKind::Call(f, spec) if f.name == "grad" && spec.len() == 2));
    assert_eq!(&src[callee.span.clone()], "grad(loss, (w, b))");
    assert_eq!(args.len(), 3);
    assert_eq!(print_program(&p), src);
}

#[test]
fn grad_becomes_a_call_of_a_generated_function() {
    let src = format!("{LOSS}let x = [[1.0, 2.0]];\nprint grad(loss, w)([0.5, 0.5], 0.0, x);\nlet (v, gw, gb) = value_and_grad(loss, (w, b))([0.5, 0.5], 0.0, x);\n");
    let p = frontend(&src).expect("checks");
    let names: Vec<&str> = p.fns.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["loss", "grad__loss__w", "value_and_grad__loss__w__b"]);
    let g = p.function("grad__loss__w").unwrap();
    assert_eq!(g.results.len(), 1);
    assert_eq!(g.results[0].to_string(), "f64[k]");
    assert_eq!(g.params.len(), 3);
    let v = p.function("value_and_grad__loss__w__b").unwrap();
    let tys: Vec<String> = v.results.iter().map(|t| t.to_string()).collect();
    assert_eq!(tys, ["f64", "f64[k]", "f64"]);
    let TStmt::Print(es, _) = &p.top[1] else { panic!("a print") };
    // The call site has the argument's dims for `k`.
    assert!(matches!(&es[0].kind, TExprKind::Call(f, args) if f == "grad__loss__w" && args.len() == 3));
    assert_eq!(es[0].ty.to_string(), "f64[2]");
}

#[test]
fn one_derivative_is_generated_once_and_helpers_for_calls() {
    let src = "fn inner(x: f64[n], s: f64) -> f64[n] { sin(x) * s }\n\
               fn total(x: f64[n]) -> f64 { sum(inner(x, 2.0)) }\n\
               fn twice(x: f64[n]) -> f64[n] { grad(total, x)(x) + grad(total, x)(x) }\n\
               fn second(x: f64[n]) -> f64 { sum(twice(x)) }\n\
               print grad(second, x)([1.0]);\n";
    let p = frontend(src).expect("checks");
    let names: Vec<&str> = p.fns.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names.iter().filter(|n| **n == "grad__total__x").count(), 1, "{names:?}");
    assert!(names.contains(&"vjp__inner__x"), "{names:?}");
    assert!(names.contains(&"vjp__twice__x"), "{names:?}");
    assert!(names.contains(&"vjp__grad__total__x__x"), "{names:?}");
}

#[test]
fn a_callee_with_errors_is_reported_once() {
    let src = "fn inner(x: f64[n]) -> f64[n] { x + nope }\nfn f(x: f64[n]) -> f64 { sum(inner(x)) }\nprint grad(f, x)([1.0]);\n";
    let diags = frontend(src).expect_err("`nope` is unknown");
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].kind, ErrorKind::UnknownName);
}

#[test]
fn non_differentiable_uses_are_gradient_errors_at_the_op() {
    let src = "fn f(x: f64[n]) -> f64 {\n    sum(gammainc(x, 2.0))\n}\nprint grad(f, x)([1.0]);\n";
    let diags = frontend(src).expect_err("gammainc has no derivative in a");
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].kind, ErrorKind::Gradient);
    assert_eq!(&src[diags[0].span.clone()], "gammainc(x, 2.0)");
    // An op off the path from the parameter is fine.
    let ok = "fn f(x: f64[n], y: f64[n]) -> f64 {\n    sum(gammainc(y, 2.0)) * sum(x)\n}\nprint grad(f, x)([1.0], [2.0]);\n";
    assert!(frontend(ok).is_ok());
}
