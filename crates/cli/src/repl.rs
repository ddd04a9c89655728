//! The REPL's evaluation, independent of the line editor: a session keeps the source of
//! every definition (`fn`, `let`) that succeeded, and each input is checked and run
//! together with them. An input that fails leaves the session as it was.

use ptl_lang::ast::{Item, Program};
use ptl_lang::diag::render_all;
use ptl_lang::typed::{TProgram, TStmt};
use ptl_lang::{Diagnostic, Value};
use ptl_lower::Entry;

use crate::args::ExecOptions;
use crate::exec::{self, Executor, RunError};
use crate::report::shift_diagnostics;
use crate::typed_view::{fn_signature, print_type};

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
  :reset        forget every definition
  :help         this text
  :quit         leave (also Ctrl-D)";

/// The name diagnostics of REPL input are reported under.
const INPUT_NAME: &str = "<input>";

/// One definition of the session, as canonical source.
struct Def {
    name: String,
    is_fn: bool,
    src: String,
}

/// A program built from the session's definitions followed by new text.
struct Candidate {
    src: String,
    /// Where the new text starts in `src`.
    offset: usize,
}

pub struct Repl {
    defs: Vec<Def>,
    exec: Executor,
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

impl Repl {
    pub fn new(opts: ExecOptions, color: bool) -> Self {
        let time = opts.time;
        Repl {
            defs: Vec::new(),
            exec: Executor::new(opts),
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
                Output::Nothing
            }
            _ => Output::Error(format!(
                "error: unknown command `:{name}`; :help lists the commands"
            )),
        }
    }

    fn needs_arg(&self, cmd: &str, arg: &str) -> Option<Output> {
        arg.is_empty().then(|| {
            Output::Error(format!(
                "error: :{cmd} needs an argument, e.g. :{cmd} x + 1.0"
            ))
        })
    }

    /// The definitions, minus the functions that `replaced` redefines, then `text`.
    fn candidate(&self, replaced: &[String], text: &str) -> Candidate {
        let mut src = String::new();
        for d in &self.defs {
            if !(d.is_fn && replaced.contains(&d.name)) {
                src.push_str(&d.src);
                if !src.ends_with('\n') {
                    src.push('\n');
                }
            }
        }
        let offset = src.len();
        src.push_str(text);
        Candidate { src, offset }
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

    /// Runs the session's program; a failed run-time check is shown against the input that
    /// holds it, when `at` names that input.
    fn run(&mut self, prog: &TProgram, at: Option<(&Candidate, &str, &str)>) -> Result<Vec<Value>, Output> {
        let out = self.exec.run_script(prog).map_err(|e| match (e, at) {
            (RunError::Report(d), Some((c, text, name))) => self.report(std::slice::from_ref(&d), c, text, name),
            (e, _) => Output::Error(format!("error: {e}")),
        });
        if self.time {
            self.timing = self.exec.timing().map(str::to_string);
        }
        out
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

    /// `fn`, `let` and `print` items: checked and run with the session; the definitions are
    /// kept if everything succeeds.
    fn items(&mut self, p: &Program, text: &str, name: &str) -> Output {
        let new_fns: Vec<String> = p
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Fn(f) => Some(f.name.name.clone()),
                _ => None,
            })
            .collect();
        let new_lets: Vec<String> = p
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Let(l) => Some(l.names().map(|n| n.name.clone()).collect::<Vec<_>>()),
                _ => None,
            })
            .flatten()
            .collect();
        // Printing each new binding forces its evaluation, so a run-time error (a shape
        // mismatch in `?` dims) is reported now rather than poisoning every later input.
        let mut body = text.to_string();
        if !body.ends_with('\n') {
            body.push('\n');
        }
        for l in &new_lets {
            body.push_str(&format!("print {l};\n"));
        }
        let c = self.candidate(&new_fns, &body);
        let prog = match self.check(&c, text, name) {
            Ok(p) => p,
            Err(out) => return out,
        };
        let mut values = match self.run(&prog, Some((&c, text, name))) {
            Ok(v) => v,
            Err(out) => return out,
        };
        values.truncate(values.len().saturating_sub(new_lets.len()));
        self.defs
            .retain(|d| !(d.is_fn && new_fns.contains(&d.name)));
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
        show(&values)
    }

    /// Checks `expr` as the operand of a `print` after the session's definitions.
    fn expression_program(&self, expr: &str) -> Result<TProgram, Output> {
        const PREFIX: &str = "print ";
        let c = self.candidate(&[], &format!("{PREFIX}{expr};\n"));
        let c = Candidate {
            offset: c.offset + PREFIX.len(),
            ..c
        };
        self.check(&c, expr, INPUT_NAME)
    }

    fn expression(&mut self, expr: &str) -> Output {
        let prog = match self.expression_program(expr) {
            Ok(p) => p,
            Err(out) => return out,
        };
        match self.run(&prog, None) {
            Ok(values) => show(&values),
            Err(out) => out,
        }
    }

    /// The checked program of the definitions alone, and `name` if it names one of its
    /// functions.
    fn function_named(&self, name: &str) -> Option<TProgram> {
        if !self.defs.iter().any(|d| d.is_fn && d.name == name) {
            return None;
        }
        ptl_lang::frontend(&self.candidate(&[], "").src).ok()
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
        let (prog, entry) = match self.function_named(arg) {
            Some(prog) => (prog, Entry::Function(arg.to_string())),
            None => {
                let expr = arg.strip_suffix(';').unwrap_or(arg);
                match self.expression_program(expr) {
                    Ok(prog) => (prog, Entry::Script),
                    Err(out) => return out,
                }
            }
        };
        match exec::mlir(&prog, &entry) {
            Ok(text) => Output::Text(text.trim_end().to_string()),
            Err(e) => Output::Error(format!("error: {e}")),
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

    fn session() -> Repl {
        let opts = ExecOptions {
            interp: true,
            device: DeviceArg::LocalSync,
            flush_denormals: false,
            no_cache: true,
            time: false,
        };
        Repl::new(opts, false)
    }

    fn text(out: Output) -> String {
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
