//! A window onto very long lines, so that a report about one place on a 200,000-character
//! line shows that place and not the whole line.
//!
//! The report is rendered against an excerpt of the source: every line keeps its number, and
//! a line longer than `MAX_LINE` bytes is cut to about `MAX_LINE` bytes around the spans on
//! it, with `...` where text was left out. Spans are moved onto the excerpt.

use std::ops::Range;

/// Lines up to this many bytes are shown whole.
pub const MAX_LINE: usize = 120;
/// How much of a cut line is shown before the first span on it.
const LEAD: usize = 40;
const ELLIPSIS: &str = "...";

/// One line of the source and the part of it the excerpt keeps.
struct Line {
    /// The line's bytes in the source, without its newline.
    range: Range<usize>,
    /// The bytes kept (all of `range` unless the line is long).
    kept: Range<usize>,
    /// Where the kept text starts in the excerpt.
    at: usize,
}

pub struct Excerpt {
    pub text: String,
    lines: Vec<Line>,
}

impl Excerpt {
    /// The excerpt of `source` for a report about `spans`, or `None` when every line is short
    /// enough to show whole (the report is then rendered against the source itself).
    pub fn of(source: &str, spans: &[Range<usize>]) -> Option<Excerpt> {
        let mut ranges = Vec::new();
        let mut start = 0;
        for line in source.split('\n') {
            ranges.push(start..start + line.len());
            start += line.len() + 1;
        }
        if ranges.iter().all(|r| r.len() <= MAX_LINE) {
            return None;
        }
        let mut text = String::new();
        let mut lines = Vec::with_capacity(ranges.len());
        for range in ranges {
            if !lines.is_empty() {
                text.push('\n');
            }
            let kept = window(source, &range, spans);
            if kept.start > range.start {
                text.push_str(ELLIPSIS);
            }
            let at = text.len();
            text.push_str(&source[kept.clone()]);
            if kept.end < range.end {
                text.push_str(ELLIPSIS);
            }
            lines.push(Line { range, kept, at });
        }
        Some(Excerpt { text, lines })
    }

    /// Where source offset `offset` is in the excerpt; offsets in text left out move to the
    /// nearest kept byte.
    pub fn offset(&self, offset: usize) -> usize {
        let i = self
            .lines
            .partition_point(|l| l.range.start <= offset)
            .saturating_sub(1);
        let line = &self.lines[i];
        line.at + offset.clamp(line.kept.start, line.kept.end) - line.kept.start
    }

    pub fn span(&self, span: &Range<usize>) -> Range<usize> {
        self.offset(span.start)..self.offset(span.end)
    }
}

/// The bytes of `line` to show: all of it when short, else about `MAX_LINE` bytes starting a
/// little before the first span that starts or ends on it.
fn window(source: &str, line: &Range<usize>, spans: &[Range<usize>]) -> Range<usize> {
    if line.len() <= MAX_LINE {
        return line.clone();
    }
    let first = spans
        .iter()
        .flat_map(|s| [s.start, s.end])
        .filter(|o| line.contains(o) || *o == line.end)
        .min()
        .unwrap_or(line.start);
    let start = floor_char(source, first.saturating_sub(LEAD).max(line.start));
    let end = ceil_char(source, (start + MAX_LINE).min(line.end));
    start..end
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_sources_are_shown_whole() {
        assert!(Excerpt::of("let x = 1;\nprint y;\n", std::slice::from_ref(&(17..18))).is_none());
    }

    #[test]
    fn a_long_line_is_cut_around_the_span_and_others_kept() {
        let long = format!("{}BAD{}", "a".repeat(1000), "b".repeat(1000));
        let source = format!("first\n{long}\nlast");
        let bad = 6 + 1000..6 + 1003;
        let e = Excerpt::of(&source, std::slice::from_ref(&bad)).expect("cut");
        let lines: Vec<&str> = e.text.split('\n').collect();
        assert_eq!(lines.len(), 3);
        assert_eq!((lines[0], lines[2]), ("first", "last"));
        assert!(lines[1].starts_with("...") && lines[1].ends_with("..."));
        assert_eq!(lines[1].len(), MAX_LINE + 6);
        assert_eq!(&e.text[e.span(&bad)], "BAD");
        assert_eq!(&e.text[e.span(&(source.len() - 4..source.len()))], "last");
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        let source = "é".repeat(500);
        let mid = 500..502;
        let e = Excerpt::of(&source, std::slice::from_ref(&mid)).expect("cut");
        assert_eq!(&e.text[e.span(&mid)], "é");
    }

    #[test]
    fn a_report_on_a_200_000_character_line_is_short() {
        use crate::diag::{Diagnostic, ErrorKind};
        let source = format!(
            "let x = {}oops{};\n",
            "1 + ".repeat(25_000),
            " + 1".repeat(25_000)
        );
        let at = source.find("oops").expect("name");
        let d = Diagnostic::new(ErrorKind::UnknownName, at..at + 4, "unknown name `oops`")
            .with_label(at..at + 4, "not found in this scope");
        let out = d.render("long.ptl", &source, false);
        assert!(out.len() < 2_000, "{} bytes", out.len());
        assert!(
            out.contains("oops") && out.contains("not found in this scope"),
            "{out}"
        );
        assert!(out.contains(&format!("long.ptl:1:{} ]", at + 1)), "{out}");
    }
}
