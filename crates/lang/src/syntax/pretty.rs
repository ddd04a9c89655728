//! Canonical source text for a syntax tree.
//!
//! Output re-parses to the same tree (spans aside): parentheses are inserted exactly where
//! precedence needs them, and floats are printed in the shortest form that reads back as
//! the same `f64`, always with a `.` or an exponent (`1.0`, `0.1`, `1e-300`). Comments are
//! not part of the tree: [`print_program_with_comments`] places them back from the source.

use std::fmt::Write;

use super::comments::Pending;
use crate::ast::*;

/// Binding strength of each expression form, loosest first.
const ASCRIBE: u8 = 0;
const COMPARE: u8 = 1;
const SUM: u8 = 2;
const PRODUCT: u8 = 3;
const UNARY: u8 = 4;
const POWER: u8 = 5;
const POSTFIX: u8 = 6;
const ATOM: u8 = 7;

const INDENT: &str = "    ";

/// The whole program: one statement per line, 4-space indentation, a blank line around
/// every function definition.
pub fn print_program(program: &Program) -> String {
    write_program(program, &mut Pending::none())
}

/// [`print_program`] with the comments of `src` (the source `program` was parsed from) kept:
/// see [`super::comments`] for where each goes.
pub fn print_program_with_comments(program: &Program, src: &str) -> String {
    write_program(program, &mut Pending::new(src))
}

fn write_program(program: &Program, pending: &mut Pending) -> String {
    let mut out = String::new();
    for (i, item) in program.items.iter().enumerate() {
        if i > 0 {
            let prev_fn = matches!(program.items[i - 1], Item::Fn(_));
            if (prev_fn || matches!(item, Item::Fn(_))) && !out.ends_with("\n\n") {
                out.push('\n');
            }
        }
        match item {
            Item::Fn(f) => write_fn(&mut out, f, pending),
            Item::Let(l) => write_let(&mut out, l, "", pending),
            Item::Print(p) => {
                pending.before(&mut out, p.span.end, "");
                let _ = write!(out, "print {};", print_expr(&p.value));
                end_line(&mut out, p.span.end, pending);
            }
        }
    }
    pending.before(&mut out, usize::MAX, "");
    out
}

/// Ends a printed line, with the trailing comment of the statement ending at `end`.
fn end_line(out: &mut String, end: usize, pending: &mut Pending) {
    if let Some(c) = pending.trailing(end) {
        out.push_str(&c);
    }
    out.push('\n');
}

/// One expression on one line, with minimal parentheses.
pub fn print_expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e, ASCRIBE);
    out
}

/// A written type: `f64`, `f64[n, 3, ?]`.
pub fn print_type(t: &TypeExpr) -> String {
    let mut out = t.dtype.name().to_string();
    if !t.dims.is_empty() {
        let dims: Vec<String> = t.dims.iter().map(|d| d.dim.to_string()).collect();
        let _ = write!(out, "[{}]", dims.join(", "));
    }
    out
}

/// A float as a literal (`inf`, `nan`, `-inf` for the non-finite ones) that re-lexes to the same value and always looks like a
/// float. Negative values get a leading `-` (which parses as unary minus).
pub fn float_literal(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let s = format!("{x:?}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

fn write_fn(out: &mut String, f: &FnDef, pending: &mut Pending) {
    pending.before(out, f.span.start, "");
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}: {}", p.name.name, print_type(&p.ty)))
        .collect();
    let _ = write!(out, "fn {}({})", f.name.name, params.join(", "));
    match f.ret.as_deref() {
        None => {}
        Some([one]) => {
            let _ = write!(out, " -> {}", print_type(one));
        }
        Some(many) => {
            let tys: Vec<String> = many.iter().map(print_type).collect();
            let _ = write!(out, " -> ({})", tys.join(", "));
        }
    }
    out.push_str(" {");
    // A comment after the header's `{`.
    let first = f.body.lets.first().map_or(f.body.result.span.start, |l| l.span.start);
    end_line(out, first.min(header_end(f)), pending);
    for l in &f.body.lets {
        write_let(out, l, INDENT, pending);
    }
    pending.before(out, f.body.result.span.end, INDENT);
    let _ = write!(out, "{INDENT}{}", print_expr(&f.body.result));
    end_line(out, f.body.result.span.end, pending);
    pending.before(out, f.span.end.saturating_sub(1), INDENT);
    out.push('}');
    end_line(out, f.span.end, pending);
}

/// Where a function's header ends: just after the name, as far as comments go (a trailing
/// comment on the header's line is found by its line).
fn header_end(f: &FnDef) -> usize {
    f.name.span.end
}

fn write_let(out: &mut String, l: &Let, indent: &str, pending: &mut Pending) {
    pending.before(out, l.span.end, indent);
    out.push_str(indent);
    write_let_inline(out, l);
    end_line(out, l.span.end, pending);
}

/// `let x: t = value;` or `let (a, b) = value;`, without indentation or line end.
fn write_let_inline(out: &mut String, l: &Let) {
    let names: Vec<&str> = l.names().map(|n| n.name.as_str()).collect();
    let _ = write!(out, "let {}", pattern(&names, !l.rest.is_empty()));
    if let Some(t) = &l.ty {
        let _ = write!(out, ": {}", print_type(t));
    }
    let _ = write!(out, " = {};", print_expr(&l.value));
}

fn pattern(names: &[&str], tuple: bool) -> String {
    if tuple { format!("({})", names.join(", ")) } else { names.join(", ") }
}

/// `loop x = init for i in a..b { let ..; result }`, on one line.
fn write_loop(out: &mut String, l: &LoopExpr) {
    let names: Vec<&str> = l.state.iter().map(|n| n.name.as_str()).collect();
    let kw = match l.kind {
        LoopKind::Loop => "loop",
        LoopKind::Scan => "scan",
    };
    let _ = write!(out, "{kw} {} = ", pattern(&names, l.tuple));
    write_expr(out, &l.init, ASCRIBE);
    let _ = write!(out, " for {} in ", l.counter.name);
    write_expr(out, &l.start, ASCRIBE);
    out.push_str("..");
    write_expr(out, &l.stop, ASCRIBE);
    out.push(' ');
    write_inline_block(out, &l.body);
    if let Some(c) = &l.until {
        out.push_str(" until ");
        write_expr(out, c, ASCRIBE);
    }
}

fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => COMPARE,
        BinOp::Add | BinOp::Sub => SUM,
        BinOp::Mul | BinOp::Div | BinOp::MatMul => PRODUCT,
        BinOp::Pow => POWER,
    }
}

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Ascribe(..) => ASCRIBE,
        ExprKind::Binary(op, ..) => binop_prec(*op),
        ExprKind::Unary(..) => UNARY,
        ExprKind::Transpose(_) | ExprKind::Index(..) => POSTFIX,
        ExprKind::Int(n) if *n < 0 => UNARY,
        ExprKind::Float(x) if !x.is_nan() && x.is_sign_negative() => UNARY,
        _ => ATOM,
    }
}

fn write_list(out: &mut String, items: &[Expr]) {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, x, ASCRIBE);
    }
}

/// Writes `e` so that it parses back at binding strength `min` or tighter.
fn write_expr(out: &mut String, e: &Expr, min: u8) {
    if prec(e) < min {
        out.push('(');
        write_expr(out, e, ASCRIBE);
        out.push(')');
        return;
    }
    match &e.kind {
        ExprKind::Int(n) => {
            let _ = write!(out, "{n}");
        }
        ExprKind::Float(x) => out.push_str(&float_literal(*x)),
        ExprKind::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        ExprKind::Var(name) => out.push_str(name),
        ExprKind::DType(d) => out.push_str(d.name()),
        ExprKind::UnknownDim => out.push('?'),
        ExprKind::Error => out.push_str("<error>"),
        ExprKind::Array(items) => {
            out.push('[');
            write_list(out, items);
            out.push(']');
        }
        ExprKind::Tuple(items) => {
            out.push('(');
            write_list(out, items);
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        ExprKind::Call(f, args) => {
            out.push_str(&f.name);
            out.push('(');
            write_list(out, args);
            out.push(')');
        }
        ExprKind::Apply(f, args) => {
            write_expr(out, f, POSTFIX);
            out.push('(');
            write_list(out, args);
            out.push(')');
        }
        ExprKind::Unary(UnOp::Neg, x) => {
            out.push('-');
            write_expr(out, x, UNARY);
        }
        ExprKind::Binary(op, a, b) => {
            let p = binop_prec(*op);
            let (left, right) = match p {
                COMPARE => (SUM, SUM),
                POWER => (POSTFIX, UNARY),
                _ => (p, p + 1),
            };
            write_expr(out, a, left);
            let _ = write!(out, " {} ", op.symbol());
            write_expr(out, b, right);
        }
        ExprKind::Transpose(x) => {
            write_expr(out, x, POSTFIX);
            out.push_str(".T");
        }
        ExprKind::Index(x, items) => {
            write_expr(out, x, POSTFIX);
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_index_item(out, item);
            }
            out.push(']');
        }
        ExprKind::Ascribe(x, t) => {
            write_expr(out, x, COMPARE);
            let _ = write!(out, ": {}", print_type(t));
        }
        // A stopping condition would take in what follows the loop: in an operand, parentheses.
        ExprKind::Loop(l) if l.until.is_some() && min > ASCRIBE => {
            out.push('(');
            write_loop(out, l);
            out.push(')');
        }
        ExprKind::Loop(l) => write_loop(out, l),
        ExprKind::If(c) => write_if(out, c),
    }
}

/// `{ let ...; result }` on one line.
fn write_inline_block(out: &mut String, b: &crate::ast::Block) {
    out.push_str("{ ");
    for let_ in &b.lets {
        write_let_inline(out, let_);
        out.push(' ');
    }
    write_expr(out, &b.result, ASCRIBE);
    out.push_str(" }");
}

/// `if c { a } else { b }`, an `else` block that is only another `if` as `else if`.
fn write_if(out: &mut String, c: &crate::ast::IfExpr) {
    out.push_str("if ");
    write_expr(out, &c.cond, ASCRIBE);
    out.push(' ');
    write_inline_block(out, &c.then);
    out.push_str(" else ");
    match &c.otherwise.result.kind {
        ExprKind::If(inner) if c.otherwise.lets.is_empty() => write_if(out, inner),
        _ => write_inline_block(out, &c.otherwise),
    }
}

/// A bound after a `:` that starts with a dtype name is parenthesised: the bound before that
/// `:` would otherwise read it as an ascription.
fn write_bound(out: &mut String, x: &Expr) {
    fn starts_with_dtype(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::DType(_) => true,
            ExprKind::Binary(_, a, _) => starts_with_dtype(a),
            ExprKind::Transpose(x) | ExprKind::Index(x, _) | ExprKind::Ascribe(x, _) => starts_with_dtype(x),
            _ => false,
        }
    }
    if starts_with_dtype(x) {
        out.push('(');
        write_expr(out, x, ASCRIBE);
        out.push(')');
    } else {
        write_expr(out, x, COMPARE);
    }
}

/// A slice bound is written at comparison strength: an ascription inside would read its
/// `:` as the slice's.
fn write_index_item(out: &mut String, item: &IndexItem) {
    match item {
        IndexItem::Single(x) => write_expr(out, x, ASCRIBE),
        IndexItem::Slice { start, stop, step, .. } => {
            if let Some(x) = start {
                write_expr(out, x, COMPARE);
            }
            out.push(':');
            if let Some(x) = stop {
                write_bound(out, x);
            }
            if let Some(x) = step {
                out.push(':');
                write_bound(out, x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_literals() {
        assert_eq!(float_literal(1.0), "1.0");
        assert_eq!(float_literal(0.1), "0.1");
        assert_eq!(float_literal(1e-300), "1e-300");
        assert_eq!(float_literal(1e16), "1e16");
        assert_eq!(float_literal(2.5e10), "25000000000.0");
        assert_eq!(float_literal(-2.0), "-2.0");
        assert_eq!(float_literal(f64::INFINITY), "inf");
        assert_eq!(float_literal(f64::NEG_INFINITY), "-inf");
        assert_eq!(float_literal(f64::NAN), "nan");
    }

    #[test]
    fn negative_literals_are_parenthesised_like_negation() {
        let lit = |kind| Box::new(Expr { kind, span: 0..0 });
        let pow = Expr {
            kind: ExprKind::Binary(
                BinOp::Pow,
                lit(ExprKind::Int(-2)),
                lit(ExprKind::Float(-0.5)),
            ),
            span: 0..0,
        };
        assert_eq!(print_expr(&pow), "(-2) ** -0.5");
    }
}
