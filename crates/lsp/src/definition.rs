//! Go to definition: from a use of a name to where it is bound (a call to its function's
//! name, a value to its parameter, `let`, loop state or counter, a dimension name to its
//! first occurrence in the signature).

use lsp_types::{GotoDefinitionResponse, Location, Position, Uri};

use crate::document::Document;
use crate::resolve::{Site, Target};

pub fn definition(uri: &Uri, doc: &Document, pos: Position) -> Option<GotoDefinitionResponse> {
    let index = &doc.analysis.index;
    let id = match index.at(doc.offset(pos))? {
        Site::Def(id) => id,
        Site::Use(r) => match r.target {
            Target::Def(id) => id,
            Target::Builtin(_) => return None,
        },
    };
    let span = &index.defs[id].span;
    Some(GotoDefinitionResponse::Scalar(Location::new(uri.clone(), doc.range(span))))
}
