//! Hover: the type (with its dims) of the name or expression under the cursor, a function's
//! signature, and for a call the signature with the dims bound at that call.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};
use ptl_lang::ops::Builtin;
use ptl_lang::typed::TExprKind;
use ptl_lang::{DType, Span, TensorType};

use crate::document::{Analysis, Document};
use crate::resolve::{Def, DefKind, Ref, Site, Target};
use crate::signature::{bind_dims, call_signature, types_text, written};

/// A `ptl` code block.
fn code(text: &str) -> String {
    format!("```ptl\n{text}\n```")
}

pub fn hover(doc: &Document, pos: Position) -> Option<Hover> {
    let a = &doc.analysis;
    let offset = doc.offset(pos);
    let (text, span) = match a.index.at(offset) {
        Some(Site::Def(id)) => (def_hover(a, &a.index.defs[id])?, a.index.defs[id].span.clone()),
        Some(Site::Use(r)) => (use_hover(a, r)?, r.span.clone()),
        None => {
            let e = a.typed()?.smallest_containing(offset)?;
            (code(&types_text(&e.result_types())), e.span.clone())
        }
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: text }),
        range: Some(doc.range(&span)),
    })
}

/// The type of a value binding, as checked (or as declared).
fn def_type(a: &Analysis, def: &Def) -> Option<TensorType> {
    match &def.kind {
        DefKind::Param(ty) => Some(ty.clone()),
        DefKind::Let { stmt, index, declared } => a.typed().and_then(|t| t.let_type(stmt, *index)).or_else(|| declared.clone()),
        DefKind::LoopState { expr, index } => a.typed()?.loop_state_type(expr, *index),
        DefKind::Counter => Some(TensorType::scalar(DType::I64)),
        DefKind::Function | DefKind::Dim => None,
    }
}

fn dim_text(def: &Def) -> String {
    let owner = def.function.as_deref().unwrap_or("?");
    format!("{}\n\na dimension name of the signature of `{owner}`", code(&format!("dim {}", def.name)))
}

fn def_hover(a: &Analysis, def: &Def) -> Option<String> {
    match def.kind {
        DefKind::Function => a.signature(&def.name).map(|s| code(&s)),
        DefKind::Dim => Some(dim_text(def)),
        _ => def_type(a, def).map(|ty| code(&format!("{}: {ty}", def.name))),
    }
}

fn use_hover(a: &Analysis, r: &Ref) -> Option<String> {
    match r.target {
        Target::Builtin(b) => Some(builtin_hover(a, b, r.call.as_ref())),
        Target::Def(id) => {
            let def = &a.index.defs[id];
            match (&def.kind, &r.call) {
                (DefKind::Function, Some(call)) => call_hover(a, &def.name, call),
                (DefKind::Function, None) => def_hover(a, def),
                _ => {
                    // The type at this use, as checked; else the binding's.
                    let node = a.typed().and_then(|t| t.name_at(&r.span));
                    match (node, &def.kind) {
                        (Some(e), DefKind::Dim) => {
                            let sig = code(&format!("{}: {}", def.name, e.ty));
                            Some(format!("{sig}\n\nthe size of dimension `{}`", def.name))
                        }
                        (None, DefKind::Dim) => Some(dim_text(def)),
                        (Some(e), _) => Some(code(&format!("{}: {}", def.name, e.ty))),
                        (None, _) => def_hover(a, def),
                    }
                }
            }
        }
    }
}

fn builtin_hover(a: &Analysis, b: Builtin, call: Option<&Span>) -> String {
    let mut out = code(&b.signature());
    if let Some(e) = call.and_then(|c| a.typed()?.outermost_at(c)) {
        out.push_str(&format!("\n\nresult here: `{}`", types_text(&e.result_types())));
    }
    out
}

/// `layer: f64[3, 2] -> f64[3, 4]` where `n = 3`, then the signature as declared.
fn call_hover(a: &Analysis, name: &str, call: &Span) -> Option<String> {
    let generic = a.signature(name);
    let node = a.typed().and_then(|t| t.outermost_at(call));
    let instantiated = node.and_then(|e| match &e.kind {
        TExprKind::Call(f, args) | TExprKind::CallMulti(f, args, _) if f == name => {
            let args: Vec<TensorType> = args.iter().map(|x| x.ty.clone()).collect();
            let params: Vec<TensorType> = a.fn_def(name)?.params.iter().map(|p| written(&p.ty)).collect();
            Some((call_signature(name, &args, &e.result_types()), bind_dims(&params, &args)))
        }
        _ => None,
    });
    let mut parts = Vec::new();
    if let Some((sig, bound)) = instantiated {
        let mut s = code(&sig);
        if !bound.is_empty() {
            let dims: Vec<String> = bound.iter().map(|(n, d)| format!("`{n} = {d}`")).collect();
            s.push_str(&format!("\n\nwhere {}", dims.join(", ")));
        }
        parts.push(s);
    }
    if let Some(g) = generic {
        parts.push(code(&g));
    }
    (!parts.is_empty()).then(|| parts.join("\n\n---\n\n"))
}
