//! The REPL's evaluation, independent of the line editor. A session keeps the source of its
//! functions and the *values* of its bindings: each input is checked against them (the
//! values stand in as placeholders of their exact types) and then evaluated alone, as one
//! function of the values it reads ([`input_fn`]), by the interpreter or compiled, whichever
//! is faster for its size ([`tier`]). An input that fails leaves the session as it was.

mod input_fn;
pub mod tier;

use ptl_lang::ast::{Item, Program};
use ptl_lang::diag::render_all;
use ptl_lang::typed::{TProgram, TStmt};
use ptl_lang::{Diagnostic, Value};
use ptl_lower::Entry;

use crate::args::ExecOptions;
use crate::exec::{self, Executor, RunError};
use crate::report::shift_diagnostics;
use crate::typed_view::{fn_signature, print_type};
use input_fn::{INPUT_FN, InputFn, Slot};
use tier::{Mode, Tier};

/// What an input produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Nothing to show (a definition, an empty line).
    Nothing,
    /// Text for stdout: values, types, MLIR, help.
    Text(String),
    /// An error report for stderr; the session goes on.
    Error(String),
    /// The user asked to leave.
    Quit,
}

pub const HELP: &str = "\
Enter ptl definitions, statements or expressions:
  fn f(x: f64[n]) -> f64[n] { x * 2.0 }   define (or redefine) a function
  let v = [1.0, 2.0, 3.0];                 bind a name for the rest of the session
  f(v) + 1.0                               an expression prints its value
  print f(v);                              statements run as in a script
An input continues on the next line while a bracket or brace is open.
Commands:
  :type EXPR    the type of an expression (or the signature of a function)
  :mlir EXPR    the MLIR module that computes an expression (or a function)
  :load FILE    run a file and keep its definitions
  :defs         the definitions of this session
  :mode [MODE]  how inputs run: auto (the interpreter for small work, IREE for
                large work), interp or compiled; without MODE, the current one
  :reset        forget every definition
  :help         this text
  :quit         leave (also Ctrl-D)";

/// The name diagnostics of REPL input are reported under.
const INPUT_NAME: &str = "<input>";

/// An expression typed alone is evaluated as this statement.
const PRINT: &str = "print ";

/// One definition of the session, as canonical source (for `:defs`; only functions are
/// checked again, bindings live on as values).
struct Def {
    name: String,
    is_fn: bool,
    src: String,
}

/// A program built from the session's functions, placeholders for its values, then new text.
struct Candidate {
    src: String,
    /// Where the new text starts in `src`.
    offset: usize,
    /// The number of placeholder statements before the new text.
    placeholders: usize,
}

pub struct Repl {
    defs: Vec<Def>,
    /// The session's bindings, in binding order, each name once.
    values: Vec<(String, Value)>,
    exec: Executor,
    mode: Mode,
    color: bool,
    time: bool,
    timing: Option<String>,
}

/// Whether `text` leaves a bracket, parenthesis or brace open (so input goes on).
pub fn is_incomplete(text: &str) -> bool {
    let mut depth: i64 = 0;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for c in code.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
        }
    }
    depth > 0
}

/// `let v = zeros([2, 3], f64);`: a statement giving `v` the type of `value`.
fn placeholder(name: &str, value: &Value) -> String {
    let dims: Vec<String> = value.shape().iter().map(|n| n.to_string()).collect();
    format!("let {name} = zeros([{}], {});\n", dims.join(", "), value.dtype())
}

impl Repl {
    pub fn new(opts: ExecOptions, color: bool) -> Self {
        let time = opts.time;
        let mode = if opts.interp { Mode::Interp } else { Mode::Auto };
        Repl {
            defs: Vec::new(),
            values: Vec::new(),
            exec: Executor::new(opts),
            mode,
            color,
            time,
            timing: None,
        }
    }

    /// The timing line of the last evaluation, when `--time` was given.
    pub fn take_timing(&mut self) -> Option<String> {
        self.timing.take()
    }

    /// Evaluates one complete input (which may span several lines).
    pub fn eval_line(&mut self, line: &str) -> Output {
        let text = line.trim();
        if text.is_empty() {
            return Output::Nothing;
        }
        if let Some(cmd) = text.strip_prefix(':') {
            let (name, arg) = match cmd.split_once(char::is_whitespace) {
                Some((n, a)) => (n, a.trim()),
                None => (cmd, ""),
            };
            return self.command(name, arg);
        }
        self.input(line, INPUT_NAME)
    }

    fn command(&mut self, name: &str, arg: &str) -> Output {
        match name {
            "q" | "quit" | "exit" => Output::Quit,
            "h" | "help" | "?" => Output::Text(HELP.to_string()),
            "t" | "type" => self.type_of(arg),
            "mlir" => self.mlir(arg),
            "l" | "load" => self.load(arg),
            "mode" => self.set_mode(arg),
            "defs" => {
                let all: Vec<&str> = self.defs.iter().map(|d| d.src.trim_end()).collect();
                if all.is_empty() {
                    Output::Nothing
                } else {
                    Output::Text(all.join("\n"))
                }
            }
            "reset" => {
                self.defs.clear();
                self.values.clear();
                Output::Nothing
            }
            _ => Output::Error(format!(
                "error: unknown command `:{name}`; :help lists the commands"
            )),
        }
    }

    fn set_mode(&mut self, arg: &str) -> Output {
        if arg.is_empty() {
            return Output::Text(format!("mode {}", self.mode.describe()));
        }
        match Mode::parse(arg) {
            Some(m) => {
                self.mode = m;
                Output::Nothing
            }
            None => Output::Error(format!("error: unknown mode `{arg}`; the modes are auto, interp and compiled")),
        }
    }

    fn needs_arg(&self, cmd: &str, arg: &str) -> Option<Output> {
        arg.is_empty().then(|| {
            Output::Error(format!(
                "error: :{cmd} needs an argument, e.g. :{cmd} x + 1.0"
            ))
        })
    }

    /// The session's functions minus those `replaced` redefines, each value's placeholder,
    /// then `text`.
    fn candidate(&self, replaced: &[String], text: &str) -> Candidate {
        let mut src = self.functions(replaced);
        for (name, value) in &self.values {
            src.push_str(&placeholder(name, value));
        }
        let offset = src.len();
        src.push_str(text);
        Candidate { src, offset, placeholders: self.values.len() }
    }

    /// The source of the session's functions, minus those `replaced` redefines.
    fn functions(&self, replaced: &[String]) -> String {
        let mut src = String::new();
        for d in self.defs.iter().filter(|d| d.is_fn && !replaced.contains(&d.name)) {
            src.push_str(&d.src);
            if !src.ends_with('\n') {
                src.push('\n');
            }
        }
        src
    }

    /// Renders diagnostics of a candidate: against the new text alone when they all lie in it,
    /// else against the whole session source.
    fn report(&self, diags: &[Diagnostic], c: &Candidate, text: &str, name: &str) -> Output {
        let inside = diags
            .iter()
            .all(|d| d.span.start >= c.offset && d.labels.iter().all(|(s, _)| s.start >= c.offset));
        let rendered = if inside {
            render_all(
                &shift_diagnostics(diags, c.offset, text.len()),
                name,
                text,
                self.color,
            )
        } else {
            render_all(diags, "<session>", &c.src, self.color)
        };
        Output::Error(rendered)
    }

    fn check(&self, c: &Candidate, text: &str, name: &str) -> Result<TProgram, Output> {
        ptl_lang::frontend(&c.src).map_err(|diags| self.report(&diags, c, text, name))
    }

    /// Checks `program` (parsed from `text`) against the session; returns its checked
    /// statements and the function form that evaluates it.
    /// Check errors are shown against `shown`, as for [`Repl::evaluate`].
    fn prepare(&self, program: &Program, text: &str, name: &str, shown: (&str, usize)) -> Result<(InputFn, String, usize), Output> {
        let replaced = new_functions(program);
        let c = self.candidate(&replaced, text);
        let (shown_text, skip) = shown;
        let seen = Candidate { offset: c.offset + skip, ..c };
        let prog = self.check(&seen, shown_text, name)?;
        let c = Candidate { offset: seen.offset - skip, ..seen };
        let stmts: Vec<TStmt> = prog.top.iter().skip(c.placeholders).cloned().collect();
        let f = InputFn::build(text, program, &stmts, &self.values);
        let prefix = self.functions(&replaced);
        let offset = prefix.len();
        Ok((f, prefix, offset))
    }

    /// Evaluates the function form of an input; returns its results. Run-time errors are
    /// shown against `shown`: the input text less its first bytes, as many as given.
    fn evaluate(&mut self, f: &InputFn, prefix: &str, offset: usize, shown: (&str, usize), name: &str) -> Result<Vec<Value>, Output> {
        let src = format!("{prefix}{}", f.src);
        let prog = ptl_lang::frontend(&src).map_err(|d| Output::Error(render_all(&d, "<session>", &src, self.color)))?;
        if !f.has_body {
            return Ok(Vec::new());
        }
        let args: Vec<Value> = f
            .params
            .iter()
            .filter_map(|p| self.values.iter().find(|(n, _)| n == p).map(|(_, v)| v.clone()))
            .collect();
        let tier = match prog.function(INPUT_FN) {
            Some(func) => self.mode.choose(&prog, func),
            None => Tier::Compiled,
        };
        let out = self.exec.call_on(&prog, INPUT_FN, &args, tier == Tier::Interp);
        if self.time {
            self.timing = self.exec.timing().map(str::to_string);
        }
        out.map_err(|e| match e {
            RunError::Report(d) => self.runtime_report(d, f, offset, &src, shown, name),
            e => Output::Error(format!("error: {e}")),
        })
    }

    /// A failed run-time check, shown against the input when its spans lie there.
    fn runtime_report(&self, d: Diagnostic, f: &InputFn, offset: usize, src: &str, shown: (&str, usize), name: &str) -> Output {
        let (text, skip) = shown;
        let map = |s: &ptl_lang::Span| {
            let s = f.to_input(s, offset)?;
            Some(s.start.checked_sub(skip)?..s.end.checked_sub(skip)?)
        };
        let span = map(&d.span);
        let labels: Option<Vec<_>> = d.labels.iter().map(|(s, l)| map(s).map(|s| (s, l.clone()))).collect();
        match (span, labels) {
            (Some(span), Some(labels)) => {
                let d = Diagnostic { span, labels, ..d };
                Output::Error(render_all(&[d], name, text, self.color))
            }
            _ => Output::Error(render_all(&[d], "<session>", src, self.color)),
        }
    }

    /// A definition, statement or expression typed at the prompt (or a loaded file).
    fn input(&mut self, text: &str, name: &str) -> Output {
        let (program, diags) = ptl_lang::parse(text);
        match program {
            Some(p) if diags.is_empty() && !p.items.is_empty() => {
                return self.items(&p, text, name);
            }
            _ => {}
        }
        let expr = text.trim_end().strip_suffix(';').unwrap_or(text.trim_end());
        let (parsed, expr_diags) = ptl_lang::syntax::parse_expr(expr);
        if parsed.is_some() && expr_diags.is_empty() {
            return self.expression(expr);
        }
        let first = text.split_whitespace().next().unwrap_or("");
        let diags = if matches!(first, "fn" | "let" | "print") || expr_diags.is_empty() {
            diags
        } else {
            expr_diags
        };
        Output::Error(render_all(&diags, name, text, self.color))
    }

    /// `fn`, `let` and `print` items: checked with the session and evaluated; the definitions
    /// are kept if everything succeeds.
    fn items(&mut self, p: &Program, text: &str, name: &str) -> Output {
        self.items_shown(p, text, name, (text, 0))
    }

    fn items_shown(&mut self, p: &Program, text: &str, name: &str, shown: (&str, usize)) -> Output {
        let (f, prefix, offset) = match self.prepare(p, text, name, shown) {
            Ok(x) => x,
            Err(out) => return out,
        };
        let results = match self.evaluate(&f, &prefix, offset, shown, name) {
            Ok(v) => v,
            Err(out) => return out,
        };
        let mut printed = Vec::new();
        for (slot, value) in f.slots.iter().zip(results) {
            match slot {
                Slot::Print => printed.push(value),
                Slot::Bind(n) => {
                    self.values.retain(|(m, _)| m != n);
                    self.values.push((n.clone(), value));
                }
            }
        }
        let new_fns = new_functions(p);
        self.defs.retain(|d| !(d.is_fn && new_fns.contains(&d.name)));
        for item in &p.items {
            let (name, is_fn) = match item {
                Item::Fn(f) => (f.name.name.clone(), true),
                Item::Let(l) => (l.name.name.clone(), false),
                Item::Print(_) => continue,
            };
            let src = ptl_lang::print_program(&Program {
                items: vec![item.clone()],
            });
            self.defs.push(Def { name, is_fn, src });
        }
        show(&printed)
    }

    /// Checks `expr` as the operand of a `print` after the session's definitions.
    fn expression_program(&self, expr: &str) -> Result<TProgram, Output> {
        let c = self.candidate(&[], &format!("{PRINT}{expr};\n"));
        let c = Candidate {
            offset: c.offset + PRINT.len(),
            ..c
        };
        self.check(&c, expr, INPUT_NAME)
    }

    /// `expr` as the statement `print expr;`, parsed.
    fn print_statement(expr: &str) -> Result<(String, Program), Output> {
        let text = format!("{PRINT}{expr};");
        match ptl_lang::parse(&text) {
            (Some(p), d) if d.is_empty() => Ok((text, p)),
            (_, d) => Err(Output::Error(render_all(&d, INPUT_NAME, &text, false))),
        }
    }

    fn expression(&mut self, expr: &str) -> Output {
        match Self::print_statement(expr) {
            Ok((text, p)) => self.items_shown(&p, &text, INPUT_NAME, (expr, PRINT.len())),
            Err(out) => out,
        }
    }

    /// The checked program of the session's functions, and `name` if it names one of them.
    fn function_named(&self, name: &str) -> Option<TProgram> {
        if !self.defs.iter().any(|d| d.is_fn && d.name == name) {
            return None;
        }
        ptl_lang::frontend(&self.functions(&[])).ok()
    }

    fn type_of(&mut self, arg: &str) -> Output {
        if let Some(out) = self.needs_arg("type", arg) {
            return out;
        }
        if let Some(prog) = self.function_named(arg) {
            if let Some(f) = prog.function(arg) {
                return Output::Text(fn_signature(f));
            }
        }
        let expr = arg.strip_suffix(';').unwrap_or(arg);
        match self.expression_program(expr) {
            Ok(prog) => match prog.top.last() {
                Some(TStmt::Print(exprs, _)) if !exprs.is_empty() => {
                    let types: Vec<String> = exprs.iter().map(|e| print_type(&prog, e)).collect();
                    Output::Text(types.join(", "))
                }
                _ => Output::Error("error: no type for this input".to_string()),
            },
            Err(out) => out,
        }
    }

    fn mlir(&mut self, arg: &str) -> Output {
        if let Some(out) = self.needs_arg("mlir", arg) {
            return out;
        }
        if let Some(prog) = self.function_named(arg) {
            return match exec::mlir(&prog, &Entry::Function(arg.to_string())) {
                Ok(text) => Output::Text(text.trim_end().to_string()),
                Err(e) => Output::Error(format!("error: {e}")),
            };
        }
        let expr = arg.strip_suffix(';').unwrap_or(arg);
        if let Err(out) = self.expression_program(expr) {
            return out;
        }
        let (text, p) = match Self::print_statement(expr) {
            Ok(x) => x,
            Err(out) => return out,
        };
        let (f, prefix, _) = match self.prepare(&p, &text, INPUT_NAME, (expr, PRINT.len())) {
            Ok(x) => x,
            Err(out) => return out,
        };
        let src = format!("{prefix}{}", f.src);
        match ptl_lang::frontend(&src) {
            Ok(prog) => match exec::mlir(&prog, &Entry::Function(INPUT_FN.to_string())) {
                Ok(text) => Output::Text(text.trim_end().to_string()),
                Err(e) => Output::Error(format!("error: {e}")),
            },
            Err(d) => Output::Error(render_all(&d, "<session>", &src, self.color)),
        }
    }

    fn load(&mut self, arg: &str) -> Output {
        if arg.is_empty() {
            return Output::Error(
                "error: :load needs a file, e.g. :load examples/axpy.ptl".to_string(),
            );
        }
        match crate::source::read(std::path::Path::new(arg)) {
            Ok(src) => {
                if src.trim().is_empty() {
                    return Output::Nothing;
                }
                match ptl_lang::parse(&src) {
                    (Some(p), diags) if diags.is_empty() => self.items(&p, &src, arg),
                    (_, diags) => Output::Error(render_all(&diags, arg, &src, self.color)),
                }
            }
            Err(e) => Output::Error(format!("error: {e}")),
        }
    }
}

/// The names of the functions `program` defines.
fn new_functions(program: &Program) -> Vec<String> {
    program
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) => Some(f.name.name.clone()),
            _ => None,
        })
        .collect()
}

fn show(values: &[Value]) -> Output {
    if values.is_empty() {
        Output::Nothing
    } else {
        Output::Text(
            values
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::DeviceArg;

    pub(super) fn session_with(interp: bool, time: bool) -> Repl {
        let opts = ExecOptions {
            interp,
            device: DeviceArg::Cpu,
            flush_denormals: false,
            no_cache: true,
            time,
        };
        Repl::new(opts, false)
    }

    fn session() -> Repl {
        session_with(true, false)
    }

    pub(super) fn text(out: Output) -> String {
        match out {
            Output::Text(t) => t,
            other => panic!("expected text, got {other:?}"),
        }
    }

    fn error(out: Output) -> String {
        match out {
            Output::Error(e) => e,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn open_brackets_continue_the_input() {
        assert!(is_incomplete("fn f(x: f64) -> f64 {"));
        assert!(is_incomplete("let a = [1.0,\n  2.0"));
        assert!(!is_incomplete("fn f(x: f64) -> f64 {\n x\n}"));
        assert!(!is_incomplete("1 + 2 // a comment with an open ( bracket"));
        assert!(!is_incomplete(")"));
    }

    #[test]
    fn definitions_persist_and_expressions_print() {
        let mut r = session();
        assert_eq!(
            r.eval_line("fn f(x: f64[n]) -> f64[n] { x * 2.0 }"),
            Output::Nothing
        );
        assert_eq!(r.eval_line("let v = [1.0, 2.0];"), Output::Nothing);
        assert_eq!(text(r.eval_line("f(v)")), "[2. 4.]");
        assert_eq!(text(r.eval_line("f(v);")), "[2. 4.]");
        assert_eq!(text(r.eval_line("print f(v);")), "[2. 4.]");
        assert_eq!(text(r.eval_line("let w = v + 1.0; print w;")), "[2. 3.]");
        assert_eq!(text(r.eval_line("w")), "[2. 3.]");
    }

    #[test]
    fn an_error_leaves_the_session_as_it_was() {
        let mut r = session();
        r.eval_line("let v = [1.0, 2.0];");
        let e = error(r.eval_line("let bad = v + [1.0, 2.0, 3.0];"));
        assert!(e.contains("E0006") && e.contains("<input>"), "{e}");
        assert!(error(r.eval_line("bad")).contains("unknown name `bad`"));
        assert!(error(r.eval_line("fn g(x: f64) -> f64 { y }")).contains("E0003"));
        assert!(error(r.eval_line("g(1.0)")).contains("unknown function `g`"));
        assert!(error(r.eval_line("1 +")).contains("E0002"));
        assert_eq!(text(r.eval_line("v * 3.0")), "[3. 6.]");
    }

    #[test]
    fn a_run_time_error_in_a_let_is_reported_at_once() {
        let mut r = session();
        r.eval_line("fn add(x: f64[?], y: f64[?]) -> f64[?] { x + y }");
        let e = error(r.eval_line("let s = add([1.0, 2.0], [1.0, 2.0, 3.0]);"));
        assert!(e.contains("E0011") && e.contains("differ in size at axis 0"), "{e}");
        assert!(error(r.eval_line("s")).contains("unknown name `s`"));
        assert_eq!(r.eval_line("let s = add([1.0], [2.0]);"), Output::Nothing);
        assert_eq!(text(r.eval_line("s")), "[3.]");
    }

    #[test]
    fn functions_can_be_redefined() {
        let mut r = session();
        r.eval_line("fn f(x: f64) -> f64 { x + 1.0 }");
        r.eval_line("fn g(x: f64) -> f64 { f(x) * 10.0 }");
        assert_eq!(text(r.eval_line("g(1.0)")), "20.0");
        assert_eq!(
            r.eval_line("fn f(x: f64) -> f64 { x + 2.0 }"),
            Output::Nothing
        );
        assert_eq!(text(r.eval_line("g(1.0)")), "30.0");
    }

    #[test]
    fn commands() {
        let mut r = session();
        r.eval_line("fn f(x: f64[n]) -> (f64[n], f64) { (x, sum(x)) }");
        assert_eq!(
            text(r.eval_line(":type f")),
            "fn f(x: f64[n]) -> (f64[n], f64)"
        );
        assert_eq!(text(r.eval_line(":type f([1, 2])")), "(f64[2], f64)");
        assert_eq!(text(r.eval_line(":type [1, 2] > 1")), "bool[2]");
        assert!(text(r.eval_line(":mlir f")).contains("func.func @f"));
        assert!(text(r.eval_line(":mlir 1.0 + 2.0")).contains("module"));
        assert!(error(r.eval_line(":type")).contains("needs an argument"));
        assert!(error(r.eval_line(":type nope")).contains("unknown name `nope`"));
        assert!(text(r.eval_line(":help")).contains(":load FILE"));
        assert!(text(r.eval_line(":defs")).contains("fn f(x: f64[n])"));
        assert!(error(r.eval_line(":frobnicate")).contains("unknown command"));
        assert_eq!(r.eval_line(":reset"), Output::Nothing);
        assert_eq!(r.eval_line(":defs"), Output::Nothing);
        assert_eq!(r.eval_line("   "), Output::Nothing);
        assert_eq!(r.eval_line(":quit"), Output::Quit);
    }

    #[test]
    fn load_runs_a_file_and_keeps_its_definitions() {
        let dir = std::env::temp_dir().join(format!("ptl-repl-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("lib.ptl");
        std::fs::write(
            &file,
            "// a library\nfn inc(x: f64) -> f64 { x + 1.0 }\nlet k = 2.0;\nprint inc(k);\n",
        )
        .expect("write");
        let mut r = session();
        assert_eq!(
            text(r.eval_line(&format!(":load {}", file.display()))),
            "3.0"
        );
        assert_eq!(text(r.eval_line("inc(k) * 2.0")), "6.0");
        std::fs::write(&file, "print nope;\n").expect("write");
        let e = error(r.eval_line(&format!(":load {}", file.display())));
        assert!(e.contains("lib.ptl") && e.contains("nope"), "{e}");
        assert!(error(r.eval_line(":load /no/such/file.ptl")).contains("cannot read"));
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[cfg(test)]
mod tier_tests {
    use super::tests::{session_with, text};
    use super::*;

    fn session(interp: bool) -> Repl {
        session_with(interp, true)
    }

    #[test]
    fn the_mode_is_shown_and_can_be_forced() {
        let mut r = session(false);
        assert!(text(r.eval_line(":mode")).starts_with("mode auto"));
        assert_eq!(r.eval_line(":mode interp"), Output::Nothing);
        assert!(text(r.eval_line(":mode")).starts_with("mode interp"));
        assert!(matches!(r.eval_line(":mode fast"), Output::Error(e) if e.contains("unknown mode `fast`")));
        let mut forced = session(true);
        assert!(text(forced.eval_line(":mode")).starts_with("mode interp"));
    }

    #[test]
    fn small_inputs_are_interpreted_and_large_or_forced_ones_compiled() {
        let mut r = session(false);
        assert_eq!(r.eval_line("let v = [1.0, 2.0, 3.0];"), Output::Nothing);
        assert_eq!(text(r.eval_line("sum(v * 2.0)")), "12.0");
        let t = r.take_timing().expect("timed");
        assert!(t.starts_with("time: interpreted"), "{t}");
        r.eval_line(":mode compiled");
        assert_eq!(text(r.eval_line("sum(v * 2.0)")), "12.0");
        let t = r.take_timing().expect("timed");
        assert!(t.contains("compile"), "{t}");
        // Large work goes to IREE in auto mode, with the interpreter's answer.
        r.eval_line(":mode auto");
        assert_eq!(r.eval_line("let big = arange(1000000);"), Output::Nothing);
        let compiled = text(r.eval_line("sum(cast(big, f64) * 0.5)"));
        let t = r.take_timing().expect("timed");
        assert!(t.contains("compile"), "{t}");
        r.eval_line(":mode interp");
        assert_eq!(text(r.eval_line("sum(cast(big, f64) * 0.5)")), compiled);
        assert!(compiled.starts_with("24999975"), "{compiled}");
    }

    #[test]
    fn an_input_reads_only_the_values_it_names() {
        let mut r = session(true);
        r.eval_line("let a = [1.0, 2.0];");
        r.eval_line("let b = [[1, 2], [3, 4]];");
        let m = text(r.eval_line(":mlir a * 2.0"));
        assert!(m.contains("func.func @__input(%arg0: tensor<2xf64>)"), "{m}");
        // A name bound again keeps its last value; the old one is gone.
        r.eval_line("let a = a + 1.0; let a = a * 10.0;");
        assert_eq!(text(r.eval_line("a")), "[20. 30.]");
        assert!(text(r.eval_line(":defs")).contains("let a = a * 10.0;"));
    }
}
