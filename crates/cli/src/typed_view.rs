//! A readable view of the typed program: each function's signature with its inferred
//! result types, and each `let` and result with its type, next to its source text.

use std::fmt::Write;

use ptl_lang::TensorType;
use ptl_lang::ops::{Op, UnaryOp};
use ptl_lang::typed::{TExpr, TExprKind, TFn, TLet, TProgram, TStmt};

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

/// Generated code (a derivative) has no source text of its own: its nodes are shown as they
/// are, one op per `let`.
fn generated(e: &TExpr) -> String {
    let args = |xs: &[TExpr]| xs.iter().map(generated).collect::<Vec<_>>().join(", ");
    match &e.kind {
        TExprKind::Var(n) | TExprKind::DimValue(n) => n.clone(),
        TExprKind::Literal(v) if v.shape().is_empty() => v.to_string(),
        TExprKind::Literal(v) => format!("<{} literal>", v.tensor_type()),
        TExprKind::Op(Op::Binary(b), xs) if !b.name().starts_with(|c: char| c.is_ascii_alphabetic()) => {
            format!("{} {} {}", generated(&xs[0]), b.name(), generated(&xs[1]))
        }
        TExprKind::Op(Op::Unary(UnaryOp::Neg), xs) => format!("-{}", generated(&xs[0])),
        TExprKind::Op(op, xs) => {
            let params = match op {
                Op::Reduce(_, axes) => format!(", axes {axes:?}"),
                Op::Transpose(perm) => format!(", {perm:?}"),
                Op::Expand(a) | Op::Squeeze(a) | Op::Concat(a) | Op::Take { axis: a } | Op::Softmax { axis: a, .. } => format!(", axis {a}"),
                Op::Slice(axes) => format!(", {axes:?}"),
                Op::SplitPart { axis, start, len, .. } => format!(", axis {axis}, {start}..{}", start + len),
                _ => String::new(),
            };
            let name = if matches!(op, Op::Cast) { format!("cast_{}", e.ty.dtype) } else { op.name().to_string() };
            format!("{name}({}{params})", args(xs))
        }
        TExprKind::Call(f, xs) | TExprKind::CallMulti(f, xs, _) => format!("{f}({})", args(xs)),
        TExprKind::Loop(_) => "loop { .. }".to_string(),
        TExprKind::If(c) => format!("if {} {{ .. }} else {{ .. }}", generated(&c.cond)),
        TExprKind::Tuple(xs) => format!("({})", args(xs)),
    }
}

/// Whether `f` was generated (its own names start with `%`).
fn is_generated(f: &TFn) -> bool {
    f.body.lets.iter().any(|l| l.name.starts_with('%')) || f.params.iter().any(|p| p.name.starts_with('%'))
}

fn write_let(out: &mut String, src: &str, l: &TLet, indent: &str) {
    let names: Vec<&str> = l.names().map(String::as_str).collect();
    let names = if names.len() == 1 { names.join("") } else { format!("({})", names.join(", ")) };
    let value = if src.is_empty() { generated(&l.value) } else { text(src, &l.value) };
    let _ = writeln!(out, "{indent}let {names}: {} = {value}", types(&l.value.result_types()));
}

/// The type of a printed expression (all results for a call of a multi-result function).
pub fn print_type(_prog: &TProgram, e: &TExpr) -> String {
    types(&e.result_types())
}

pub fn render(prog: &TProgram, src: &str) -> String {
    let mut out = String::new();
    for f in &prog.fns {
        let _ = writeln!(out, "{}", fn_signature(f));
        let fsrc = if is_generated(f) { "" } else { src };
        for l in &f.body.lets {
            write_let(&mut out, fsrc, l, "    ");
        }
        for r in &f.body.results {
            let value = if fsrc.is_empty() { generated(r) } else { text(src, r) };
            let _ = writeln!(out, "    result: {} = {value}", r.ty);
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
