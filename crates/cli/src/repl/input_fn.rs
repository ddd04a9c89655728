//! An input as one function of the session values it reads, so that only the new input is
//! evaluated (and, when compiled, only it is compiled), never the session again:
//!
//! ```text
//! let w = v * 2.0; print sum(w);
//! ```
//! becomes
//! ```text
//! fn __input(v: f64[3]) {
//!     let w = v * 2.0;
//!     let __print_1 = sum(w);
//!     (__print_1, w)
//! }
//! ```
//! Functions the input defines come first, copied as written. Every piece copied from the
//! input keeps its text, so a span inside one maps back to the input exactly.

use ptl_lang::Span;
use ptl_lang::ast::{Item, Program};
use ptl_lang::typed::TStmt;
use ptl_lang::Value;

/// The name of the generated function.
pub const INPUT_FN: &str = "__input";

/// What one result of the generated function is.
#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    /// A value to print.
    Print,
    /// The final value of a name the input binds, kept in the session.
    Bind(String),
}

/// The generated source and what its results mean.
#[derive(Debug)]
pub struct InputFn {
    /// The input's own functions, then `__input` (absent when the input only defines
    /// functions).
    pub src: String,
    /// Whether `src` defines `__input`.
    pub has_body: bool,
    /// The session values `__input` takes, in parameter order.
    pub params: Vec<String>,
    pub slots: Vec<Slot>,
    /// Pieces of `src` copied from the input: (start in `src`, start in the input, length).
    pieces: Vec<(usize, usize, usize)>,
}

struct Builder<'a> {
    input: &'a str,
    src: String,
    pieces: Vec<(usize, usize, usize)>,
}

impl Builder<'_> {
    fn text(&mut self, s: &str) {
        self.src.push_str(s);
    }

    fn copy(&mut self, span: &Span) {
        self.pieces.push((self.src.len(), span.start, span.end - span.start));
        self.src.push_str(&self.input[span.clone()]);
    }
}

/// Whether `name` occurs in `text` as a whole identifier.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == name)
}

impl InputFn {
    /// Builds the function for `program` (parsed from `input`). `stmts` are the checked
    /// statements of the input, in order (they give each `print` its number of values);
    /// `values` the session's bindings.
    pub fn build(input: &str, program: &Program, stmts: &[TStmt], values: &[(String, Value)]) -> InputFn {
        let mut b = Builder { input, src: String::new(), pieces: Vec::new() };
        for item in &program.items {
            if let Item::Fn(f) = item {
                b.copy(&f.span);
                b.text("\n");
            }
        }
        let params: Vec<&(String, Value)> = values.iter().filter(|(n, _)| mentions(input, n)).collect();
        let has_body = program.items.iter().any(|i| !matches!(i, Item::Fn(_)));
        let mut slots = Vec::new();
        let mut results = Vec::new();
        if has_body {
            let sig: Vec<String> = params.iter().map(|(n, v)| format!("{n}: {}", v.tensor_type())).collect();
            b.text(&format!("fn {INPUT_FN}({}) {{\n", sig.join(", ")));
            let mut stmts = stmts.iter();
            let mut bound: Vec<String> = Vec::new();
            for (k, item) in program.items.iter().enumerate() {
                match item {
                    Item::Fn(_) => {}
                    Item::Let(l) => {
                        stmts.next();
                        b.text("    ");
                        b.copy(&l.span);
                        if !input[l.span.clone()].trim_end().ends_with(';') {
                            b.text(";");
                        }
                        b.text("\n");
                        for n in l.names() {
                            bound.retain(|x| x != &n.name);
                            bound.push(n.name.clone());
                        }
                    }
                    Item::Print(p) => {
                        let count = match stmts.next() {
                            Some(TStmt::Print(exprs, _)) => exprs.iter().map(|e| e.result_types().len()).sum(),
                            _ => 1,
                        };
                        let names: Vec<String> = (0..count).map(|i| format!("__print_{k}_{i}")).collect();
                        if names.len() == 1 {
                            b.text(&format!("    let {} = ", names[0]));
                        } else {
                            b.text(&format!("    let ({}) = ", names.join(", ")));
                        }
                        b.copy(&p.value.span);
                        b.text(";\n");
                        for n in names {
                            results.push(n);
                            slots.push(Slot::Print);
                        }
                    }
                }
            }
            for n in bound {
                results.push(n.clone());
                slots.push(Slot::Bind(n));
            }
            b.text(&format!("    ({})\n}}\n", results.join(", ")));
        }
        InputFn {
            src: b.src,
            has_body,
            params: params.iter().map(|(n, _)| n.clone()).collect(),
            slots,
            pieces: b.pieces,
        }
    }

    /// The input's span for a span of `src` shifted by `offset` (where `src` starts in the
    /// whole program), when it lies inside one copied piece.
    pub fn to_input(&self, span: &Span, offset: usize) -> Option<Span> {
        let start = span.start.checked_sub(offset)?;
        let end = span.end.checked_sub(offset)?;
        self.pieces
            .iter()
            .find(|(at, _, len)| *at <= start && end <= at + len)
            .map(|(at, from, _)| from + (start - at)..from + (end - at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(input: &str, values: &[(String, Value)]) -> InputFn {
        let (p, d) = ptl_lang::parse(input);
        assert!(d.is_empty(), "{d:?}");
        InputFn::build(input, &p.expect("parses"), &[], values)
    }

    fn scalar(x: f64) -> Value {
        Value::F64(ndarray::arr0(x).into_dyn())
    }

    #[test]
    fn lets_and_prints_become_one_function_of_the_values_read() {
        let values = vec![("v".to_string(), Value::F64(ndarray::arr1(&[1.0, 2.0]).into_dyn())), ("k".to_string(), scalar(3.0))];
        let f = build("let w = v * 2.0;\nprint sum(w);", &values);
        assert_eq!(f.params, vec!["v".to_string()]);
        assert_eq!(f.slots, vec![Slot::Print, Slot::Bind("w".into())]);
        assert_eq!(f.src, "fn __input(v: f64[2]) {\n    let w = v * 2.0;\n    let __print_1_0 = sum(w);\n    (__print_1_0, w)\n}\n");
        // `sum(w)` maps back to its place in the input.
        let at = f.src.find("sum(w)").expect("copied");
        assert_eq!(f.to_input(&(at..at + 6), 0), Some(23..29));
        assert_eq!(f.to_input(&(0..5), 0), None);
    }

    #[test]
    fn functions_are_copied_and_need_no_body() {
        let f = build("fn f(x: f64) -> f64 { x + 1.0 }", &[]);
        assert!(!f.has_body);
        assert_eq!(f.src, "fn f(x: f64) -> f64 { x + 1.0 }\n");
        assert_eq!(f.to_input(&(3..4), 0), Some(3..4));
    }

    #[test]
    fn a_name_bound_twice_is_kept_once_with_its_last_value() {
        let f = build("let a = 1.0; let a = a + 1.0;", &[]);
        assert_eq!(f.slots, vec![Slot::Bind("a".into())]);
        assert!(f.src.ends_with("    (a)\n}\n"), "{}", f.src);
    }
}
