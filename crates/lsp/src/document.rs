//! An open document and what the frontend makes of it, recomputed on every change.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};
use ptl_lang::ast::{FnDef, Item, Program};
use ptl_lang::typed::TProgram;
use ptl_lang::{Diagnostic, Span};

use crate::position::LineIndex;
use crate::resolve::Index;
use crate::typed_lookup::Typed;

/// One open document.
#[derive(Debug, Clone)]
pub struct Document {
    pub text: String,
    pub version: i32,
    pub analysis: Analysis,
}

impl Document {
    pub fn new(text: String, version: i32) -> Self {
        let analysis = Analysis::new(&text);
        Document { text, version, analysis }
    }

    /// Applies the changes of one `didChange`, in order, and analyses the new text.
    pub fn change(&mut self, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        for c in changes {
            match c.range {
                None => self.text = c.text,
                Some(range) => {
                    let lines = LineIndex::new(&self.text);
                    let start = lines.offset(&self.text, range.start);
                    let end = lines.offset(&self.text, range.end).max(start);
                    self.text.replace_range(start..end, &c.text);
                }
            }
        }
        self.version = version;
        self.analysis = Analysis::new(&self.text);
    }

    /// The byte offset of `pos`.
    pub fn offset(&self, pos: Position) -> usize {
        self.analysis.lines.offset(&self.text, pos)
    }

    /// The range of byte span `span`.
    pub fn range(&self, span: &Span) -> Range {
        self.analysis.lines.range(&self.text, span)
    }
}

/// The frontend's view of a text: the syntax tree, what of it type-checked, every diagnostic,
/// and the bindings and uses of names.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub lines: LineIndex,
    /// The syntax tree (partial when there are syntax errors; `None` when the parser gave up).
    pub program: Option<Program>,
    /// Whether the text parsed without lexical or syntax errors.
    pub parsed: bool,
    /// What type-checked: everything, when there are no diagnostics.
    pub typed: Option<TProgram>,
    /// Every diagnostic, syntax and check errors together, in source order.
    pub diagnostics: Vec<Diagnostic>,
    pub index: Index,
}

impl Analysis {
    pub fn new(text: &str) -> Self {
        let lines = LineIndex::new(text);
        let (program, mut diagnostics) = ptl_lang::parse(text);
        let parsed = program.is_some() && diagnostics.is_empty();
        let typed = program.as_ref().map(|p| {
            let (typed, check) = ptl_lang::check::check_partial(p);
            diagnostics.extend(check);
            typed
        });
        diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
        let index = program.as_ref().map(|p| Index::build(p, text)).unwrap_or_default();
        Analysis { lines, program, parsed, typed, diagnostics, index }
    }

    /// The typed program with the name index, if anything type-checked.
    pub fn typed(&self) -> Option<Typed<'_>> {
        self.typed.as_ref().map(|program| Typed { program, index: &self.index })
    }

    /// The definition of function `name` in the syntax tree (the first, if defined twice).
    pub fn fn_def(&self, name: &str) -> Option<&FnDef> {
        self.program.as_ref()?.items.iter().find_map(|i| match i {
            Item::Fn(f) if f.name.name == name => Some(f),
            _ => None,
        })
    }

    /// The signature of function `name`: as checked when its body checked, else as written.
    pub fn signature(&self, name: &str) -> Option<String> {
        if let Some(f) = self.typed().and_then(|t| t.function(name))
            && !f.results.is_empty()
        {
            return Some(crate::signature::fn_signature(f));
        }
        self.fn_def(name).map(crate::signature::written_signature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_match_the_frontend() {
        for src in [
            "let a = [1.0, 2.0];\nprint b;\n",
            "fn f(x: f64[n]) -> f64[n] { x + y }\nlet a = f([1.0]) +;\n",
            "let a = [1.0, 2.0] @ [[1.0], [2.0], [3.0]];\nprint a;",
            "fn f(x: f64[n]) -> f64[n] { x }\nprint f([[1.0]]);",
        ] {
            let a = Analysis::new(src);
            let (_, expected) = ptl_lang::check_source(src);
            assert_eq!(a.diagnostics, expected, "{src}");
            assert!(!a.diagnostics.is_empty());
        }
    }

    #[test]
    fn incremental_changes_apply_in_order() {
        let mut d = Document::new("let a = 1.0;\nprint a;\n".to_string(), 1);
        let edit = |line, from, to, text: &str| TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(line, from), Position::new(line, to))),
            range_length: None,
            text: text.to_string(),
        };
        d.change(2, vec![edit(0, 4, 5, "abc"), edit(1, 6, 7, "abc")]);
        assert_eq!(d.text, "let abc = 1.0;\nprint abc;\n");
        assert_eq!(d.version, 2);
        assert!(d.analysis.diagnostics.is_empty());
    }
}
