//! Hostile inputs to the compiled path: each must give a clear error (or, where the math
//! allows, the right answer), never a panic, an abort or a wrong result. The long soak runs are
//! in `examples/soak.rs`; see tests/robustness/README.md for the whole suite.

use std::path::{Path, PathBuf};
use std::process::Command;

use ndarray::{ArrayD, IxDyn};
use ptl_lang::typed::TProgram;
use ptl_lang::{Value, map_value};
use ptl_rt::{CacheOutcome, CompileCache, Engine, EngineOptions, RtError};

fn f64s(shape: &[usize], data: &[f64]) -> Value {
    Value::F64(ArrayD::from_shape_vec(IxDyn(shape), data.to_vec()).unwrap())
}

fn frontend(src: &str) -> TProgram {
    ptl_lang::frontend(src).unwrap_or_else(|d| panic!("does not check:\n{src}\n{d:?}"))
}

fn engine() -> Engine {
    Engine::new(EngineOptions { cache_dir: CompileCache::default_dir(), ..Default::default() }).expect("IREE runtime starts")
}

/// A fresh, empty folder under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptl-robustness-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Elementwise equality where NaN equals NaN (same sign of infinity, same dtype and shape).
fn same(got: &Value, want: &Value) -> bool {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return false;
    }
    let floats = |v: &Value| -> Option<Vec<f64>> {
        match v {
            Value::F32(a) => Some(a.iter().map(|&x| x as f64).collect()),
            Value::F64(a) => Some(a.iter().copied().collect()),
            _ => None,
        }
    };
    match (floats(got), floats(want)) {
        (Some(g), Some(w)) => {
            g.iter().zip(&w).all(|(a, b)| (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs()))
        }
        // Integers and bools: exactly, element by element in row-major order.
        _ => map_value!(got, a => a.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>())
            == map_value!(want, a => a.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>()),
    }
}

/// Runs `name` compiled and interpreted; both must succeed and agree.
fn agree(e: &mut Engine, prog: &TProgram, name: &str, args: &[Value]) -> Vec<Value> {
    let want = ptl_interp::call_function(prog, name, args).unwrap_or_else(|err| panic!("interpreter: {err}"));
    let got = e.call(prog, name, args).unwrap_or_else(|err| panic!("compiled `{name}`: {err}"));
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(same(g, w), "`{name}` on {args:?}: compiled {g:?} vs interpreter {w:?}");
    }
    got
}

// ---- failed run-time checks: the interpreter's report, never IREE's text ----

/// Every fixture that type-checks but fails when it runs fails compiled with the same check:
/// the same message and span (the interpreter only adds a note of the sizes it saw), and no
/// IREE status text.
#[test]
fn failed_run_time_checks_report_what_the_interpreter_reports() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/errors");
    let mut e = engine();
    let mut seen = 0;
    for f in ptl_testkit::fixture::load_all(&dir) {
        let Ok(prog) = ptl_lang::frontend(&f.source) else { continue };
        let want = match ptl_interp::run_program(&prog) {
            Ok(_) => continue,
            Err(err) => err.diagnostic(),
        };
        seen += 1;
        let name = f.path.display();
        let err = e.run_script(&prog).expect_err(&format!("{name}: the compiled run must fail"));
        let text = err.to_string();
        assert!(!text.contains("iree/") && !text.contains("Status"), "{name}: IREE text reached the user: {text}");
        let got = err.diagnostic().unwrap_or_else(|| panic!("{name}: no report for {err}"));
        assert_eq!((&got.message, &got.span, got.kind), (&want.message, &want.span, want.kind), "{name}");
        assert!(got.notes.iter().all(|n| want.notes.contains(n)), "{name}: {:?} vs {:?}", got.notes, want.notes);
    }
    assert!(seen >= 5, "expected the run-time error fixtures under {}", dir.display());
}

/// The same through `Engine::call`, where the arguments arrive at run time.
#[test]
fn failed_run_time_checks_in_called_functions() {
    let src = "fn add(a: f64[?], b: f64[3]) -> f64[3] { a + b }\n\
               fn same(a: f64[?], b: f64[?]) { a * b }\n\
               fn mm(a: f64[?, 2, 2], b: f64[3, 2, 2]) { a @ b }\n\
               fn inner(a: f64[2, ?], b: f64[3]) { a @ b }\n\
               fn largest(x: f64[?, ?]) { min(x, 1) }\n\
               fn rows(x: f64[?]) { reshape(x, [?, 2]) }\n";
    let prog = frontend(src);
    let mut e = engine();
    let m = |shape: &[usize]| f64s(shape, &vec![1.0; shape.iter().product()]);
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("add", vec![m(&[1]), m(&[3])]),
        ("add", vec![m(&[4]), m(&[3])]),
        ("same", vec![m(&[1]), m(&[3])]),
        ("same", vec![m(&[3]), m(&[0])]),
        ("mm", vec![m(&[1, 2, 2]), m(&[3, 2, 2])]),
        ("inner", vec![m(&[2, 2]), m(&[3])]),
        ("largest", vec![m(&[2, 0])]),
        ("rows", vec![m(&[3])]),
    ];
    for (name, args) in cases {
        let want = ptl_interp::call_function(&prog, name, &args).expect_err(name).diagnostic();
        let err = e.call(&prog, name, &args).expect_err(name);
        let got = err.diagnostic().unwrap_or_else(|| panic!("{name}: no report for {err}"));
        assert_eq!((&got.message, &got.span), (&want.message, &want.span), "{name} on {args:?}");
    }
    // The engine still works after failures.
    assert_eq!(e.call(&prog, "same", &[m(&[2]), m(&[2])]).unwrap(), vec![m(&[2])]);
}

// ---- arguments that do not fit the signature never reach IREE ----

#[test]
fn wrong_dtype_rank_count_and_symbolic_dims_are_clear_errors() {
    let prog = frontend("fn f(x: f64[n], y: f64[n]) { x + y }\nfn g(m: f64[2, 3]) { m }\n");
    let mut e = engine();
    let x = f64s(&[2], &[1.0, 2.0]);
    let cases: Vec<(&str, Vec<Value>, &str)> = vec![
        ("f", vec![Value::F32(ArrayD::zeros(IxDyn(&[2]))), x.clone()], "dtype f32 where f64 is expected"),
        ("f", vec![Value::I64(ArrayD::zeros(IxDyn(&[2]))), x.clone()], "dtype i64 where f64 is expected"),
        ("f", vec![f64s(&[2, 1], &[1.0, 2.0]), x.clone()], "rank 2 where 1 is expected"),
        ("f", vec![f64s(&[], &[1.0]), x.clone()], "rank 0 where 1 is expected"),
        ("f", vec![x.clone(), f64s(&[3], &[1.0, 2.0, 3.0])], "axis 0 is `n` = 3, but argument `x` fixed `n` = 2"),
        ("g", vec![f64s(&[3, 2], &[0.0; 6])], "axis 0 has size 3, expected 2"),
    ];
    for (name, args, want) in cases {
        let err = e.call(&prog, name, &args).unwrap_err();
        assert!(matches!(err, RtError::Argument { .. }), "{err:?}");
        assert!(err.to_string().contains(want), "`{err}` does not say `{want}`");
    }
    let err = e.call(&prog, "f", std::slice::from_ref(&x)).unwrap_err();
    assert!(err.to_string().contains("takes 2 argument(s), got 1"), "{err}");
    let err = e.call(&prog, "nope", &[]).unwrap_err();
    assert!(err.to_string().contains("no function named `nope`"), "{err}");
    // Still usable afterwards.
    assert_eq!(e.call(&prog, "f", &[x.clone(), x]).unwrap(), vec![f64s(&[2], &[2.0, 4.0])]);
}

// ---- zero-size arrays work wherever the math allows ----

#[test]
fn zero_size_arrays_compute_like_numpy() {
    let prog = frontend(
        "fn ew(x: f64[n], y: f64[n]) { exp(x) * y + 1.0 }\n\
         fn total(x: f64[n]) { sum(x) }\n\
         fn avg(x: f64[n]) { mean(x) }\n\
         fn rows(x: f64[n, m]) { sum(x, 1) }\n\
         fn mm(a: f64[n, k], b: f64[k, m]) { a @ b }\n\
         fn soft(x: f64[n, m]) { softmax(x, 1) }\n",
    );
    let mut e = engine();
    let empty = f64s(&[0], &[]);
    assert_eq!(agree(&mut e, &prog, "ew", &[empty.clone(), empty.clone()]), vec![empty.clone()]);
    assert_eq!(agree(&mut e, &prog, "total", std::slice::from_ref(&empty)), vec![f64s(&[], &[0.0])]);
    let mean = agree(&mut e, &prog, "avg", std::slice::from_ref(&empty));
    assert!(matches!(&mean[0], Value::F64(a) if a.ndim() == 0 && a.iter().all(|v| v.is_nan())), "{mean:?}");
    assert_eq!(agree(&mut e, &prog, "rows", &[f64s(&[3, 0], &[])]), vec![f64s(&[3], &[0.0; 3])]);
    assert_eq!(agree(&mut e, &prog, "rows", &[f64s(&[0, 4], &[])]), vec![f64s(&[0], &[])]);
    // Inner dim 0: a 2x3 matrix of zeros.
    assert_eq!(agree(&mut e, &prog, "mm", &[f64s(&[2, 0], &[]), f64s(&[0, 3], &[])]), vec![f64s(&[2, 3], &[0.0; 6])]);
    assert_eq!(agree(&mut e, &prog, "mm", &[f64s(&[0, 2], &[]), f64s(&[2, 3], &[0.0; 6])]), vec![f64s(&[0, 3], &[])]);
    assert_eq!(agree(&mut e, &prog, "soft", &[f64s(&[0, 3], &[])]), vec![f64s(&[0, 3], &[])]);
}

// ---- NaN and infinities propagate as in NumPy (the interpreter is the oracle) ----

#[test]
fn nan_and_inf_propagate_like_the_interpreter() {
    let prog = frontend(
        "fn ew(x: f64[n]) { exp(x) + log(abs(x)) * tanh(x) - sqrt(x) }\n\
         fn arith(x: f64[n], y: f64[n]) { x / y + x * 0.0 - y ** 2.0 }\n\
         fn minmax(x: f64[n], y: f64[n]) { maximum(x, y) + minimum(x, y) }\n\
         fn red(x: f64[n]) { sum(x) + max(x) + min(x) + mean(x) }\n\
         fn soft(x: f64[n]) { softmax(x, 0) }\n\
         fn sig(x: f32[n]) { sigmoid(x) + log1p(abs(x)) }\n",
    );
    let mut e = engine();
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.0, -1.0, 1e308, -1e-310];
    let n = specials.len();
    let x = f64s(&[n], &specials);
    let mut rotated = specials.to_vec();
    rotated.rotate_left(1);
    let y = f64s(&[n], &rotated);
    agree(&mut e, &prog, "ew", std::slice::from_ref(&x));
    agree(&mut e, &prog, "arith", &[x.clone(), y.clone()]);
    agree(&mut e, &prog, "minmax", &[x.clone(), y.clone()]);
    agree(&mut e, &prog, "soft", std::slice::from_ref(&x));
    agree(&mut e, &prog, "sig", &[Value::F32(ArrayD::from_shape_vec(IxDyn(&[n]), specials.iter().map(|&v| v as f32).collect()).unwrap())]);
    // Reductions: one NaN anywhere makes every one of them NaN; infinities without NaN follow IEEE.
    let red = agree(&mut e, &prog, "red", std::slice::from_ref(&x));
    assert!(matches!(&red[0], Value::F64(a) if a.iter().all(|v| v.is_nan())), "{red:?}");
    for v in &specials[1..] {
        let mut d = specials[1..].to_vec();
        d[0] = *v;
        agree(&mut e, &prog, "red", &[f64s(&[d.len()], &d)]);
        agree(&mut e, &prog, "soft", &[f64s(&[d.len()], &d)]);
    }
}

// ---- sizes that overflow are errors, never aborts or wrapped counts ----

#[test]
fn huge_static_shapes_are_rejected_by_the_checker() {
    for src in [
        "print broadcast(1.0, [1099511627776, 1099511627776]);",
        "let x = [1.0, 2.0];\nprint reshape(broadcast(x, [1099511627776, 1099511627776, 2]), [?]);",
        "fn f(x: f64[4294967296, 4294967296, 4294967296]) { sum(x) }\nprint 1.0;",
        "fn f(a: f32[2147483648, 1], b: f32[2147483648]) { a + b }\nprint 1.0;",
        "print sum(broadcast(1.0, [9223372036854775807, 2]));",
    ] {
        let diags = ptl_lang::frontend(src).map(|_| ()).expect_err(src);
        let text = ptl_lang::diag::render_all(&diags, "huge.ptl", src, false);
        assert!(text.contains("has too many elements"), "{src}\n{text}");
    }
    // Just under the limit still checks: it is the run that cannot allocate it.
    assert!(ptl_lang::frontend("print sum(broadcast(1.0, [1073741824, 1073741824]));").is_ok());
}

#[test]
fn a_result_too_large_for_memory_is_a_runtime_error() {
    // 2^20 x 2^20 f64 = 8 TiB: each argument is small, the outer sum cannot be allocated.
    let prog = frontend("fn outer_sum(x: f64[n], y: f64[m]) { reshape(x, [n, 1]) + y }");
    let mut e = engine();
    let big = Value::F64(ArrayD::zeros(IxDyn(&[1 << 20])));
    match e.call(&prog, "outer_sum", &[big.clone(), big]) {
        Err(err) => assert!(matches!(err, RtError::OutOfMemory(_)), "{err:?}"),
        Ok(v) => panic!("allocated an 8 TiB result of shape {:?}", v[0].shape()),
    }
    // The engine is still usable.
    let small = f64s(&[2], &[1.0, 2.0]);
    assert_eq!(e.call(&prog, "outer_sum", &[small.clone(), small]).unwrap(), vec![f64s(&[2, 2], &[2.0, 3.0, 3.0, 4.0])]);
}

// ---- a corrupted compile cache entry is rebuilt, never loaded ----

#[test]
fn corrupted_cache_entry_on_disk_is_rebuilt_not_loaded() {
    let dir = temp_dir("cache");
    let prog = frontend("fn f(x: f64[n]) { x * 3.0 + 1.0 }");
    let x = f64s(&[3], &[1.0, 2.0, 3.0]);
    let want = vec![f64s(&[3], &[4.0, 7.0, 10.0])];
    let options = || EngineOptions { cache_dir: Some(dir.clone()), ..Default::default() };
    let mut e1 = Engine::new(options()).unwrap();
    assert_eq!(e1.call(&prog, "f", std::slice::from_ref(&x)).unwrap(), want);
    assert_eq!(e1.timings().outcome, Some(CacheOutcome::Compiled));
    drop(e1);
    let entries: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let path = &entries[0];
    let good = std::fs::read(path).unwrap();
    assert!(good.len() > 1000, "a real vmfb");
    let corruptions: Vec<(&str, Vec<u8>)> = vec![
        ("a flipped byte in the middle of the vmfb", {
            let mut b = good.clone();
            let mid = b.len() / 2;
            b[mid] ^= 0x5a;
            b
        }),
        ("truncated", good[..good.len() / 3].to_vec()),
    ];
    for (what, bytes) in corruptions {
        std::fs::write(path, &bytes).unwrap();
        let mut e = Engine::new(options()).unwrap();
        assert_eq!(e.call(&prog, "f", std::slice::from_ref(&x)).unwrap(), want, "{what}");
        assert_eq!(e.timings().outcome, Some(CacheOutcome::Compiled), "{what}: must recompile");
        assert_eq!(std::fs::read(path).unwrap().len(), good.len(), "{what}: entry rewritten");
    }
    // The rebuilt entry is valid: a new engine loads it from disk.
    let mut e = Engine::new(options()).unwrap();
    assert_eq!(e.call(&prog, "f", &[x]).unwrap(), want);
    assert_eq!(e.timings().outcome, Some(CacheOutcome::Disk));
    let _ = std::fs::remove_dir_all(dir);
}

// ---- the `ptl` binary: a missing IREE compiler library, malformed .npy arguments ----

/// `target/<profile>/ptl`, next to this test's `deps/` folder.
fn ptl_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().and_then(Path::parent).unwrap().join("ptl");
    assert!(bin.exists(), "{} is missing: build it with `cargo build -p ptl-cli`", bin.display());
    bin
}

#[test]
fn a_missing_compiler_library_says_how_to_install_it() {
    let dir = temp_dir("nocompiler");
    let src = dir.join("p.ptl");
    std::fs::write(&src, "print [1.0, 2.0] * 2.0;\n").unwrap();
    let out = Command::new(ptl_bin())
        .arg("run")
        .arg(&src)
        .env("PTL_IREE_COMPILER", "/nonexistent/libIREECompiler.so")
        // A fresh cache, so nothing is found already compiled.
        .env("PTL_CACHE_DIR", dir.join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "ran without a compiler: {stderr}");
    assert_ne!(out.status.code(), Some(101), "panicked: {stderr}");
    assert!(stderr.contains("/nonexistent/libIREECompiler.so"), "{stderr}");
    assert!(stderr.contains("pip install iree-base-compiler") && stderr.contains("scripts/setup.sh"), "{stderr}");
    // The interpreter needs no compiler.
    let out = Command::new(ptl_bin()).args(["run", "--interp"]).arg(&src).env("PTL_IREE_COMPILER", "/nonexistent").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(dir);
}

/// A version 1.0 .npy file: magic, header length, header padded to 64 bytes, then `data`.
fn npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}", if fortran { "True" } else { "False" });
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn malformed_npy_arguments_are_clear_errors() {
    let dir = temp_dir("npy");
    let src = dir.join("p.ptl");
    std::fs::write(&src, "fn f(x: f64[n]) { x * 2.0 }\n").unwrap();
    let f64_bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let good = npy("<f8", false, "(3,)", &f64_bytes(&[1.0, 2.0, 3.0]));
    let run = |name: &str, bytes: &[u8]| {
        let file = dir.join(name);
        std::fs::write(&file, bytes).unwrap();
        Command::new(ptl_bin())
            .args(["run", "--interp"])
            .arg(&src)
            .args(["--fn", "f", "--arg"])
            .arg(format!("x={}", file.display()))
            .output()
            .unwrap()
    };
    let out = run("good.npy", &good);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[2. 4. 6.]"), "{}", String::from_utf8_lossy(&out.stdout));
    let bad: Vec<(&str, Vec<u8>)> = vec![
        ("empty.npy", Vec::new()),
        ("not_npy.npy", b"hello, this is not an array\n".to_vec()),
        ("truncated_header.npy", good[..20].to_vec()),
        ("truncated_data.npy", good[..good.len() - 5].to_vec()),
        ("bad_header.npy", npy("<f8", false, "(3,", &f64_bytes(&[1.0, 2.0, 3.0]))),
        ("unknown_dtype.npy", npy("<c16", false, "(3,)", &[0u8; 48])),
        ("huge_shape.npy", npy("<f8", false, "(1099511627776, 1099511627776)", &f64_bytes(&[1.0]))),
        ("wrong_rank.npy", npy("<f8", false, "(1, 3)", &f64_bytes(&[1.0, 2.0, 3.0]))),
    ];
    for (name, bytes) in bad {
        let out = run(name, &bytes);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name} was accepted: {}", String::from_utf8_lossy(&out.stdout));
        assert_ne!(out.status.code(), Some(101), "{name}: panicked\n{stderr}");
        assert!(stderr.contains("error"), "{name}: {stderr}");
        assert!(stderr.lines().count() < 30, "{name}: a clear error, not a dump\n{stderr}");
    }
    // Fortran order is a layout, not an error: the values arrive in the right places.
    let src2 = dir.join("m.ptl");
    std::fs::write(&src2, "fn g(m: f64[2, 3]) { sum(m, 1) }\n").unwrap();
    let file = dir.join("fortran.npy");
    // [[1, 2, 3], [4, 5, 6]] stored column by column.
    std::fs::write(&file, npy("<f8", true, "(2, 3)", &f64_bytes(&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]))).unwrap();
    let out = Command::new(ptl_bin())
        .args(["run", "--interp"])
        .arg(&src2)
        .args(["--fn", "g", "--arg"])
        .arg(format!("m={}", file.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("[ 6. 15.]"), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(dir);
}

// ---- threads: one Engine per thread (Engine is !Send, so this is the only way) ----

#[test]
fn engines_on_several_threads_run_the_same_program_concurrently() {
    let src = "fn f(x: f64[n], y: f64[n]) { sum(x * y) + max(x) }";
    // Compile once; the threads load the module from the shared disk cache.
    let dir = temp_dir("threads");
    let options = move || EngineOptions { cache_dir: Some(dir.clone()), ..Default::default() };
    let one = f64s(&[1], &[1.0]);
    Engine::new(options()).unwrap().call(&frontend(src), "f", &[one.clone(), one]).unwrap();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let options = options.clone();
            std::thread::spawn(move || {
                let prog = frontend(src);
                let mut e = Engine::new(options()).unwrap();
                for i in 0..50 {
                    let n = 1 + (i + t) % 7;
                    let x: Vec<f64> = (0..n).map(|j| (j + t) as f64).collect();
                    let y: Vec<f64> = (0..n).map(|j| (j * i) as f64 * 0.5).collect();
                    let want = x.iter().zip(&y).map(|(a, b)| a * b).sum::<f64>() + x.iter().cloned().fold(f64::MIN, f64::max);
                    let got = e.call(&prog, "f", &[f64s(&[n], &x), f64s(&[n], &y)]).unwrap();
                    assert_eq!(got, vec![f64s(&[], &[want])], "thread {t} call {i}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread panicked");
    }
}
