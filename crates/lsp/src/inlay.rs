//! Inlay hints: the type of each `let` name without a written type (`: f64[n, 3]`).

use lsp_types::{InlayHint, InlayHintKind, InlayHintLabel, Range};

use crate::document::Document;
use crate::resolve::DefKind;
use crate::typed_lookup::Typed;

pub fn inlay_hints(doc: &Document, range: Range) -> Vec<InlayHint> {
    let a = &doc.analysis;
    let Some(typed) = a.typed() else { return Vec::new() };
    let (from, to) = (doc.offset(range.start), doc.offset(range.end));
    let lets = typed.lets();
    let mut out = Vec::new();
    for def in &a.index.defs {
        let DefKind::Let { stmt, index, declared: None } = &def.kind else { continue };
        if def.span.end < from || def.span.start > to {
            continue;
        }
        let Some(ty) = Typed::value_type(&lets, stmt, *index) else { continue };
        out.push(InlayHint {
            position: a.lines.position(&doc.text, def.span.end),
            label: InlayHintLabel::String(format!(": {ty}")),
            kind: Some(InlayHintKind::TYPE),
            text_edits: None,
            tooltip: None,
            padding_left: None,
            padding_right: None,
            data: None,
        });
    }
    out
}
