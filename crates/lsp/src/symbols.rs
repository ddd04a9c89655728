//! Document symbols: the functions (with their signatures) and the top-level `let`s.

use lsp_types::{DocumentSymbol, SymbolKind};
use ptl_lang::Span;
use ptl_lang::ast::Item;

use crate::document::Document;
use crate::typed_lookup::Typed;

pub fn symbols(doc: &Document) -> Vec<DocumentSymbol> {
    let a = &doc.analysis;
    let Some(program) = &a.program else { return Vec::new() };
    let lets = a.typed().map(|t| t.lets()).unwrap_or_default();
    let mut out = Vec::new();
    for item in &program.items {
        match item {
            Item::Fn(f) => out.push(symbol(doc, &f.name.name, a.signature(&f.name.name), SymbolKind::FUNCTION, &f.span, &f.name.span)),
            Item::Let(l) => {
                for (i, n) in l.names().enumerate() {
                    let ty = Typed::value_type(&lets, &l.span, i).map(|t| t.to_string());
                    out.push(symbol(doc, &n.name, ty, SymbolKind::VARIABLE, &l.span, &n.span));
                }
            }
            Item::Print(_) => {}
        }
    }
    out
}

#[allow(deprecated)] // `deprecated` is a required field of the type
fn symbol(doc: &Document, name: &str, detail: Option<String>, kind: SymbolKind, span: &Span, name_span: &Span) -> DocumentSymbol {
    DocumentSymbol {
        name: name.to_string(),
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: doc.range(span),
        selection_range: doc.range(name_span),
        children: None,
    }
}
