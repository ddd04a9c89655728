//! One keystroke in a 2,000-line program: the server re-analyses the whole text (full text
//! sync) and answers a hover. Measured through the protocol, over an in-memory connection,
//! and the analysis alone.

use std::fmt::Write;
use std::hint::black_box;
use std::thread::JoinHandle;

use criterion::{Criterion, criterion_group, criterion_main};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::json;

const URI: &str = "file:///bench/model.ptl";

/// A program of about 2,000 lines: 250 small functions and 500 top-level calls of them.
fn program() -> String {
    let mut s = String::from("// Generated: layers and their uses.\n");
    for i in 0..250 {
        let _ = write!(
            s,
            "fn f{i}(x: f64[n, 3], w: f64[3, 3]) -> f64[n, 3] {{\n    let h = x @ w;\n    let g = maximum(h, 0.0) + {i}.0;\n    g * 2.0\n}}\n\n"
        );
    }
    s.push_str("let a = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];\n");
    s.push_str("let w = [[0.5, 0.0, 1.0], [1.0, 1.0, 0.0], [0.0, 2.0, 1.0]];\n");
    for i in 0..500 {
        let _ = writeln!(s, "let v{i} = f{}(a, w);", i % 250);
    }
    s
}

struct Server {
    client: Connection,
    thread: Option<JoinHandle<()>>,
    next_id: i32,
}

impl Server {
    fn start(text: &str) -> Server {
        let (server, client) = Connection::memory();
        let thread = std::thread::spawn(move || ptl_lsp::serve(server).expect("server failed"));
        let mut s = Server { client, thread: Some(thread), next_id: 0 };
        s.request("initialize", json!({ "processId": null, "rootUri": null, "capabilities": {} }));
        s.notify("initialized", json!({}));
        s.notify("textDocument/didOpen", json!({ "textDocument": { "uri": URI, "languageId": "ptl", "version": 0, "text": text } }));
        s
    }

    fn notify(&self, method: &str, params: serde_json::Value) {
        self.client.sender.send(Message::Notification(Notification::new(method.to_string(), params))).unwrap();
    }

    /// Sends a request and waits for its response, passing over notifications.
    fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.client.sender.send(Message::Request(Request::new(id.clone(), method.to_string(), params))).unwrap();
        loop {
            if let Message::Response(r) = self.client.receiver.recv().unwrap()
                && r.id == id
            {
                return r.result.unwrap_or_default();
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.request("shutdown", serde_json::Value::Null);
        self.notify("exit", serde_json::Value::Null);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn keystroke(c: &mut Criterion) {
    let text = program();
    assert!(text.lines().count() >= 2000, "{} lines", text.lines().count());
    // One character changed in the middle of the file: `+ 125.0` becomes `+ 125.5`.
    let edited = text.replacen("+ 125.0;", "+ 125.5;", 1);
    assert_ne!(edited, text);
    let texts = [text.clone(), edited];
    // Hover on the name of the last `let`.
    let lines = text.lines().count() as u32;
    let hover_at = json!({ "textDocument": { "uri": URI }, "position": { "line": lines - 1, "character": 5 } });

    let mut server = Server::start(&text);
    let h = server.request("textDocument/hover", hover_at.clone());
    assert!(h.to_string().contains("f64[2, 3]"), "{h}");
    let mut version = 0;
    c.bench_function("keystroke: didChange + hover, 2000 lines", |b| {
        b.iter(|| {
            version += 1;
            let text = &texts[(version % 2) as usize];
            server.notify(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": URI, "version": version }, "contentChanges": [{ "text": text }] }),
            );
            black_box(server.request("textDocument/hover", hover_at.clone()))
        })
    });
    drop(server);

    c.bench_function("analysis alone, 2000 lines", |b| b.iter(|| black_box(ptl_lsp::Analysis::new(black_box(&texts[1])))));
}

criterion_group!(benches, keystroke);
criterion_main!(benches);
