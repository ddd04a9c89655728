//! Fixture files: a ptl program followed by the behaviour expected of it.
//!
//! ```text
//! let x = [1.0, 2.0];
//! print x * 2.0;
//! // ---- output
//! // [2. 4.]
//! ```
//!
//! The section after `// ---- output` lists the printed lines (every `print`, in order, each
//! value formatted with `Value`'s `Display`). A section `// ---- error` instead holds the
//! rendered diagnostics (no colour, the file name as written in the report). A file without
//! a section has [`Expected::Missing`]; the fixture test fills it in when run with
//! `UPDATE_EXPECT=1`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use ptl_lang::diag::render_all;
use ptl_interp::run_program;

const OUTPUT_MARKER: &str = "// ---- output";
const ERROR_MARKER: &str = "// ---- error";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// The printed lines.
    Output(Vec<String>),
    /// The rendered diagnostics (lines joined with `\n`, trailing blanks trimmed).
    Error(String),
    /// No expectation written yet.
    Missing,
}

#[derive(Debug, Clone)]
pub struct Fixture {
    pub path: PathBuf,
    /// The program: the file up to the expectation marker.
    pub source: String,
    pub expected: Expected,
}

impl Fixture {
    /// The file name diagnostics are rendered with.
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// Splits a fixture file's text into the program and its expectation.
pub fn parse(text: &str) -> (String, Expected) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let marker = lines.iter().rposition(|l| {
        let t = l.trim_end();
        t == OUTPUT_MARKER || t == ERROR_MARKER
    });
    let Some(m) = marker else {
        return (text.to_string(), Expected::Missing);
    };
    let source: String = lines[..m].concat();
    let mut body: Vec<String> = lines[m + 1..]
        .iter()
        .map(|l| {
            let l = l.trim_end_matches(['\n', '\r']);
            let l = l.strip_prefix("//").unwrap_or(l);
            l.strip_prefix(' ').unwrap_or(l).to_string()
        })
        .collect();
    while body.last().is_some_and(|l| l.trim().is_empty()) {
        body.pop();
    }
    let expected = if lines[m].trim_end() == OUTPUT_MARKER {
        Expected::Output(body)
    } else {
        Expected::Error(body.join("\n"))
    };
    (source, expected)
}

/// Reads one fixture file.
pub fn load(path: &Path) -> io::Result<Fixture> {
    let text = fs::read_to_string(path)?;
    let (source, expected) = parse(&text);
    Ok(Fixture {
        path: path.to_path_buf(),
        source,
        expected,
    })
}

/// Every `*.ptl` fixture under `dir`, recursively, sorted by path.
///
/// # Panics
/// When the directory or a file cannot be read: this is test support, and a fixture that
/// silently goes missing would be worse.
pub fn load_all(dir: &Path) -> Vec<Fixture> {
    let mut paths = Vec::new();
    collect(dir, &mut paths)
        .unwrap_or_else(|e| panic!("cannot read fixtures under {}: {e}", dir.display()));
    paths.sort();
    paths
        .iter()
        .map(|p| load(p).unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", p.display())))
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "ptl") {
            out.push(path);
        }
    }
    Ok(())
}

/// Normalizes rendered diagnostics the way fixtures store them.
pub fn normalize_error(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// The first line of the expectation of a program that type-checks but fails when it runs;
/// the rendered run-time report follows it.
pub const RUNTIME_ERROR: &str = "runtime error";

/// What the frontend and the reference interpreter make of a fixture's program: the printed
/// lines, or the rendered diagnostics (a run-time failure as [`RUNTIME_ERROR`] and its report).
pub fn evaluate(source: &str, file_name: &str) -> Expected {
    match ptl_lang::frontend(source) {
        Err(diags) => Expected::Error(normalize_error(&render_all(
            &diags, file_name, source, false,
        ))),
        Ok(program) => match run_program(&program) {
            Ok(values) => Expected::Output(
                values
                    .iter()
                    .flat_map(|v| {
                        v.to_string()
                            .lines()
                            .map(str::to_string)
                            .collect::<Vec<_>>()
                    })
                    .collect(),
            ),
            Err(e) => Expected::Error(normalize_error(&format!(
                "{RUNTIME_ERROR}\n{}",
                render_all(&[e.diagnostic()], file_name, source, false)
            ))),
        },
    }
}

/// The expectation section as written in a fixture file.
pub fn render_expected(expected: &Expected) -> String {
    let (marker, lines): (&str, Vec<&str>) = match expected {
        Expected::Output(lines) => (OUTPUT_MARKER, lines.iter().map(String::as_str).collect()),
        Expected::Error(text) => (ERROR_MARKER, text.lines().collect()),
        Expected::Missing => return String::new(),
    };
    let mut out = format!("{marker}\n");
    for l in lines {
        if l.is_empty() {
            out.push_str("//\n");
        } else {
            out.push_str("// ");
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// The fixture file's text with its expectation replaced.
pub fn with_expected(source: &str, expected: &Expected) -> String {
    let mut text = source.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&render_expected(expected));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let e = Expected::Error("error[E0006]: x\n\n   ,-[ a.ptl:1:1 ]".to_string());
        let text = with_expected("print 1;\n", &e);
        assert_eq!(parse(&text), ("print 1;\n".to_string(), e));
        let o = Expected::Output(vec!["[1 2]".to_string(), "3".to_string()]);
        assert_eq!(
            parse(&with_expected("print 1;", &o)),
            ("print 1;\n".to_string(), o)
        );
        assert_eq!(parse("print 1;\n").1, Expected::Missing);
    }
}
