//! The server: the initialize handshake, the message loop, and dispatch to the features.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, InlayHintRequest, Request as _,
    Shutdown,
};
use lsp_types::{
    CompletionResponse, DocumentSymbolResponse, HoverProviderCapability, InlayHintServerCapabilities, OneOf,
    PositionEncodingKind, PublishDiagnosticsParams, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, Uri,
};

use crate::document::Document;
use crate::{completion, definition, diagnostics, formatting, hover, inlay, symbols};

pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// What the server can do: full text sync, and every feature of this crate.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        completion_provider: Some(lsp_types::CompletionOptions::default()),
        inlay_hint_provider: Some(OneOf::Right(InlayHintServerCapabilities::Options(Default::default()))),
        ..ServerCapabilities::default()
    }
}

/// Runs the server on `connection`: the initialize handshake, then messages until `exit` (or
/// until the client hangs up).
pub fn serve(connection: Connection) -> Result<(), Error> {
    let (id, _params) = connection.initialize_start()?;
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "ptl-lsp", "version": env!("CARGO_PKG_VERSION") },
    });
    connection.initialize_finish(id, result)?;
    Server { connection: &connection, docs: HashMap::new(), shutting_down: false }.run()
}

struct Server<'a> {
    connection: &'a Connection,
    docs: HashMap<Uri, Document>,
    /// Set by `shutdown`: only `exit` is expected after it.
    shutting_down: bool,
}

impl Server<'_> {
    fn run(mut self) -> Result<(), Error> {
        while let Ok(msg) = self.connection.receiver.recv() {
            match msg {
                Message::Request(req) => {
                    let resp = if self.shutting_down {
                        Response::new_err(req.id, ErrorCode::InvalidRequest as i32, "the server is shutting down".to_string())
                    } else if req.method == Shutdown::METHOD {
                        self.shutting_down = true;
                        Response::new_ok(req.id, ())
                    } else {
                        self.request(req)
                    };
                    self.send(resp.into())?;
                }
                Message::Notification(n) if n.method == lsp_types::notification::Exit::METHOD => return Ok(()),
                Message::Notification(n) => self.notification(n)?,
                Message::Response(_) => {}
            }
        }
        Ok(())
    }

    fn send(&self, msg: Message) -> Result<(), Error> {
        self.connection.sender.send(msg).map_err(|e| Error::from(format!("cannot send to the client: {e}")))
    }

    fn request(&self, req: Request) -> Response {
        match req.method.as_str() {
            HoverRequest::METHOD => self.handle::<HoverRequest>(req, |s, p| {
                let at = p.text_document_position_params;
                s.docs.get(&at.text_document.uri).and_then(|d| hover::hover(d, at.position))
            }),
            GotoDefinition::METHOD => self.handle::<GotoDefinition>(req, |s, p| {
                let at = p.text_document_position_params;
                let uri = &at.text_document.uri;
                s.docs.get(uri).and_then(|d| definition::definition(uri, d, at.position))
            }),
            DocumentSymbolRequest::METHOD => self.handle::<DocumentSymbolRequest>(req, |s, p| {
                let found = s.docs.get(&p.text_document.uri).map(symbols::symbols).unwrap_or_default();
                Some(DocumentSymbolResponse::Nested(found))
            }),
            Formatting::METHOD => self.handle::<Formatting>(req, |s, p| {
                s.docs.get(&p.text_document.uri).map_or(Some(Vec::new()), formatting::format)
            }),
            Completion::METHOD => self.handle::<Completion>(req, |s, p| {
                let at = p.text_document_position;
                let items = s.docs.get(&at.text_document.uri).map(|d| completion::completions(d, at.position));
                Some(CompletionResponse::Array(items.unwrap_or_default()))
            }),
            InlayHintRequest::METHOD => self.handle::<InlayHintRequest>(req, |s, p| {
                Some(s.docs.get(&p.text_document.uri).map(|d| inlay::inlay_hints(d, p.range)).unwrap_or_default())
            }),
            _ => Response::new_err(req.id, ErrorCode::MethodNotFound as i32, format!("unsupported request `{}`", req.method)),
        }
    }

    /// Decodes the parameters of a request of type `R`, answers it with `f`, and turns a
    /// panic in `f` into an error response.
    fn handle<R: lsp_types::request::Request>(&self, req: Request, f: impl FnOnce(&Self, R::Params) -> R::Result) -> Response {
        let params = match serde_json::from_value::<R::Params>(req.params) {
            Ok(p) => p,
            Err(e) => return Response::new_err(req.id, ErrorCode::InvalidParams as i32, e.to_string()),
        };
        match catch_unwind(AssertUnwindSafe(|| f(self, params))) {
            Ok(result) => Response::new_ok(req.id, result),
            Err(_) => Response::new_err(req.id, ErrorCode::InternalError as i32, format!("internal error in `{}`", R::METHOD)),
        }
    }

    fn notification(&mut self, n: Notification) -> Result<(), Error> {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD) else { return Ok(()) };
                let doc = p.text_document;
                if let Some(d) = analysed(|| Document::new(doc.text, doc.version)) {
                    self.docs.insert(doc.uri.clone(), d);
                }
                self.publish(&doc.uri)
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD) else { return Ok(()) };
                let uri = p.text_document.uri;
                let version = p.text_document.version;
                let changed = match self.docs.remove(&uri) {
                    Some(mut d) => analysed(move || {
                        d.change(version, p.content_changes);
                        d
                    }),
                    // A change to a document never opened: only a whole new text can be used.
                    None => {
                        let whole = p.content_changes.into_iter().rev().find(|c| c.range.is_none());
                        whole.and_then(|c| analysed(|| Document::new(c.text, version)))
                    }
                };
                if let Some(d) = changed {
                    self.docs.insert(uri.clone(), d);
                }
                self.publish(&uri)
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD) else { return Ok(()) };
                let uri = p.text_document.uri;
                self.docs.remove(&uri);
                self.publish(&uri)
            }
            _ => Ok(()),
        }
    }

    /// Sends the diagnostics of `uri` (none for a closed document).
    fn publish(&self, uri: &Uri) -> Result<(), Error> {
        let (diagnostics, version) = match self.docs.get(uri) {
            Some(d) => (diagnostics::diagnostics(uri, d), Some(d.version)),
            None => (Vec::new(), None),
        };
        let params = PublishDiagnosticsParams { uri: uri.clone(), diagnostics, version };
        self.send(Notification::new(PublishDiagnostics::METHOD.to_string(), params).into())
    }
}

/// Runs an analysis; a panic in the frontend leaves the document out rather than ending
/// the server.
fn analysed(f: impl FnOnce() -> Document) -> Option<Document> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}
