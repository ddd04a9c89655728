//! Executes typed programs: compiled through IREE (the default) or with the reference
//! interpreter, and describes where the time went.

use std::time::{Duration, Instant};

use ptl_lang::typed::TProgram;
use ptl_lang::{Diagnostic, Value};
use ptl_lower::Entry;
use ptl_rt::{CacheOutcome, CompileCache, Device, Engine, EngineOptions};

use crate::args::{DeviceArg, ExecOptions};
use crate::spinner;

/// Why a run failed: a report about the program's source (a failed run-time check, a bad
/// argument), or a message about anything else.
#[derive(Debug)]
pub enum RunError {
    Report(Diagnostic),
    Message(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Report(d) => {
                write!(f, "{}", d.message)?;
                for note in &d.notes {
                    write!(f, "\n  note: {note}")?;
                }
                Ok(())
            }
            RunError::Message(m) => f.write_str(m),
        }
    }
}

impl From<ptl_interp::InterpError> for RunError {
    fn from(e: ptl_interp::InterpError) -> Self {
        match e.span() {
            Some(_) => RunError::Report(e.diagnostic()),
            None => RunError::Message(e.to_string()),
        }
    }
}

impl From<ptl_rt::RtError> for RunError {
    fn from(e: ptl_rt::RtError) -> Self {
        match e.diagnostic() {
            Some(d) if !(d.span.is_empty() && matches!(e, ptl_rt::RtError::Argument { .. })) => RunError::Report(d),
            _ => RunError::Message(e.to_string()),
        }
    }
}

pub struct Executor {
    opts: ExecOptions,
    /// Created on first use, then kept: it holds the in-memory compile cache and the loaded
    /// modules.
    engine: Option<Engine>,
    last_timing: Option<String>,
}

impl Executor {
    pub fn new(opts: ExecOptions) -> Self {
        Executor {
            opts,
            engine: None,
            last_timing: None,
        }
    }

    fn engine(&mut self) -> Result<&mut Engine, String> {
        if self.engine.is_none() {
            let device = match self.opts.device {
                DeviceArg::Cpu | DeviceArg::LocalSync => Device::LocalSync,
                DeviceArg::LocalTask => Device::LocalTask,
                DeviceArg::Vulkan => Device::Vulkan,
                DeviceArg::Cuda => Device::Cuda,
            };
            // A cache folder others can write is not trusted with native code: the program
            // still runs, compiled afresh, and the user is told why.
            let cache_dir = if self.opts.no_cache {
                None
            } else {
                CompileCache::default_dir().filter(|dir| match CompileCache::refusal(dir) {
                    Some(why) => {
                        eprintln!("warning: {why}; compiling without the cache");
                        false
                    }
                    None => true,
                })
            };
            let options = EngineOptions {
                device,
                // `--device local-sync` keeps large calls on the calling thread too.
                large_calls_on_task: if self.opts.device == DeviceArg::Cpu { Some(ptl_rt::LARGE_CALLS_FROM) } else { None },
                flush_denormals: self.opts.flush_denormals,
                cache_dir,
                ..Default::default()
            };
            self.engine = Some(Engine::new(options).map_err(|e| e.to_string())?);
        }
        self.engine.as_mut().ok_or_else(|| "no engine".to_string())
    }

    /// Runs the top-level statements; returns the printed values in order.
    pub fn run_script(&mut self, prog: &TProgram) -> Result<Vec<Value>, RunError> {
        let t = Instant::now();
        let out = if self.opts.interp {
            ptl_interp::run_program(prog).map_err(RunError::from)
        } else {
            let engine = self.engine().map_err(RunError::Message)?;
            spinner::while_busy(|| engine.run_script(prog)).map_err(RunError::from)
        };
        self.record(&out, t.elapsed(), self.opts.interp);
        out
    }

    /// Calls one function; the arguments are checked against its signature first.
    pub fn call(
        &mut self,
        prog: &TProgram,
        name: &str,
        args: &[Value],
    ) -> Result<Vec<Value>, RunError> {
        self.call_on(prog, name, args, self.opts.interp)
    }

    /// [`Executor::call`] by the interpreter (`interp`) or compiled, whatever the options say.
    pub fn call_on(
        &mut self,
        prog: &TProgram,
        name: &str,
        args: &[Value],
        interp: bool,
    ) -> Result<Vec<Value>, RunError> {
        let t = Instant::now();
        let out = if interp {
            ptl_interp::call_function(prog, name, args).map_err(RunError::from)
        } else {
            let engine = self.engine().map_err(RunError::Message)?;
            spinner::while_busy(|| engine.call(prog, name, args)).map_err(RunError::from)
        };
        self.record(&out, t.elapsed(), interp);
        out
    }

    /// Keeps the timing line of a successful run (a failed one has no complete timings).
    fn record<T, E>(&mut self, out: &Result<T, E>, total: Duration, interp: bool) {
        if out.is_err() {
            self.last_timing = None;
            return;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        self.last_timing = Some(match (&self.engine, interp) {
            (Some(e), false) => {
                let t = e.timings();
                let source = match t.outcome {
                    Some(CacheOutcome::Memory) => "cache hit (memory)",
                    Some(CacheOutcome::Disk) => "cache hit (disk)",
                    Some(CacheOutcome::Compiled) => "compiled",
                    None => "not compiled",
                };
                let run = total.saturating_sub(t.lower + t.compile + t.load);
                let calls = match (t.invocations, t.check_invocations) {
                    (1, 0) => "1 compiled call".to_string(),
                    (n, 0) => format!("{n} compiled calls"),
                    (n, c) => format!("{n} compiled call{}, {c} checks-only", if n == 1 { "" } else { "s" }),
                };
                format!(
                    "time: lower {:.1} ms, compile {:.1} ms ({source}), load {:.1} ms, run {:.1} ms ({calls}), total {:.1} ms",
                    ms(t.lower),
                    ms(t.compile),
                    ms(t.load),
                    ms(run),
                    ms(total)
                )
            }
            _ => format!("time: interpreted in {:.1} ms", ms(total)),
        });
    }

    /// The timing line of the last run or call.
    pub fn timing(&self) -> Option<&str> {
        self.last_timing.as_deref()
    }

    /// Prints the timing line to stderr when `--time` was given.
    pub fn report_timing(&self) {
        if self.opts.time {
            if let Some(t) = self.timing() {
                eprintln!("{t}");
            }
        }
    }
}

/// The MLIR module for `entry`, as the compiled path builds it.
pub fn mlir(prog: &TProgram, entry: &Entry) -> Result<String, String> {
    ptl_lower::lower_program(prog, entry).map(|l| l.mlir).map_err(|e| e.to_string())
}
