//! The `ptl` command: run, check, emit and format programs, manage the compile cache, and an
//! interactive REPL.

mod args;
mod commands;
mod exec;
mod inputs;
mod interrupt;
mod npy;
mod npz;
mod repl;
mod report;
mod source;
mod spinner;
mod typed_view;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use args::{Cli, Command, DeviceArg, ExecOptions};
use commands::fmt::Mode;
use report::Failed;

fn main() -> ExitCode {
    // Output piped into a reader that stops early (`ptl run prog.ptl | head`) ends the
    // process quietly, as for other command-line tools, instead of a panic on a failed write.
    // SAFETY: setting a signal's disposition to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        None if std::io::stdin().is_terminal() => commands::repl::repl(ExecOptions {
            interp: false,
            device: DeviceArg::Cpu,
            flush_denormals: false,
            no_cache: false,
            time: false,
        }),
        None => {
            let _ = Cli::command().print_help();
            return ExitCode::from(2);
        }
        Some(Command::Run {
            file,
            function,
            args,
            outs,
            exec,
        }) => commands::run::run(commands::run::RunRequest {
            file: &file,
            function: function.as_deref(),
            args: &args,
            outs: &outs,
            exec,
        }),
        Some(Command::Check { files }) => commands::check::check(&files),
        Some(Command::Emit {
            file,
            stage,
            function,
            output,
            target,
        }) => commands::emit::emit(&file, stage, function.as_deref(), output.as_ref(), target),
        Some(Command::Fmt {
            files,
            check,
            write,
        }) => {
            let mode = if check {
                Mode::Check
            } else if write {
                Mode::Write
            } else {
                Mode::Print
            };
            commands::fmt::fmt(&files, mode)
        }
        Some(Command::Repl { exec }) => commands::repl::repl(exec),
        Some(Command::Cache { action }) => commands::cache::cache(action),
        Some(Command::Lsp) => ptl_lsp::serve_stdio().map_err(|e| report::fail(format!("language server: {e}"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failed) => ExitCode::FAILURE,
    }
}
