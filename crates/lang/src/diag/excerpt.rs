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

/// The byte range of each line of `source`, without its newline.
pub fn line_ranges(source: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for line in source.split('\n') {
        ranges.push(start..start + line.len());
        start += line.len() + 1;
    }
    ranges
}

/// The index of the line (of `ranges`, from [`line_ranges`]) that byte `offset` is on.
pub fn line_of(ranges: &[Range<usize>], offset: usize) -> usize {
    ranges
        .partition_point(|l| l.start <= offset)
        .saturating_sub(1)
}

impl Excerpt {
    /// The excerpt of `source` (whose lines are `ranges`) for a report about `spans`, or
    /// `None` when every line from the first span's to the last span's is short enough to show
    /// whole (the report is then rendered against the source itself).
    ///
    /// Only those lines are copied: the lines before them are left empty (they keep their
    /// numbers) and the lines after them are left out, so one report costs about the size of
    /// the text it shows, however long the source is.
    pub fn of(source: &str, ranges: &[Range<usize>], spans: &[Range<usize>]) -> Option<Excerpt> {
        let first = line_of(ranges, spans.iter().map(|s| s.start).min()?);
        let last = line_of(ranges, spans.iter().map(|s| s.end).max()?);
        if ranges[first..=last].iter().all(|r| r.len() <= MAX_LINE) {
            return None;
        }
        let mut text = "\n".repeat(first);
        let mut lines = Vec::with_capacity(last + 1 - first);
        for range in ranges[first..=last].iter().cloned() {
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

    fn excerpt(source: &str, spans: &[Range<usize>]) -> Option<Excerpt> {
        Excerpt::of(source, &line_ranges(source), spans)
    }

    #[test]
    fn short_sources_are_shown_whole() {
        assert!(excerpt("let x = 1;\nprint y;\n", std::slice::from_ref(&(17..18))).is_none());
        // A long line that no report line reaches does not matter either.
        let source = format!("let x = 1;\n{}\n", "a".repeat(1000));
        assert!(excerpt(&source, std::slice::from_ref(&(4..5))).is_none());
    }

    #[test]
    fn a_long_line_is_cut_around_the_span_and_others_left_out() {
        let long = format!("{}BAD{}", "a".repeat(1000), "b".repeat(1000));
        let source = format!("first\n{long}\nlast");
        let bad = 6 + 1000..6 + 1003;
        let e = excerpt(&source, std::slice::from_ref(&bad)).expect("cut");
        let lines: Vec<&str> = e.text.split('\n').collect();
        // The line before keeps its place, empty; the line after is not needed.
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], "");
        assert!(lines[1].starts_with("...") && lines[1].ends_with("..."));
        assert_eq!(lines[1].len(), MAX_LINE + 6);
        assert_eq!(lines[1][3..43].len(), LEAD);
        assert!(lines[1][43..].starts_with("BAD"));
        assert_eq!(&e.text[e.span(&bad)], "BAD");
    }

    #[test]
    fn lines_between_the_spans_are_kept() {
        let long = format!("{}BAD{}", "a".repeat(1000), "b".repeat(1000));
        let source = format!("zero\nlet x = 1;\nmiddle\n{long}\nafter");
        let x = 9..10;
        let bad = source.find("BAD").expect("BAD")..source.find("BAD").expect("BAD") + 3;
        let e = excerpt(&source, &[bad.clone(), x.clone()]).expect("cut");
        let lines: Vec<&str> = e.text.split('\n').collect();
        assert_eq!(&lines[..3], ["", "let x = 1;", "middle"]);
        assert_eq!(lines.len(), 4);
        assert_eq!(&e.text[e.span(&x)], "x");
        assert_eq!(&e.text[e.span(&bad)], "BAD");
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
        let e = excerpt(&source, &[left.clone(), right.clone()]).expect("cut");
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
        let e = excerpt(&source, std::slice::from_ref(&mid)).expect("cut");
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

    #[test]
    fn reports_on_long_lines_late_in_a_file_keep_their_line_numbers() {
        use crate::diag::{Diagnostic, ErrorKind, render_all};
        let pad = " ".repeat(200);
        let source: String = (0..12)
            .map(|i| format!("let v{i} = oops{i};{pad}\n"))
            .collect();
        let diags: Vec<Diagnostic> = (0..12)
            .map(|i| {
                let at = source.find(&format!("oops{i};")).expect("name");
                let end = at + format!("oops{i}").len();
                Diagnostic::new(
                    ErrorKind::UnknownName,
                    at..end,
                    format!("unknown name `oops{i}`"),
                )
                .with_label(at..end, "not found in this scope")
            })
            .collect();
        let out = render_all(&diags, "late.ptl", &source, false);
        for i in 0..12 {
            assert!(
                out.contains(&format!("late.ptl:{}:{} ]", i + 1, 10 + (i >= 10) as usize)),
                "{out}"
            );
            assert!(
                out.contains(&format!(" {} │ let v{i} = oops{i};", i + 1)),
                "{out}"
            );
        }
        assert!(out.len() < 12 * 600, "{} bytes", out.len());
    }
}
