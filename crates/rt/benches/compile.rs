//! Compile latency and frontend throughput: parse + check, lowering to MLIR, IREE compilation,
//! and compile-cache hits, for a small program and a 50-op program; parse + check of a
//! generated 10,000-line program.
//!
//! `cargo bench -p ptl-rt --bench compile` prints a summary and writes
//! `$PTL_BENCH_DIR/compile.json` (default `target/bench/compile.json`), read by `bench/run.py`.
//! Each figure is the median of several runs, timed with `Instant` (IREE compiles take a
//! second each, too long for criterion's sampling).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_lower::{CompileOptions, Entry};
use ptl_rt::{CacheOutcome, Device, Engine, EngineOptions};

fn bench_dir() -> PathBuf {
    std::env::var_os("PTL_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench"))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The median of `reps` timed runs of `f`, after one untimed run.
fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> Duration {
    std::hint::black_box(f());
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

const SMALL: &str = "fn axpy(x: f64[n], y: f64[n]) -> f64[n] {\n    x + y * 2.0\n}\n";

/// One function of 50 elementwise operations, one per line.
fn fifty_ops() -> String {
    let mut s = String::from("fn chain(x: f64[n], y: f64[n]) -> f64[n] {\n    let t0 = x * y;\n");
    for i in 1..50 {
        let p = format!("t{}", i - 1);
        let e = match i % 7 {
            0 => format!("{p} + x"),
            1 => format!("{p} * 0.5"),
            2 => format!("tanh({p})"),
            3 => format!("{p} - y"),
            4 => format!("sigmoid({p})"),
            5 => format!("maximum({p}, y)"),
            _ => format!("{p} / (1.0 + x * x)"),
        };
        s.push_str(&format!("    let t{i} = {e};\n"));
    }
    s.push_str("    t49\n}\n");
    s
}

/// About `lines` lines of functions with matmuls, reductions, softmax and calls between them.
fn generated(lines: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.lines().count() + 10 <= lines {
        s.push_str(&format!("// function {i}\nfn g{i}(x: f64[n, k], w: f64[k, m], b: f64[m]) -> f64[n] {{\n"));
        s.push_str("    let h = x @ w + b;\n    let r = maximum(h, 0.0);\n    let s = sum(r * r, 1);\n");
        if i == 0 {
            s.push_str("    let t = exp(-s) / (1.0 + exp(-s));\n");
        } else {
            s.push_str(&format!("    let t = exp(-s) / (1.0 + exp(-s)) + g{}(x, w, b);\n", i - 1));
        }
        s.push_str("    let u = t * 2.0 - 1.0;\n    let v = softmax(expand(u, 1) * [1.0, 2.0], 1);\n    sum(v, 1) + u\n}\n");
        i += 1;
    }
    s
}

struct Report {
    fields: Vec<(String, String)>,
}

impl Report {
    fn num(&mut self, key: &str, v: f64) {
        self.fields.push((key.to_string(), format!("{v:.6}")));
    }
    fn text(&mut self, key: &str, v: &str) {
        self.fields.push((key.to_string(), format!("{v:?}")));
    }
    fn json(&self) -> String {
        let body: Vec<String> = self.fields.iter().map(|(k, v)| format!("  {k:?}: {v}")).collect();
        format!("{{\n{}\n}}\n", body.join(",\n"))
    }
}

fn program_latency(r: &mut Report, label: &str, src: &str, entry: &str, args: &[Value], cache_root: &std::path::Path) {
    let reps = 21;
    let parse_check = time(reps, || ptl_lang::frontend(src).expect("checks"));
    let prog = ptl_lang::frontend(src).expect("checks");
    let e = Entry::Function(entry.to_string());
    let lower = time(reps, || ptl_lower::lower_program(&prog, &e).expect("lowers"));
    let mlir = ptl_lower::lower_program(&prog, &e).expect("lowers");
    let opts = CompileOptions::default();
    let compile = time(3, || ptl_lower::compile(&mlir.mlir, &opts).expect("compiles"));

    // Cache hits: a fresh engine (as a new process would have) over a cache directory holding
    // the module. `vmfb` includes lowering, since the key is the MLIR text.
    let dir = cache_root.join(label);
    let _ = std::fs::remove_dir_all(&dir);
    let options = EngineOptions { device: Device::LocalSync, cache_dir: Some(dir.clone()), ..Default::default() };
    let mut first = Engine::new(options.clone()).expect("runtime");
    let t = Instant::now();
    first.call(&prog, entry, args).expect("call");
    let cold_call = t.elapsed();
    assert_eq!(first.timings().outcome, Some(CacheOutcome::Compiled));
    let mut disk = Vec::new();
    let mut disk_first_call = Vec::new();
    for _ in 0..reps {
        let mut engine = Engine::new(options.clone()).expect("runtime");
        let t = Instant::now();
        engine.vmfb(&prog, &e).expect("vmfb");
        disk.push(t.elapsed());
        assert_eq!(engine.timings().outcome, Some(CacheOutcome::Disk));
        let mut engine = Engine::new(options.clone()).expect("runtime");
        let t = Instant::now();
        engine.call(&prog, entry, args).expect("call");
        disk_first_call.push(t.elapsed());
    }
    let memory = time(reps, || first.vmfb(&prog, &e).expect("vmfb"));
    assert_eq!(first.timings().outcome, Some(CacheOutcome::Memory));

    let lines = src.lines().count();
    println!(
        "{label:6} ({lines} lines): parse+check {:.3} ms, lower {:.3} ms, IREE compile {:.1} ms, \
         first call with compile {:.1} ms, disk cache hit {:.3} ms (first call {:.3} ms), memory hit {:.3} ms",
        ms(parse_check),
        ms(lower),
        ms(compile),
        ms(cold_call),
        ms(median(disk.clone())),
        ms(median(disk_first_call.clone())),
        ms(memory)
    );
    r.num(&format!("{label}.lines"), lines as f64);
    r.num(&format!("{label}.parse_check_ms"), ms(parse_check));
    r.num(&format!("{label}.lower_ms"), ms(lower));
    r.num(&format!("{label}.iree_compile_ms"), ms(compile));
    r.num(&format!("{label}.first_call_compiled_ms"), ms(cold_call));
    r.num(&format!("{label}.disk_hit_ms"), ms(median(disk)));
    r.num(&format!("{label}.disk_hit_first_call_ms"), ms(median(disk_first_call)));
    r.num(&format!("{label}.memory_hit_ms"), ms(memory));
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument, if any, is ignored here.
    let dir = bench_dir();
    std::fs::create_dir_all(&dir).expect("bench dir");
    let mut r = Report { fields: Vec::new() };

    // The first compile of the process loads libIREECompiler.so (about 350 MB).
    let prog = ptl_lang::frontend(SMALL).expect("checks");
    let mlir = ptl_lower::lower_program(&prog, &Entry::Function("axpy".into())).expect("lowers");
    let t = Instant::now();
    ptl_lower::compile(&mlir.mlir, &CompileOptions::default()).expect("compiles");
    let load = t.elapsed();
    println!("first compile in the process (loads the IREE compiler library): {:.1} ms", ms(load));
    r.num("first_compile_with_library_load_ms", ms(load));
    r.text("iree_compiler", &ptl_lower::compiler_version().unwrap_or_default());

    let v = |seed: f64| Value::F64(ArrayD::from_shape_fn(IxDyn(&[3]), |i| seed + i[0] as f64));
    let cache_root = dir.join("compile-cache");
    program_latency(&mut r, "small", SMALL, "axpy", &[v(1.0), v(2.0)], &cache_root);
    program_latency(&mut r, "ops50", &fifty_ops(), "chain", &[v(0.1), v(0.2)], &cache_root);

    // Frontend throughput on a generated program of 10,000 lines.
    let src = generated(10_000);
    let lines = src.lines().count();
    let parse = time(5, || ptl_lang::parse(&src));
    let (ast, diags) = ptl_lang::parse(&src);
    assert!(diags.is_empty(), "generated program has syntax errors: {diags:?}");
    let ast = ast.expect("parses");
    let check = time(5, || ptl_lang::check::check(&ast));
    let (typed, diags) = ptl_lang::check::check(&ast);
    assert!(typed.is_some() && diags.is_empty(), "generated program does not check: {:?}", &diags[..diags.len().min(3)]);
    let total = parse + check;
    println!(
        "frontend: {lines} lines, {} bytes: parse {:.1} ms, check {:.1} ms, {:.0} lines/s",
        src.len(),
        ms(parse),
        ms(check),
        lines as f64 / total.as_secs_f64()
    );
    r.num("frontend.lines", lines as f64);
    r.num("frontend.bytes", src.len() as f64);
    r.num("frontend.parse_ms", ms(parse));
    r.num("frontend.check_ms", ms(check));
    r.num("frontend.lines_per_s", lines as f64 / total.as_secs_f64());

    let out = dir.join("compile.json");
    std::fs::write(&out, r.json()).expect("write results");
    println!("wrote {}", out.display());
}
