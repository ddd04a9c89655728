//! Formatting: the whole document as `ptl fmt` prints it, comments kept.

use lsp_types::TextEdit;

use crate::document::Document;

/// The edits that format `doc`: none when it is already formatted, `None` when it does not
/// parse (the formatter needs a whole syntax tree).
pub fn format(doc: &Document) -> Option<Vec<TextEdit>> {
    let a = &doc.analysis;
    let program = a.program.as_ref().filter(|_| a.parsed)?;
    let formatted = ptl_lang::print_program_with_comments(program, &doc.text);
    if formatted == doc.text {
        return Some(Vec::new());
    }
    Some(vec![TextEdit::new(a.lines.full_range(&doc.text), formatted)])
}
