//! Hostile inputs to the `ptl` binary: `.npy`/`.npz` arguments that lie about their contents,
//! and sources that are binary, huge or one enormous line. Each must end in a one-line error
//! naming what is wrong (exit code 1) or a correct read, never a panic or an abort.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use ndarray::{ArrayD, IxDyn};
use tempfile::TempDir;

const IDENTITY: &str = "\
fn f(x: f64[?, ?]) -> f64[?, ?] {
    x
}

fn g(x: i32[?]) -> i32[?] {
    x
}
";

fn ptl() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptl"));
    c.env(
        "PTL_CACHE_DIR",
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ptl-hostile-cache"),
    )
    .env("NO_COLOR", "1")
    .timeout(Duration::from_secs(120));
    c
}

/// The bytes of a version 1 `.npy` file with this header dictionary and data.
fn npy_bytes(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
        if fortran { "True" } else { "False" }
    );
    // NumPy pads the header with spaces and a newline to a multiple of 64 bytes.
    let unpadded = 10 + dict.len() + 1;
    let header = format!("{dict}{}\n", " ".repeat((64 - unpadded % 64) % 64));
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn f64s(values: &[f64], big: bool) -> Vec<u8> {
    values
        .iter()
        .flat_map(|v| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        })
        .collect()
}

struct Case {
    dir: TempDir,
    prog: PathBuf,
}

impl Case {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let prog = dir.path().join("prog.ptl");
        std::fs::write(&prog, IDENTITY).expect("write program");
        Case { dir, prog }
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, bytes).expect("write input");
        path
    }

    /// `ptl run --interp prog.ptl --fn FUNCTION --arg x=FILE`.
    fn run(&self, function: &str, file: &Path) -> assert_cmd::assert::Assert {
        ptl()
            .args(["run", "--interp"])
            .arg(&self.prog)
            .args(["--fn", function])
            .arg(format!("--arg=x={}", file.display()))
            .assert()
    }

    /// Asserts the run fails with exactly `error: argument `x`: FILE MESSAGE`.
    fn fails(&self, function: &str, file: &Path, message: &str) {
        self.run(function, file)
            .failure()
            .code(1)
            .stdout("")
            .stderr(format!(
                "error: argument `x`: {} {message}\n",
                file.display()
            ));
    }

    /// Runs `f` with `--out` and returns what it wrote.
    fn result(&self, file: &Path) -> ArrayD<f64> {
        let out = self.dir.path().join("out.npy");
        ptl()
            .args(["run", "--interp"])
            .arg(&self.prog)
            .args(["--fn", "f"])
            .arg(format!("--arg=x={}", file.display()))
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        ndarray_npy::read_npy(&out).expect("result .npy")
    }
}

fn two_by_three() -> ArrayD<f64> {
    ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).expect("shape")
}

#[test]
fn npy_shape_larger_than_the_file_is_refused_before_allocating() {
    let c = Case::new();
    let file = c.file(
        "huge.npy",
        &npy_bytes("<f8", false, "(1000000000000, 1000000)", &[0; 64]),
    );
    c.fails(
        "f",
        &file,
        "is truncated: its header promises a <f8 array of shape [1000000000000, 1000000] \
         (8000000000000000000 bytes) but the file holds 64 bytes of data",
    );
}

#[test]
fn npy_shape_whose_size_overflows_is_refused() {
    let c = Case::new();
    let file = c.file(
        "overflow.npy",
        &npy_bytes("<f8", false, "(4294967296, 4294967296)", &[]),
    );
    c.fails(
        "f",
        &file,
        "declares shape [4294967296, 4294967296], whose size overflows",
    );
    let file = c.file(
        "dims.npy",
        &npy_bytes("<f8", false, "(100000000000000000000000, 1)", &[]),
    );
    c.run("f", &file)
        .failure()
        .code(1)
        .stderr(predicates::str::starts_with(format!(
            "error: argument `x`: {} is not a valid .npy file (",
            file.display()
        )))
        .stderr(predicates::str::is_match("\\A[^\n]*\n\\z").expect("regex"));
}

#[test]
fn npy_with_bytes_after_the_data_is_refused() {
    let c = Case::new();
    let file = c.file("extra.npy", &npy_bytes("<f8", false, "(1, 1)", &[0; 16]));
    c.fails(
        "f",
        &file,
        "has 8 unexpected bytes after the data of its <f8 array of shape [1, 1]",
    );
}

#[test]
fn npy_with_unsupported_dtypes_is_refused() {
    let c = Case::new();
    for (name, descr) in [
        ("complex.npy", "<c16"),
        ("object.npy", "|O"),
        ("text.npy", "<U3"),
    ] {
        let file = c.file(name, &npy_bytes(descr, false, "(1, 1)", &[0; 16]));
        c.fails(
            "f",
            &file,
            &format!(
                "holds dtype `{descr}`, which ptl cannot read \
                 (supported: float64, float32, int64, int32, bool)"
            ),
        );
    }
}

#[test]
fn npy_in_fortran_order_is_read_in_its_order() {
    let c = Case::new();
    let column_major = f64s(&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0], false);
    let file = c.file(
        "fortran.npy",
        &npy_bytes("<f8", true, "(2, 3)", &column_major),
    );
    assert_eq!(c.result(&file), two_by_three());
}

#[test]
fn npy_big_endian_is_read_correctly() {
    let c = Case::new();
    let file = c.file(
        "big.npy",
        &npy_bytes(
            ">f8",
            false,
            "(2, 3)",
            &f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], true),
        ),
    );
    assert_eq!(c.result(&file), two_by_three());
    let ints: Vec<u8> = [7i32, -2, 65536]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let file = c.file("big_i4.npy", &npy_bytes(">i4", false, "(3,)", &ints));
    c.run("g", &file).success().stdout("[    7    -2 65536]\n");
}

#[test]
fn npy_truncated_header_is_refused() {
    let c = Case::new();
    let whole = npy_bytes("<f8", false, "(1, 1)", &[0; 8]);
    let file = c.file("cut.npy", &whole[..30]);
    c.fails(
        "f",
        &file,
        "is truncated: its header claims 118 bytes but the file holds 20",
    );
    let file = c.file("magic.npy", b"\x93NUMP");
    c.fails(
        "f",
        &file,
        "is not a valid .npy file (it does not start with the .npy magic string)",
    );
    let file = c.file("text.npy", b"1.0, 2.0\n");
    c.fails(
        "f",
        &file,
        "is not a valid .npy file (it does not start with the .npy magic string)",
    );
}

#[test]
fn npy_bool_bytes_other_than_0_and_1_are_refused() {
    let c = Case::new();
    let file = c.file("bools.npy", &npy_bytes("|b1", false, "(1, 3)", &[1, 0, 2]));
    c.fails(
        "f",
        &file,
        "holds the byte 2 at bool element 2; a bool must be 0 or 1",
    );
}

/// A `.npz` archive (uncompressed, as `numpy.savez` writes) of these members.
fn npz_bytes(members: &[(&str, Vec<u8>)], method: zip::CompressionMethod) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in members {
        let options = zip::write::SimpleFileOptions::default().compression_method(method);
        zip.start_file(*name, options).expect("member");
        zip.write_all(bytes).expect("member bytes");
    }
    zip.finish().expect("archive").into_inner()
}

#[test]
fn npz_with_one_array_is_read() {
    let c = Case::new();
    let member = npy_bytes(
        "<f8",
        false,
        "(2, 3)",
        &f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], false),
    );
    let file = c.file(
        "one.npz",
        &npz_bytes(&[("arr_0.npy", member)], zip::CompressionMethod::Stored),
    );
    assert_eq!(c.result(&file), two_by_three());
}

#[test]
fn npz_with_several_arrays_names_them() {
    let c = Case::new();
    let a = npy_bytes("<f8", false, "(1, 1)", &[0; 8]);
    let members = [("b.npy", a.clone()), ("a.npy", a)];
    let file = c.file(
        "two.npz",
        &npz_bytes(&members, zip::CompressionMethod::Stored),
    );
    c.fails(
        "f",
        &file,
        "is a .npz archive of 2 arrays (`a.npy`, `b.npy`); ptl reads one array per argument: \
         save the one you mean with numpy.save",
    );
}

#[test]
fn npz_member_that_lies_is_refused_with_its_name() {
    let c = Case::new();
    let member = npy_bytes("<f8", false, "(1000000000000, 1000000)", &[0; 64]);
    let file = c.file(
        "lie.npz",
        &npz_bytes(&[("x.npy", member)], zip::CompressionMethod::Stored),
    );
    c.fails(
        "f",
        &file,
        "(member `x.npy`) is truncated: its header promises a <f8 array of shape \
         [1000000000000, 1000000] (8000000000000000000 bytes) but the file holds 64 bytes of data",
    );
    let file = c.file("junk.npz", b"PK\x03\x04 not really a zip");
    c.run("f", &file)
        .failure()
        .code(1)
        .stderr(predicates::str::starts_with(format!(
            "error: argument `x`: {} is not a valid .npz archive (",
            file.display()
        )));
}

/// `ptl check FILE` and `ptl run FILE` both fail with exactly this one line.
fn source_fails(file: &Path, message: &str) {
    for command in ["check", "run"] {
        ptl()
            .arg(command)
            .arg(file)
            .assert()
            .failure()
            .code(1)
            .stdout("")
            .stderr(format!("error: {} {message}\n", file.display()));
    }
}

#[test]
fn binary_sources_are_refused() {
    let c = Case::new();
    let file = c.file("nul.ptl", b"print 1;\nab\0cd\n");
    source_fails(
        &file,
        "is a binary file, not ptl source (a NUL byte at line 2, column 3)",
    );
    let file = c.file("latin1.ptl", b"print 1;\n// caf\xe9\n");
    source_fails(
        &file,
        "is not UTF-8 text (an invalid byte at line 2, column 7)",
    );
}

#[test]
fn huge_sources_are_refused_before_reading() {
    let c = Case::new();
    let file = c.dir.path().join("huge.ptl");
    // Sparse: 100 MiB that takes no disk space and would take 100 MiB of memory to read.
    std::fs::File::create(&file)
        .and_then(|f| f.set_len(100 << 20))
        .expect("sparse file");
    source_fails(
        &file,
        "is larger than the 16 MiB ptl reads as a program; is it a source file?",
    );
}

#[test]
fn long_lines_run_and_their_errors_stay_short() {
    let c = Case::new();
    let n = 40_000;
    let zeros = vec!["1.0"; n].join(", ");
    let good = c.file("long.ptl", format!("print sum([{zeros}]);\n").as_bytes());
    ptl()
        .args(["run", "--interp"])
        .arg(&good)
        .assert()
        .success()
        .stdout(format!("{:?}\n", n as f64));

    let half = vec!["1.0"; n / 2].join(", ");
    let src = format!("print sum([{half}, true_or_not, {half}]);\n");
    assert!(src.len() > 200_000);
    let bad = c.file("long_bad.ptl", src.as_bytes());
    let out = ptl().arg("check").arg(&bad).assert().failure().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.len() < 2_000,
        "a report of {} bytes:\n{stderr}",
        stderr.len()
    );
    assert!(stderr.contains("true_or_not"), "{stderr}");
    let column = src.find("true_or_not").expect("name") + 1;
    assert!(
        stderr.contains(&format!("long_bad.ptl:1:{column} ]")),
        "{stderr}"
    );
}
