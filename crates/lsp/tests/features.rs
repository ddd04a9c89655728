//! The features, driven as an editor drives them. Expected types and positions are worked
//! out by hand from the program text.

mod common;

use common::{Client, find, hover_text, position, range_in, range_of};
use serde_json::{Value, json};

const URI: &str = "file:///work/model.ptl";

/// A sample program; `outt` on the last line is a typo for `out`.
const BROKEN: &str = "\
// A layer and a total over a batch of any size `n` (é, €, 𝛼 are fine in comments).
fn layer(x: f64[n, 2], w: f64[2, 4]) -> f64[n, 4] {
    let h = x @ w;
    maximum(h, 0.0)
}

fn total(y: f64[n, 4]) -> f64 {
    sum(y)
}

let a = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
let w = [[0.5, -1.0, 0.0, 2.0], [1.0, 1.0, 1.0, 1.0]];
let out = layer(a, w); // three rows of four
print total(outt);
";

fn fixed() -> String {
    BROKEN.replace("total(outt)", "total(out)")
}

fn open_fixed() -> (Client, String) {
    let mut c = Client::start();
    let text = fixed();
    assert_eq!(c.open(URI, &text), Vec::<Value>::new());
    (c, text)
}

fn hover(c: &mut Client, at: (u32, u32)) -> String {
    hover_text(&c.at("textDocument/hover", URI, at))
}

#[test]
fn diagnostics_follow_the_text() {
    let mut c = Client::start();
    let diags = c.open(URI, BROKEN);
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["code"], json!("E0003"));
    assert_eq!(d["source"], json!("ptl"));
    assert_eq!(d["severity"], json!(1));
    assert_eq!(d["range"], range_of(BROKEN, "outt", 0));
    // Line 13, after `print total(`.
    assert_eq!(d["range"]["start"], json!({ "line": 13, "character": 12 }));
    let message = d["message"].as_str().unwrap();
    assert!(message.starts_with("unknown name `outt`"), "{message}");
    assert!(message.contains("did you mean `out`?"), "{message}");

    // Fixing the typo clears them.
    assert_eq!(c.change(URI, 2, &fixed()), Vec::<Value>::new());
    // And breaking it again brings them back.
    assert_eq!(c.change(URI, 3, BROKEN).len(), 1);
    c.shutdown();
}

#[test]
fn diagnostic_ranges_count_utf16_units() {
    let mut c = Client::start();
    // `ü` and `ï` are not ptl; each is 2 bytes but 1 UTF-16 unit.
    let text = "let a = [1.0, 2.0];\nlet b = a + ünï + c;\nprint b;\n";
    let diags = c.open(URI, text);
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["E0001", "E0003", "E0001", "E0003"], "{diags:?}");
    // `ü` starts at column 12 of line 1; `c` at column 18 (its byte column is 20).
    assert_eq!(diags[0]["range"], json!({ "start": { "line": 1, "character": 12 }, "end": { "line": 1, "character": 13 } }));
    assert_eq!(diags[3]["range"], json!({ "start": { "line": 1, "character": 18 }, "end": { "line": 1, "character": 19 } }));
    assert!(diags[3]["message"].as_str().unwrap().contains("unknown name `c`"));
    c.shutdown();
}

#[test]
fn syntax_and_check_errors_are_reported_together() {
    let mut c = Client::start();
    let text = "fn f(x: f64) -> f64 { x + y }\nlet a = 1.0 +;\n";
    let diags = c.open(URI, text);
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["E0003", "E0002"], "{diags:?}");
    assert_eq!(diags[0]["range"], range_in(text, "x + y", 0, 4, 1));
    assert_eq!(diags[1]["range"]["start"]["line"], json!(1));
    c.shutdown();
}

#[test]
fn labels_become_related_information() {
    let mut c = Client::start();
    let text = "fn f(x: f64[n], y: f64[n]) -> f64[n] { x + y }\nprint f([1.0, 2.0], [1.0, 2.0, 3.0]);\n";
    let diags = c.open(URI, text);
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["code"], json!("E0006"));
    assert_eq!(d["range"], range_of(text, "[1.0, 2.0, 3.0]", 0));
    let related = d["relatedInformation"].as_array().expect("related information");
    assert_eq!(related.len(), 1, "{related:?}");
    assert_eq!(related[0]["location"]["uri"], json!(URI));
    assert_eq!(related[0]["location"]["range"], range_of(text, "[1.0, 2.0]", 0));
    assert!(related[0]["message"].as_str().unwrap().contains("`n` is `2`"));
    // The note follows the message.
    assert!(d["message"].as_str().unwrap().contains("\nnote: "), "{}", d["message"]);
    c.shutdown();
}

#[test]
fn hover_shows_types_with_dims() {
    let (mut c, text) = open_fixed();
    // Top-level lets: three rows of two; two rows of four; the product three rows of four.
    assert!(hover(&mut c, find(&text, "let a", 0, 4)).contains("a: f64[3, 2]"));
    assert!(hover(&mut c, find(&text, "let w", 0, 4)).contains("w: f64[2, 4]"));
    assert!(hover(&mut c, find(&text, "let out", 0, 5)).contains("out: f64[3, 4]"));
    // A let in a function keeps the signature's dimension names.
    assert!(hover(&mut c, find(&text, "let h", 0, 4)).contains("h: f64[n, 4]"));
    // A parameter: its declared type.
    assert!(hover(&mut c, find(&text, "x: f64", 0, 0)).contains("x: f64[n, 2]"));
    // A use of a name.
    assert!(hover(&mut c, find(&text, "layer(a, w)", 0, 6)).contains("a: f64[3, 2]"));
    assert!(hover(&mut c, find(&text, "maximum(h", 0, 8)).contains("h: f64[n, 4]"));
    // An expression: `x @ w` is n rows of four.
    let v = c.at("textDocument/hover", URI, find(&text, "@", 0, 0));
    assert_eq!(hover_text(&v), "```ptl\nf64[n, 4]\n```");
    assert_eq!(v["range"], range_of(&text, "x @ w", 0));
    // A function name where it is defined: the signature.
    assert!(hover(&mut c, find(&text, "fn layer", 0, 4)).contains("fn layer(x: f64[n, 2], w: f64[2, 4]) -> f64[n, 4]"));
    assert!(hover(&mut c, find(&text, "fn total", 0, 5)).contains("fn total(y: f64[n, 4]) -> f64"));
    // Nothing typed at a comment.
    assert_eq!(c.at("textDocument/hover", URI, (0, 3)), Value::Null);
    c.shutdown();
}

#[test]
fn hover_on_a_call_shows_the_instantiated_signature() {
    let (mut c, text) = open_fixed();
    let h = hover(&mut c, find(&text, "layer(a, w)", 0, 2));
    assert!(h.contains("layer: (f64[3, 2], f64[2, 4]) -> f64[3, 4]"), "{h}");
    assert!(h.contains("n = 3"), "{h}");
    assert!(h.contains("fn layer(x: f64[n, 2], w: f64[2, 4]) -> f64[n, 4]"), "{h}");
    let h = hover(&mut c, find(&text, "total(out)", 0, 0));
    assert!(h.contains("total: f64[3, 4] -> f64"), "{h}");
    assert!(h.contains("n = 3"), "{h}");
    // A builtin: its signature from the op table, and the type it gives here.
    let h = hover(&mut c, find(&text, "sum(y)", 0, 1));
    assert!(h.contains("sum(x), sum(x, axes)"), "{h}");
    assert!(h.contains("`f64`"), "{h}");
    let h = hover(&mut c, find(&text, "maximum", 0, 0));
    assert!(h.contains("maximum(a, b)"), "{h}");
    assert!(h.contains("`f64[n, 4]`"), "{h}");
    c.shutdown();
}

#[test]
fn hover_works_while_another_part_has_errors() {
    let mut c = Client::start();
    let text = BROKEN.replace("maximum(h, 0.0)", "maximum(h, zz)");
    let diags = c.open(URI, &text);
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["E0003", "E0003"], "{diags:?}");
    // `h` checked before the error in the same function; `out` at top level.
    assert!(hover(&mut c, find(&text, "let h", 0, 4)).contains("h: f64[n, 4]"));
    assert!(hover(&mut c, find(&text, "let a", 0, 4)).contains("a: f64[3, 2]"));
    assert!(hover(&mut c, find(&text, "fn total", 0, 5)).contains("fn total(y: f64[n, 4]) -> f64"));
    c.shutdown();
}

#[test]
fn go_to_definition() {
    let (mut c, text) = open_fixed();
    let def = |c: &mut Client, at| c.at("textDocument/definition", URI, at);
    // A call goes to the function's name.
    let loc = def(&mut c, find(&text, "layer(a, w)", 0, 3));
    assert_eq!(loc["uri"], json!(URI));
    assert_eq!(loc["range"], range_in(&text, "fn layer", 0, 3, 5));
    assert_eq!(def(&mut c, find(&text, "total(out)", 0, 0))["range"], range_in(&text, "fn total", 0, 3, 5));
    // Values go to their bindings.
    assert_eq!(def(&mut c, find(&text, "total(out)", 0, 6))["range"], range_in(&text, "let out", 0, 4, 3));
    assert_eq!(def(&mut c, find(&text, "maximum(h", 0, 8))["range"], range_in(&text, "let h", 0, 4, 1));
    assert_eq!(def(&mut c, find(&text, "x @ w", 0, 0))["range"], range_in(&text, "x: f64", 0, 0, 1));
    // `w` in the function is the parameter, at top level the `let`.
    assert_eq!(def(&mut c, find(&text, "x @ w", 0, 4))["range"], range_in(&text, "w: f64", 0, 0, 1));
    assert_eq!(def(&mut c, find(&text, "layer(a, w)", 0, 9))["range"], range_in(&text, "let w", 0, 4, 1));
    // Builtins have no definition in the source.
    assert_eq!(def(&mut c, find(&text, "sum(y)", 0, 0)), Value::Null);
    c.shutdown();
}

#[test]
fn loop_state_and_counter() {
    let mut c = Client::start();
    let text = "\
fn halve_all(x: f64[n], k: i64) -> f64[n] {
    loop y = x for i in 0..k { y / 2.0 + cast(i, f64) }
}

print halve_all([8.0, 4.0], 3);
";
    assert_eq!(c.open(URI, text), Vec::<Value>::new());
    let state = find(text, "y / 2.0", 0, 0);
    assert_eq!(c.at("textDocument/definition", URI, state)["range"], range_in(text, "loop y", 0, 5, 1));
    let counter = find(text, "cast(i", 0, 5);
    assert_eq!(c.at("textDocument/definition", URI, counter)["range"], range_in(text, "for i", 0, 4, 1));
    assert!(hover(&mut c, state).contains("y: f64[n]"));
    assert!(hover(&mut c, find(text, "loop y", 0, 5)).contains("y: f64[n]"));
    assert!(hover(&mut c, counter).contains("i: i64"));
    // The call binds `n` to 2.
    let h = hover(&mut c, find(text, "halve_all([", 0, 0));
    assert!(h.contains("halve_all: (f64[2], i64) -> f64[2]"), "{h}");
    assert!(h.contains("n = 2"), "{h}");
    c.shutdown();
}

#[test]
fn document_symbols() {
    let (mut c, text) = open_fixed();
    let syms = c.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": URI } }));
    let syms = syms.as_array().unwrap();
    let summary: Vec<(&str, u64, &str)> = syms
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["kind"].as_u64().unwrap(), s["detail"].as_str().unwrap_or("")))
        .collect();
    // Kinds: 12 = Function, 13 = Variable.
    assert_eq!(
        summary,
        [
            ("layer", 12, "fn layer(x: f64[n, 2], w: f64[2, 4]) -> f64[n, 4]"),
            ("total", 12, "fn total(y: f64[n, 4]) -> f64"),
            ("a", 13, "f64[3, 2]"),
            ("w", 13, "f64[2, 4]"),
            ("out", 13, "f64[3, 4]"),
        ]
    );
    assert_eq!(syms[0]["selectionRange"], range_in(&text, "fn layer", 0, 3, 5));
    assert_eq!(syms[0]["range"]["start"], json!({ "line": 1, "character": 0 }));
    assert_eq!(syms[0]["range"]["end"], json!({ "line": 4, "character": 1 }));
    assert_eq!(syms[4]["selectionRange"], range_in(&text, "let out", 0, 4, 3));
    c.shutdown();
}

#[test]
fn formatting_keeps_comments() {
    let mut c = Client::start();
    let text = "// head\nlet   a=[1.0,2.0]; // tail\nprint a;";
    assert_eq!(c.open(URI, text), Vec::<Value>::new());
    let params = json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 4, "insertSpaces": true } });
    let edits = c.request("textDocument/formatting", params.clone());
    let edits = edits.as_array().unwrap();
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["newText"], json!("// head\nlet a = [1.0, 2.0]; // tail\nprint a;\n"));
    assert_eq!(edits[0]["range"], json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 2, "character": 8 } }));

    // Formatted text needs no edit.
    c.change(URI, 2, "// head\nlet a = [1.0, 2.0]; // tail\nprint a;\n");
    assert_eq!(c.request("textDocument/formatting", params.clone()), json!([]));

    // Text that does not parse is left alone.
    let diags = c.change(URI, 3, "let a = [1.0, 2.0;\n");
    assert!(!diags.is_empty());
    assert_eq!(c.request("textDocument/formatting", params), Value::Null);
    c.shutdown();
}

#[test]
fn completion_offers_names_in_scope() {
    let (mut c, text) = open_fixed();
    let labels = |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap().to_string()).collect() };
    // Inside `layer`, after `let h`: its parameters and `h`, no top-level lets.
    let v = c.at("textDocument/completion", URI, find(&text, "maximum(h", 0, 0));
    let inside = labels(&v);
    for want in ["sum", "maximum", "layer", "total", "x", "w", "h", "n", "let", "loop", "f64"] {
        assert!(inside.iter().any(|l| l == want), "missing {want} in {inside:?}");
    }
    for unwanted in ["a", "out", "y"] {
        assert!(!inside.iter().any(|l| l == unwanted), "{unwanted} is not in scope: {inside:?}");
    }
    let item = |v: &Value, label: &str| v.as_array().unwrap().iter().find(|i| i["label"] == label).cloned().unwrap();
    assert_eq!(item(&v, "sum")["detail"], json!("sum(x), sum(x, axes)"));
    assert_eq!(item(&v, "layer")["detail"], json!("fn layer(x: f64[n, 2], w: f64[2, 4]) -> f64[n, 4]"));
    assert_eq!(item(&v, "h")["detail"], json!("f64[n, 4]"));
    assert_eq!(item(&v, "x")["detail"], json!("f64[n, 2]"));
    // Before `let h` in the same body, `h` is not yet bound.
    let before = labels(&c.at("textDocument/completion", URI, find(&text, "let h", 0, 0)));
    assert!(!before.iter().any(|l| l == "h"), "{before:?}");
    // At the end, the top-level lets (and not the function's names).
    let end = position(&text, text.len());
    let v = c.at("textDocument/completion", URI, end);
    let top = labels(&v);
    for want in ["a", "w", "out", "layer", "total", "sum", "print"] {
        assert!(top.iter().any(|l| l == want), "missing {want} in {top:?}");
    }
    for unwanted in ["x", "h", "y", "n"] {
        assert!(!top.iter().any(|l| l == unwanted), "{unwanted} is not in scope: {top:?}");
    }
    assert_eq!(item(&v, "out")["detail"], json!("f64[3, 4]"));
    c.shutdown();
}

#[test]
fn inlay_hints_show_let_types() {
    let (mut c, text) = open_fixed();
    let end = position(&text, text.len());
    let range = json!({ "start": { "line": 0, "character": 0 }, "end": { "line": end.0, "character": end.1 } });
    let hints = c.request("textDocument/inlayHint", json!({ "textDocument": { "uri": URI }, "range": range }));
    let got: Vec<(Value, &str)> = hints.as_array().unwrap().iter().map(|h| (h["position"].clone(), h["label"].as_str().unwrap())).collect();
    let after = |needle: &str, delta: usize| {
        let (line, character) = find(&text, needle, 0, delta);
        json!({ "line": line, "character": character })
    };
    assert_eq!(
        got,
        [
            (after("let h", 5), ": f64[n, 4]"),
            (after("let a", 5), ": f64[3, 2]"),
            (after("let w", 5), ": f64[2, 4]"),
            (after("let out", 7), ": f64[3, 4]"),
        ]
    );
    // Only hints in the requested range.
    let lines = json!({ "start": { "line": 10, "character": 0 }, "end": { "line": 11, "character": 0 } });
    let hints = c.request("textDocument/inlayHint", json!({ "textDocument": { "uri": URI }, "range": lines }));
    let labels: Vec<&str> = hints.as_array().unwrap().iter().map(|h| h["label"].as_str().unwrap()).collect();
    assert_eq!(labels, [": f64[3, 2]"]);
    c.shutdown();
}

#[test]
fn destructuring_lets_and_grad() {
    let mut c = Client::start();
    let text = "\
fn loss(w: f64[k], b: f64, x: f64[n, k], y: f64[n]) -> f64 {
    let z = x @ w + b;
    mean(softplus(z) - y * z)
}

fn train(x: f64[n, k], y: f64[n], rate: f64, steps: i64) -> (f64[k], f64) {
    loop (w, b) = (broadcast(0.0, [k]), 0.0) for s in 0..steps {
        let (gw, gb) = grad(loss, (w, b))(w, b, x, y);
        (w - rate * gw, b - rate * gb)
    }
}

let i = cast(arange(400), f64);
let x = stack([sin(i), cos(i)], 1);
let y = cast(sin(3.0 * i) > 0.0, f64);
let (w, b) = train(x, y, 0.5, 300);
print w;
";
    assert_eq!(c.open(URI, text), Vec::<Value>::new());
    // Inside `train`: the gradient has the parameters' types.
    assert!(hover(&mut c, find(text, "(gw", 0, 1)).contains("gw: f64[k]"));
    assert!(hover(&mut c, find(text, "gb)", 0, 0)).contains("gb: f64"));
    // The loop state, from its initial value.
    assert!(hover(&mut c, find(text, "loop (w", 0, 6)).contains("w: f64[k]"));
    // At top level: 400 rows of two features, and the trained weights.
    assert!(hover(&mut c, find(text, "let x", 0, 4)).contains("x: f64[400, 2]"));
    assert!(hover(&mut c, find(text, "let (w", 0, 5)).contains("w: f64[2]"));
    let h = hover(&mut c, find(text, "let (w, b)", 0, 8));
    assert!(h.contains("b: f64") && !h.contains("b: f64["), "{h}");
    let h = hover(&mut c, find(text, "train(x", 1, 0));
    assert!(h.contains("train: (f64[400, 2], f64[400], f64, i64) -> (f64[2], f64)"), "{h}");
    assert!(h.contains("`n = 400`, `k = 2`"), "{h}");
    // `loss` in `grad(loss, ...)` goes to the function, and `w` there to its parameter.
    let loc = c.at("textDocument/definition", URI, find(text, "loss,", 0, 0));
    assert_eq!(loc["range"], range_in(text, "fn loss", 0, 3, 4));
    let loc = c.at("textDocument/definition", URI, find(text, "(w, b))", 0, 1));
    assert_eq!(loc["range"], range_in(text, "w: f64[k], b", 0, 0, 1));
    c.shutdown();
}
