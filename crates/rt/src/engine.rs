//! Runs typed programs compiled: lower, compile (through the cache), load, check arguments, invoke.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use eerie::runtime::{Program, Runtime};
use ptl_lang::typed::{TFn, TProgram, TStmt};
use ptl_lang::{DType, Value};
use ptl_lower::{CompileOptions, Entry, SCRIPT_ENTRY};

use crate::cache::{CacheOutcome, CompileCache};
use crate::check::check_arguments;
use crate::convert::{from_buffer, to_buffer, view_to_buffer};
use crate::device::{Device, DeviceInfo};
use crate::values::{Arg, DeviceValue, HostMemory, HostView, Shaped};
use crate::error::{Result, RtError};
use crate::fpu;

/// When a function is compiled again for the concrete shapes of its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Specialize {
    /// Always the one dynamic-shape module.
    Off,
    /// From the second call with the same argument shapes, when the arguments hold at least
    /// this many elements in all (a compile costs about half a second).
    FromElements(usize),
}

impl Default for Specialize {
    fn default() -> Self {
        Specialize::FromElements(SPECIALIZE_FROM)
    }
}

/// The default threshold of [`Specialize::FromElements`]: 2^20 elements (8 MiB of f64).
pub const SPECIALIZE_FROM: usize = 1 << 20;

/// At most this many shape-specialised modules per function; later shapes use the dynamic one.
const SPECIALIZE_LIMIT: usize = 8;

#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Shape specialisation of large calls.
    pub specialize: Specialize,
    /// The device; a GPU's compile target (`compile.target`) follows from it.
    pub device: Device,
    /// With [`Device::LocalSync`], calls whose arguments hold at least this many elements in
    /// all run on `local-task` (a pool of worker threads) instead: the pool costs tens of
    /// microseconds per call and pays off only on large work. `None` keeps every call on
    /// `device`. The default is [`LARGE_CALLS_FROM`].
    pub large_calls_on_task: Option<usize>,
    /// The CUDA compute capability to compile for (80 when `None`).
    pub cuda_sm: Option<u32>,
    /// Flush subnormals to zero (faster on some CPUs, not IEEE). Off by default.
    pub flush_denormals: bool,
    /// Leave glibc's allocation thresholds alone, so freed large buffers go back to the
    /// kernel at once. By default they are kept for the next call ([`crate::memory`]).
    pub return_freed_buffers: bool,
    /// Where compiled modules are kept across runs; `None` keeps them in memory only.
    pub cache_dir: Option<PathBuf>,
    pub compile: CompileOptions,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            specialize: Specialize::default(),
            device: Device::default(),
            large_calls_on_task: Some(LARGE_CALLS_FROM),
            cuda_sm: None,
            flush_denormals: false,
            return_freed_buffers: false,
            cache_dir: None,
            compile: CompileOptions::default(),
        }
    }
}

/// The default of [`EngineOptions::large_calls_on_task`]: 2^20 elements. Measured with
/// `make bench` on two cores: below it local-sync is as fast or faster (at 10^5 elements a
/// fused elementwise call took 125 us on local-sync and 212 us on local-task); from 10^6 on,
/// local-task is faster for reductions, softmax, products and `exp` (a 1000x1000 softmax
/// 4.8 ms against 5.6 ms, a 1024 f64 matmul 119 ms against 239 ms).
pub const LARGE_CALLS_FROM: usize = 1 << 20;

/// One IREE runtime with the modules loaded on it.
struct Side {
    runtime: Runtime,
    programs: HashMap<String, Program>,
    /// Resolved exported functions, by cache key, then name (looked up without allocating).
    functions: HashMap<String, HashMap<String, eerie::runtime::Function>>,
    /// Each function's checks-only twin, by cache key, then the function's name; `None` when
    /// it has none (no run-time checks).
    twins: HashMap<String, HashMap<String, Option<eerie::runtime::Function>>>,
}

impl Side {
    fn new(runtime: Runtime) -> Self {
        Side { runtime, programs: HashMap::new(), functions: HashMap::new(), twins: HashMap::new() }
    }
}

/// The engine's device in [`Engine::sides`].
const MAIN: usize = 0;
/// Local-task, for large calls when the device is local-sync ([`EngineOptions::large_calls_on_task`]).
const LARGE: usize = 1;

/// Where the time of the last preparation went.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    pub lower: Duration,
    pub compile: Duration,
    pub load: Duration,
    pub outcome: Option<CacheOutcome>,
    /// Calls of the compiled program since the preparation: a program's loops run inside
    /// one call, so a script takes one.
    pub invocations: u32,
    /// Calls of its checks-only twin, which runs first when the program has run-time checks.
    pub check_invocations: u32,
}

pub struct Engine {
    /// The device's runtime, then (made at the first large call) local-task's.
    sides: Vec<Side>,
    /// Whether local-task could not be started (large calls then stay on the device).
    no_large_side: bool,
    device: DeviceInfo,
    options: EngineOptions,
    cache: CompileCache,
    /// Programs already prepared, with their entry and cache key: a repeated call of an
    /// unchanged program skips lowering (which costs milliseconds) after one tree comparison.
    prepared: Vec<(TProgram, Entry, String)>,
    /// The run-time checks of each loaded module, by cache key: a failed assertion names one.
    checks: HashMap<String, Vec<ptl_lower::CheckSite>>,
    /// Shape-specialised modules by (dynamic module's key, function, shapes): the variant's
    /// key, or `None` when it failed to compile (the dynamic module serves those shapes).
    variants: HashMap<(String, String, Vec<Vec<usize>>), Option<String>>,
    /// Calls seen per (key, function, shapes) that have no variant yet.
    shape_calls: HashMap<(String, String, Vec<Vec<usize>>), u32>,
    last: Timings,
}

/// A function made ready to call by [`Engine::prepare`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    key: String,
    name: String,
}

/// How many prepared programs are remembered.
const PREPARED_LIMIT: usize = 64;

impl Engine {
    pub fn new(mut options: EngineOptions) -> Result<Self> {
        let (device, target) = crate::device::probe(options.device, options.cuda_sm)?;
        options.compile.target = target;
        fpu::ensure_linked();
        fpu::set_flush_denormals(options.flush_denormals);
        if !options.return_freed_buffers {
            crate::memory::keep_freed_buffers();
        }
        let mut runtime = Runtime::new(options.device.spec()).map_err(|e| {
            RtError::Device(format!("cannot open the {} device: {}", options.device.driver(), crate::error::status_message(&e.to_string())))
        })?;
        if options.compile.target == ptl_lower::Target::Cpu {
            crate::host::register(&mut runtime)?;
        }
        let cache = CompileCache::new(options.cache_dir.clone());
        Ok(Engine {
            sides: vec![Side::new(runtime)],
            no_large_side: false,
            device,
            options,
            cache,
            prepared: Vec::new(),
            checks: HashMap::new(),
            variants: HashMap::new(),
            shape_calls: HashMap::new(),
            last: Timings::default(),
        })
    }

    /// The device calls run on, and what it can compute.
    pub fn device(&self) -> &DeviceInfo {
        &self.device
    }

    /// Timings of the most recent compile step.
    pub fn timings(&self) -> &Timings {
        &self.last
    }

    /// Whether large calls have started running on local-task
    /// ([`EngineOptions::large_calls_on_task`]).
    pub fn large_calls_started(&self) -> bool {
        self.sides.len() > LARGE
    }

    /// How many shape-specialised modules are loaded.
    pub fn specialized_modules(&self) -> usize {
        self.variants.values().filter(|v| v.is_some()).count()
    }

    pub fn cache_mut(&mut self) -> &mut CompileCache {
        &mut self.cache
    }

    /// The MLIR text for `entry`, as it is compiled.
    pub fn mlir(&self, prog: &TProgram, entry: &Entry) -> Result<String> {
        Ok(ptl_lower::lower_program_for(prog, entry, &self.options.compile)?.mlir)
    }

    /// The vmfb for `entry` (from the cache when possible).
    pub fn vmfb(&mut self, prog: &TProgram, entry: &Entry) -> Result<(String, std::sync::Arc<Vec<u8>>)> {
        crate::device::check_fits(prog, entry, self.options.compile.target, &self.device)?;
        let t0 = Instant::now();
        let lowered = ptl_lower::lower_program_for(prog, entry, &self.options.compile)?;
        let mlir = lowered.mlir;
        let lower = t0.elapsed();
        let flags = self.options.compile.identity();
        // The compiler is identified without loading its library (a hit must stay cheap): by
        // the library file and the version its distribution declares.
        let version = format!("ptl {} {}", env!("CARGO_PKG_VERSION"), ptl_lower::compiler_identity()?);
        let key = CompileCache::key(&mlir, &flags, &version);
        self.checks.insert(key.clone(), lowered.checks);
        let t1 = Instant::now();
        let options = self.options.compile.clone();
        let (vmfb, outcome) = self.cache.get_or_compile(&key, || Ok(ptl_lower::compile(&mlir, &options)?))?;
        self.last = Timings { lower, compile: t1.elapsed(), outcome: Some(outcome), ..Timings::default() };
        Ok((key, vmfb))
    }

    fn program(&mut self, prog: &TProgram, entry: &Entry) -> Result<String> {
        if let Some((_, _, key)) = self.prepared.iter().find(|(p, e, _)| e == entry && p == prog) {
            self.last = Timings { outcome: Some(CacheOutcome::Memory), ..Timings::default() };
            return Ok(key.clone());
        }
        let (key, vmfb) = self.vmfb(prog, entry)?;
        let t = Instant::now();
        if self.load_on(MAIN, &key, &vmfb)? {
            self.last.load = t.elapsed();
        }
        if self.prepared.len() >= PREPARED_LIMIT {
            self.prepared.remove(0);
        }
        self.prepared.push((prog.clone(), entry.clone(), key.clone()));
        Ok(key)
    }

    /// The exported function `name` of the module `key` loaded on `side`, resolved once.
    fn exported(&mut self, side: usize, key: &str, name: &str) -> Result<&eerie::runtime::Function> {
        let side = &mut self.sides[side];
        let resolved = side.functions.get(key).is_some_and(|m| m.contains_key(name));
        if !resolved {
            let program = side.programs.get(key).ok_or_else(|| RtError::Internal(format!("module {key} is not loaded")))?;
            let f = program.function(&format!("module.{name}"))?;
            side.functions.entry(key.to_string()).or_default().insert(name.to_string(), f);
        }
        side.functions.get(key).and_then(|m| m.get(name)).ok_or_else(|| RtError::Internal(format!("`{name}` is not resolved")))
    }

    /// The side a call with these arguments runs on: local-task for a large call when the
    /// device is local-sync and the options ask for it (started at the first such call).
    fn side_for(&mut self, elements: usize) -> usize {
        let Some(from) = self.options.large_calls_on_task else { return MAIN };
        if self.options.device != Device::LocalSync || self.no_large_side {
            return MAIN;
        }
        if elements < from {
            return MAIN;
        }
        if self.sides.len() <= LARGE {
            match Runtime::new(Device::LocalTask.spec()).map_err(|_| ()).and_then(|mut rt| crate::host::register(&mut rt).map(|_| rt).map_err(|_| ())) {
                Ok(rt) => self.sides.push(Side::new(rt)),
                Err(()) => {
                    self.no_large_side = true;
                    return MAIN;
                }
            }
        }
        LARGE
    }

    /// Loads module `key` (compiled already, so in the cache) on `side` too.
    fn ensure_loaded(&mut self, side: usize, key: &str) -> Result<()> {
        if self.sides[side].programs.contains_key(key) {
            return Ok(());
        }
        let missing = || Err(RtError::Internal(format!("module {key} is not in the compile cache")));
        let (vmfb, _) = self.cache.get_or_compile(key, missing)?;
        self.load_on(side, key, &vmfb).map(|_| ())
    }

    /// Loads `vmfb` as module `key` on `side` unless it is loaded there; whether it was loaded now.
    fn load_on(&mut self, side: usize, key: &str, vmfb: &[u8]) -> Result<bool> {
        let side = &mut self.sides[side];
        if side.programs.contains_key(key) {
            return Ok(false);
        }
        let p = side.runtime.load_vmfb(vmfb)?;
        side.programs.insert(key.to_string(), p);
        Ok(true)
    }

    /// Whether the device computes in host memory (the CPU drivers), where arguments can be
    /// read and results returned in place.
    fn host_device(&self) -> bool {
        matches!(self.options.device, Device::LocalSync | Device::LocalTask)
    }

    /// Runs the script's top-level statements; returns the printed values in order.
    pub fn run_script(&mut self, prog: &TProgram) -> Result<Vec<Value>> {
        let dtypes = script_result_dtypes(prog)?;
        let key = self.program(prog, &Entry::Script)?;
        self.checks_first(MAIN, &key, SCRIPT_ENTRY, &[])?;
        self.last.invocations += 1;
        let f = self.exported(MAIN, &key, SCRIPT_ENTRY)?;
        let outs = match f.invoke(Vec::<eerie::runtime::Value>::new()) {
            Ok(outs) => outs,
            Err(e) => return Err(self.failure(MAIN, &key, SCRIPT_ENTRY, &[], e)),
        };
        outs.iter().zip(dtypes).map(|(b, dt)| from_buffer(b, dt)).collect()
    }

    /// Calls one function; arguments are checked against its signature first.
    pub fn call(&mut self, prog: &TProgram, name: &str, args: &[Value]) -> Result<Vec<Value>> {
        let args: Vec<Arg<'_>> = args.iter().map(Arg::Host).collect();
        let outs = self.call_on_device(prog, name, &args)?;
        outs.iter().map(|v| self.download(v)).collect()
    }

    /// Calls one function and keeps its results in device memory, where a later call can take
    /// them as arguments without a round trip through the host ([`Engine::download`] reads
    /// one). Host arguments are copied to the device once.
    pub fn call_on_device(&mut self, prog: &TProgram, name: &str, args: &[Arg<'_>]) -> Result<Vec<DeviceValue>> {
        let f = prog.function(name).ok_or_else(|| RtError::UnknownFunction(name.to_string()))?;
        check_arguments(f, args)?;
        let key = self.program(prog, &Entry::Function(name.to_string()))?;
        self.invoke(prog, f, key, args)
    }

    /// Makes `name` ready to call: lowered, compiled (or found in the cache) and loaded. A
    /// caller that calls it many times keeps the answer and calls
    /// [`Engine::call_prepared`], which skips finding the program among those prepared
    /// before (a comparison of the whole program, every call).
    pub fn prepare(&mut self, prog: &TProgram, name: &str) -> Result<Prepared> {
        prog.function(name).ok_or_else(|| RtError::UnknownFunction(name.to_string()))?;
        let key = self.program(prog, &Entry::Function(name.to_string()))?;
        Ok(Prepared { key, name: name.to_string() })
    }

    /// Calls a function [`Engine::prepare`] made ready; `prog` is the program it was
    /// prepared from (its signature checks the arguments). A `Prepared` of another engine
    /// (another thread's) is prepared again here.
    pub fn call_prepared(&mut self, prog: &TProgram, prepared: &Prepared, args: &[Arg<'_>]) -> Result<Vec<DeviceValue>> {
        let name = prepared.name.as_str();
        let f = prog.function(name).ok_or_else(|| RtError::UnknownFunction(name.to_string()))?;
        check_arguments(f, args)?;
        let key = if self.sides[MAIN].programs.contains_key(&prepared.key) {
            prepared.key.clone()
        } else {
            self.program(prog, &Entry::Function(name.to_string()))?
        };
        self.invoke(prog, f, key, args)
    }

    /// Runs `name` of the loaded module `key` on arguments already checked against its
    /// signature.
    fn invoke(&mut self, prog: &TProgram, f: &TFn, key: String, args: &[Arg<'_>]) -> Result<Vec<DeviceValue>> {
        let name = f.name.as_str();
        let results: Vec<DType> = f.results.iter().map(|t| t.dtype).collect();
        // One device copy of the arguments serves both the checks and the call.
        let elements: usize = args.iter().map(|a| a.shape().iter().product::<usize>()).sum();
        let side = self.side_for(elements);
        if side != MAIN {
            self.ensure_loaded(side, &key)?;
        }
        // Host arrays are read in place where the device can (CPU memory, aligned), else
        // copied; the buffers never outlive this call (results that share one are copied).
        let in_place = self.host_device();
        let rt = &self.sides[side].runtime;
        let mut borrowed = Vec::new();
        let inputs = args
            .iter()
            .map(|a| {
                let (buffer, imported) = match a {
                    Arg::Host(v) => view_to_buffer(rt, &HostView::of(v), in_place)?,
                    Arg::View(v) => view_to_buffer(rt, v, in_place)?,
                    Arg::Device(d) if d.side == side => (d.buffer.clone(), false),
                    // A value the other CPU runtime made: through the host.
                    Arg::Device(d) => (to_buffer(rt, &from_buffer(&d.buffer, d.dtype)?)?, false),
                };
                if imported {
                    borrowed.extend(allocation(&buffer));
                }
                Ok(buffer)
            })
            .collect::<Result<Vec<_>>>()?;
        self.checks_first(side, &key, name, &inputs)?;
        // Only arguments that passed the checks reach a specialised module: there a failing
        // check could have been folded into a compile error.
        let key = match self.options.specialize {
            Specialize::FromElements(from) if elements >= from => {
                let shapes: Vec<Vec<usize>> = args.iter().map(|a| a.shape().to_vec()).collect();
                self.specialized(prog, &key, name, &shapes).unwrap_or(key)
            }
            _ => key,
        };
        if side != MAIN {
            self.ensure_loaded(side, &key)?;
        }
        self.last.invocations += 1;
        // Buffer views are reference-counted: the clones share the argument copies.
        let outs = match self.exported(side, &key, name)?.invoke(inputs.clone()) {
            Ok(outs) => outs,
            Err(e) => return Err(self.failure(side, &key, name, &inputs, e)),
        };
        outs.into_iter()
            .zip(results)
            .map(|(buffer, dtype)| {
                // A result that is an imported argument's own storage (an identity, a reshape)
                // must not keep the caller's memory: it gets its own copy.
                let shared = !borrowed.is_empty() && allocation(&buffer).is_some_and(|a| borrowed.contains(&a));
                let buffer = if shared { to_buffer(&self.sides[side].runtime, &from_buffer(&buffer, dtype)?)? } else { buffer };
                Ok(DeviceValue::new(buffer, dtype, side))
            })
            .collect()
    }

    /// Copies a value into the device's memory, for calls that take it many times.
    pub fn upload(&self, value: &Value) -> Result<DeviceValue> {
        Ok(DeviceValue::new(to_buffer(&self.sides[MAIN].runtime, value)?, value.dtype(), MAIN))
    }

    /// A result's memory, mapped for the host to read and write in place, when this engine's
    /// device computes in host memory (the CPU devices) and the buffer can be mapped so (a
    /// read-only constant cannot); `None` otherwise, and [`Engine::download`] copies. The
    /// caller gets the result's storage itself: a result that shares its storage with another
    /// (the same value returned twice) must be copied by the caller.
    pub fn host_memory(&self, value: &DeviceValue) -> Option<HostMemory> {
        use eerie::runtime::Value as B;
        if !self.host_device() {
            return None;
        }
        Some(match (&value.buffer, value.dtype) {
            (B::I8(v), DType::Bool) => HostMemory::Bool(v.map_host().ok()?),
            (B::I32(v), DType::I32) => HostMemory::I32(v.map_host().ok()?),
            (B::I64(v), DType::I64) => HostMemory::I64(v.map_host().ok()?),
            (B::F32(v), DType::F32) => HostMemory::F32(v.map_host().ok()?),
            (B::F64(v), DType::F64) => HostMemory::F64(v.map_host().ok()?),
            _ => return None,
        })
    }

    /// Copies a value from the device's memory to the host.
    pub fn download(&self, value: &DeviceValue) -> Result<Value> {
        from_buffer(&value.buffer, value.dtype)
    }
}

impl Engine {
    /// The key of `name`'s module specialised to the shapes of `args`, when the options ask
    /// for one and it compiles; `None` runs the dynamic module `key`.
    fn specialized(&mut self, prog: &TProgram, key: &str, name: &str, shapes: &[Vec<usize>]) -> Option<String> {
        let Specialize::FromElements(from) = self.options.specialize else { return None };
        if shapes.is_empty() || shapes.iter().map(|s| s.iter().product::<usize>()).sum::<usize>() < from {
            return None;
        }
        let id = (key.to_string(), name.to_string(), shapes.to_vec());
        if let Some(v) = self.variants.get(&id) {
            return v.clone();
        }
        // The first call with these shapes runs the dynamic module; a repeated one pays for
        // the specialised compile once.
        let calls = self.shape_calls.entry(id.clone()).or_insert(0);
        *calls += 1;
        if *calls < 2 || self.variants.keys().filter(|(k, n, _)| k == key && n == name).count() >= SPECIALIZE_LIMIT {
            return None;
        }
        self.shape_calls.remove(&id);
        let variant = self.load_specialized(prog, name, &id.2).ok();
        self.variants.insert(id, variant.clone());
        variant
    }

    fn load_specialized(&mut self, prog: &TProgram, name: &str, shapes: &[Vec<usize>]) -> Result<String> {
        let lowered = ptl_lower::lower_specialized(prog, name, shapes, &self.options.compile)?;
        let flags = self.options.compile.identity();
        let version = format!("ptl {} {}", env!("CARGO_PKG_VERSION"), ptl_lower::compiler_identity()?);
        let key = CompileCache::key(&lowered.mlir, &flags, &version);
        let options = self.options.compile.clone();
        let mlir = lowered.mlir;
        let (vmfb, _) = self.cache.get_or_compile(&key, || Ok(ptl_lower::compile(&mlir, &options)?))?;
        self.load_on(MAIN, &key, &vmfb)?;
        self.checks.insert(key.clone(), lowered.checks);
        Ok(key)
    }

    /// Runs the checks-only twin of `name` before `name` itself. IREE does not order a
    /// function's run-time checks before its kernels: a kernel could run on the sizes a check
    /// is about to reject, and read or write out of bounds (seen as heap corruption). The
    /// twin computes only what its checks need, so the kernels see only accepted arguments.
    fn checks_first(&mut self, side: usize, key: &str, name: &str, inputs: &[eerie::runtime::Value]) -> Result<()> {
        let s = &mut self.sides[side];
        if !s.twins.get(key).is_some_and(|m| m.contains_key(name)) {
            let twin = ptl_lower::checks_entry(name);
            let resolved = s.programs.get(key).and_then(|p| p.function(&format!("module.{twin}")).ok());
            s.twins.entry(key.to_string()).or_default().insert(name.to_string(), resolved);
        }
        let Some(Some(twin)) = s.twins.get(key).and_then(|m| m.get(name)) else { return Ok(()) };
        self.last.check_invocations += 1;
        // Buffer views are reference-counted: the clones share the argument copies.
        match twin.invoke(inputs.to_vec()) {
            Ok(_) => Ok(()),
            Err(e) => Err(match self.check_named(key, &e.to_string()) {
                Some(site) => RtError::Check(site),
                None => self.device_error(e),
            }),
        }
    }

    /// A failed invocation of `name` as an error: the run-time check its assertion names.
    /// When IREE failed before any check ran (its own buffer validation), the module's
    /// checks-only twin of `name` runs on the same arguments to find the check that explains
    /// the failure; IREE's own message is the answer only when every check passes.
    fn failure(&mut self, side: usize, key: &str, name: &str, inputs: &[eerie::runtime::Value], e: eerie::runtime::RuntimeError) -> RtError {
        if e.to_string().contains(crate::interrupt::MARKER) {
            return self.device_error(e);
        }
        if let Some(site) = self.check_named(key, &e.to_string()) {
            return RtError::Check(site);
        }
        let twin = ptl_lower::checks_entry(name);
        let has_twin = self.sides[side].programs.get(key).is_some_and(|p| p.function(&format!("module.{twin}")).is_ok());
        if has_twin {
            if let Ok(f) = self.exported(side, key, &twin)
                && let Err(twin_err) = f.invoke(inputs.to_vec())
                && let Some(site) = self.check_named(key, &twin_err.to_string())
            {
                return RtError::Check(site);
            }
        }
        self.device_error(e)
    }

    /// IREE's failure, or, for what a device's driver refuses, ptl's account of it.
    fn device_error(&self, e: eerie::runtime::RuntimeError) -> RtError {
        let text = e.to_string();
        if text.contains(crate::interrupt::MARKER) {
            // The request is answered: a later call runs.
            crate::interrupt::clear_interrupt();
            return RtError::Interrupted;
        }
        if text.contains("RESOURCE_EXHAUSTED") {
            return RtError::OutOfMemory(crate::error::status_message(&text));
        }
        if self.device.device == Device::Vulkan && text.contains("empty buffer range") {
            return RtError::Device(format!(
                "the Vulkan device `{}` cannot run a kernel on an empty array (a value of size 0 here); \
                 run this call on the CPU",
                self.device.name
            ));
        }
        RtError::from(e)
    }

    /// The check a failure's text names, if it names one of module `key`'s checks.
    fn check_named(&self, key: &str, text: &str) -> Option<ptl_lower::CheckSite> {
        let n = ptl_lower::checks::find_marker(text)?;
        self.checks.get(key)?.get(n).cloned()
    }
}

/// The storage a buffer view's buffer was allocated as.
fn allocation(b: &eerie::runtime::Value) -> Option<usize> {
    use eerie::runtime::Value as B;
    Some(match b {
        B::I8(v) => v.allocation(),
        B::I32(v) => v.allocation(),
        B::I64(v) => v.allocation(),
        B::F32(v) => v.allocation(),
        B::F64(v) => v.allocation(),
        _ => return None,
    })
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
