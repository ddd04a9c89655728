//! Every feature at every position of every program in the repository (the examples and the
//! test fixtures, error fixtures included): no panic, and answers that point into the text.

use std::path::{Path, PathBuf};

use lsp_types::{GotoDefinitionResponse, Position, Range, Uri};

use crate::document::Document;
use crate::{completion, definition, diagnostics, formatting, hover, inlay, symbols};

fn programs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            programs(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptl") {
            out.push(p);
        }
    }
}

fn text_at(doc: &Document, r: &Range) -> String {
    let (a, b) = (doc.offset(r.start), doc.offset(r.end));
    doc.text[a..b].to_string()
}

#[test]
fn every_feature_at_every_position_of_the_repository_programs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    programs(&root.join("examples"), &mut files);
    programs(&root.join("tests/fixtures"), &mut files);
    assert!(files.len() > 10, "no programs found under {}", root.display());
    let uri: Uri = "file:///sweep.ptl".parse().unwrap();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let doc = Document::new(text.clone(), 1);
        let diags = diagnostics::diagnostics(&uri, &doc);
        assert_eq!(diags.len(), doc.analysis.diagnostics.len());
        symbols::symbols(&doc);
        formatting::format(&doc);
        let end = doc.analysis.lines.position(&text, text.len());
        inlay::inlay_hints(&doc, Range::new(Position::new(0, 0), end));
        for (i, (offset, _)) in text.char_indices().enumerate() {
            let pos = doc.analysis.lines.position(&text, offset);
            if let Some(h) = hover::hover(&doc, pos) {
                let r = h.range.expect("a hover range");
                let (a, b) = (doc.offset(r.start), doc.offset(r.end));
                assert!(a <= offset && offset <= b, "{}: hover at {offset} has range {a}..{b}", file.display());
            }
            if let Some(GotoDefinitionResponse::Scalar(loc)) = definition::definition(&uri, &doc, pos) {
                // The definition names what the cursor is on.
                let target = text_at(&doc, &loc.range);
                let word_start = text[..offset].rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
                let word_end = text[offset..].find(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(text.len(), |i| offset + i);
                let word = &text[word_start..word_end.max(word_start)];
                let before = text[..offset].rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
                assert!(target == word || target == before, "{}: at {offset} {word:?} goes to {target:?}", file.display());
            }
            if i % 11 == 0 {
                completion::completions(&doc, pos);
            }
        }
    }
}
