//! A minimal editor for tests: it runs the server on a thread over an in-memory connection
//! and speaks JSON-RPC to it as an editor would.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(30);

pub struct Client {
    conn: Connection,
    server: Option<JoinHandle<Result<(), ptl_lsp::Error>>>,
    next_id: i32,
    /// Notifications that arrived while waiting for a response.
    notifications: VecDeque<Notification>,
}

impl Client {
    /// Starts a server and sends only the `initialize` request; returns its result.
    pub fn start_uninitialized() -> (Client, Value) {
        let (server, client) = Connection::memory();
        let handle = std::thread::spawn(move || ptl_lsp::serve(server));
        let mut c = Client { conn: client, server: Some(handle), next_id: 1, notifications: VecDeque::new() };
        let result = c.request("initialize", json!({ "processId": null, "rootUri": null, "capabilities": {} }));
        (c, result)
    }

    /// Starts a server and completes the handshake (`initialize`, then `initialized`).
    pub fn start() -> Client {
        let (c, _) = Client::start_uninitialized();
        c.notify("initialized", json!({}));
        c
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.conn.sender.send(Message::Notification(Notification::new(method.to_string(), params))).unwrap();
    }

    /// Sends a request and waits for its response.
    pub fn request_raw(&mut self, method: &str, params: Value) -> Response {
        let id = RequestId::from(self.next_id);
        self.next_id += 1;
        self.conn.sender.send(Message::Request(Request::new(id.clone(), method.to_string(), params))).unwrap();
        loop {
            match self.conn.receiver.recv_timeout(TIMEOUT).expect("no response from the server") {
                Message::Response(r) if r.id == id => return r,
                Message::Response(r) => panic!("response to an unknown request: {r:?}"),
                Message::Notification(n) => self.notifications.push_back(n),
                Message::Request(r) => panic!("unexpected request from the server: {r:?}"),
            }
        }
    }

    /// Sends a request and returns its result; an error response fails the test.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let r = self.request_raw(method, params);
        if let Some(e) = r.error {
            panic!("{method} failed: {e:?}");
        }
        r.result.unwrap_or(Value::Null)
    }

    /// The parameters of the next notification `method` from the server.
    pub fn notification(&mut self, method: &str) -> Value {
        if let Some(i) = self.notifications.iter().position(|n| n.method == method) {
            return self.notifications.remove(i).unwrap().params;
        }
        loop {
            match self.conn.receiver.recv_timeout(TIMEOUT).expect("no notification from the server") {
                Message::Notification(n) if n.method == method => return n.params,
                Message::Notification(n) => self.notifications.push_back(n),
                other => panic!("unexpected message while waiting for {method}: {other:?}"),
            }
        }
    }

    /// Opens `text` as `uri` and returns the diagnostics published for it.
    pub fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "ptl", "version": 1, "text": text } }),
        );
        self.diagnostics(uri)
    }

    /// Replaces the whole text of `uri` and returns the diagnostics published for it.
    pub fn change(&mut self, uri: &str, version: i32, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        );
        self.diagnostics(uri)
    }

    /// The next `publishDiagnostics` for `uri`.
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let p = self.notification("textDocument/publishDiagnostics");
        assert_eq!(p["uri"], uri);
        p["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// A request about position `at` of `uri`.
    pub fn at(&mut self, method: &str, uri: &str, at: (u32, u32)) -> Value {
        self.request(method, json!({ "textDocument": { "uri": uri }, "position": { "line": at.0, "character": at.1 } }))
    }

    /// `shutdown`, then `exit`; the server must stop without an error.
    pub fn shutdown(mut self) {
        let r = self.request_raw("shutdown", Value::Null);
        assert!(r.error.is_none(), "{r:?}");
        assert_eq!(r.result.unwrap_or(Value::Null), Value::Null);
        self.exit();
    }

    /// `exit`; the server must stop without an error.
    pub fn exit(mut self) {
        self.notify("exit", Value::Null);
        let handle = self.server.take().unwrap();
        handle.join().expect("the server panicked").expect("the server failed");
    }
}

/// The LSP position (line, UTF-16 column) of byte `offset` of `text`.
pub fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let column = before.rsplit('\n').next().unwrap().encode_utf16().count();
    (line as u32, column as u32)
}

/// The position of the `nth` occurrence of `needle`, moved `delta` bytes into it.
pub fn find(text: &str, needle: &str, nth: usize, delta: usize) -> (u32, u32) {
    let offset = text.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("no {needle:?} #{nth}")).0;
    position(text, offset + delta)
}

/// The LSP range of the `nth` occurrence of `needle`.
pub fn range_of(text: &str, needle: &str, nth: usize) -> Value {
    let offset = text.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("no {needle:?} #{nth}")).0;
    let (sl, sc) = position(text, offset);
    let (el, ec) = position(text, offset + needle.len());
    json!({ "start": { "line": sl, "character": sc }, "end": { "line": el, "character": ec } })
}

/// The LSP range of `len` bytes from `delta` bytes into the `nth` occurrence of `needle`.
pub fn range_in(text: &str, needle: &str, nth: usize, delta: usize, len: usize) -> Value {
    let offset = text.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("no {needle:?} #{nth}")).0 + delta;
    let (sl, sc) = position(text, offset);
    let (el, ec) = position(text, offset + len);
    json!({ "start": { "line": sl, "character": sc }, "end": { "line": el, "character": ec } })
}

/// The markdown text of a hover result.
pub fn hover_text(v: &Value) -> String {
    v["contents"]["value"].as_str().unwrap_or_else(|| panic!("no hover text in {v}")).to_string()
}
