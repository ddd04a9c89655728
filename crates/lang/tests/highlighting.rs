//! The syntax-highlighting grammars name ptl's words one by one:
//! `book/theme/ptl-highlight.js` (highlight.js, for the book) and
//! `editors/ptl.tmLanguage.json` (TextMate, for editors). These tests keep their word lists
//! equal to the words the lexer reserves, the dtypes and the builtins.

use std::collections::BTreeSet;
use std::path::PathBuf;

use ptl_lang::DType;
use ptl_lang::ops::builtin_names;
use ptl_lang::syntax::lexer::KEYWORDS;
use serde_json::Value;

const JS: &str = "book/theme/ptl-highlight.js";
const TEXTMATE: &str = "editors/ptl.tmLanguage.json";

type Words = BTreeSet<String>;

/// A grammar's words, by class.
struct Lists {
    /// Keywords proper: `fn`, `let`, `loop`, ...
    keywords: Words,
    /// Literal words: `true`, `false`, `inf`, `nan`.
    literals: Words,
    dtypes: Words,
    builtins: Words,
}

fn read(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn set<'a>(words: impl IntoIterator<Item = &'a str>) -> Words {
    words.into_iter().map(str::to_string).collect()
}

fn known_keywords() -> Words {
    set(KEYWORDS)
}

fn known_dtypes() -> Words {
    set(DType::ALL.map(DType::name))
}

fn known_builtins() -> Words {
    set(builtin_names())
}

/// The words of `var NAME = [ 'a', 'b', ... ];` in the highlight.js file.
fn js_list(src: &str, name: &str) -> Words {
    let start = format!("var {name} = [");
    assert_eq!(
        src.matches(&start).count(),
        1,
        "{JS}: expected one `{start}`"
    );
    let at = src.find(&start).unwrap() + start.len();
    let len = src[at..]
        .find(']')
        .unwrap_or_else(|| panic!("{JS}: `{name}` is not closed"));
    let mut words = Words::new();
    for item in src[at..at + len].split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let word = item
            .strip_prefix('\'')
            .and_then(|s| s.strip_suffix('\''))
            .filter(|w| is_word(w))
            .unwrap_or_else(|| panic!("{JS}: `{name}` has `{item}`, not a quoted word"));
        assert!(
            words.insert(word.to_string()),
            "{JS}: `{name}` lists `{word}` twice"
        );
    }
    words
}

fn js_lists() -> Lists {
    let src = read(JS);
    Lists {
        keywords: js_list(&src, "KEYWORDS"),
        literals: js_list(&src, "LITERALS"),
        dtypes: js_list(&src, "TYPES"),
        builtins: js_list(&src, "BUILTINS"),
    }
}

fn textmate() -> Value {
    serde_json::from_str(&read(TEXTMATE)).unwrap_or_else(|e| panic!("{TEXTMATE}: {e}"))
}

/// The word alternations in a TextMate rule and the rules under it: every `match` or
/// `begin` that starts `\b(a|b|...)`.
fn alternations(rule: &Value, out: &mut Vec<Vec<String>>) {
    match rule {
        Value::Object(fields) => {
            for (key, value) in fields {
                match (key.as_str(), value) {
                    ("match" | "begin", Value::String(re)) => {
                        if let Some(rest) = re.strip_prefix(r"\b(") {
                            let group = &rest[..rest
                                .find(')')
                                .unwrap_or_else(|| panic!("{TEXTMATE}: unclosed group in `{re}`"))];
                            let words: Vec<String> = group.split('|').map(str::to_string).collect();
                            for w in &words {
                                assert!(is_word(w), "{TEXTMATE}: `{w}` in `{re}` is not a word");
                            }
                            out.push(words);
                        }
                    }
                    _ => alternations(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| alternations(v, out)),
        _ => {}
    }
}

/// Every alternation of the repository entry `key`.
fn tm_alternations(grammar: &Value, key: &str) -> Vec<Vec<String>> {
    let rule = &grammar["repository"][key];
    assert!(rule.is_object(), "{TEXTMATE}: no repository entry `{key}`");
    let mut out = Vec::new();
    alternations(rule, &mut out);
    assert!(!out.is_empty(), "{TEXTMATE}: `{key}` lists no words");
    out
}

/// The words of the repository entry `key`, each once.
fn tm_words(grammar: &Value, key: &str) -> Words {
    let mut words = Words::new();
    for alt in tm_alternations(grammar, key) {
        for w in alt {
            assert!(
                words.insert(w.clone()),
                "{TEXTMATE}: `{key}` lists `{w}` twice"
            );
        }
    }
    words
}

fn tm_lists() -> Lists {
    let grammar = textmate();
    // Both the dtype of a tensor type and a lone dtype are matched; each rule lists them all.
    let mut dtypes = Words::new();
    for alt in tm_alternations(&grammar, "dtype") {
        let alt = set(alt.iter().map(String::as_str));
        assert_eq!(
            alt,
            known_dtypes(),
            "{TEXTMATE}: a `dtype` rule does not list every dtype"
        );
        dtypes = alt;
    }
    Lists {
        keywords: tm_words(&grammar, "keyword"),
        literals: tm_words(&grammar, "constant"),
        dtypes,
        builtins: tm_words(&grammar, "builtin"),
    }
}

fn assert_same(file: &str, class: &str, listed: &Words, known: &Words) {
    let missing: Vec<&String> = known.difference(listed).collect();
    let unknown: Vec<&String> = listed.difference(known).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "{file}: the {class} are out of date; missing {missing:?}, not in ptl {unknown:?}"
    );
}

fn check(file: &str, lists: Lists) {
    let Lists {
        keywords,
        literals,
        dtypes,
        builtins,
    } = lists;
    let both: Vec<&String> = keywords.intersection(&literals).collect();
    assert!(
        both.is_empty(),
        "{file}: {both:?} listed as keywords and as literals"
    );
    let reserved: Words = keywords.union(&literals).cloned().collect();
    assert_same(
        file,
        "keywords and literal words",
        &reserved,
        &known_keywords(),
    );
    assert_same(file, "dtypes", &dtypes, &known_dtypes());
    assert_same(file, "builtins", &builtins, &known_builtins());
}

#[test]
fn highlight_js_lists_every_word() {
    check(JS, js_lists());
}

#[test]
fn textmate_grammar_lists_every_word() {
    check(TEXTMATE, tm_lists());
}

#[test]
fn no_builtin_is_a_reserved_word() {
    let reserved: Words = known_keywords().union(&known_dtypes()).cloned().collect();
    let builtins = known_builtins();
    let clash: Vec<&String> = reserved.intersection(&builtins).collect();
    assert!(
        clash.is_empty(),
        "builtins that lex as reserved words: {clash:?}"
    );
}

#[test]
fn textmate_grammar_is_well_formed() {
    let grammar = textmate();
    assert_eq!(grammar["scopeName"], "source.ptl");
    assert_eq!(grammar["fileTypes"], serde_json::json!(["ptl"]));
    let repository = grammar["repository"]
        .as_object()
        .expect("a repository of rules");

    // Every `#name` include names a rule, and every rule is used from the top level.
    fn includes(rule: &Value, out: &mut Vec<String>) {
        match rule {
            Value::Object(fields) => {
                for (key, value) in fields {
                    match (key.as_str(), value) {
                        ("include", Value::String(target)) => out.push(target.clone()),
                        _ => includes(value, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| includes(v, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    includes(&grammar, &mut all);
    for target in &all {
        let name = target
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{TEXTMATE}: include `{target}` is not a `#rule`"));
        assert!(
            repository.contains_key(name),
            "{TEXTMATE}: no rule `{name}` to include"
        );
    }
    let mut top = Vec::new();
    includes(&grammar["patterns"], &mut top);
    for name in repository.keys() {
        assert!(
            top.contains(&format!("#{name}")),
            "{TEXTMATE}: rule `{name}` is not used by the top-level patterns"
        );
    }
}

#[test]
fn the_book_loads_the_highlighter() {
    let src = read(JS);
    assert!(
        src.contains("hljs.registerLanguage('ptl'"),
        "{JS}: ptl is not registered"
    );
    assert!(
        src.contains("code.language-ptl"),
        "{JS}: ptl blocks are not highlighted"
    );
    let book = read("book/book.toml");
    let html = book
        .split("\n[")
        .find(|table| table.starts_with("output.html]"))
        .expect("book.toml has an [output.html] table");
    assert!(
        html.lines()
            .any(|l| l.starts_with("additional-js") && l.contains("\"theme/ptl-highlight.js\"")),
        "book.toml does not load theme/ptl-highlight.js under [output.html]"
    );
}
