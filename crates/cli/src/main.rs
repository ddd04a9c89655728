//! The `ptl` command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use ptl_lang::diag::render_all;
use ptl_lang::typed::TProgram;
use ptl_lower::Entry;
use ptl_rt::{CompileCache, Device, Engine, EngineOptions};

#[derive(Parser)]
#[command(name = "ptl", version, about = "ptl: a typed tensor language compiled through MLIR and IREE")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum DeviceArg {
    /// Run on the calling thread (lowest overhead; the default)
    LocalSync,
    /// Run on a pool of worker threads (faster on large arrays)
    LocalTask,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Stage {
    /// The parsed syntax tree, printed as canonical source
    Ast,
    /// The typed program (every expression with its type)
    Typed,
    /// The MLIR module handed to IREE
    Mlir,
    /// The compiled IREE module (binary), written with -o
    Vmfb,
}

#[derive(clap::Args)]
struct RunOptions {
    /// Execute with the reference interpreter instead of compiling
    #[arg(long)]
    interp: bool,
    /// IREE CPU driver
    #[arg(long, value_enum, default_value = "local-sync")]
    device: DeviceArg,
    /// Flush subnormal floats to zero (faster on some CPUs; not IEEE, unlike NumPy)
    #[arg(long)]
    flush_denormals: bool,
    /// Do not read or write the on-disk compile cache
    #[arg(long)]
    no_cache: bool,
    /// Print how long lowering, compiling and running took (to stderr)
    #[arg(long)]
    time: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run a script's top-level statements, printing each `print`
    Run {
        file: PathBuf,
        #[command(flatten)]
        opts: RunOptions,
    },
    /// Parse and type-check a script; report every error (exit code 1 on error)
    Check { files: Vec<PathBuf> },
    /// Print an intermediate form of a script
    Emit {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "mlir")]
        stage: Stage,
        /// Emit one function (and what it calls) instead of the top-level statements
        #[arg(long = "fn")]
        function: Option<String>,
        /// Write to this file instead of standard output (required for vmfb)
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Print a script in canonical formatting
    Fmt {
        file: PathBuf,
        /// Exit with code 1 if the file is not canonically formatted, instead of printing it
        #[arg(long)]
        check: bool,
    },
}

/// A failure already explained to the user.
struct Failed;

fn read(file: &Path) -> Result<String, Failed> {
    std::fs::read_to_string(file).map_err(|e| {
        eprintln!("error: cannot read {}: {e}", file.display());
        Failed
    })
}

fn color() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::IsTerminal::is_terminal(&std::io::stderr())
}

fn frontend(file: &Path) -> Result<(String, TProgram), Failed> {
    let src = read(file)?;
    match ptl_lang::frontend(&src) {
        Ok(p) => Ok((src, p)),
        Err(diags) => {
            eprint!("{}", render_all(&diags, &file.display().to_string(), &src, color()));
            eprintln!("error: {} error(s) in {}", diags.len(), file.display());
            Err(Failed)
        }
    }
}

fn engine(opts: &RunOptions) -> Result<Engine, Failed> {
    let device = match opts.device {
        DeviceArg::LocalSync => Device::LocalSync,
        DeviceArg::LocalTask => Device::LocalTask,
    };
    let cache_dir = if opts.no_cache { None } else { CompileCache::default_dir() };
    Engine::new(EngineOptions { device, flush_denormals: opts.flush_denormals, cache_dir, ..Default::default() })
        .map_err(|e| fail(&e))
}

fn fail(e: &dyn std::fmt::Display) -> Failed {
    eprintln!("error: {e}");
    Failed
}

fn run(file: &Path, opts: &RunOptions) -> Result<(), Failed> {
    let (_, prog) = frontend(file)?;
    let t = Instant::now();
    let values = if opts.interp {
        ptl_lang::interp::run_program(&prog).map_err(|e| fail(&e))?
    } else {
        let mut e = engine(opts)?;
        let v = e.run_script(&prog).map_err(|e| fail(&e))?;
        if opts.time {
            let tm = e.timings();
            eprintln!(
                "time: lower {:.1} ms, compile {:.1} ms ({:?}), load {:.1} ms",
                tm.lower.as_secs_f64() * 1e3,
                tm.compile.as_secs_f64() * 1e3,
                tm.outcome.map(|o| format!("{o:?}")).unwrap_or_default(),
                tm.load.as_secs_f64() * 1e3
            );
        }
        v
    };
    if opts.time {
        eprintln!("time: total {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    }
    for v in values {
        println!("{v}");
    }
    Ok(())
}

fn check(files: &[PathBuf]) -> Result<(), Failed> {
    let mut ok = true;
    for f in files {
        ok &= frontend(f).is_ok();
    }
    if ok { Ok(()) } else { Err(Failed) }
}

fn emit(file: &Path, stage: Stage, function: Option<String>, output: Option<PathBuf>) -> Result<(), Failed> {
    let entry = match function {
        Some(f) => Entry::Function(f),
        None => Entry::Script,
    };
    let bytes: Vec<u8> = match stage {
        Stage::Ast => {
            let src = read(file)?;
            let (ast, diags) = ptl_lang::parse(&src);
            match ast {
                Some(ast) if diags.is_empty() => ptl_lang::print_program(&ast).into_bytes(),
                _ => {
                    eprint!("{}", render_all(&diags, &file.display().to_string(), &src, color()));
                    return Err(Failed);
                }
            }
        }
        Stage::Typed => format!("{:#?}\n", frontend(file)?.1).into_bytes(),
        Stage::Mlir => {
            let (_, prog) = frontend(file)?;
            ptl_lower::lower_program(&prog, &entry).map_err(|e| fail(&e))?.into_bytes()
        }
        Stage::Vmfb => {
            let (_, prog) = frontend(file)?;
            let mlir = ptl_lower::lower_program(&prog, &entry).map_err(|e| fail(&e))?;
            if output.is_none() {
                eprintln!("error: a vmfb is binary; write it to a file with -o FILE");
                return Err(Failed);
            }
            ptl_lower::compile(&mlir, &Default::default()).map_err(|e| fail(&e))?
        }
    };
    match output {
        Some(path) => std::fs::write(&path, bytes).map_err(|e| fail(&format!("cannot write {}: {e}", path.display()))),
        None => {
            print!("{}", String::from_utf8_lossy(&bytes));
            Ok(())
        }
    }
}

fn fmt(file: &Path, check_only: bool) -> Result<(), Failed> {
    let src = read(file)?;
    let (ast, diags) = ptl_lang::parse(&src);
    let Some(ast) = ast.filter(|_| diags.is_empty()) else {
        eprint!("{}", render_all(&diags, &file.display().to_string(), &src, color()));
        return Err(Failed);
    };
    let formatted = ptl_lang::print_program(&ast);
    if check_only {
        if formatted != src {
            eprintln!("{} is not formatted; run `ptl fmt {}`", file.display(), file.display());
            return Err(Failed);
        }
    } else {
        print!("{formatted}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { file, opts } => run(&file, &opts),
        Command::Check { files } => check(&files),
        Command::Emit { file, stage, function, output } => emit(&file, stage, function, output),
        Command::Fmt { file, check } => fmt(&file, check),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failed) => ExitCode::FAILURE,
    }
}
