//! Completion: the names in scope at the cursor (parameters, earlier `let`s, loop names,
//! dimension names, top-level `let`s outside functions), the user's functions, the builtins
//! and the keywords.

use lsp_types::{CompletionItem, CompletionItemKind, Position};
use ptl_lang::DType;
use ptl_lang::ops::Builtin;
use ptl_lang::syntax::lexer::KEYWORDS;

use crate::document::Document;
use crate::resolve::DefKind;
use crate::typed_lookup::Typed;

/// The forms that give a function to call: `grad(f, w)(args)`.
const FORMS: [(&str, &str); 2] = [("grad", "grad(f, w)(args...)"), ("value_and_grad", "value_and_grad(f, w)(args...)")];

pub fn completions(doc: &Document, pos: Position) -> Vec<CompletionItem> {
    let a = &doc.analysis;
    let offset = doc.offset(pos);
    let lets = a.typed().map(|t| t.lets()).unwrap_or_default();
    let mut out = Vec::new();
    for def in a.index.visible_at(offset) {
        let (kind, detail) = match &def.kind {
            DefKind::Function => (CompletionItemKind::FUNCTION, a.signature(&def.name)),
            DefKind::Param(ty) => (CompletionItemKind::VARIABLE, Some(ty.to_string())),
            DefKind::Let { stmt, index, declared } => {
                let checked = Typed::value_type(&lets, stmt, *index);
                (CompletionItemKind::VARIABLE, checked.or_else(|| declared.clone()).map(|t| t.to_string()))
            }
            DefKind::LoopState { expr, index } => {
                (CompletionItemKind::VARIABLE, a.typed().and_then(|t| t.loop_state_type(expr, *index)).map(|t| t.to_string()))
            }
            DefKind::Counter => (CompletionItemKind::VARIABLE, Some("i64".to_string())),
            DefKind::Dim => (CompletionItemKind::CONSTANT, Some("dimension (i64)".to_string())),
        };
        out.push(item(&def.name, kind, detail));
    }
    for b in Builtin::all() {
        out.push(item(b.name(), CompletionItemKind::FUNCTION, Some(b.signature())));
    }
    for (name, sig) in FORMS {
        out.push(item(name, CompletionItemKind::FUNCTION, Some(sig.to_string())));
    }
    for k in KEYWORDS {
        out.push(item(k, CompletionItemKind::KEYWORD, None));
    }
    for d in DType::ALL {
        out.push(item(d.name(), CompletionItemKind::TYPE_PARAMETER, Some("dtype".to_string())));
    }
    out
}

fn item(label: &str, kind: CompletionItemKind, detail: Option<String>) -> CompletionItem {
    CompletionItem { label: label.to_string(), kind: Some(kind), detail, ..CompletionItem::default() }
}
