//! The `ptl` binary, driven as a user would: every subcommand, every error exit, and the REPL
//! through a pseudo-terminal. Expected numbers are computed by hand (or by NumPy, for the
//! examples' `.out` files) and compared with both the compiled path and the interpreter.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use ndarray::{ArrayD, IxDyn, array};
use ndarray_npy::{read_npy, write_npy};
use predicates::prelude::*;
use predicates::str::contains;
use tempfile::TempDir;

const AXPY: &str = "\
fn axpy(x: f64[n], y: f64[n]) -> f64[n] {
    x + y * 2.0
}

fn stats(v: f64[n]) -> (f64, f64) {
    (sum(v), max(v))
}

fn count(v: i32[n]) -> i64 {
    sum(v)
}

fn scale(v: f32[n]) -> f32[n] {
    v * 2.0
}

print axpy([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
";

/// The compile cache shared by these tests (kept between runs, so reruns are fast).
fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ptl-cli-cache")
}

fn ptl() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptl"));
    c.env("PTL_CACHE_DIR", cache_dir())
        .env(
            "PTL_HISTORY",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ptl-cli-history"),
        )
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(120));
    c
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// A temporary folder holding `prog.ptl` with `src`.
fn with_program(src: &str) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("prog.ptl");
    std::fs::write(&file, src).expect("write program");
    (dir, file)
}

fn stdout_of(c: &mut Command) -> String {
    let out = c.output().expect("run ptl");
    assert!(
        out.status.success(),
        "ptl failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ---- run ---------------------------------------------------------------------------------

#[test]
fn run_prints_the_script_values() {
    let (_d, f) = with_program(AXPY);
    ptl()
        .arg("run")
        .arg(&f)
        .assert()
        .success()
        .stdout("[ 9. 12. 15.]\n");
}

#[test]
fn compiled_and_interpreted_runs_match_numpy_on_every_example() {
    let mut n = 0;
    for entry in std::fs::read_dir(examples()).expect("examples") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "ptl") {
            continue;
        }
        let expected =
            std::fs::read_to_string(path.with_extension("out")).expect("expected output");
        let compiled = stdout_of(ptl().arg("run").arg(&path));
        let interpreted = stdout_of(ptl().arg("run").arg("--interp").arg(&path));
        assert_eq!(compiled, expected, "compiled output of {}", path.display());
        assert_eq!(
            interpreted,
            expected,
            "interpreted output of {}",
            path.display()
        );
        n += 1;
    }
    assert!(n >= 1, "no examples found");
}

#[test]
fn run_time_prints_a_timing_line_on_stderr() {
    let (_d, f) = with_program(AXPY);
    ptl()
        .args(["run", "--time"])
        .arg(&f)
        .assert()
        .success()
        .stdout("[ 9. 12. 15.]\n")
        .stderr(
            contains("time: lower")
                .and(contains("compile"))
                .and(contains("run")),
        );
    ptl()
        .args(["run", "--time", "--interp"])
        .arg(&f)
        .assert()
        .success()
        .stderr(contains("time: interpreted"));
}

/// A program's loops run inside the one call of the compiled module: 100 steps of Newton's
/// iteration and a 100-step scan take one call, not one per step. (The script has no
/// run-time checks, so no checks-only call comes first.)
#[test]
fn loops_run_inside_one_compiled_call() {
    let src = "let a = [4.0, 9.0];\n\
               print loop x = a for k in 0..100 { 0.5 * (x + a / x) };\n\
               let (s, xs) = scan s = 0.0 for i in 0..100 { (s + 1.0, s * 2.0) };\n\
               print s;\n";
    let (_d, f) = with_program(src);
    ptl()
        .args(["run", "--time"])
        .arg(&f)
        .assert()
        .success()
        .stdout("[2. 3.]\n100.0\n")
        .stderr(contains("(1 compiled call)"));
}

#[test]
fn run_on_the_task_device_and_with_flushed_denormals() {
    let (_d, f) = with_program("fn f(x: f64[n]) -> f64[n] { x * 0.1 }\n");
    let call = |extra: &[&str]| {
        let mut c = ptl();
        c.arg("run")
            .arg(&f)
            .args(["--fn", "f", "--arg", "x=[3e-308, 1.0]"])
            .args(extra);
        stdout_of(&mut c)
    };
    // 3e-309 is subnormal: kept by default (as NumPy does), flushed to zero on request.
    assert_eq!(call(&[]), "[3.e-309 1.e-001]\n");
    assert_eq!(call(&["--interp"]), "[3.e-309 1.e-001]\n");
    assert_eq!(call(&["--device", "local-task"]), "[3.e-309 1.e-001]\n");
    assert_eq!(call(&["--flush-denormals"]), "[0.  0.1]\n");
}

#[test]
fn run_fn_with_inline_literals_adapts_their_dtype() {
    let (_d, f) = with_program(AXPY);
    for mode in [None, Some("--interp")] {
        let run = |args: &[&str]| {
            let mut c = ptl();
            c.arg("run").arg(&f).args(args).args(mode);
            stdout_of(&mut c)
        };
        // Integer literals for f64 parameters, as in source.
        assert_eq!(
            run(&[
                "--fn",
                "axpy",
                "--arg",
                "x=[1, 2, 3]",
                "--arg",
                "y=[1.5, 0, -1]"
            ]),
            "[4. 2. 1.]\n"
        );
        assert_eq!(run(&["--fn", "count", "--arg", "v=[1, 2, 3, 4]"]), "10\n");
        assert_eq!(run(&["--fn", "scale", "--arg", "v=[0.5, 1]"]), "[1. 2.]\n");
        assert_eq!(
            run(&["--fn", "stats", "--arg", "v=[3, -1, 7]"]),
            "9.0\n7.0\n"
        );
    }
}

#[test]
fn run_fn_reads_and_writes_npy_files() {
    let (d, f) = with_program(AXPY);
    let x = d.path().join("x.npy");
    let y = d.path().join("y.npy");
    write_npy(&x, &array![1.0f64, 2.0, 3.0]).expect("write x");
    // float32 and int64 files widen to the f64 parameters.
    write_npy(&y, &array![0.5f32, 1.0, -2.0]).expect("write y");
    let out = d.path().join("r.npy");
    for mode in [None, Some("--interp")] {
        ptl()
            .arg("run")
            .arg(&f)
            .args(["--fn", "axpy"])
            .arg(format!("--arg=x={}", x.display()))
            .arg(format!("--arg=y={}", y.display()))
            .arg("--out")
            .arg(&out)
            .args(mode)
            .assert()
            .success()
            .stdout("");
        let r: ArrayD<f64> = read_npy(&out).expect("read result");
        assert_eq!(r, array![2.0, 4.0, -1.0].into_dyn());
    }
    let ints = d.path().join("i.npy");
    write_npy(&ints, &array![[1i64, 2], [3, 4]]).expect("write ints");
    ptl()
        .arg("run")
        .arg(&f)
        .args(["--fn", "axpy", "--arg", "x=[10, 20, 30]"])
        .arg(format!("--arg=y={}", x.display()))
        .assert()
        .success()
        .stdout("[12. 24. 36.]\n");
    // Several results: one --out per result.
    let (a, b) = (d.path().join("a.npy"), d.path().join("b.npy"));
    ptl()
        .arg("run")
        .arg(&f)
        .args(["--fn", "stats"])
        .arg(format!("--arg=v={}", x.display()))
        .arg("--out")
        .arg(&a)
        .arg("--out")
        .arg(&b)
        .assert()
        .success();
    let sa: ArrayD<f64> = read_npy(&a).expect("read a");
    let sb: ArrayD<f64> = read_npy(&b).expect("read b");
    assert_eq!(
        (sa, sb),
        (
            ArrayD::from_elem(IxDyn(&[]), 6.0),
            ArrayD::from_elem(IxDyn(&[]), 3.0)
        )
    );
    // A 2-d int64 file for a 1-d parameter: the shapes are named.
    ptl()
        .arg("run")
        .arg(&f)
        .args(["--fn", "axpy", "--arg", "x=[1, 2]"])
        .arg(format!("--arg=y={}", ints.display()))
        .assert()
        .code(1)
        .stderr(
            contains("argument `y` of `axpy`")
                .and(contains("f64[2, 2]"))
                .and(contains("f64[n]")),
        );
}

#[test]
fn run_fn_argument_errors_exit_1_with_a_message() {
    let (d, f) = with_program(AXPY);
    let fail = |args: &[String], needle: &str| {
        ptl()
            .arg("run")
            .arg(&f)
            .args(args)
            .assert()
            .code(1)
            .stderr(contains(needle).and(contains("panicked").not()));
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // Shapes that do not agree: both types named.
    fail(
        &s(&["--fn", "axpy", "--arg", "x=[1, 2, 3]", "--arg", "y=[1, 2]"]),
        "argument `y` of `axpy` has type `f64[2]`, expected `f64[n]`",
    );
    fail(
        &s(&[
            "--fn", "axpy", "--arg", "x=[1, 2]", "--arg", "y=[1, 2]", "--interp", "--arg", "z=1",
        ]),
        "no parameter named `z`",
    );
    fail(
        &s(&["--fn", "axpy", "--arg", "x=[1, 2]"]),
        "missing argument `y: f64[n]`",
    );
    fail(
        &s(&[
            "--fn", "axpy", "--arg", "x=[1, 2]", "--arg", "x=[1]", "--arg", "y=[1]",
        ]),
        "given more than once",
    );
    fail(
        &s(&["--fn", "axpy", "--arg", "x", "--arg", "y=[1]"]),
        "not of the form NAME=VALUE",
    );
    fail(
        &s(&["--fn", "axpy", "--arg", "x=[1, 2,", "--arg", "y=[1]"]),
        "neither a .npy file nor a valid ptl expression",
    );
    fail(
        &s(&["--fn", "count", "--arg", "v=[1.5, 2.5]"]),
        "argument `v` of `count`",
    );
    fail(&s(&["--fn", "nope"]), "no function named `nope`");
    fail(
        &s(&["--fn", "stats", "--arg", "v=[1]", "--out", "only-one.npy"]),
        "returns 2 result(s) but 1 --out",
    );
    // Files that are not usable .npy.
    let bad = d.path().join("bad.npy");
    std::fs::write(&bad, b"this is not numpy").expect("write");
    fail(
        &s(&[
            "--fn",
            "axpy",
            "--arg",
            &format!("x={}", bad.display()),
            "--arg",
            "y=[1]",
        ]),
        "not a valid .npy file",
    );
    let cut = d.path().join("cut.npy");
    write_npy(&cut, &array![1.0f64, 2.0, 3.0, 4.0]).expect("write");
    let bytes = std::fs::read(&cut).expect("read");
    std::fs::write(&cut, &bytes[..bytes.len() - 5]).expect("truncate");
    fail(
        &s(&[
            "--fn",
            "axpy",
            "--arg",
            &format!("x={}", cut.display()),
            "--arg",
            "y=[1]",
        ]),
        "is truncated",
    );
    let bytes_u8 = d.path().join("u8.npy");
    write_npy(&bytes_u8, &array![1u8, 2]).expect("write");
    fail(
        &s(&[
            "--fn",
            "axpy",
            "--arg",
            &format!("x={}", bytes_u8.display()),
            "--arg",
            "y=[1]",
        ]),
        "holds dtype `|u1`",
    );
    fail(
        &s(&["--fn", "axpy", "--arg", "x=missing.npy", "--arg", "y=[1]"]),
        "cannot read missing.npy",
    );
}

#[test]
fn run_reports_bad_files_syntax_and_type_errors() {
    ptl()
        .args(["run", "no/such/file.ptl"])
        .assert()
        .code(1)
        .stderr(contains("cannot read no/such/file.ptl"));
    let (_d, f) = with_program("let x = [1.0, 2.0;\n");
    ptl()
        .arg("run")
        .arg(&f)
        .assert()
        .code(1)
        .stderr(contains("E0002").and(contains("prog.ptl")));
    let (_d, f) = with_program("let x = [1.0, 2.0] + [1.0, 2.0, 3.0];\nprint y;\n");
    ptl().arg("run").arg(&f).assert().code(1).stderr(
        contains("E0006")
            .and(contains("E0003"))
            .and(contains("2 errors")),
    );
}

#[test]
fn run_reports_run_time_shape_errors() {
    let (_d, f) = with_program("fn f(x: f64[?], y: f64[?]) -> f64[?] { x + y }\n");
    for mode in [None, Some("--interp")] {
        ptl()
            .arg("run")
            .arg(&f)
            .args(["--fn", "f", "--arg", "x=[1, 2]", "--arg", "y=[1, 2, 3]"])
            .args(mode)
            .env("NO_COLOR", "1")
            .assert()
            .code(1)
            // The same report from both backends, at the op's span.
            .stderr(
                contains("[E0011] Error: the operands of `+` differ in size at axis 0")
                    .and(contains("x + y"))
                    .and(contains("panicked").not()),
            );
    }
}

// ---- check, emit, fmt ----------------------------------------------------------------------

#[test]
fn check_reports_every_error_of_every_file() {
    let (_d, good) = with_program(AXPY);
    ptl().arg("check").arg(&good).assert().success().stderr("");
    let d = tempfile::tempdir().expect("dir");
    let a = d.path().join("a.ptl");
    let b = d.path().join("b.ptl");
    std::fs::write(&a, "let x = 1.0 +;\n").expect("write");
    std::fs::write(&b, "fn f(x: f64[2]) -> f64[3] { x }\nprint zz;\n").expect("write");
    ptl()
        .arg("check")
        .arg(&a)
        .arg(&good)
        .arg(&b)
        .assert()
        .code(1)
        .stderr(
            contains("a.ptl")
                .and(contains("E0002"))
                .and(contains("b.ptl"))
                .and(contains("E0009"))
                .and(contains("E0003"))
                .and(contains("2 errors in")),
        );
    ptl()
        .arg("check")
        .arg(d.path().join("none.ptl"))
        .assert()
        .code(1)
        .stderr(contains("cannot read"));
    ptl().arg("check").assert().code(2);
}

#[test]
fn check_output_has_no_colour_with_no_color() {
    let (_d, f) = with_program("print zz;\n");
    ptl()
        .arg("check")
        .arg(&f)
        .assert()
        .code(1)
        .stderr(contains("\u{1b}[").not());
}

#[test]
fn emit_without_statements_picks_the_one_function_or_asks() {
    let (_d, one) = with_program("fn double(x: f64[n]) -> f64[n] { x * 2.0 }\n");
    ptl().arg("emit").arg(&one).assert().success().stdout(contains("func.func @double"));
    let (_d2, two) = with_program("fn a(x: f64) -> f64 { x }\nfn b(x: f64) -> f64 { x }\n");
    ptl()
        .arg("emit")
        .arg(&two)
        .assert()
        .code(1)
        .stderr(contains("pick a function with --fn: `a`, `b`"));
}

#[test]
fn emit_each_stage() {
    let (d, f) = with_program(AXPY);
    ptl().arg("emit").arg(&f).assert().success().stdout(
        contains("module")
            .and(contains("func.func"))
            .and(contains("linalg.generic")),
    );
    ptl()
        .arg("emit")
        .arg(&f)
        .args(["--fn", "axpy"])
        .assert()
        .success()
        .stdout(contains("func.func @axpy"));
    ptl()
        .arg("emit")
        .arg(&f)
        .args(["--stage", "ast"])
        .assert()
        .success()
        .stdout(contains("x + y * 2.0"));
    ptl()
        .arg("emit")
        .arg(&f)
        .args(["--stage", "typed"])
        .assert()
        .success()
        .stdout(
            contains("fn axpy(x: f64[n], y: f64[n]) -> f64[n]")
                .and(contains("fn stats(v: f64[n]) -> (f64, f64)"))
                .and(contains("result: f64[n] = x + y * 2.0"))
                .and(contains(
                    "print: f64[3] = axpy([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])",
                )),
        );
    let (_d2, lets) = with_program("let a = [1, 2];\nlet b = a * 0.5;\nprint b;\n");
    ptl()
        .arg("emit")
        .arg(&lets)
        .args(["--stage", "typed"])
        .assert()
        .success()
        .stdout("let a: i64[2] = [1, 2]\nlet b: f64[2] = a * 0.5\nprint: f64[2] = b\n");
    ptl()
        .arg("emit")
        .arg(&f)
        .args(["--stage", "vmfb"])
        .assert()
        .code(1)
        .stderr(contains("-o FILE"));
    let vmfb = d.path().join("p.vmfb");
    ptl()
        .arg("emit")
        .arg(&f)
        .args(["--stage", "vmfb", "-o"])
        .arg(&vmfb)
        .assert()
        .success();
    assert!(std::fs::metadata(&vmfb).expect("vmfb written").len() > 100);
    ptl()
        .arg("emit")
        .arg(&f)
        .args(["--fn", "nope"])
        .assert()
        .code(1)
        .stderr(contains("no function named `nope`"));
    let (_d3, bad) = with_program("print 1 +;\n");
    for stage in ["ast", "typed", "mlir"] {
        ptl()
            .arg("emit")
            .arg(&bad)
            .args(["--stage", stage])
            .assert()
            .code(1)
            .stderr(contains("E0002"));
    }
}

#[test]
fn fmt_prints_checks_and_writes() {
    let messy = "fn f(x:f64[n])->f64[n]{x*2.0}\nprint f([1.0]) ;\n";
    let canonical = "fn f(x: f64[n]) -> f64[n] {\n    x * 2.0\n}\n\nprint f([1.0]);\n";
    let (_d, f) = with_program(messy);
    ptl()
        .arg("fmt")
        .arg(&f)
        .assert()
        .success()
        .stdout(canonical);
    ptl()
        .args(["fmt", "--check"])
        .arg(&f)
        .assert()
        .code(1)
        .stderr(contains("is not formatted"));
    ptl().args(["fmt", "--write"]).arg(&f).assert().success();
    assert_eq!(std::fs::read_to_string(&f).expect("read"), canonical);
    ptl()
        .args(["fmt", "--check"])
        .arg(&f)
        .assert()
        .success()
        .stdout("");
    // Comments are kept.
    let commented = "// doubles\nfn f(x:f64)->f64{x*2.0}\n";
    let (_d2, c) = with_program(commented);
    ptl().args(["fmt", "--write"]).arg(&c).assert().success();
    assert_eq!(std::fs::read_to_string(&c).expect("read"), "// doubles\nfn f(x: f64) -> f64 {\n    x * 2.0\n}\n");
    let (_d3, bad) = with_program("fn f( {\n");
    ptl()
        .arg("fmt")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(contains("E0002"));
    ptl()
        .args(["fmt", "--check", "--write"])
        .arg(&f)
        .assert()
        .code(2);
}

// ---- cache, help ---------------------------------------------------------------------------

#[test]
fn cache_dir_and_clear() {
    let d = tempfile::tempdir().expect("dir");
    let cache = d.path().join("cache");
    let (_p, f) = with_program("print [1.0, 2.0] * 3.0;\n");
    ptl()
        .env("PTL_CACHE_DIR", &cache)
        .args(["cache", "dir"])
        .assert()
        .success()
        .stdout(format!("{}\n", cache.display()));
    ptl()
        .env("PTL_CACHE_DIR", &cache)
        .arg("run")
        .arg(&f)
        .assert()
        .success()
        .stdout("[3. 6.]\n");
    ptl()
        .env("PTL_CACHE_DIR", &cache)
        .args(["run", "--time"])
        .arg(&f)
        .assert()
        .success()
        .stderr(contains("cache hit (disk)"));
    ptl()
        .env("PTL_CACHE_DIR", &cache)
        .args(["cache", "clear"])
        .assert()
        .success()
        .stdout(contains("removed 1 cached module"));
    ptl()
        .env("PTL_CACHE_DIR", &cache)
        .args(["cache", "clear"])
        .assert()
        .success()
        .stdout(contains("removed 0 cached modules"));
}

#[test]
fn help_explains_every_subcommand_with_examples() {
    ptl().arg("--help").assert().success().stdout(
        contains("Examples:")
            .and(contains("repl"))
            .and(contains("cache")),
    );
    for sub in ["run", "check", "emit", "fmt", "repl", "cache"] {
        ptl()
            .args([sub, "--help"])
            .assert()
            .success()
            .stdout(contains("Examples:"));
    }
    ptl().args(["run", "--help"]).assert().stdout(
        contains("--flush-denormals")
            .and(contains("--device"))
            .and(contains("--out")),
    );
    ptl().arg("frobnicate").assert().code(2);
}

#[test]
fn no_arguments_without_a_terminal_prints_usage() {
    ptl()
        .write_stdin("")
        .assert()
        .code(2)
        .stdout(contains("Usage"));
}

// ---- REPL, with piped input ----------------------------------------------------------------

#[test]
fn repl_reads_piped_input_line_by_line() {
    let input = "\
fn f(x: f64[n]) -> f64[n] { x * 2.0 }
f([1.0, 2.0])
let v = [1, 2, 3];
v + 1
fn g(x: f64) -> f64 {
    x + 1.0
}
g(2.0)
oops + 1
:type f(v)
:type f
f(v)
print g(1.0), 1;
:load AXPY
axpy([1.0], [2.0])
:mlir g
:quit
";
    let axpy = examples().join("axpy.ptl");
    let input = input.replace("AXPY", &axpy.display().to_string());
    for mode in [None, Some("--interp")] {
        ptl()
            .arg("repl")
            .args(mode)
            .write_stdin(input.clone())
            .assert()
            .success()
            .stdout(
                predicate::str::starts_with(
                    "[2. 4.]\n[2 3 4]\n3.0\nf64[3]\nfn f(x: f64[n]) -> f64[n]\n[2. 4. 6.]\n[ 9. 12. 15.]\n[5.]\n",
                )
                .and(contains("func.func @g")),
            )
            .stderr(contains("E0003").and(contains("oops")).and(contains("E0002")));
    }
}

// ---- REPL, in a terminal -------------------------------------------------------------------

mod terminal {
    use super::*;
    use rexpect::session::{PtySession, spawn_command};

    const PROMPT: &str = "ptl> ";

    fn start(no_color: bool, history: &Path) -> PtySession {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ptl"));
        c.env("PTL_CACHE_DIR", cache_dir())
            .env("PTL_HISTORY", history)
            .env("TERM", "xterm");
        if no_color {
            c.env("NO_COLOR", "1");
        } else {
            c.env_remove("NO_COLOR");
        }
        let mut p = spawn_command(c, Some(60_000)).expect("spawn ptl");
        p.exp_string(":help").expect("banner");
        p.exp_string(PROMPT).expect("first prompt");
        p
    }

    /// Types a line.
    fn enter(p: &mut PtySession, line: &str) {
        p.send_line(line).expect("send");
    }

    fn prompt(p: &mut PtySession) {
        p.exp_string(PROMPT).expect("prompt");
    }

    #[test]
    fn define_call_multiline_error_recovery_type_and_quit() {
        let d = tempfile::tempdir().expect("dir");
        let history = d.path().join("history");
        let mut p = start(true, &history);
        enter(&mut p, "fn double(x: f64[n]) -> f64[n] { x * 2.0 }");
        p.exp_string(PROMPT).expect("prompt after fn");
        enter(&mut p, "double([1.0, 2.5])");
        p.exp_string("[2. 5.]").expect("value of a call");
        prompt(&mut p);
        // A definition over several lines: the prompt changes while the brace is open.
        enter(&mut p, "fn sq(x: f64[n]) -> f64[n] {");
        p.exp_string("...> ").expect("continuation prompt");
        enter(&mut p, "    x * x");
        p.exp_string("...> ").expect("continuation prompt");
        enter(&mut p, "}");
        prompt(&mut p);
        enter(&mut p, "sq(double([1.0, 3.0]))");
        p.exp_string("[ 4. 36.]")
            .expect("value through both functions");
        prompt(&mut p);
        // An error is reported and the session goes on with its definitions intact.
        enter(&mut p, "sq(nope)");
        p.exp_string("unknown name `nope`").expect("error report");
        prompt(&mut p);
        enter(&mut p, "let w = [1.0, 2.0, 3.0];");
        prompt(&mut p);
        enter(&mut p, ":type sq(w)");
        p.exp_string("f64[3]").expect("type");
        prompt(&mut p);
        enter(&mut p, "sum(sq(w))");
        p.exp_string("14.0").expect("sum");
        prompt(&mut p);
        enter(&mut p, ":quit");
        p.exp_eof().expect("exit on :quit");
        let saved = std::fs::read_to_string(&history).expect("history written");
        assert!(saved.contains("sum(sq(w))"), "history: {saved}");
    }

    #[test]
    fn lines_typed_during_a_compile_all_run_and_a_slow_compile_shows_a_spinner() {
        let d = tempfile::tempdir().expect("dir");
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ptl"));
        c.env("PTL_CACHE_DIR", d.path().join("cache"))
            .env("PTL_HISTORY", d.path().join("history"))
            .env("PTL_SPINNER_AFTER_MS", "0")
            .env("NO_COLOR", "1")
            .env("TERM", "xterm");
        let mut p = spawn_command(c, Some(60_000)).expect("spawn ptl");
        p.exp_string(PROMPT).expect("first prompt");
        enter(&mut p, ":mode compiled");
        prompt(&mut p);
        // Two lines typed while the first compiles (the spinner shows at once here).
        enter(&mut p, "let a = [1.0, 2.0] * 3.0;");
        p.exp_string("compiling and running").expect("a spinner while compiling");
        enter(&mut p, "a + 100.0");
        enter(&mut p, "a * 1000.0");
        p.exp_string("[103. 106.]").expect("the second line ran");
        p.exp_string("[3000. 6000.]").expect("the third line ran");
        prompt(&mut p);
        enter(&mut p, ":quit");
        p.exp_eof().expect("exit");
    }

    #[test]
    fn errors_are_coloured_on_a_terminal_unless_no_color() {
        let d = tempfile::tempdir().expect("dir");
        let history = d.path().join("history");
        let mut p = start(false, &history);
        enter(&mut p, "undefined_name");
        let (_, matched) = p.exp_regex("\u{1b}\\[[0-9;]*m").expect("colour codes");
        assert!(!matched.is_empty());
        prompt(&mut p);
        enter(&mut p, ":quit");
        p.exp_eof().expect("exit");
        let mut p = start(true, &history);
        enter(&mut p, "undefined_name");
        let before = p.exp_string("not found in this scope").expect("report");
        assert!(
            !before.contains("\u{1b}[31m") && !before.contains("\u{1b}[38;5;"),
            "colours with NO_COLOR: {before:?}"
        );
        prompt(&mut p);
        // Ctrl-D leaves too.
        p.send_control('d').expect("ctrl-d");
        p.exp_eof().expect("exit on ctrl-d");
    }
}

// ---- output into a pipe closed early -----------------------------------------------------

#[test]
fn output_into_a_pipe_closed_early_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = TempDir::new().unwrap();
    let src = dir.path().join("many.ptl");
    let mut text = String::new();
    for k in 0..20000 {
        text.push_str(&format!("print {k};\n"));
    }
    std::fs::write(&src, text).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ptl"))
        .args(["run", "--interp"])
        .arg(&src)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reading end is closed here, while ptl still has thousands of lines to write.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "ptl panicked on a closed pipe:\n{stderr}");
    assert!(stderr.is_empty(), "unexpected output on stderr:\n{stderr}");
}

/// A module for a GPU is compiled without the GPU: the vmfb carries that target's executable.
#[test]
fn emit_vmfb_for_gpu_targets_needs_no_gpu() {
    let (d, f) = with_program(AXPY);
    for (target, format) in [("cuda", "cuda-nvptx-fb"), ("vulkan", "vulkan-spirv-fb")] {
        let out = d.path().join(format!("axpy.{target}.vmfb"));
        ptl().arg("emit").arg(&f).args(["--fn", "axpy", "--stage", "vmfb", "--target", target, "-o"]).arg(&out).assert().success();
        let bytes = std::fs::read(&out).unwrap();
        assert!(bytes.windows(format.len()).any(|w| w == format.as_bytes()), "{target}: no {format} executable");
    }
    ptl().arg("emit").arg(&f).args(["--target", "cuda"]).assert().code(1).stderr(contains("--target applies to --stage vmfb"));
}
