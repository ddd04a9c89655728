//! The frontend's diagnostics as LSP diagnostics.

use lsp_types::{Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Uri};

use crate::document::Document;

/// Every diagnostic of `doc`: the E-code as `code`, the notes after the message, and the
/// labels on other spans than the primary one as related information.
pub fn diagnostics(uri: &Uri, doc: &Document) -> Vec<Diagnostic> {
    doc.analysis.diagnostics.iter().map(|d| convert(uri, doc, d)).collect()
}

fn convert(uri: &Uri, doc: &Document, d: &ptl_lang::Diagnostic) -> Diagnostic {
    let mut message = d.message.clone();
    for note in &d.notes {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter(|(span, _)| *span != d.span)
        .map(|(span, text)| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), doc.range(span)),
            message: text.clone(),
        })
        .collect();
    Diagnostic {
        range: doc.range(&d.span),
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String(d.kind.code().to_string())),
        code_description: None,
        source: Some("ptl".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}
