//! Runs typed programs compiled: lower, compile (through the cache), load, check arguments, invoke.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use eerie::runtime::{DeviceSpec, Program, Runtime};
use ptl_lang::typed::{TExprKind, TProgram, TStmt};
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
        Ok(ptl_lower::lower_program(prog, entry)?)
    }

    /// The vmfb for `entry` (from the cache when possible).
    pub fn vmfb(&mut self, prog: &TProgram, entry: &Entry) -> Result<(String, std::sync::Arc<Vec<u8>>)> {
        let t0 = Instant::now();
        let mlir = ptl_lower::lower_program(prog, entry)?;
        let lower = t0.elapsed();
        let flags = self.options.compile.flags();
        // The compiler version is only known once its library is loaded; loading it is part of
        // a cache miss, so hits key on the flags and the crate versions that produced the text.
        let key = CompileCache::key(&mlir, &flags, concat!("ptl ", env!("CARGO_PKG_VERSION"), " iree 3.13.0"));
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
        let f = self.exported(&key, SCRIPT_ENTRY)?;
        let outs = f.invoke(Vec::<eerie::runtime::Value>::new())?;
        outs.iter().zip(dtypes).map(|(b, dt)| from_buffer(b, dt)).collect()
    }

    /// Calls one function; arguments are checked against its signature first.
    pub fn call(&mut self, prog: &TProgram, name: &str, args: &[Value]) -> Result<Vec<Value>> {
        let f = prog.function(name).ok_or_else(|| RtError::UnknownFunction(name.to_string()))?;
        check_arguments(f, args)?;
        let dtypes: Vec<DType> = f.results.iter().map(|t| t.dtype).collect();
        let key = self.program(prog, &Entry::Function(name.to_string()))?;
        let inputs = args.iter().map(|a| to_buffer(&self.runtime, a)).collect::<Result<Vec<_>>>()?;
        let outs = self.exported(&key, name)?.invoke(inputs)?;
        outs.iter().zip(dtypes).map(|(b, dt)| from_buffer(b, dt)).collect()
    }
}

fn script_result_dtypes(prog: &TProgram) -> Result<Vec<DType>> {
    let mut out = Vec::new();
    for s in &prog.top {
        if let TStmt::Print(exprs, _) = s {
            for e in exprs {
                match &e.kind {
                    TExprKind::CallMulti(name, _) => {
                        let f = prog.function(name).ok_or_else(|| RtError::UnknownFunction(name.clone()))?;
                        out.extend(f.results.iter().map(|t| t.dtype));
                    }
                    _ => out.push(e.ty.dtype),
                }
            }
        }
    }
    Ok(out)
}
