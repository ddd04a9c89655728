//! The command line: subcommands, flags and their help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const MAIN_HELP: &str = "\
Examples:
  ptl run examples/axpy.ptl                      run a script's top-level statements
  ptl run prog.ptl --fn axpy --arg x=x.npy --arg y='[1, 2, 3]' --out r.npy
  ptl check a.ptl b.ptl                          report every error in both files
  ptl emit prog.ptl --stage typed                show the inferred types
  ptl fmt --write prog.ptl                       rewrite a file in canonical formatting
  ptl repl                                       interactive session (also plain `ptl`)
  ptl lsp                                        language server for editors (stdio)

Environment:
  PTL_CACHE_DIR   where compiled modules are cached (default ~/.cache/ptl)
  PTL_HISTORY     the REPL's history file (default ~/.local/share/ptl/history)
  NO_COLOR        disables coloured error reports";

const RUN_HELP: &str = "\
Examples:
  ptl run examples/axpy.ptl
  ptl run --interp examples/axpy.ptl          same results, from the reference interpreter
  ptl run --time examples/axpy.ptl            timing line on stderr
  ptl run prog.ptl --fn axpy --arg x=x.npy --arg y='[1, 2, 3]'
  ptl run prog.ptl --fn bounds --arg v=v.npy --out lo.npy --out hi.npy

With --fn, each parameter gets exactly one --arg NAME=VALUE. A VALUE ending in `.npy` is
read from that file (float64, float32, int64, int32 or bool; lossless widening such as
float32 -> f64 is applied); anything else is a ptl expression such as `[[1, 2], [3, 4]]`,
`2.5` or `reshape([1, 2, 3, 4], [2, 2])`, whose number literals take the parameter's dtype as they would in
source. Results print to stdout unless --out is given: one --out FILE.npy per result, in
order.";

const LSP_HELP: &str = "\
An editor starts `ptl lsp` and talks to it over stdin and stdout. It offers diagnostics as
you type (the codes and messages of `ptl check`), hover with the type and dims of any name
or expression (for a call, the signature with the dims bound there), go to definition,
document symbols, formatting (that of `ptl fmt`), completion and inlay hints for the types
of `let`s. The book's chapter on editors has Neovim and VS Code set-ups.";

const CHECK_HELP: &str = "\
Examples:
  ptl check prog.ptl
  ptl check examples/*.ptl

Every error of every file is reported; the exit code is 1 if any file has one.";

const EMIT_HELP: &str = "\
Examples:
  ptl emit prog.ptl                         the MLIR module for the top-level statements
  ptl emit prog.ptl --fn axpy               the MLIR module for one function
  ptl emit prog.ptl --stage ast             the parsed program, canonically printed
  ptl emit prog.ptl --stage typed           signatures and every let with its inferred type
  ptl emit prog.ptl --stage vmfb -o p.vmfb  the compiled IREE module (binary, needs -o)";

const FMT_HELP: &str = "\
Examples:
  ptl fmt prog.ptl             print the canonical form to stdout
  ptl fmt --check src/*.ptl    exit 1 and list the files that are not canonical
  ptl fmt --write prog.ptl     rewrite the files in place

Comments are kept: one on its own line stays on its own line before the statement that
follows it, one after code stays at the end of its statement's line (each statement is
printed on one line, so a comment inside a statement that spans lines moves before it).";

const REPL_HELP: &str = "\
Examples:
  ptl repl
  ptl repl --interp

At the prompt:
  fn double(x: f64[n]) -> f64[n] { x * 2.0 }    definitions persist for the session
  let v = [1.0, 2.0, 3.0];                       so do bindings
  double(v)                                      an expression prints its value
  :type double(v)      :mlir double(v)      :load FILE      :help      :quit
An input continues on the next line while a bracket or brace is open.";

const CACHE_HELP: &str = "\
Examples:
  ptl cache dir      print the cache folder
  ptl cache clear    remove every cached module";

#[derive(Parser)]
#[command(
    name = "ptl",
    version,
    about = "ptl: a typed tensor language compiled through MLIR and IREE",
    after_help = MAIN_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Clone, Copy, ValueEnum, Debug, PartialEq, Eq)]
pub enum DeviceArg {
    /// The CPU: on the calling thread, and on a pool of worker threads for calls whose
    /// arguments hold 2^20 elements or more (the default)
    Cpu,
    /// Run on the calling thread, whatever the size (lowest overhead)
    LocalSync,
    /// Run on a pool of worker threads (faster on large arrays)
    LocalTask,
    /// Run on the first Vulkan device, a GPU or lavapipe (SPIR-V; f64 where the device has it)
    Vulkan,
    /// Run on the first NVIDIA GPU (a ptl built with the `cuda` feature)
    Cuda,
}

#[derive(Clone, Copy, ValueEnum, Debug, PartialEq, Eq)]
pub enum TargetArg {
    /// This machine's CPU
    Cpu,
    /// SPIR-V for Vulkan
    Vulkan,
    /// PTX for NVIDIA GPUs
    Cuda,
}

#[derive(Clone, Copy, ValueEnum, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The parsed syntax tree, printed as canonical source
    Ast,
    /// Function signatures and every `let` with its inferred type
    Typed,
    /// The MLIR module handed to IREE
    Mlir,
    /// The compiled IREE module (binary), written with -o
    Vmfb,
}

/// How programs are executed; shared by `run` and `repl`.
#[derive(Args, Clone, Debug)]
pub struct ExecOptions {
    /// Execute with the reference interpreter instead of compiling through IREE
    #[arg(long)]
    pub interp: bool,
    /// Where compiled code runs: the CPU (`cpu`: `local-sync`, and `local-task` for large
    /// calls; or either alone), `vulkan` or `cuda`
    #[arg(long, value_enum, default_value = "cpu")]
    pub device: DeviceArg,
    /// Flush subnormal floats to zero (faster on some CPUs; not IEEE, unlike NumPy)
    #[arg(long)]
    pub flush_denormals: bool,
    /// Do not read or write the on-disk compile cache
    #[arg(long)]
    pub no_cache: bool,
    /// Print a timing line (lower, compile or cache hit, load, run) to stderr
    #[arg(long)]
    pub time: bool,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run a script's top-level statements, or one function with --fn
    #[command(after_help = RUN_HELP)]
    Run {
        /// The script to run
        file: PathBuf,
        /// Call this function instead of running the top-level statements
        #[arg(long = "fn", value_name = "NAME")]
        function: Option<String>,
        /// An argument of --fn: NAME=FILE.npy or NAME=LITERAL, e.g. --arg y='[1, 2, 3]'
        #[arg(long = "arg", value_name = "NAME=VALUE", requires = "function")]
        args: Vec<String>,
        /// Write the results of --fn to .npy files, one --out per result, in order
        #[arg(long = "out", value_name = "FILE.npy", requires = "function")]
        outs: Vec<PathBuf>,
        #[command(flatten)]
        exec: ExecOptions,
    },
    /// Parse and type-check scripts; report every error (exit code 1 on error)
    #[command(after_help = CHECK_HELP)]
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print an intermediate form of a script: ast, typed, mlir (default) or vmfb
    #[command(after_help = EMIT_HELP)]
    Emit {
        file: PathBuf,
        /// Which form to print
        #[arg(long, value_enum, default_value = "mlir")]
        stage: Stage,
        /// Emit one function (mlir, vmfb) instead of the top-level statements
        #[arg(long = "fn", value_name = "NAME")]
        function: Option<String>,
        /// Write to this file instead of standard output (required for vmfb)
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// What the vmfb is compiled for; no device is needed (vulkan: any Vulkan 1.1 device
        /// with 64-bit types; cuda: sm_80)
        #[arg(long, value_enum, default_value = "cpu")]
        target: TargetArg,
    },
    /// Print scripts in canonical formatting, check it, or rewrite the files
    #[command(after_help = FMT_HELP)]
    Fmt {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print nothing; exit with code 1 if a file is not canonically formatted
        #[arg(long, conflicts_with = "write")]
        check: bool,
        /// Rewrite the files in place
        #[arg(long)]
        write: bool,
    },
    /// Start an interactive session (the default when stdin is a terminal)
    #[command(after_help = REPL_HELP)]
    Repl {
        #[command(flatten)]
        exec: ExecOptions,
    },
    /// Serve the Language Server Protocol over stdin/stdout, for editors
    #[command(after_help = LSP_HELP)]
    Lsp,
    /// Show or clear the compile cache
    #[command(after_help = CACHE_HELP)]
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
}

#[derive(Subcommand, Clone, Copy)]
pub enum CacheAction {
    /// Print the cache folder ($PTL_CACHE_DIR, else $XDG_CACHE_HOME/ptl, else ~/.cache/ptl)
    Dir,
    /// Remove every cached module
    Clear,
}
