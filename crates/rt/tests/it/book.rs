//! The book's code blocks and the scripts in `examples/`, executed.
//!
//! Every fenced code block in `book/src/**/*.md` whose info string starts with `ptl` is run,
//! dispatched on the info string (see `book/README.md` for the author's view):
//!
//! - `ptl`: must type-check and run, through the reference interpreter and compiled through
//!   IREE (`Engine::run_script`); both must print the same lines. If the block is directly
//!   followed (nothing but blank lines between) by a `text` or `output` block, the printed
//!   lines must equal that block.
//! - `ptl,error`: must fail. The expectation is a directly following `text` block, a code in
//!   the info string (`ptl,error,E0006`), or both:
//!   - a `text` block starting with `[E` holds the diagnostics exactly as `ptl check` prints
//!     them without colour, for a file named `example.ptl`;
//!   - for a program that type-checks, the `text` block holds the run-time report as `ptl run`
//!     prints it (a failed run-time check, `[E0011]`): the interpreter and the compiled run
//!     must both fail, and both reports must render exactly as the block (the interpreter's
//!     note of the sizes it saw is not part of the comparison: compiled code cannot know them);
//!   - a code in the info string must be the code of one of the diagnostics.
//! - `ptl,repl`: a REPL session. Lines starting with `> ` are input, the other lines the
//!   expected output of the input above them. Definitions (`fn`, `let`) accumulate; any other
//!   input is an expression whose value is printed.
//! - `ptl,norun`: a fragment (a type, part of a program); not run.
//!
//! Any other info string starting with `ptl` is an error, so a typo cannot turn a test off.
//!
//! The same binary checks that every relative link and `#anchor` in the book resolves, and
//! runs every `examples/*.ptl` against its `examples/*.out` (output checked against NumPy when
//! the example was written), interpreted and compiled.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ptl_lang::Value;
use ptl_lang::diag::render_all;
use ptl_rt::{CompileCache, Engine, EngineOptions};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// Blocks where the compiled path is known to disagree with the interpreter (and NumPy), by
/// file and a line of the block, with the reason. They must still disagree: once the compiled
/// path is fixed, the test fails until the entry is removed.
const KNOWN_COMPILED_BUGS: &[(&str, &str, &str)] = &[];

/// The file name error blocks are rendered with.
const ERROR_FILE: &str = "example.ptl";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

fn book_src() -> PathBuf {
    root().join("book/src")
}

/// Every markdown file under `dir`, sorted.
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn parser(text: &str) -> Parser<'_> {
    Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH)
}

/// A fenced code block: its info string, contents, the line it starts on, and whether it
/// directly follows the previous block (only blank lines between).
struct Block {
    info: String,
    code: String,
    line: usize,
    adjacent_to_previous: bool,
}

fn code_blocks(text: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<(String, String, usize, usize)> = None;
    let mut last_end: Option<usize> = None;
    for (event, range) in parser(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                current = Some((info.to_string(), String::new(), range.start, range.end));
            }
            Event::Text(t) => {
                if let Some(c) = current.as_mut() {
                    c.1.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((info, code, start, end)) = current.take() {
                    let adjacent = last_end.is_some_and(|e| text[e..start].trim().is_empty());
                    let line = text[..start].lines().count() + 1;
                    blocks.push(Block { info, code, line, adjacent_to_previous: adjacent });
                    last_end = Some(end);
                }
            }
            _ => {}
        }
    }
    blocks
}

fn printed(values: &[Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

/// Lines with trailing blanks removed, and no trailing empty lines.
fn normalize(s: &str) -> String {
    let lines: Vec<&str> = s.lines().map(str::trim_end).collect();
    let mut out = lines.join("\n");
    while out.ends_with('\n') {
        out.pop();
    }
    out.trim_end().to_string()
}

/// Runs a program through the interpreter and compiled; returns the printed text or why not.
fn run_both(engine: &mut Engine, src: &str) -> Result<String, String> {
    let prog = ptl_lang::frontend(src).map_err(|d| format!("does not check:\n{}", render_all(&d, ERROR_FILE, src, false)))?;
    let interp = ptl_interp::run_program(&prog).map_err(|e| format!("interpreter failed: {e}"))?;
    let compiled = engine.run_script(&prog).map_err(|e| format!("compiled run failed: {e}"))?;
    let (a, b) = (printed(&interp), printed(&compiled));
    if a != b {
        return Err(format!("interpreter and compiled print differently:\n--- interpreter\n{a}--- compiled\n{b}"));
    }
    Ok(a)
}

fn diff(what: &str, want: &str, got: &str) -> String {
    format!("{what} differs:\n--- expected\n{want}\n--- got\n{got}")
}

fn check_ok(engine: &mut Engine, block: &Block, expected: Option<&Block>) -> Result<(), String> {
    let got = run_both(engine, &block.code)?;
    if let Some(e) = expected {
        let (want, got) = (normalize(&e.code), normalize(&got));
        if want != got {
            return Err(diff("output", &want, &got));
        }
    }
    Ok(())
}

fn check_error(engine: &mut Engine, block: &Block, code: Option<&str>, expected: Option<&Block>) -> Result<(), String> {
    if code.is_none() && expected.is_none() {
        return Err("a `ptl,error` block needs a `text` block after it or a code in its info string".into());
    }
    let src = &block.code;
    match ptl_lang::frontend(src) {
        Err(diags) => {
            let rendered = render_all(&diags, ERROR_FILE, src, false);
            if let Some(code) = code
                && !diags.iter().any(|d| d.kind.code() == code)
            {
                return Err(format!("no {code} among the diagnostics:\n{rendered}"));
            }
            if let Some(e) = expected {
                let (want, got) = (normalize(&e.code), normalize(&rendered));
                if want != got {
                    return Err(diff("rendered error", &want, &got));
                }
            }
            Ok(())
        }
        Ok(prog) => {
            if code.is_some() {
                return Err("type-checks, but its info string names an error code".into());
            }
            let want = normalize(&expected.expect("checked above").code);
            let interp = match ptl_interp::run_program(&prog) {
                Ok(v) => return Err(format!("type-checks and runs, printing:\n{}", printed(&v))),
                Err(e) => e.diagnostic(),
            };
            let compiled = match engine.run_script(&prog) {
                Ok(v) => return Err(format!("the interpreter fails but the compiled run prints:\n{}", printed(&v))),
                Err(e) => e.diagnostic().ok_or_else(|| format!("the compiled run fails without a report: {e}"))?,
            };
            // What both backends know: the check, its message and span, and the rule.
            let mut interp = interp;
            interp.notes.retain(|n| compiled.notes.contains(n));
            let got = render_all(&[interp], ERROR_FILE, src, false);
            if want != normalize(&got) {
                return Err(diff("run-time report (interpreter)", &want, &got));
            }
            let got = render_all(&[compiled], ERROR_FILE, src, false);
            if want != normalize(&got) {
                return Err(diff("run-time report (compiled)", &want, &got));
            }
            Ok(())
        }
    }
}

/// Splits a REPL transcript into (input, expected output) pairs.
fn repl_steps(code: &str) -> Vec<(String, String)> {
    let mut steps: Vec<(String, String)> = Vec::new();
    for line in code.lines() {
        if let Some(input) = line.strip_prefix("> ") {
            steps.push((input.to_string(), String::new()));
        } else if let Some(last) = steps.last_mut() {
            last.1.push_str(line);
            last.1.push('\n');
        }
    }
    steps
}

fn check_repl(block: &Block) -> Result<(), String> {
    let steps = repl_steps(&block.code);
    if steps.is_empty() {
        return Err("a `ptl,repl` block needs `> ` input lines".into());
    }
    let mut defs = String::new();
    for (input, want) in steps {
        let trimmed = input.trim();
        let is_def = trimmed.starts_with("fn ") || trimmed.starts_with("let ");
        let stmt = if is_def || trimmed.starts_with("print ") {
            input.clone()
        } else {
            format!("print {};", trimmed.trim_end_matches(';'))
        };
        let src = format!("{defs}{stmt}\n");
        let prog = ptl_lang::frontend(&src)
            .map_err(|d| format!("`{input}` does not check:\n{}", render_all(&d, "repl", &src, false)))?;
        let values = ptl_interp::run_program(&prog).map_err(|e| format!("`{input}` fails: {e}"))?;
        let got = printed(&values);
        if normalize(&got) != normalize(&want) {
            return Err(diff(&format!("output of `{input}`"), &normalize(&want), &normalize(&got)));
        }
        if is_def {
            defs.push_str(&stmt);
            defs.push('\n');
        }
    }
    Ok(())
}

fn engine() -> Engine {
    Engine::new(EngineOptions { cache_dir: CompileCache::default_dir(), ..Default::default() }).expect("IREE runtime starts")
}

#[test]
fn book_code_blocks() {
    let src = book_src();
    let mut engine = engine();
    let mut failures = Vec::new();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for file in markdown_files(&src) {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        let blocks = code_blocks(&text);
        for (i, block) in blocks.iter().enumerate() {
            if !block.info.starts_with("ptl") {
                continue;
            }
            let attrs: Vec<&str> = block.info.split(',').map(str::trim).skip(1).collect();
            let expected = blocks
                .get(i + 1)
                .filter(|b| b.adjacent_to_previous && (b.info == "text" || b.info == "output"));
            let result = match attrs.as_slice() {
                [] if block.info == "ptl" => {
                    *counts.entry("ptl").or_default() += 1;
                    let known = KNOWN_COMPILED_BUGS.iter().find(|(f, line, _)| *f == name && block.code.contains(line));
                    match (check_ok(&mut engine, block, expected), known) {
                        (Err(why), Some((_, _, bug))) if why.starts_with("interpreter and compiled print differently") => {
                            eprintln!("known compiled-path bug at {name}:{}: {bug}", block.line);
                            Ok(())
                        }
                        (Ok(()), Some((_, _, bug))) => {
                            Err(format!("passes now; remove it from KNOWN_COMPILED_BUGS (\"{bug}\")"))
                        }
                        (r, _) => r,
                    }
                }
                ["error"] => {
                    *counts.entry("ptl,error").or_default() += 1;
                    check_error(&mut engine, block, None, expected)
                }
                ["error", code] if code.starts_with('E') => {
                    *counts.entry("ptl,error").or_default() += 1;
                    check_error(&mut engine, block, Some(code), expected)
                }
                ["repl"] => {
                    *counts.entry("ptl,repl").or_default() += 1;
                    check_repl(block)
                }
                ["norun"] => {
                    *counts.entry("ptl,norun").or_default() += 1;
                    Ok(())
                }
                _ => Err(format!("unknown info string `{}`", block.info)),
            };
            if let Err(why) = result {
                failures.push(format!("{name}:{}: ```{}\n{}\n{why}\n", block.line, block.info, block.code.trim_end()));
            }
        }
    }
    eprintln!("book blocks: {counts:?}");
    assert!(counts.get("ptl").copied().unwrap_or(0) >= 20, "expected the book's ptl blocks under {}", src.display());
    assert!(failures.is_empty(), "{} book block(s) fail:\n\n{}", failures.len(), failures.join("\n"));
}

/// mdbook's heading ids: lowercase alphanumerics, `_` and `-`; whitespace becomes `-`; the
/// rest is dropped. A repeated id gets `-1`, `-2`, ...
fn heading_ids(text: &str) -> HashSet<String> {
    let mut ids = HashSet::new();
    let mut heading: Option<String> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::Heading { id, .. }) => {
                if let Some(id) = id {
                    ids.insert(id.to_string());
                    heading = None;
                } else {
                    heading = Some(String::new());
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    let base: String = h
                        .chars()
                        .filter_map(|c| {
                            if c.is_alphanumeric() || c == '_' || c == '-' {
                                Some(c.to_ascii_lowercase())
                            } else if c.is_whitespace() {
                                Some('-')
                            } else {
                                None
                            }
                        })
                        .collect();
                    let mut id = base.clone();
                    let mut n = 1;
                    while ids.contains(&id) {
                        id = format!("{base}-{n}");
                        n += 1;
                    }
                    ids.insert(id);
                }
            }
            _ => {}
        }
    }
    ids
}

#[test]
fn book_links_resolve() {
    let src = book_src();
    let files = markdown_files(&src);
    let mut failures = Vec::new();
    let mut links = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(&src).unwrap().display().to_string();
        for (event, range) in parser(&text).into_offset_iter() {
            let Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) = event else { continue };
            let dest = dest_url.to_string();
            let line = text[..range.start].lines().count().max(1);
            if dest.contains("://") || dest.starts_with("mailto:") {
                continue;
            }
            links += 1;
            let (path, anchor) = match dest.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (dest.as_str(), None),
            };
            let target = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            let Ok(target) = target.canonicalize() else {
                failures.push(format!("{name}:{line}: `{dest}`: no such file"));
                continue;
            };
            if !target.starts_with(&src) {
                failures.push(format!("{name}:{line}: `{dest}` leaves book/src; the built book would not have it"));
                continue;
            }
            if let Some(anchor) = anchor {
                if target.extension().is_none_or(|e| e != "md") {
                    failures.push(format!("{name}:{line}: `{dest}`: an anchor into a file that is not a chapter"));
                    continue;
                }
                let ids = heading_ids(&std::fs::read_to_string(&target).unwrap());
                if !ids.contains(anchor) {
                    let mut known: Vec<_> = ids.into_iter().collect();
                    known.sort();
                    failures.push(format!("{name}:{line}: `{dest}`: no heading `#{anchor}` (there are: {})", known.join(", ")));
                }
            }
        }
    }
    // Every chapter is in the summary, and every summary entry exists (the link check above
    // covers the latter).
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("book/src/SUMMARY.md");
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap().display().to_string();
        if rel != "SUMMARY.md" && !summary.contains(&format!("({rel})")) {
            failures.push(format!("{rel} is not listed in SUMMARY.md"));
        }
    }
    assert!(links >= 10, "expected the book's links under {}", src.display());
    assert!(failures.is_empty(), "{} broken link(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn examples_match_their_expected_output() {
    let dir = root().join("examples");
    let mut engine = engine();
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptl"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 8, "expected 8 or more examples in {}", dir.display());
    let mut failures = String::new();
    for script in &scripts {
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(script).unwrap();
        let out = script.with_extension("out");
        let Ok(want) = std::fs::read_to_string(&out) else {
            writeln!(failures, "{name}: no {}", out.display()).unwrap();
            continue;
        };
        match run_both(&mut engine, &src) {
            Ok(got) if normalize(&got) == normalize(&want) => {}
            Ok(got) => writeln!(failures, "{name}: {}", diff("output", &normalize(&want), &normalize(&got))).unwrap(),
            Err(why) => writeln!(failures, "{name}: {why}").unwrap(),
        }
    }
    assert!(failures.is_empty(), "{failures}");
}
