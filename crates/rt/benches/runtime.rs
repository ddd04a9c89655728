//! Run-time benchmarks of compiled ptl functions, called through `Engine::call` on local-sync
//! and local-task: per-call overhead, fused elementwise, reductions, softmax, matmul, matvec,
//! and a memory copy for the machine's bandwidth.
//!
//! `cargo bench -p ptl-rt --bench runtime` (or `make bench`, which also runs NumPy, PyTensor and
//! IREE's Python runtime and merges the results). Benchmark ids are
//! `<case>/<implementation>/<size>`; `bench/run.py` reads them from `target/criterion`.
//! `PTL_BENCH_FILTER=<substring>` limits the run to matching cases (criterion's own filter
//! argument works too, but then every module is still compiled).

use std::path::PathBuf;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use eerie::runtime::{DeviceSpec, Runtime, Value as Buffer};
use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_lang::typed::TProgram;
use ptl_lower::Entry;
use ptl_rt::{Device, Engine, EngineOptions};

/// Every function the benchmarks call, in one program (each call lowers only its entry).
const PROGRAM: &str = r#"
fn axpy(x: f64[n], y: f64[n]) -> f64[n] {
    x + y * 2.0
}

fn fused_lin(a: f64, x: f64[n], b: f64, y: f64[n], z: f64[n]) -> f64[n] {
    a * x + b * y - z
}

fn fused_exp(x: f64[n], y: f64[n]) -> f64[n] {
    exp(x) * sigmoid(y)
}

fn sum_rows(x: f64[r, c]) -> f64[r] {
    sum(x, 1)
}

fn sum_cols(x: f64[r, c]) -> f64[c] {
    sum(x, 0)
}

fn softmax_rows(x: f64[r, c]) -> f64[r, c] {
    softmax(x, 1)
}

fn matmul_f32(a: f32[m, k], b: f32[k, n]) -> f32[m, n] {
    a @ b
}

fn matmul_f64(a: f64[m, k], b: f64[k, n]) -> f64[m, n] {
    a @ b
}

fn matvec_f32(a: f32[m, k], x: f32[k]) -> f32[m] {
    a @ x
}

fn matvec_f64(a: f64[m, k], x: f64[k]) -> f64[m] {
    a @ x
}
"#;

pub const FUSED_SIZES: [usize; 3] = [100, 100_000, 10_000_000];
pub const REDUCE_SHAPES: [(usize, usize); 3] = [(8, 8), (250, 400), (2500, 4000)];
pub const SOFTMAX_SHAPES: [(usize, usize); 3] = [(8, 8), (250, 400), (1000, 1000)];
pub const MATMUL_SIZES: [usize; 3] = [64, 256, 1024];
pub const MATVEC_SIZES: [usize; 3] = [256, 1024, 4096];
pub const COPY_SIZE: usize = 20_000_000;

fn bench_dir() -> PathBuf {
    std::env::var_os("PTL_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench"))
}

fn wanted(case: &str) -> bool {
    std::env::var("PTL_BENCH_FILTER").map(|f| case.contains(&f)).unwrap_or(true)
}

/// Deterministic values in [-1, 1).
fn data(len: usize, seed: usize) -> Vec<f64> {
    (0..len).map(|i| ((i * 7919 + seed * 104_729) % 2000) as f64 / 1000.0 - 1.0).collect()
}

fn f64s(shape: &[usize], seed: usize) -> Value {
    let len = shape.iter().product();
    Value::F64(ArrayD::from_shape_vec(IxDyn(shape), data(len, seed)).unwrap())
}

fn f32s(shape: &[usize], seed: usize) -> Value {
    let len = shape.iter().product();
    Value::F32(ArrayD::from_shape_vec(IxDyn(shape), data(len, seed).into_iter().map(|v| v as f32).collect()).unwrap())
}

fn scalar(v: f64) -> Value {
    Value::F64(ArrayD::from_elem(IxDyn(&[]), v))
}

struct Engines {
    sync: Engine,
    task: Engine,
}

impl Engines {
    fn new() -> Self {
        let cache_dir = Some(bench_dir().join("cache"));
        let make = |device| {
            // Each row measures one driver: no move of large calls to local-task.
            let options = EngineOptions { device, cache_dir: cache_dir.clone(), large_calls_on_task: None, ..Default::default() };
            Engine::new(options).expect("runtime")
        };
        Engines { sync: make(Device::LocalSync), task: make(Device::LocalTask) }
    }

    fn each(&mut self) -> [(&'static str, &mut Engine); 2] {
        [("ptl_sync", &mut self.sync), ("ptl_task", &mut self.task)]
    }
}

fn program() -> TProgram {
    ptl_lang::frontend(PROGRAM).unwrap_or_else(|d| panic!("benchmark program does not check: {d:?}"))
}

/// A host copy of an argument, for calling the IREE runtime directly.
enum Host {
    F32(Vec<usize>, Vec<f32>),
    F64(Vec<usize>, Vec<f64>),
}

impl Host {
    fn new(v: &Value) -> Host {
        match v {
            Value::F32(a) => Host::F32(a.shape().to_vec(), a.iter().copied().collect()),
            Value::F64(a) => Host::F64(a.shape().to_vec(), a.iter().copied().collect()),
            other => panic!("unsupported argument {other:?}"),
        }
    }

    fn buffer(&self, rt: &Runtime) -> Buffer {
        match self {
            Host::F32(shape, d) => Buffer::F32(rt.buffer_view(shape, d).expect("buffer")),
            Host::F64(shape, d) => Buffer::F64(rt.buffer_view(shape, d).expect("buffer")),
        }
    }
}

/// The first element of a result read back to the host (the whole buffer is copied).
fn read_back(b: &Buffer) -> f64 {
    match b {
        Buffer::F32(v) => v.read().expect("read")[0] as f64,
        Buffer::F64(v) => v.read().expect("read")[0],
        other => panic!("unexpected result {other:?}"),
    }
}

/// Benchmarks `name(args)` on the vmfb the engine compiled, invoked through the IREE runtime
/// directly (`iree_sync`, `iree_task`): arguments copied in, invoke, result copied out. This is
/// the compiled code's cost without the engine's per-call work.
#[allow(clippy::too_many_arguments)]
fn run_direct(
    c: &mut Criterion,
    engines: &mut Engines,
    prog: &TProgram,
    case: &str,
    name: &str,
    size: &str,
    args: &[Value],
    devices: &[(&str, fn() -> DeviceSpec)],
) {
    let (_, vmfb) = engines.sync.vmfb(prog, &Entry::Function(name.into())).expect("vmfb");
    let hosts: Vec<Host> = args.iter().map(Host::new).collect();
    let mut g = c.benchmark_group(case);
    g.sampling_mode(SamplingMode::Flat);
    for (label, spec) in devices {
        let mut rt = Runtime::new(spec()).expect("runtime");
        // The engine's modules call its host kernels (large f64 products).
        ptl_rt::register_host_module(&mut rt).expect("host module");
        let module = rt.load_vmfb(&vmfb).expect("load");
        let f = module.function(&format!("module.{name}")).expect("function");
        g.bench_function(BenchmarkId::new(*label, size), |b| {
            b.iter(|| {
                let inputs: Vec<Buffer> = hosts.iter().map(|h| h.buffer(&rt)).collect();
                let res = f.invoke(inputs).expect("invoke");
                read_back(&res[0])
            })
        });
    }
    g.finish();
}

const BOTH: [(&str, fn() -> DeviceSpec); 2] = [("iree_sync", DeviceSpec::local_sync), ("iree_task", DeviceSpec::local_task)];
const SYNC: [(&str, fn() -> DeviceSpec); 1] = [("iree_sync", DeviceSpec::local_sync)];

/// Runs `name(args)` once per iteration on both devices.
fn run_both(
    c: &mut Criterion,
    engines: &mut Engines,
    prog: &TProgram,
    case: &str,
    name: &str,
    size: &str,
    args: &[Value],
) {
    let mut g = c.benchmark_group(case);
    g.sampling_mode(SamplingMode::Flat);
    for (label, engine) in engines.each() {
        // First call compiles (or reads the disk cache) and loads the module.
        engine.call(prog, name, args).expect("call");
        g.bench_with_input(BenchmarkId::new(label, size), &args, |b, args| {
            b.iter(|| engine.call(prog, name, args).expect("call"))
        });
    }
    g.finish();
}

fn tiny(c: &mut Criterion, engines: &mut Engines, prog: &TProgram) {
    if !wanted("tiny") {
        return;
    }
    let args = [f64s(&[3], 1), f64s(&[3], 2)];
    let mut g = c.benchmark_group("tiny");
    for (label, engine) in engines.each() {
        engine.call(prog, "axpy", &args).expect("call");
        g.bench_function(BenchmarkId::new(label, 3), |b| b.iter(|| engine.call(prog, "axpy", &args).expect("call")));
    }
    // The part of every call that lowers the program to MLIR again (the cache key is the MLIR).
    let entry = Entry::Function("axpy".into());
    g.bench_function(BenchmarkId::new("ptl_lower_only", 3), |b| {
        b.iter(|| engines.sync.mlir(prog, &entry).expect("lowers"))
    });
    g.finish();
    // The same vmfb through the IREE runtime directly, without the engine's per-call work.
    run_direct(c, engines, prog, "tiny", "axpy", "3", &args, &SYNC);
    // Written for bench/run.py, which calls it from Python through iree.runtime.
    let (_, vmfb) = engines.sync.vmfb(prog, &entry).expect("vmfb");
    let dir = bench_dir();
    std::fs::create_dir_all(&dir).expect("bench dir");
    std::fs::write(dir.join("axpy.vmfb"), vmfb.as_slice()).expect("write vmfb");
}

fn copy(c: &mut Criterion) {
    if !wanted("copy") {
        return;
    }
    let src = data(COPY_SIZE, 3);
    let mut dst = vec![0.0f64; COPY_SIZE];
    let mut g = c.benchmark_group("copy");
    g.sampling_mode(SamplingMode::Flat);
    g.bench_function(BenchmarkId::new("rust", COPY_SIZE), |b| {
        b.iter(|| {
            dst.copy_from_slice(&src);
            dst[COPY_SIZE / 2]
        })
    });
    g.finish();
}

fn elementwise(c: &mut Criterion, engines: &mut Engines, prog: &TProgram) {
    for n in FUSED_SIZES {
        if wanted("fused_lin") {
            let args = [scalar(1.5), f64s(&[n], 1), scalar(-0.5), f64s(&[n], 2), f64s(&[n], 3)];
            run_both(c, engines, prog, "fused_lin", "fused_lin", &n.to_string(), &args);
            run_direct(c, engines, prog, "fused_lin", "fused_lin", &n.to_string(), &args, &BOTH);
        }
        if wanted("fused_exp") {
            let args = [f64s(&[n], 1), f64s(&[n], 2)];
            run_both(c, engines, prog, "fused_exp", "fused_exp", &n.to_string(), &args);
            run_direct(c, engines, prog, "fused_exp", "fused_exp", &n.to_string(), &args, &BOTH);
        }
    }
}

fn reductions(c: &mut Criterion, engines: &mut Engines, prog: &TProgram) {
    for (r, k) in REDUCE_SHAPES {
        let args = [f64s(&[r, k], 1)];
        for case in ["sum_rows", "sum_cols"] {
            if wanted(case) {
                run_both(c, engines, prog, case, case, &format!("{r}x{k}"), &args);
                if (r, k) == REDUCE_SHAPES[REDUCE_SHAPES.len() - 1] {
                    run_direct(c, engines, prog, case, case, &format!("{r}x{k}"), &args, &BOTH);
                }
            }
        }
    }
    for (r, k) in SOFTMAX_SHAPES {
        if wanted("softmax_rows") {
            let args = [f64s(&[r, k], 1)];
            run_both(c, engines, prog, "softmax_rows", "softmax_rows", &format!("{r}x{k}"), &args);
            if (r, k) == SOFTMAX_SHAPES[SOFTMAX_SHAPES.len() - 1] {
                run_direct(c, engines, prog, "softmax_rows", "softmax_rows", &format!("{r}x{k}"), &args, &BOTH);
            }
        }
    }
}

fn linalg(c: &mut Criterion, engines: &mut Engines, prog: &TProgram) {
    for n in MATMUL_SIZES {
        if wanted("matmul_f32") {
            let args = [f32s(&[n, n], 1), f32s(&[n, n], 2)];
            run_both(c, engines, prog, "matmul_f32", "matmul_f32", &n.to_string(), &args);
            run_direct(c, engines, prog, "matmul_f32", "matmul_f32", &n.to_string(), &args, &BOTH);
        }
        if wanted("matmul_f64") {
            let args = [f64s(&[n, n], 1), f64s(&[n, n], 2)];
            run_both(c, engines, prog, "matmul_f64", "matmul_f64", &n.to_string(), &args);
            run_direct(c, engines, prog, "matmul_f64", "matmul_f64", &n.to_string(), &args, &BOTH);
        }
    }
    for n in MATVEC_SIZES {
        if wanted("matvec_f32") {
            let args = [f32s(&[n, n], 1), f32s(&[n], 2)];
            run_both(c, engines, prog, "matvec_f32", "matvec_f32", &n.to_string(), &args);
            if n == MATVEC_SIZES[MATVEC_SIZES.len() - 1] {
                run_direct(c, engines, prog, "matvec_f32", "matvec_f32", &n.to_string(), &args, &BOTH);
            }
        }
        if wanted("matvec_f64") {
            let args = [f64s(&[n, n], 1), f64s(&[n], 2)];
            run_both(c, engines, prog, "matvec_f64", "matvec_f64", &n.to_string(), &args);
            if n == MATVEC_SIZES[MATVEC_SIZES.len() - 1] {
                run_direct(c, engines, prog, "matvec_f64", "matvec_f64", &n.to_string(), &args, &BOTH);
            }
        }
    }
}

fn all(c: &mut Criterion) {
    let prog = program();
    let mut engines = Engines::new();
    tiny(c, &mut engines, &prog);
    copy(c);
    elementwise(c, &mut engines, &prog);
    reductions(c, &mut engines, &prog);
    linalg(c, &mut engines, &prog);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .without_plots()
}

criterion_group! {
    name = benches;
    config = config();
    targets = all
}
criterion_main!(benches);
