//! Runs typed programs compiled: lower, compile (through the cache), load, check arguments, invoke.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use eerie::runtime::{DeviceSpec, Program, Runtime};
use ptl_lang::typed::{TProgram, TStmt};
use ptl_lang::{DType, Value};
use ptl_lower::{CompileOptions, Entry, SCRIPT_ENTRY};

use crate::cache::{CacheOutcome, CompileCache};
use crate::check::check_arguments;
use crate::convert::{from_buffer, to_buffer};
use crate::error::{Result, RtError};
use crate::fpu;

/// Which IREE CPU driver executes the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Device {
    /// Runs on the calling thread: lowest per-call overhead, best for small work.
    #[default]
    LocalSync,
    /// Runs on a pool of worker threads: faster for large work.
    LocalTask,
}

impl Device {
    fn spec(self) -> DeviceSpec {
        match self {
            Device::LocalSync => DeviceSpec::local_sync(),
            Device::LocalTask => DeviceSpec::local_task(),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    pub device: Device,
    /// Flush subnormals to zero (faster on some CPUs, not IEEE). Off by default.
    pub flush_denormals: bool,
    /// Where compiled modules are kept across runs; `None` keeps them in memory only.
    pub cache_dir: Option<PathBuf>,
    pub compile: CompileOptions,
}

/// Where the time of the last preparation went.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    pub lower: Duration,
    pub compile: Duration,
    pub load: Duration,
    pub outcome: Option<CacheOutcome>,
}

pub struct Engine {
    runtime: Runtime,
    options: EngineOptions,
    cache: CompileCache,
    programs: HashMap<String, Program>,
    /// Resolved exported functions, by cache key and name.
    functions: HashMap<(String, String), eerie::runtime::Function>,
    /// Programs already prepared, with their entry and cache key: a repeated call of an
    /// unchanged program skips lowering (which costs milliseconds) after one tree comparison.
    prepared: Vec<(TProgram, Entry, String)>,
    /// The run-time checks of each loaded module, by cache key: a failed assertion names one.
    checks: HashMap<String, Vec<ptl_lower::CheckSite>>,
    /// Entries, by cache key and name, whose module has no checks-only twin (no checks).
    unchecked: HashSet<(String, String)>,
    last: Timings,
}

/// How many prepared programs are remembered.
const PREPARED_LIMIT: usize = 64;

impl Engine {
    pub fn new(options: EngineOptions) -> Result<Self> {
        fpu::ensure_linked();
        fpu::set_flush_denormals(options.flush_denormals);
        let runtime = Runtime::new(options.device.spec())?;
        let cache = CompileCache::new(options.cache_dir.clone());
        Ok(Engine {
            runtime,
            options,
            cache,
            programs: HashMap::new(),
            functions: HashMap::new(),
            prepared: Vec::new(),
            checks: HashMap::new(),
            unchecked: HashSet::new(),
            last: Timings::default(),
        })
    }

    /// Timings of the most recent compile step.
    pub fn timings(&self) -> &Timings {
        &self.last
    }

    pub fn cache_mut(&mut self) -> &mut CompileCache {
        &mut self.cache
    }

    /// The MLIR text for `entry`, as it is compiled.
    pub fn mlir(&self, prog: &TProgram, entry: &Entry) -> Result<String> {
        Ok(ptl_lower::lower_program(prog, entry)?.mlir)
    }

    /// The vmfb for `entry` (from the cache when possible).
    pub fn vmfb(&mut self, prog: &TProgram, entry: &Entry) -> Result<(String, std::sync::Arc<Vec<u8>>)> {
        let t0 = Instant::now();
        let lowered = ptl_lower::lower_program(prog, entry)?;
        let mlir = lowered.mlir;
        let lower = t0.elapsed();
        let flags = self.options.compile.flags();
        // The compiler is identified without loading its library (a hit must stay cheap): by
        // the library file and the version its distribution declares.
        let version = format!("ptl {} {}", env!("CARGO_PKG_VERSION"), ptl_lower::compiler_identity()?);
        let key = CompileCache::key(&mlir, &flags, &version);
        self.checks.insert(key.clone(), lowered.checks);
        let t1 = Instant::now();
        let options = self.options.compile.clone();
        let (vmfb, outcome) = self.cache.get_or_compile(&key, || Ok(ptl_lower::compile(&mlir, &options)?))?;
        self.last = Timings { lower, compile: t1.elapsed(), load: Duration::ZERO, outcome: Some(outcome) };
        Ok((key, vmfb))
    }

    fn program(&mut self, prog: &TProgram, entry: &Entry) -> Result<String> {
        if let Some((_, _, key)) = self.prepared.iter().find(|(p, e, _)| e == entry && p == prog) {
            self.last = Timings { outcome: Some(CacheOutcome::Memory), ..Timings::default() };
            return Ok(key.clone());
        }
        let (key, vmfb) = self.vmfb(prog, entry)?;
        if !self.programs.contains_key(&key) {
            let t = Instant::now();
            let p = self.runtime.load_vmfb(&vmfb)?;
            self.last.load = t.elapsed();
            self.programs.insert(key.clone(), p);
        }
        if self.prepared.len() >= PREPARED_LIMIT {
            self.prepared.remove(0);
        }
        self.prepared.push((prog.clone(), entry.clone(), key.clone()));
        Ok(key)
    }

    /// The exported function `name` of the loaded module `key`, resolved once.
    fn exported(&mut self, key: &str, name: &str) -> Result<&eerie::runtime::Function> {
        let id = (key.to_string(), name.to_string());
        if !self.functions.contains_key(&id) {
            let program = self.programs.get(key).ok_or_else(|| RtError::Internal(format!("module {key} is not loaded")))?;
            let f = program.function(&format!("module.{name}"))?;
            self.functions.insert(id.clone(), f);
        }
        self.functions.get(&id).ok_or_else(|| RtError::Internal(format!("`{name}` is not resolved")))
    }

    /// Runs the script's top-level statements; returns the printed values in order.
    pub fn run_script(&mut self, prog: &TProgram) -> Result<Vec<Value>> {
        let dtypes = script_result_dtypes(prog)?;
        let key = self.program(prog, &Entry::Script)?;
        self.checks_first(&key, SCRIPT_ENTRY, &[])?;
        let f = self.exported(&key, SCRIPT_ENTRY)?;
        let outs = match f.invoke(Vec::<eerie::runtime::Value>::new()) {
            Ok(outs) => outs,
            Err(e) => return Err(self.failure(&key, SCRIPT_ENTRY, &[], e)),
        };
        outs.iter().zip(dtypes).map(|(b, dt)| from_buffer(b, dt)).collect()
    }

    /// Calls one function; arguments are checked against its signature first.
    pub fn call(&mut self, prog: &TProgram, name: &str, args: &[Value]) -> Result<Vec<Value>> {
        let f = prog.function(name).ok_or_else(|| RtError::UnknownFunction(name.to_string()))?;
        check_arguments(f, args)?;
        let dtypes: Vec<DType> = f.results.iter().map(|t| t.dtype).collect();
        let key = self.program(prog, &Entry::Function(name.to_string()))?;
        self.checks_first(&key, name, args)?;
        let inputs = args.iter().map(|a| to_buffer(&self.runtime, a)).collect::<Result<Vec<_>>>()?;
        let outs = match self.exported(&key, name)?.invoke(inputs) {
            Ok(outs) => outs,
            Err(e) => return Err(self.failure(&key, name, args, e)),
        };
        outs.iter().zip(dtypes).map(|(b, dt)| from_buffer(b, dt)).collect()
    }
}

impl Engine {
    /// Runs the checks-only twin of `name` before `name` itself. IREE does not order a
    /// function's run-time checks before its kernels: a kernel could run on the sizes a check
    /// is about to reject, and read or write out of bounds (seen as heap corruption). The
    /// twin computes only what its checks need, so the kernels see only accepted arguments.
    fn checks_first(&mut self, key: &str, name: &str, args: &[Value]) -> Result<()> {
        let id = (key.to_string(), name.to_string());
        if self.unchecked.contains(&id) {
            return Ok(());
        }
        let twin = ptl_lower::checks_entry(name);
        let twin_exists = self.programs.get(key).is_some_and(|p| p.function(&format!("module.{twin}")).is_ok());
        if !twin_exists {
            self.unchecked.insert(id);
            return Ok(());
        }
        let inputs = args.iter().map(|a| to_buffer(&self.runtime, a)).collect::<Result<Vec<_>>>()?;
        match self.exported(key, &twin)?.invoke(inputs) {
            Ok(_) => Ok(()),
            Err(e) => Err(match self.check_named(key, &e.to_string()) {
                Some(site) => RtError::Check(site),
                None => RtError::from(e),
            }),
        }
    }

    /// A failed invocation of `name` as an error: the run-time check its assertion names.
    /// When IREE failed before any check ran (its own buffer validation), the module's
    /// checks-only twin of `name` runs on the same arguments to find the check that explains
    /// the failure; IREE's own message is the answer only when every check passes.
    fn failure(&mut self, key: &str, name: &str, args: &[Value], e: eerie::runtime::RuntimeError) -> RtError {
        if let Some(site) = self.check_named(key, &e.to_string()) {
            return RtError::Check(site);
        }
        let twin = ptl_lower::checks_entry(name);
        let has_twin = self.programs.get(key).is_some_and(|p| p.function(&format!("module.{twin}")).is_ok());
        if has_twin {
            let inputs: Result<Vec<_>> = args.iter().map(|a| to_buffer(&self.runtime, a)).collect();
            if let Ok(inputs) = inputs
                && let Ok(f) = self.exported(key, &twin)
                && let Err(twin_err) = f.invoke(inputs)
                && let Some(site) = self.check_named(key, &twin_err.to_string())
            {
                return RtError::Check(site);
            }
        }
        RtError::from(e)
    }

    /// The check a failure's text names, if it names one of module `key`'s checks.
    fn check_named(&self, key: &str, text: &str) -> Option<ptl_lower::CheckSite> {
        let n = ptl_lower::checks::find_marker(text)?;
        self.checks.get(key)?.get(n).cloned()
    }
}

fn script_result_dtypes(prog: &TProgram) -> Result<Vec<DType>> {
    let mut out = Vec::new();
    for s in &prog.top {
        if let TStmt::Print(exprs, _) = s {
            for e in exprs {
                out.extend(e.result_types().iter().map(|t| t.dtype));
            }
        }
    }
    Ok(out)
}
