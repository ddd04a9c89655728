//! `ptl run`: a script's top-level statements, or one function with arguments.

use std::path::{Path, PathBuf};

use crate::args::ExecOptions;
use crate::exec::{Executor, RunError};
use crate::inputs::{function_args, signature};
use crate::npy;
use crate::report::{CmdResult, Failed, fail, load_program, print_diagnostics};

pub struct RunRequest<'a> {
    pub file: &'a Path,
    pub function: Option<&'a str>,
    pub args: &'a [String],
    pub outs: &'a [PathBuf],
    pub exec: ExecOptions,
}

pub fn run(req: RunRequest<'_>) -> CmdResult {
    let (src, prog) = load_program(req.file)?;
    // A run-time failure is reported like a check error: against the source, with its span.
    let failed = |e: RunError| match e {
        RunError::Report(d) => {
            print_diagnostics(std::slice::from_ref(&d), req.file, &src);
            Failed
        }
        RunError::Message(m) => fail(m),
    };
    let mut exec = Executor::new(req.exec);
    let values = match req.function {
        None => {
            let values = exec.run_script(&prog).map_err(failed);
            exec.report_timing();
            values?
        }
        Some(name) => {
            let Some(f) = prog.function(name) else {
                let names: Vec<String> = prog.fns.iter().map(|f| format!("`{}`", f.name)).collect();
                let have = if names.is_empty() {
                    "it defines none".to_string()
                } else {
                    format!("it defines {}", names.join(", "))
                };
                return Err(fail(format!(
                    "no function named `{name}` in {}; {have}",
                    req.file.display()
                )));
            };
            if !req.outs.is_empty() && req.outs.len() != f.results.len() {
                return Err(fail(format!(
                    "`{}` returns {} result(s) but {} --out file(s) were given; give one per result",
                    signature(f),
                    f.results.len(),
                    req.outs.len()
                )));
            }
            let args = function_args(f, req.args)?;
            let values = exec.call(&prog, name, &args).map_err(failed);
            exec.report_timing();
            values?
        }
    };
    if req.outs.is_empty() {
        for v in &values {
            println!("{v}");
        }
    } else {
        for (path, v) in req.outs.iter().zip(&values) {
            npy::write(path, v).map_err(fail)?;
        }
    }
    Ok(())
}
