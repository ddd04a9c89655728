//! A window onto very long lines, so that a report about one place on a 200,000-character
//! line shows that place and not the whole line.
//!
//! The report is rendered against an excerpt of the source: every line keeps its number, and
//! a line longer than `MAX_LINE` bytes keeps only about `MAX_LINE` bytes around each group of
//! span ends on it, with `...` where text was left out. Spans are moved onto the excerpt.

use std::ops::Range;

/// Lines up to this many bytes are shown whole.
pub const MAX_LINE: usize = 120;
/// How much of a cut line is shown before the first span end of a group.
const LEAD: usize = 40;
/// Span ends closer than this on one line share a window.
const GROUP: usize = MAX_LINE / 2;
const ELLIPSIS: &str = "...";

/// A run of source bytes the excerpt keeps, and where it starts in the excerpt.
struct Kept {
    bytes: Range<usize>,
    at: usize,
}

/// One line of the source (without its newline) and the runs of it the excerpt keeps, in
/// order; a short line is kept whole.
struct Line {
    range: Range<usize>,
    kept: Vec<Kept>,
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
            let mut kept = Vec::new();
            let mut shown_to = range.start;
            for bytes in windows(source, &range, spans) {
                if bytes.start > shown_to {
                    text.push_str(ELLIPSIS);
                }
                shown_to = bytes.end;
                kept.push(Kept {
                    at: text.len(),
                    bytes: bytes.clone(),
                });
                text.push_str(&source[bytes]);
            }
            if shown_to < range.end {
                text.push_str(ELLIPSIS);
            }
            lines.push(Line { range, kept });
        }
        Some(Excerpt { text, lines })
    }

    /// Where source offset `offset` is in the excerpt; an offset in text left out moves to the
    /// end of the kept run before it (or the start of the first).
    pub fn offset(&self, offset: usize) -> usize {
        let line = &self.lines[self
            .lines
            .partition_point(|l| l.range.start <= offset)
            .saturating_sub(1)];
        let run = &line.kept[line
            .kept
            .partition_point(|k| k.bytes.start <= offset)
            .saturating_sub(1)];
        run.at + offset.clamp(run.bytes.start, run.bytes.end) - run.bytes.start
    }

    pub fn span(&self, span: &Range<usize>) -> Range<usize> {
        self.offset(span.start)..self.offset(span.end)
    }
}

/// The runs of `line` to show, in order and disjoint: all of it when short; else, for each
/// group of span ends on it, from a little before the group to a little after, at least
/// `MAX_LINE` bytes in all when there is one group (the line's start when there is none).
fn windows(source: &str, line: &Range<usize>, spans: &[Range<usize>]) -> Vec<Range<usize>> {
    if line.len() <= MAX_LINE {
        return vec![line.clone()];
    }
    let mut ends: Vec<usize> = spans
        .iter()
        .flat_map(|s| [s.start, s.end])
        .filter(|o| line.contains(o) || *o == line.end)
        .collect();
    if ends.is_empty() {
        ends.push(line.start);
    }
    ends.sort_unstable();
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for e in ends {
        match groups.last_mut() {
            Some((_, last)) if e - *last <= GROUP => *last = e,
            _ => groups.push((e, e)),
        }
    }
    let width = MAX_LINE / groups.len();
    let mut runs: Vec<Range<usize>> = Vec::new();
    for (first, last) in groups {
        let start = floor_char(source, first.saturating_sub(LEAD).max(line.start));
        let end = (last + LEAD).max(start + width).min(line.end);
        let end = ceil_char(source, end);
        match runs.last_mut() {
            Some(prev) if start <= prev.end => prev.end = prev.end.max(end),
            _ => runs.push(start..end),
        }
    }
    runs
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
        assert_eq!(lines[1][3..43].len(), LEAD);
        assert!(lines[1][43..].starts_with("BAD"));
        assert_eq!(&e.text[e.span(&bad)], "BAD");
        assert_eq!(&e.text[e.span(&(source.len() - 4..source.len()))], "last");
    }

    #[test]
    fn spans_far_apart_on_one_line_each_get_a_window() {
        let source = format!(
            "{}LEFT{}RIGHT{}",
            "a".repeat(500),
            "b".repeat(5000),
            "c".repeat(500)
        );
        let left = 500..504;
        let right = 5504..5509;
        let e = Excerpt::of(&source, &[left.clone(), right.clone()]).expect("cut");
        assert_eq!(&e.text[e.span(&left)], "LEFT");
        assert_eq!(&e.text[e.span(&right)], "RIGHT");
        assert_eq!(e.text.matches("...").count(), 3, "{}", e.text);
        assert!(e.text.len() < 2 * MAX_LINE, "{}", e.text);
        // A span across the left-out text covers the `...` between its ends.
        let across = e.span(&(left.start..right.end));
        let shown = &e.text[across];
        assert!(
            shown.starts_with("LEFT") && shown.ends_with("RIGHT"),
            "{shown}"
        );
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
