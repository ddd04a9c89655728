//! Runs every fixture under `tests/fixtures/` through the frontend and the reference
//! interpreter and compares with its expectation. `UPDATE_EXPECT=1` rewrites the
//! expectations instead (review the result by hand before committing).

use std::path::PathBuf;

use ptl_lang::fixture::{Expected, evaluate, load_all, render_expected, with_expected};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// A line diff of two texts (longest common subsequence), `-` expected, `+` actual.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("   {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!(" + {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!(" - {}\n", a[i]));
            i += 1;
        }
    }
    out
}

#[test]
fn fixtures() {
    let dir = fixtures_dir();
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let fixtures = load_all(&dir);
    assert!(!fixtures.is_empty(), "no fixtures under {}", dir.display());
    let mut failures = Vec::new();
    let mut updated = 0;
    for f in &fixtures {
        let actual = evaluate(&f.source, &f.file_name());
        if actual == f.expected {
            continue;
        }
        if update {
            std::fs::write(&f.path, with_expected(&f.source, &actual))
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", f.path.display()));
            updated += 1;
            continue;
        }
        let shown = f.path.strip_prefix(&dir).unwrap_or(&f.path).display().to_string();
        let message = match &f.expected {
            Expected::Missing => format!("{shown}: no expectation (run with UPDATE_EXPECT=1)\n{}", render_expected(&actual)),
            exp => format!("{shown}:\n{}", diff(&render_expected(exp), &render_expected(&actual))),
        };
        failures.push(message);
    }
    if update {
        eprintln!("updated {updated} of {} fixtures", fixtures.len());
    }
    assert!(failures.is_empty(), "{} of {} fixtures failed:\n\n{}", failures.len(), fixtures.len(), failures.join("\n"));
}
