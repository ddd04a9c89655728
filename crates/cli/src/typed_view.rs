//! A readable view of the typed program: each function's signature with its inferred
//! result types, and each `let` and result with its type, next to its source text.

use std::fmt::Write;

use ptl_lang::TensorType;
use ptl_lang::typed::{TExpr, TFn, TLet, TProgram, TStmt};

/// The source text of `e`, on one line.
fn text(src: &str, e: &TExpr) -> String {
    let s = src.get(e.span.clone()).unwrap_or("<generated>");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn types(ts: &[TensorType]) -> String {
    match ts {
        [one] => one.to_string(),
        many => format!(
            "({})",
            many.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `fn f(x: f64[n]) -> f64[n]`.
pub fn fn_signature(f: &TFn) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}: {}", p.name, p.ty))
        .collect();
    format!(
        "fn {}({}) -> {}",
        f.name,
        params.join(", "),
        types(&f.results)
    )
}

fn write_let(out: &mut String, src: &str, l: &TLet, indent: &str) {
    let names: Vec<&str> = l.names().map(String::as_str).collect();
    let names = if names.len() == 1 { names.join("") } else { format!("({})", names.join(", ")) };
    let _ = writeln!(
        out,
        "{indent}let {names}: {} = {}",
        types(&l.value.result_types()),
        text(src, &l.value)
    );
}

/// The type of a printed expression (all results for a call of a multi-result function).
pub fn print_type(_prog: &TProgram, e: &TExpr) -> String {
    types(&e.result_types())
}

pub fn render(prog: &TProgram, src: &str) -> String {
    let mut out = String::new();
    for f in &prog.fns {
        let _ = writeln!(out, "{}", fn_signature(f));
        for l in &f.body.lets {
            write_let(&mut out, src, l, "    ");
        }
        for r in &f.body.results {
            let _ = writeln!(out, "    result: {} = {}", r.ty, text(src, r));
        }
        out.push('\n');
    }
    for s in &prog.top {
        match s {
            TStmt::Let(l) => write_let(&mut out, src, l, ""),
            TStmt::Print(exprs, _) => {
                for e in exprs {
                    let _ = writeln!(out, "print: {} = {}", print_type(prog, e), text(src, e));
                }
            }
        }
    }
    out
}
