//! Names for parameters and `let`s: valid ptl identifiers, unique in the function, never a
//! keyword, a dtype or a builtin.

use std::collections::HashSet;

use ptl_lang::syntax::lexer::{Token, lex};

/// Whether `name` can name a value: it lexes as one identifier (not a keyword or a dtype)
/// and is no builtin of the op table.
fn usable(name: &str) -> bool {
    let lexed = lex(name);
    matches!(lexed.tokens.as_slice(), [(Token::Ident(n), _)] if *n == name)
        && lexed.diagnostics.is_empty()
        && !ptl_lang::ops::builtin_names().contains(&name)
}

/// `name` with every character ptl does not allow replaced, and a prefix where it would be
/// taken for something else.
pub fn sanitize(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if !usable(&s) {
        s.insert_str(0, "v_");
    }
    s
}

#[derive(Default)]
pub struct Names {
    taken: HashSet<String>,
    next: usize,
}

impl Names {
    /// A name like `base`, unique so far.
    pub fn fresh(&mut self, base: &str) -> String {
        let base = sanitize(base);
        if self.taken.insert(base.clone()) {
            return base;
        }
        loop {
            self.next += 1;
            let n = format!("{base}_{}", self.next);
            if self.taken.insert(n.clone()) {
                return n;
            }
        }
    }

    /// A new temporary, `t1`, `t2`, ...
    pub fn temp(&mut self) -> String {
        loop {
            self.next += 1;
            let n = format!("t{}", self.next);
            if self.taken.insert(n.clone()) {
                return n;
            }
        }
    }
}
