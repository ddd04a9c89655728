//! The formatter keeps comments: for every fixture, example and book block that parses,
//! formatting keeps the same comments in the same order, gives a program that parses to the
//! same tree, and formatting that again changes nothing. `ptl fmt --write` then rewrites a
//! file with comments in place.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use ptl_lang::syntax::comments::comments;
use ptl_lang::{parse, print_program, print_program_with_comments};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files_under(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

/// Every ```ptl block of a Markdown file.
fn ptl_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_start().starts_with("```ptl") => current = Some(String::new()),
            Some(b) if line.trim_start().starts_with("```") => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    blocks
}

fn sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    files_under(&root().join("tests/fixtures"), "ptl", &mut files);
    files_under(&root().join("examples"), "ptl", &mut files);
    let mut out: Vec<(String, String)> =
        files.iter().map(|f| (f.display().to_string(), std::fs::read_to_string(f).expect("readable"))).collect();
    let mut books = Vec::new();
    files_under(&root().join("book/src"), "md", &mut books);
    for f in books {
        let text = std::fs::read_to_string(&f).expect("readable");
        for (k, block) in ptl_blocks(&text).into_iter().enumerate() {
            out.push((format!("{} block {k}", f.display()), block));
        }
    }
    out
}

fn comment_texts(src: &str) -> Vec<String> {
    comments(src).into_iter().map(|c| c.text).collect()
}

#[test]
fn formatting_keeps_comments_and_meaning_and_is_stable() {
    let mut with_comments = 0;
    for (name, src) in sources() {
        let (Some(ast), diags) = parse(&src) else { continue };
        if !diags.is_empty() {
            continue;
        }
        let once = print_program_with_comments(&ast, &src);
        assert_eq!(comment_texts(&once), comment_texts(&src), "{name}: comments changed:\n{once}");
        let (again, diags) = parse(&once);
        assert!(diags.is_empty(), "{name}: the formatted text does not parse:\n{once}\n{diags:?}");
        let again = again.expect("parses");
        // Compared by their canonical text: NaN literals make the trees unequal to themselves.
        assert_eq!(print_program(&again), print_program(&ast), "{name}: the formatted program differs:\n{once}");
        assert_eq!(print_program_with_comments(&again, &once), once, "{name}: formatting is not stable");
        if !comments(&src).is_empty() {
            with_comments += 1;
        }
    }
    assert!(with_comments >= 100, "only {with_comments} sources with comments were formatted");
}

#[test]
fn comments_stay_in_their_places() {
    let src = "// A header.\n\n// Doubles.\nfn double(x: f64[n]) -> f64[n] { // the header's line\n    // before the let\n    let y = x * 2.0; // after the let\n    y // the result\n    // before the brace\n}\n\nlet a = [1.0, // inside a statement\n    2.0];\nprint double(a); // done\n// the end\n";
    let (ast, _) = parse(src);
    let out = print_program_with_comments(&ast.expect("parses"), src);
    let want = "// A header.\n\n// Doubles.\nfn double(x: f64[n]) -> f64[n] { // the header's line\n    // before the let\n    let y = x * 2.0; // after the let\n    y // the result\n    // before the brace\n}\n\n// inside a statement\nlet a = [1.0, 2.0];\nprint double(a); // done\n// the end\n";
    assert_eq!(out, want);
}

#[test]
fn fmt_write_rewrites_a_file_with_comments() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("p.ptl");
    std::fs::write(&path, "// keep me\nlet   x=[1.0,2.0] ;   // and me\nprint x*2.0;\n").expect("written");
    Command::cargo_bin("ptl").expect("binary").args(["fmt", "--write"]).arg(&path).assert().success();
    let text = std::fs::read_to_string(&path).expect("readable");
    assert_eq!(text, "// keep me\nlet x = [1.0, 2.0]; // and me\nprint x * 2.0;\n");
    Command::cargo_bin("ptl").expect("binary").args(["fmt", "--check"]).arg(&path).assert().success();
}
