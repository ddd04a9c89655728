//! The protocol around the features: the handshake, capabilities, unknown requests and
//! documents, shutdown and exit.

mod common;

use common::Client;
use serde_json::{Value, json};

#[test]
fn initialize_announces_every_feature() {
    let (c, result) = Client::start_uninitialized();
    let caps = &result["capabilities"];
    // Full text sync (1 = Full).
    assert_eq!(caps["textDocumentSync"], json!(1));
    for feature in ["hoverProvider", "definitionProvider", "documentSymbolProvider", "documentFormattingProvider"] {
        assert_eq!(caps[feature], json!(true), "{feature}");
    }
    assert!(caps["completionProvider"].is_object());
    assert!(caps["inlayHintProvider"].is_object());
    assert_eq!(caps["positionEncoding"], json!("utf-16"));
    assert_eq!(result["serverInfo"]["name"], json!("ptl-lsp"));
    c.notify("initialized", json!({}));
    c.shutdown();
}

#[test]
fn unknown_requests_get_method_not_found() {
    let mut c = Client::start();
    let r = c.request_raw("textDocument/rename", json!({}));
    assert_eq!(r.error.expect("an error response").code, -32601);
    let r = c.request_raw("ptl/noSuchThing", Value::Null);
    assert_eq!(r.error.expect("an error response").code, -32601);
    // Malformed parameters of a known request: invalid params, and the server goes on.
    let r = c.request_raw("textDocument/hover", json!({ "nonsense": 1 }));
    assert_eq!(r.error.expect("an error response").code, -32602);
    // Unknown notifications are ignored.
    c.notify("workspace/didChangeConfiguration", json!({ "settings": {} }));
    c.notify("$/cancelRequest", json!({ "id": 99 }));
    c.shutdown();
}

#[test]
fn requests_about_unknown_documents_get_empty_results() {
    let mut c = Client::start();
    let uri = "file:///never/opened.ptl";
    assert_eq!(c.at("textDocument/hover", uri, (0, 0)), Value::Null);
    assert_eq!(c.at("textDocument/definition", uri, (0, 0)), Value::Null);
    let completion = c.at("textDocument/completion", uri, (0, 0));
    assert_eq!(completion, json!([]));
    let doc = json!({ "textDocument": { "uri": uri } });
    assert_eq!(c.request("textDocument/documentSymbol", doc.clone()), json!([]));
    let fmt = json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 4, "insertSpaces": true } });
    assert_eq!(c.request("textDocument/formatting", fmt), json!([]));
    let range = json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 9, "character": 0 } });
    assert_eq!(c.request("textDocument/inlayHint", json!({ "textDocument": { "uri": uri }, "range": range })), json!([]));
    c.shutdown();
}

#[test]
fn requests_after_shutdown_are_refused_until_exit() {
    let mut c = Client::start();
    let r = c.request_raw("shutdown", Value::Null);
    assert!(r.error.is_none());
    let at = json!({ "textDocument": { "uri": "file:///a.ptl" }, "position": { "line": 0, "character": 0 } });
    let r = c.request_raw("textDocument/hover", at);
    assert_eq!(r.error.expect("an error response").code, -32600);
    c.exit();
}

#[test]
fn closing_a_document_clears_its_diagnostics() {
    let mut c = Client::start();
    let uri = "file:///close.ptl";
    let diags = c.open(uri, "print nope;\n");
    assert_eq!(diags.len(), 1);
    c.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri } }));
    assert_eq!(c.diagnostics(uri), Vec::<Value>::new());
    assert_eq!(c.at("textDocument/hover", uri, (0, 7)), Value::Null);
    c.shutdown();
}
