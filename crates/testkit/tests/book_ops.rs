//! The language reference (`book/src/reference/*.md`) documents every builtin of the op table,
//! and documents no builtin the op table lacks.
//!
//! - Every [`Builtin::all`] entry must appear written as a call in code: `` `name( ``.
//! - Every code span in a table of the reference's "Builtins" section (and of the chapters that
//!   hold only builtins) that starts like a call
//!   (`` `name(...)` ``) must name a builtin, so a renamed or removed op cannot linger there.

use std::path::{Path, PathBuf};

use ptl_lang::ops::Builtin;

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/src/reference")
}

/// Every `*.md` file of the reference, sorted, with its text.
fn reference() -> Vec<(PathBuf, String)> {
    let dir = reference_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no chapters under {}", dir.display());
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

/// The names that `text` never writes as a call in code (`` `name( ``).
fn missing_calls<'a>(text: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    names.into_iter().filter(|n| !text.contains(&format!("`{n}("))).collect()
}

/// Chapters of the reference that hold only builtins: every table of theirs counts as part of
/// the Builtins section.
const BUILTIN_CHAPTERS: &[&str] = &["arrays.md"];

/// The lines of the `## Builtins` section: from that heading to the next heading of the same
/// or a higher level.
fn builtins_section(text: &str) -> Option<Vec<&str>> {
    let mut lines = text.lines().skip_while(|l| l.trim_end() != "## Builtins");
    lines.next()?;
    Some(lines.take_while(|l| !(l.starts_with("## ") || l.starts_with("# "))).collect())
}

/// The contents of the code spans of one line. A span opens with a run of backticks and
/// closes at the next run of the same length (so ``` `` `x` `` ``` is one span).
fn code_spans(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let run_at = |i: usize| bytes[i..].iter().take_while(|&&b| b == b'`').count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let n = run_at(i);
        let start = i + n;
        let mut j = start;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let m = run_at(j);
                if m == n {
                    close = Some(j);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                spans.push(&line[start..end]);
                i = end + n;
            }
            // An unclosed run is literal text.
            None => i = start,
        }
    }
    spans
}

/// The name a code span calls when it starts like a call: `name(` with `name` an identifier.
fn called_name(span: &str) -> Option<&str> {
    let span = span.trim_start();
    let end = span.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let name = &span[..end];
    let starts_like_identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    (starts_like_identifier && span[end..].starts_with('(')).then_some(name)
}

/// The names called in code spans of table rows (lines starting with `|`).
fn table_calls<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    lines
        .iter()
        .filter(|l| l.trim_start().starts_with('|'))
        .flat_map(|l| code_spans(l))
        .filter_map(called_name)
        .collect()
}

#[test]
fn reference_writes_every_builtin_as_a_call() {
    let text: String = reference().into_iter().map(|(_, t)| t).collect::<Vec<_>>().join("\n");
    let builtins = Builtin::all();
    assert!(!builtins.is_empty(), "the op table lists no builtins");
    let missing = missing_calls(&text, builtins.iter().map(|b| b.name()));
    assert!(
        missing.is_empty(),
        "book/src/reference/*.md does not document these builtins (write each as a call in code, \
         e.g. `{}`, in the Builtins section of types.md): {}",
        builtins[0].signature(),
        missing.join(", ")
    );
}

#[test]
fn builtins_tables_name_only_builtins() {
    let mut sections = 0;
    let mut calls = 0;
    let mut unknown = Vec::new();
    for (path, text) in reference() {
        let whole_chapter = path.file_name().is_some_and(|n| BUILTIN_CHAPTERS.iter().any(|c| n == *c));
        let lines = if whole_chapter {
            text.lines().collect()
        } else {
            let Some(lines) = builtins_section(&text) else { continue };
            sections += 1;
            lines
        };
        for name in table_calls(&lines) {
            calls += 1;
            if Builtin::from_name(name).is_none() {
                unknown.push(format!("{}: `{name}(`", path.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    // One section per chapter that lists builtins (types.md, math.md, ...).
    assert!(sections >= 1, "expected a `## Builtins` section in book/src/reference/*.md");
    assert!(calls >= Builtin::all().len() / 2, "found only {calls} calls in the Builtins tables; did the table format change?");
    assert!(unknown.is_empty(), "the Builtins tables name calls that are not builtins: {}", unknown.join(", "));
}

/// The checks above can fail: a name the text lacks is reported, one it has is not, and a
/// table call of an unknown name is picked up.
#[test]
fn checks_detect_what_is_missing() {
    let text = "| `exp(x)` | `T[...] -> F[...]`, `1 / (1 + exp(-x))` |\n\nUse `cos` here.\n";
    assert_eq!(missing_calls(text, ["exp", "cos", "sin"]), ["cos", "sin"]);

    let section = "intro\n## Builtins\n\n| `sin(x)` | `nope(a, b)` | `x.T` | ``sum` x`` |\nprose `other(x)`\n## Errors\n| `after(x)` |\n";
    let lines = builtins_section(section).expect("section found");
    assert_eq!(table_calls(&lines), ["sin", "nope"]);
    assert!(Builtin::from_name("nope").is_none());

    assert_eq!(code_spans("a `b` c ``d ` e`` `f"), ["b", "d ` e"]);
    assert_eq!(called_name("transpose(x, perm)"), Some("transpose"));
    assert_eq!(called_name("1 / (1 + exp(-x))"), None);
    assert_eq!(called_name("x.T"), None);
}
