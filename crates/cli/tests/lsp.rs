//! `ptl lsp` driven over stdio exactly as an editor drives it: framed JSON-RPC on the real
//! binary's stdin and stdout, from `initialize` to `exit`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

struct Editor {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: i64,
}

impl Editor {
    fn start() -> Editor {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ptl"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn ptl lsp");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Editor { child, input, output, next_id: 1 }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.input, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.input.flush().expect("flush");
    }

    fn receive(&mut self) -> Value {
        let mut length = None;
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).expect("read header") > 0, "the server closed its output");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = Some(n.parse::<usize>().expect("length"));
            }
        }
        let mut body = vec![0; length.expect("a Content-Length header")];
        self.output.read_exact(&mut body).expect("read body");
        serde_json::from_slice(&body).expect("JSON")
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request; returns its result, keeping notifications that come first.
    fn request(&mut self, method: &str, params: Value, notes: &mut Vec<Value>) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let m = self.receive();
            if m.get("id") == Some(&json!(id)) {
                assert!(m.get("error").is_none(), "{method} failed: {m}");
                return m["result"].clone();
            }
            notes.push(m);
        }
    }

    /// The next `publishDiagnostics` notification.
    fn diagnostics(&mut self, notes: &mut Vec<Value>) -> Value {
        if let Some(i) = notes.iter().position(|n| n["method"] == "textDocument/publishDiagnostics") {
            return notes.remove(i)["params"].clone();
        }
        loop {
            let m = self.receive();
            if m["method"] == "textDocument/publishDiagnostics" {
                return m["params"].clone();
            }
        }
    }
}

const URI: &str = "file:///tmp/layers.ptl";

/// Line 3 calls `layr`, which does not exist.
const BROKEN: &str = "// Two layers.\nfn layer(x: f64[n, 2], w: f64[2, 4]) -> f64[n, 4] { x @ w }\nlet x = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];\nlet h = layr(x, ones([2, 4]));\n";

#[test]
fn an_editor_session_over_stdio() {
    let mut e = Editor::start();
    let mut notes = Vec::new();
    let init = e.request("initialize", json!({ "processId": null, "rootUri": null, "capabilities": {} }), &mut notes);
    let caps = &init["capabilities"];
    for cap in ["hoverProvider", "definitionProvider", "documentSymbolProvider", "documentFormattingProvider", "completionProvider", "inlayHintProvider"] {
        assert!(!caps[cap].is_null() && caps[cap] != json!(false), "{cap} missing: {caps}");
    }
    e.notify("initialized", json!({}));

    e.notify("textDocument/didOpen", json!({ "textDocument": { "uri": URI, "languageId": "ptl", "version": 1, "text": BROKEN } }));
    let d = e.diagnostics(&mut notes);
    assert_eq!(d["uri"], URI);
    let diags = d["diagnostics"].as_array().expect("a list");
    assert_eq!(diags.len(), 1, "{d}");
    assert_eq!(diags[0]["code"], "E0003");
    // `layr` is on line 3 (0-based), columns 8..12.
    assert_eq!(diags[0]["range"], json!({ "start": { "line": 3, "character": 8 }, "end": { "line": 3, "character": 12 } }));

    let fixed = BROKEN.replace("layr(", "layer(");
    e.notify("textDocument/didChange", json!({ "textDocument": { "uri": URI, "version": 2 }, "contentChanges": [{ "text": fixed }] }));
    let d = e.diagnostics(&mut notes);
    assert_eq!(d["diagnostics"], json!([]));

    // Hover on `h`: the layer's result for 3 rows.
    let hover = e.request("textDocument/hover", json!({ "textDocument": { "uri": URI }, "position": { "line": 3, "character": 4 } }), &mut notes);
    let text = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(text.contains("f64[3, 4]"), "{hover}");
    // Hover on the call: the signature with the dims bound there.
    let hover = e.request("textDocument/hover", json!({ "textDocument": { "uri": URI }, "position": { "line": 3, "character": 10 } }), &mut notes);
    let text = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(text.contains("f64[3, 2]") && text.contains("n = 3"), "{hover}");

    // The call's definition is the function's name on line 1.
    let def = e.request("textDocument/definition", json!({ "textDocument": { "uri": URI }, "position": { "line": 3, "character": 10 } }), &mut notes);
    let loc = if def.is_array() { def[0].clone() } else { def.clone() };
    assert_eq!(loc["range"]["start"], json!({ "line": 1, "character": 3 }), "{def}");

    // Formatting keeps the comment.
    let edits = e.request("textDocument/formatting", json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 4, "insertSpaces": true } }), &mut notes);
    let new_text = edits[0]["newText"].as_str().expect("an edit");
    assert!(new_text.starts_with("// Two layers.\n"), "{new_text}");

    let shutdown = e.request("shutdown", json!(null), &mut notes);
    assert!(shutdown.is_null());
    e.notify("exit", json!(null));
    let status = e.child.wait().expect("wait");
    assert!(status.success(), "exit status {status}");
}
