//! Every output fixture, and thousands of random well-typed functions, run compiled through
//! MLIR and IREE and must agree with the reference interpreter: exactly for ints and bools,
//! within tolerances for floats, and failing where it fails, with the same report.

// The interpreter's errors carry what they report; tests keep many of them.
#![allow(clippy::result_large_err)]

use std::path::Path;

use ptl_interp::InterpError;
use ptl_lang::{Value, map_value};
use ptl_rt::{Device, Engine, EngineOptions, RtError};
use ptl_testkit::fixture::{Expected, load_all};
use ptl_testkit::progen::{self, ArgData, GeneratedArg, GeneratedFn};

fn close_f64(a: f64, b: f64, rtol: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= rtol * a.abs().max(b.abs())
}

/// Why `got` differs from `want`, if it does.
pub fn compare(got: &Value, want: &Value) -> Option<String> {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Some(format!("type {} vs expected {}", got.tensor_type(), want.tensor_type()));
    }
    let mismatch = |i: usize, g: String, w: String| Some(format!("element {i}: {g} vs expected {w}"));
    match (got, want) {
        (Value::F32(g), Value::F32(w)) => {
            for (i, (a, b)) in g.iter().zip(w.iter()).enumerate() {
                if !close_f64(*a as f64, *b as f64, 1e-6) {
                    return mismatch(i, a.to_string(), b.to_string());
                }
            }
            None
        }
        (Value::F64(g), Value::F64(w)) => {
            for (i, (a, b)) in g.iter().zip(w.iter()).enumerate() {
                if !close_f64(*a, *b, 1e-12) {
                    return mismatch(i, a.to_string(), b.to_string());
                }
            }
            None
        }
        _ => {
            // Element order only: layouts (strides) may differ.
            let (g, w) = (
                map_value!(got, a => format!("{:?}", a.iter().collect::<Vec<_>>())),
                map_value!(want, a => format!("{:?}", a.iter().collect::<Vec<_>>())),
            );
            if g == w { None } else { Some(format!("{g} vs expected {w}")) }
        }
    }
}

#[test]
fn compiled_fixtures_agree_with_the_interpreter() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let all = load_all(&dir);
    assert!(all.iter().filter(|f| matches!(f.expected, Expected::Output(_))).count() >= 50, "expected the output fixtures under {}", dir.display());
    // `PTL_FIXTURES=eigh` runs only the fixtures whose path holds that text (while working on one op).
    let only = std::env::var("PTL_FIXTURES").unwrap_or_default();
    let all: Vec<_> = all.into_iter().filter(|f| f.path.to_string_lossy().contains(&only)).collect();
    assert!(!all.is_empty(), "no fixture's path holds {only:?}");
    let runtime_errors: Vec<_> =
        all.iter().filter(|f| matches!(&f.expected, Expected::Error(e) if e.starts_with("runtime error"))).collect();
    let fixtures: Vec<_> = all.iter().filter(|f| matches!(f.expected, Expected::Output(_))).collect();
    let mut engine = Engine::new(EngineOptions { cache_dir: ptl_rt::CompileCache::default_dir(), ..Default::default() })
        .expect("IREE runtime starts");
    let mut failures = Vec::new();
    for f in &fixtures {
        let name = f.path.display().to_string();
        let prog = match ptl_lang::frontend(&f.source) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!("{name}: frontend failed: {d:?}"));
                continue;
            }
        };
        let want = match ptl_interp::run_program(&prog) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: interpreter failed: {e}"));
                continue;
            }
        };
        match engine.run_script(&prog) {
            Ok(got) if got.len() != want.len() => {
                failures.push(format!("{name}: {} values vs expected {}", got.len(), want.len()))
            }
            Ok(got) => {
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    if let Some(why) = compare(g, w) {
                        failures.push(format!("{name}: print #{i}: {why}"));
                    }
                }
            }
            Err(e) => failures.push(format!("{name}: compiled run failed: {e}")),
        }
    }
    // Programs that type-check but fail at run time must fail compiled too, never print, and
    // a failed run-time check must be reported as the interpreter reports it.
    for f in &runtime_errors {
        let name = f.path.display().to_string();
        let prog = match ptl_lang::frontend(&f.source) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!("{name}: frontend failed: {d:?}"));
                continue;
            }
        };
        match (ptl_interp::run_program(&prog), engine.run_script(&prog)) {
            (_, Ok(v)) => failures.push(format!("{name}: compiled run printed {v:?} instead of failing")),
            (Ok(v), Err(e)) => failures.push(format!("{name}: interpreter printed {v:?}, compiled failed: {e}")),
            (Err(i), Err(c)) => failures.extend(same_failure(&i, &c).map(|why| format!("{name}: {why}"))),
        }
    }
    assert!(failures.is_empty(), "{} of {} fixtures disagree:\n{}", failures.len(), fixtures.len(), failures.join("\n"));
}

fn f64s(v: &[f64]) -> Value {
    Value::F64(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[v.len()]), v.to_vec()).unwrap())
}

#[test]
fn unknown_dims_are_checked_inside_compiled_code() {
    let src = "fn f(a: f64[?], b: f64[3]) { a + b }\n\
               fn g(a: f64[?], b: f64[?, 2]) { b @ a }\n\
               fn h(a: f64[?]) { reshape(a, [?, 2]) }\n";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut e = Engine::new(EngineOptions::default()).unwrap();
    let m = Value::F64(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[2, 2]), vec![1.0, 2.0, 3.0, 4.0]).unwrap());
    assert_eq!(e.call(&prog, "f", &[f64s(&[1.0, 2.0, 3.0]), f64s(&[1.0, 1.0, 1.0])]).unwrap(), vec![f64s(&[2.0, 3.0, 4.0])]);
    assert_eq!(e.call(&prog, "g", &[f64s(&[1.0, 1.0]), m.clone()]).unwrap(), vec![f64s(&[3.0, 7.0])]);
    // A `?` of size 1 does not stretch: only a static 1 does.
    let failing: [(&str, Vec<Value>); 4] = [
        ("f", vec![f64s(&[1.0, 2.0]), f64s(&[1.0, 1.0, 1.0])]),
        ("f", vec![f64s(&[1.0]), f64s(&[1.0, 1.0, 1.0])]),
        ("g", vec![f64s(&[1.0, 1.0, 1.0]), m]),
        ("h", vec![f64s(&[1.0, 2.0, 3.0])]),
    ];
    for (name, args) in &failing {
        let want = ptl_interp::call_function(&prog, name, args).expect_err("the interpreter rejects it");
        let got = e.call(&prog, name, args).expect_err("compiled code rejects it");
        assert!(matches!(want, InterpError::Check { .. }), "{name}: {want}");
        assert_eq!(same_failure(&want, &got), None, "{name}");
    }
    // The engine is still usable after a failed call.
    assert_eq!(e.call(&prog, "h", &[f64s(&[1.0, 2.0])]).unwrap()[0].shape(), &[1, 2]);
}

/// A `?` operand broadcast into an elementwise op whose sibling contradicts its size: both
/// paths report it at the broadcast, against the shape witness (the compiled one used to
/// report the elementwise op's own check instead; random programs, batch seed 1550).
#[test]
fn contradicting_sizes_are_reported_at_the_broadcast_on_both_paths() {
    let src = "fn f(i: i64[?, ?], c: bool[?]) { all(where(c, i, i), 0) }\n\
               fn g(x: f64[?, ?], y: f64[?]) { x * y + 1.0 }\n";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut e = Engine::new(EngineOptions::default()).unwrap();
    let i = Value::I64(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[2, 3]), vec![2, 3, -2, 4, 4, 1]).unwrap());
    let c = Value::Bool(ndarray::arr1(&[true, true, true, false, true]).into_dyn());
    let x = Value::F64(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[2, 3]), vec![1.0; 6]).unwrap());
    for (name, args) in [("f", vec![i, c]), ("g", vec![x, f64s(&[1.0, 2.0])])] {
        let want = ptl_interp::call_function(&prog, name, &args).expect_err("the interpreter rejects it");
        let got = e.call(&prog, name, &args).expect_err("compiled code rejects it");
        assert!(matches!(want, InterpError::Check { .. }), "{name}: {want}");
        assert_eq!(same_failure(&want, &got), None, "{name}");
    }
}

/// A `?` dim that a later broadcast rejects, after a loop over the same argument: the checks
/// twin keeps the loop (its interrupt points), and IREE carried the broadcast's static size
/// back into the loop's input, so that a kernel read past the argument's buffer
/// (`OUT_OF_RANGE`) before the check ran (random programs, batch seed 1558). Both paths
/// report the broadcast's check.
#[test]
fn a_loop_before_a_rejected_broadcast_does_not_read_past_its_argument() {
    let src = "fn f(c: bool[?]) -> bool[3] { let a = loop acc = c for s in 0..3 { acc }; broadcast(c, [3]) }\n\
               fn g(c: f64[?], d: f64[3]) -> f64[3] { let a = loop acc = c for s in 0..3 { acc * 2.0 }; c + d }\n";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut e = Engine::new(EngineOptions::default()).unwrap();
    let c = Value::Bool(ndarray::arr1(&[true, false]).into_dyn());
    for (name, args) in [("f", vec![c]), ("g", vec![f64s(&[1.0, 2.0]), f64s(&[1.0, 2.0, 3.0])])] {
        let want = ptl_interp::call_function(&prog, name, &args).expect_err("the interpreter rejects it");
        let got = e.call(&prog, name, &args).expect_err("compiled code rejects it");
        assert!(matches!(want, InterpError::Check { .. }), "{name}: {want}");
        assert_eq!(same_failure(&want, &got), None, "{name}");
    }
}

// Random programs: batches of generated functions (`ptl_testkit::progen`), each run by the
// interpreter and compiled. A case is one generated function. The functions the interpreter
// runs are compiled together, behind one function that calls them all (`progen::hub`), since
// each compile costs IREE ~0.4 s; a function the interpreter rejects is called alone, as it
// must fail compiled too.

/// Functions per compiled program.
const BATCH: usize = 32;
/// Operation levels per generated expression.
const DEPTH: usize = 3;

fn value(a: &GeneratedArg) -> Value {
    fn array<T>(shape: &[usize], v: Vec<T>) -> ndarray::ArrayD<T> {
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), v).expect("shape fits the data")
    }
    let s = &a.shape;
    match (&a.data, a.dtype) {
        (ArgData::Float(v), ptl_lang::DType::F32) => Value::F32(array(s, v.iter().map(|&x| x as f32).collect())),
        (ArgData::Float(v), _) => Value::F64(array(s, v.clone())),
        (ArgData::Int(v), ptl_lang::DType::I32) => Value::I32(array(s, v.iter().map(|&x| x as i32).collect())),
        (ArgData::Int(v), _) => Value::I64(array(s, v.clone())),
        (ArgData::Bool(v), _) => Value::Bool(array(s, v.clone())),
    }
}

/// Why `got` differs from `want`: integers and bools must be equal, floats within a relative
/// plus an absolute tolerance (random programs subtract nearly equal values, where a relative
/// bound alone would demand more than either side's accuracy); NaN equals NaN. `via_f32` says
/// an `f64` result may have passed through `f32`, which limits its accuracy to `f32`'s.
fn close_enough(got: &Value, want: &Value, via_f32: bool) -> Option<String> {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Some(format!("type {} vs expected {}", got.tensor_type(), want.tensor_type()));
    }
    fn floats<T: Copy + Into<f64>>(g: &ndarray::ArrayD<T>, w: &ndarray::ArrayD<T>, rtol: f64, atol: f64) -> Option<String> {
        for (i, (a, b)) in g.iter().zip(w.iter()).enumerate() {
            let (a, b): (f64, f64) = ((*a).into(), (*b).into());
            let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * a.abs().max(b.abs());
            if !ok {
                return Some(format!("element {i}: {a:?} vs expected {b:?}"));
            }
        }
        None
    }
    fn exact<T: PartialEq + std::fmt::Debug>(g: &ndarray::ArrayD<T>, w: &ndarray::ArrayD<T>) -> Option<String> {
        let i = g.iter().zip(w.iter()).position(|(a, b)| a != b)?;
        Some(format!("element {i}: {:?} vs expected {:?}", g.iter().nth(i)?, w.iter().nth(i)?))
    }
    match (got, want) {
        (Value::F32(g), Value::F32(w)) => floats(g, w, 1e-5, 1e-5),
        (Value::F64(g), Value::F64(w)) if via_f32 => floats(g, w, 1e-5, 1e-5),
        (Value::F64(g), Value::F64(w)) => floats(g, w, 1e-10, 1e-10),
        (Value::I32(g), Value::I32(w)) => exact(g, w),
        (Value::I64(g), Value::I64(w)) => exact(g, w),
        (Value::Bool(g), Value::Bool(w)) => exact(g, w),
        _ => Some("dtypes differ".to_string()),
    }
}

/// Whether the function computes anything in `f32`.
fn via_f32(f: &GeneratedFn) -> bool {
    f.source.contains("f32")
}

/// Where both sides fail, whether they fail alike: a failed run-time check must give the same
/// message at the same span (the interpreter may add a note on the sizes it saw); an argument
/// that does not fit the signature must be rejected by both.
fn same_failure(interp: &InterpError, compiled: &RtError) -> Option<String> {
    if !matches!(interp, InterpError::Check { .. }) {
        return None;
    }
    let want = interp.diagnostic();
    match compiled.diagnostic() {
        Some(got) if (&got.message, &got.span, got.kind) == (&want.message, &want.span, want.kind) => None,
        Some(got) => Some(format!(
            "both failed, differently:\n  interpreter: {} at {:?}\n  compiled:    {} at {:?}",
            want.message, want.span, got.message, got.span
        )),
        None => Some(format!("both failed, differently:\n  interpreter: {} at {:?}\n  compiled:    {compiled}", want.message, want.span)),
    }
}

/// A failure report: everything needed to run the case again by hand.
fn report(f: &GeneratedFn, what: &str) -> String {
    let args: Vec<String> = f.params.iter().zip(&f.args).map(|(p, a)| format!("  {} = {}", p.name, a.literal())).collect();
    let note = f.inconsistent.as_ref().map(|n| format!("contradicting size: {n}\n")).unwrap_or_default();
    format!(
        "{}: {what}\n{}sizes n, m, k = {:?} (function seed {})\n{note}arguments:\n{}\n",
        f.name,
        f.source,
        f.sizes,
        f.seed,
        args.join("\n")
    )
}

/// What one batch did.
#[derive(Default)]
struct Tally {
    cases: usize,
    /// Cases the interpreter rejects (each compiled alone, unless the arguments never reach IREE).
    rejected: usize,
    failures: Vec<String>,
    /// Functions IREE 3.13 cannot compile for a known reason of its own (never a wrong answer),
    /// and batches whose combined module it cannot compile although every function alone
    /// agrees. Counted and bounded, not hidden: see `KNOWN_IREE_LIMITS`.
    iree_limits: Vec<String>,
    /// Functions the device refuses by name before compiling (`PTL_DIFF_DEVICE=vulkan`: f64
    /// functions SPIR-V lacks, loops on lavapipe); nothing to compare.
    refused: usize,
}

/// IREE 3.13 compile failures with no ptl cause, by the exact message IREE gives: a reduction
/// whose operand IREE sizes by an unbounded dynamic dim ("exceeded stack allocation limit",
/// and in combined modules "unbounded stack allocations": seen for a hub of two functions,
/// a reversed broadcast compared and summed, and one with an empty-`max` check, each of which
/// compiles alone and in a hub of its own), and a codegen verification failure that appears
/// only when many functions share a module.
const KNOWN_IREE_LIMITS: &[&str] = &[
    "'func.func' op exceeded stack allocation limit of 32768 bytes for function",
    "'memref.alloca' op expected no unbounded stack allocations",
    "'linalg.generic' op write affecting operations on global resources are restricted to workgroup distributed contexts",
    // The same unbounded sizing of a reduction's operand, as IREE reports it for a
    // reduction over bools (a sum of a comparison of broadcast bools with a `?` dim).
    "'memref.alloca' op expected no unbounded stack allocations",
    // The same, reported as an overflowing size, for a bool reduction in a function another
    // calls: `sum(any(broadcast(c, [1, n, m]), 0), [0, -1])` with `c: bool[m]`, called from a
    // hub, fails to compile (alone it compiles); seen on the commit before loops too.
    "'memref.alloca' op stack allocation size overflows 64 bits",
    // The same bool reduction sizing, reported for a `max` over bools of a `where` between
    // broadcast bools with dimension names (`sum(where(..., max(broadcast(false, [n, m]),
    // [-2, 1]), ...), [-2, 2])`): seen once the generator also made constructors.
    "'memref.alloca' op all stack allocations need to be hoisted to the entry block of the function",
    // A hub of 32 functions that each compile and agree alone, with seven loops among them
    // (long run, batch seed 1193; `ptl emit --stage vmfb` of the same hub, without host calls,
    // compiles; with the loops' interrupt checks removed it fails alike).
    "'stream.yield' op used resource not listed in explicit captures",
];

/// At most this share of generated cases may hit a known IREE limit.
const IREE_LIMIT_SHARE: f64 = 0.03;

/// IREE 3.13's SPIR-V code generation fails to compile some programs with unit dims (a
/// row or column of one, after broadcasts and concatenations) or empty work: seen with
/// `PTL_DIFF_DEVICE=vulkan`, never a wrong answer.
const KNOWN_VULKAN_LIMITS: &[&str] = &["failed to legalize unresolved", "failed to legalize operation 'memref.alloc'"];

fn known_iree_limit(e: &RtError) -> bool {
    let text = e.to_string();
    let vulkan = device() == Device::Vulkan && KNOWN_VULKAN_LIMITS.iter().any(|k| text.contains(k));
    text.starts_with("IREE failed to compile the program") && (vulkan || KNOWN_IREE_LIMITS.iter().any(|k| text.contains(k)))
}

/// Calls one generated function compiled and compares with the interpreter's outcome.
fn check_alone(engine: &mut Engine, prog: &ptl_lang::typed::TProgram, f: &GeneratedFn, args: &[Value], want: &Result<Vec<Value>, InterpError>) -> Option<String> {
    let got = engine.call(prog, &f.name, args);
    let why = match (got, want) {
        (Ok(got), Ok(want)) => got.first().zip(want.first()).and_then(|(g, w)| close_enough(g, w, via_f32(f))),
        (Ok(got), Err(e)) => Some(format!("compiled returned {got:?} where the interpreter failed: {e}")),
        (Err(RtError::Unsupported { .. } | RtError::Device(_)), _) if device() != Device::LocalSync => return Some(REFUSED.into()),
        (Err(e), Ok(_)) if known_iree_limit(&e) => return Some(format!("{KNOWN}{}", report(f, &e.to_string()))),
        (Err(e), Ok(want)) => Some(format!("compiled failed where the interpreter returned {want:?}:\n  {e}")),
        // IREE cannot compile it: nothing is compared, whatever the interpreter said.
        (Err(c), Err(_)) if known_iree_limit(&c) => return Some(format!("{KNOWN}{}", report(f, &c.to_string()))),
        (Err(c), Err(i)) => same_failure(i, &c),
    };
    why.map(|w| report(f, &w))
}

/// Marks a `check_alone` outcome that is a known IREE limit, not a disagreement.
const KNOWN: &str = "known IREE limit: ";

/// Marks a `check_alone` outcome that the device refused.
const REFUSED: &str = "refused by the device";

/// The device the random programs run on: `PTL_DIFF_DEVICE=vulkan`, else the CPU.
fn device() -> Device {
    match std::env::var("PTL_DIFF_DEVICE").as_deref() {
        Ok("vulkan") => Device::Vulkan,
        _ => Device::LocalSync,
    }
}

/// Sorts `check_alone` outcomes into failures and known IREE limits.
fn file(tally: &mut Tally, outcome: Option<String>) {
    match outcome {
        Some(o) if o == REFUSED => tally.refused += 1,
        Some(o) if o.starts_with(KNOWN) => tally.iree_limits.push(o),
        Some(o) => tally.failures.push(o),
        None => {}
    }
}

/// Runs the batch of generated functions `seed` gives, interpreted and compiled.
fn check_batch(seed: u64, count: usize) -> Tally {
    let batch = progen::random_batch(seed, DEPTH, count);
    let prog = ptl_lang::frontend(&batch.source)
        .unwrap_or_else(|d| panic!("generated program (batch seed {seed}) does not check:\n{}\n{d:?}", batch.source));
    let args: Vec<Vec<Value>> = batch.fns.iter().map(|f| f.args.iter().map(value).collect()).collect();
    let wants: Vec<_> = batch.fns.iter().zip(&args).map(|(f, a)| ptl_interp::call_function(&prog, &f.name, a)).collect();
    let mut tally = Tally { cases: count, ..Tally::default() };
    // A fresh engine per batch: loaded modules and the in-memory cache go with it.
    let mut engine = Engine::new(EngineOptions { device: device(), ..Default::default() }).expect("IREE runtime starts");
    let ran: Vec<usize> = (0..count).filter(|&i| wants[i].is_ok()).collect();
    for (i, f) in batch.fns.iter().enumerate() {
        match &wants[i] {
            Err(e @ InterpError::Internal { .. }) => tally.failures.push(report(f, &format!("interpreter internal error: {e}"))),
            Err(_) => {
                tally.rejected += 1;
                let outcome = check_alone(&mut engine, &prog, f, &args[i], &wants[i]);
                file(&mut tally, outcome);
            }
            Ok(_) => {}
        }
    }
    let mut hub_error = None;
    let together = ran.len() > 1 && {
        let sig: Vec<_> = ran
            .iter()
            .map(|&i| {
                let t = &prog.function(&batch.fns[i].name).expect("generated function").results[0];
                (&batch.fns[i], t.dtype, t.dims.len())
            })
            .collect();
        let src = format!("{}\n{}", batch.source, progen::hub(&sig));
        let hub = ptl_lang::frontend(&src).unwrap_or_else(|d| panic!("hub does not check:\n{src}\n{d:?}"));
        let hub_args: Vec<Value> = ran.iter().flat_map(|&i| args[i].iter().cloned()).collect();
        dump_hub(seed, &src, &ran.iter().flat_map(|&i| batch.fns[i].args.iter().map(|a| a.literal())).collect::<Vec<_>>());
        match engine.call(&hub, progen::HUB, &hub_args) {
            Ok(got) if got.len() != ran.len() => panic!("{} results from `{}` for {} functions", got.len(), progen::HUB, ran.len()),
            Ok(got) => {
                for (g, &i) in got.iter().zip(&ran) {
                    let want = &wants[i].as_ref().expect("ran")[0];
                    if let Some(why) = close_enough(g, want, via_f32(&batch.fns[i])) {
                        tally.failures.push(report(&batch.fns[i], &why));
                    }
                }
                true
            }
            // Someone disagrees: find out who, one by one.
            Err(e) => {
                hub_error = Some(e);
                false
            }
        }
    };
    if !together {
        let before = (tally.failures.len(), tally.iree_limits.len());
        for &i in &ran {
            let outcome = check_alone(&mut engine, &prog, &batch.fns[i], &args[i], &wants[i]);
            file(&mut tally, outcome);
        }
        // A function that fails (or hits a known limit) alone explains the combined failure.
        let refused = |e: &RtError| matches!(e, RtError::Unsupported { .. } | RtError::Device(_));
        if let Some(e) = hub_error.filter(|e| (tally.failures.len(), tally.iree_limits.len()) == before && !refused(e)) {
            let what = format!("`{}` failed although each function agrees alone: {e}", progen::HUB);
            if known_iree_limit(&e) { tally.iree_limits.push(what) } else { tally.failures.push(what) }
        }
    }
    tally
}

/// With `PTL_DIFF_DUMP=DIR`, each batch's combined program is written to `DIR/hub_SEED.ptl`
/// as a script that calls it on the batch's arguments, to rerun with `ptl run` and
/// `ptl run --interp`.
fn dump_hub(seed: u64, src: &str, args: &[String]) {
    let Some(dir) = std::env::var_os("PTL_DIFF_DUMP") else { return };
    let script = format!("{src}\nprint {}({});\n", progen::HUB, args.join(", "));
    let path = Path::new(&dir).join(format!("hub_{seed}.ptl"));
    std::fs::write(&path, script).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

/// Cases the CI run checks: `PTL_DIFF_CASES`, else 256.
fn cases_from_env(default: usize) -> usize {
    std::env::var("PTL_DIFF_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: cases_from_env(256).div_ceil(BATCH) as u32,
        failure_persistence: None,
        // Shrinking a seed gives an unrelated program; the report names the failing function.
        max_shrink_iters: 0,
        // The same cases on every CI run (`PTL_DIFF_SEED` picks others); the long run explores.
        rng_seed: proptest::test_runner::RngSeed::Fixed(
            std::env::var("PTL_DIFF_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed_0001)
        ),
        ..Default::default()
    })]

    /// Random well-typed functions, sizes 0, 1, 2, 3, 5 and some contradicting sizes:
    /// compiled == interpreter, failures included.
    #[test]
    fn random_programs_agree(seed in proptest::prelude::any::<u64>()) {
        let tally = check_batch(seed, BATCH);
        proptest::prop_assert!(tally.failures.is_empty(), "batch seed {seed}: {} of {} cases disagree:\n{}", tally.failures.len(), tally.cases, tally.failures.join("\n"));
        for l in &tally.iree_limits {
            eprintln!("batch seed {seed}: {l}");
        }
        // One batch may hit one known limit; more means the limit is no longer rare.
        proptest::prop_assert!(tally.iree_limits.len() <= 1, "batch seed {seed}: {} known IREE limits:\n{}", tally.iree_limits.len(), tally.iree_limits.join("\n"));
    }
}

/// The long run, over fixed seeds: `PTL_DIFF_CASES=10000 cargo test --release -p ptl-rt --test
/// differential -- --ignored` (`PTL_DIFF_SEED` picks the first batch seed). Reports every
/// disagreement, not only the first. Sequential: IREE compiles one module at a time per process.
#[test]
#[ignore = "long: thousands of generated functions"]
fn many_random_programs_agree() {
    let cases = cases_from_env(10_000);
    let first: u64 = std::env::var("PTL_DIFF_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let start = std::time::Instant::now();
    let (mut done, mut rejected, mut refused, mut failures, mut limits) = (0, 0, 0, Vec::new(), Vec::new());
    for seed in first.. {
        if done >= cases {
            break;
        }
        let tally = check_batch(seed, BATCH.min(cases - done));
        done += tally.cases;
        rejected += tally.rejected;
        refused += tally.refused;
        // Printed as found, so that a run cut short still tells what it saw.
        for f in &tally.failures {
            eprintln!("DISAGREEMENT batch seed {seed}: {f}");
        }
        failures.extend(tally.failures.into_iter().map(|f| format!("batch seed {seed}: {f}")));
        limits.extend(tally.iree_limits.into_iter().map(|f| format!("batch seed {seed}: {f}")));
        if (seed - first) % 25 == 24 {
            eprintln!("{done} cases, {} disagreements, {} known IREE limits, {:.0} s", failures.len(), limits.len(), start.elapsed().as_secs_f64());
        }
    }
    eprintln!(
        "{done} cases ({rejected} rejected by the interpreter) in {:.0} s: {} disagreements, {} known IREE limits",
        start.elapsed().as_secs_f64(),
        failures.len(),
        limits.len()
    );
    for l in &limits {
        eprintln!("{l}");
    }
    if refused > 0 {
        eprintln!("{refused} cases refused by the {} device", device().driver());
    }
    assert!((limits.len() as f64) <= IREE_LIMIT_SHARE * done as f64, "{} of {done} cases hit known IREE limits", limits.len());
    assert!(failures.is_empty(), "{} of {done} cases disagree:\n{}", failures.len(), failures.join("\n"));
}
