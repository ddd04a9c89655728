//! The comments of a source, for the formatter: the syntax tree has none, so
//! [`super::pretty::print_program_with_comments`] places them back by position.
//!
//! ptl has no string literals, so `//` always starts a comment that runs to the end of its
//! line. A comment alone on its line is an *own-line* comment, printed on its own line
//! before the statement that follows it; a comment after code is a *trailing* comment, kept
//! at the end of the line where its statement ends. A comment inside a statement that spans
//! several lines (the printer writes each statement on one line) moves to just before it.

/// One `//` comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// Byte offset of the `//`.
    pub start: usize,
    /// The comment from `//` on, without trailing whitespace.
    pub text: String,
    /// Whether only whitespace precedes it on its line.
    pub own_line: bool,
    /// Its line (0-based).
    pub line: usize,
    /// Whether a blank line follows it in the source.
    pub blank_after: bool,
}

/// Every comment of `src`, in order.
pub fn comments(src: &str) -> Vec<Comment> {
    let lines: Vec<&str> = src.split('\n').collect();
    let mut out = Vec::new();
    let mut offset = 0;
    for (line, text) in lines.iter().enumerate() {
        if let Some(col) = text.find("//") {
            let blank_after = lines.get(line + 1).is_some_and(|l| l.trim().is_empty()) && line + 2 < lines.len();
            out.push(Comment {
                start: offset + col,
                text: text[col..].trim_end().to_string(),
                own_line: text[..col].trim().is_empty(),
                line,
                blank_after,
            });
        }
        offset += text.len() + 1;
    }
    out
}

/// The 0-based line of byte offset `pos` of `src`.
pub fn line_of(src: &str, pos: usize) -> usize {
    src.as_bytes()[..pos.min(src.len())].iter().filter(|&&b| b == b'\n').count()
}

/// The comments not yet printed, consumed in source order.
pub struct Pending<'a> {
    src: &'a str,
    comments: Vec<Comment>,
    next: usize,
}

impl<'a> Pending<'a> {
    pub fn new(src: &'a str) -> Self {
        Pending { src, comments: comments(src), next: 0 }
    }

    /// No comments: printing a tree that has no source.
    pub fn none() -> Self {
        Pending { src: "", comments: Vec::new(), next: 0 }
    }

    /// Own-line comments (and those inside the statement about to be printed) that start
    /// before `until`, each on its own line at `indent`.
    pub fn before(&mut self, out: &mut String, until: usize, indent: &str) {
        while let Some(c) = self.comments.get(self.next).filter(|c| c.start < until) {
            out.push_str(indent);
            out.push_str(&c.text);
            out.push('\n');
            if c.blank_after {
                out.push('\n');
            }
            self.next += 1;
        }
    }

    /// The comment after code on the line where a statement ending at `end` ends, if any,
    /// as ` // ...` to append to that line.
    pub fn trailing(&mut self, end: usize) -> Option<String> {
        let line = line_of(self.src, end.saturating_sub(1));
        let c = self.comments.get(self.next).filter(|c| !c.own_line && c.start >= end.saturating_sub(1) && c.line == line)?;
        let text = format!(" {}", c.text);
        self.next += 1;
        Some(text)
    }

    /// Whether every comment has been printed.
    pub fn is_empty(&self) -> bool {
        self.next >= self.comments.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_line_and_trailing_comments_are_told_apart() {
        let src = "// head\n\nlet x = 1; // tail\n    // indented\n";
        let c = comments(src);
        assert_eq!(c.len(), 3);
        assert!(c[0].own_line && c[0].blank_after && c[0].line == 0);
        assert!(!c[1].own_line && c[1].text == "// tail" && c[1].line == 2);
        assert!(c[2].own_line && c[2].text == "// indented");
        assert_eq!(&src[c[1].start..c[1].start + 2], "//");
    }
}
