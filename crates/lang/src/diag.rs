//! Diagnostics shared by every frontend stage, rendered with ariadne.

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};

use crate::span::Span;

mod excerpt;

use excerpt::Excerpt;

/// What kind of mistake a diagnostic reports. Each kind has a stable code (`E0001`...) that the
/// book's error index documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The lexer met a character or literal it cannot read.
    Lex,
    /// The parser expected something else.
    Syntax,
    /// A name that is not bound.
    UnknownName,
    /// A call with the wrong number of arguments.
    Arity,
    /// Operand ranks that cannot work together.
    Rank,
    /// Dims that cannot be equal (`2` vs `3`, or a symbolic dim bound twice differently).
    Shape,
    /// A dtype that is not allowed here (e.g. narrowing f64 to f32, a float condition).
    DType,
    /// An argument that must be a literal (an axis, a dtype, a shape) is not, or is out of range.
    BadArgument,
    /// A declared type that does not match the inferred one.
    Mismatch,
    /// A name defined twice where that is not allowed (functions, parameters).
    Duplicate,
    /// A check the program could only make when it ran failed (a `?` dim that did not match).
    Runtime,
    /// `grad` of a function that cannot be differentiated with respect to the named
    /// parameter (an integer parameter, a non-scalar result, an op with no derivative).
    Gradient,
}

impl ErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Lex => "E0001",
            ErrorKind::Syntax => "E0002",
            ErrorKind::UnknownName => "E0003",
            ErrorKind::Arity => "E0004",
            ErrorKind::Rank => "E0005",
            ErrorKind::Shape => "E0006",
            ErrorKind::DType => "E0007",
            ErrorKind::BadArgument => "E0008",
            ErrorKind::Mismatch => "E0009",
            ErrorKind::Duplicate => "E0010",
            ErrorKind::Runtime => "E0011",
            ErrorKind::Gradient => "E0012",
        }
    }
}

/// One error, with the spans it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub kind: ErrorKind,
    pub message: String,
    /// The primary span: where the error is reported.
    pub span: Span,
    /// Labelled spans; the first is usually the primary span.
    pub labels: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(kind: ErrorKind, span: Span, message: impl Into<String>) -> Self {
        Diagnostic { kind, message: message.into(), span, labels: Vec::new(), notes: Vec::new() }
    }

    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push((span, text.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Renders the report against `source`, named `file` in the output. Very long lines are
    /// shown as a window around the spans on them (see `excerpt`).
    pub fn render(&self, file: &str, source: &str, color: bool) -> String {
        self.render_in(file, &Indexed::new(source), color)
    }

    /// [`Diagnostic::render`] against a source indexed once for all of its reports (indexing
    /// reads the whole source, so doing it per report is quadratic in a file full of errors).
    fn render_in(&self, file: &str, indexed: &Indexed, color: bool) -> String {
        let source = indexed.source;
        let clamp = |s: &Span| {
            let end = s.end.min(source.len());
            s.start.min(end)..end
        };
        let spans: Vec<Span> = std::iter::once(&self.span)
            .chain(self.labels.iter().map(|(s, _)| s))
            .map(clamp)
            .collect();
        let excerpt = if indexed.long_lines { Excerpt::of(source, &indexed.ranges, &spans) } else { None };
        let Some(excerpt) = excerpt else {
            return self.render_spans(file, &indexed.lines, &spans, color);
        };
        let moved: Vec<Span> = spans.iter().map(|s| excerpt.span(s)).collect();
        let out = self.render_spans(file, &Source::from(excerpt.text.as_str()), &moved, color);
        // The header's column counts from the start of the excerpt's line; give the real one.
        let line = excerpt::line_of(&indexed.ranges, spans[0].start) + 1;
        let shown = format!("{file}:{line}:{} ]", column(&excerpt.text, moved[0].start));
        let real = format!("{file}:{line}:{} ]", column(source, spans[0].start));
        out.replacen(&shown, &real, 1)
    }

    /// Renders with `spans[0]` as the primary span and `spans[1..]` for the labels.
    fn render_spans(&self, file: &str, lines: &Source<&str>, spans: &[Span], color: bool) -> String {
        let colors = [Color::Red, Color::Blue, Color::Magenta, Color::Cyan];
        let mut report = Report::build(ReportKind::Error, (file, spans[0].clone()))
            .with_config(Config::default().with_color(color).with_index_type(IndexType::Byte))
            .with_code(self.kind.code())
            .with_message(&self.message);
        for (i, ((_, text), span)) in self.labels.iter().zip(&spans[1..]).enumerate() {
            let mut label = Label::new((file, span.clone())).with_message(text).with_order(i as i32);
            if color {
                label = label.with_color(colors[i % colors.len()]);
            }
            report = report.with_label(label);
        }
        for note in &self.notes {
            report = report.with_note(note);
        }
        let mut out = Vec::new();
        let _ = report.finish().write((file, lines), &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// A source with its line index (ariadne's, and the byte range of each line), and whether any
/// of its lines is long enough to be cut.
struct Indexed<'s> {
    source: &'s str,
    lines: Source<&'s str>,
    ranges: Vec<Span>,
    long_lines: bool,
}

impl<'s> Indexed<'s> {
    fn new(source: &'s str) -> Self {
        let ranges = excerpt::line_ranges(source);
        let long_lines = ranges.iter().any(|line| line.len() > excerpt::MAX_LINE);
        Indexed { source, lines: Source::from(source), ranges, long_lines }
    }
}

/// The 1-based column, in characters, of byte `offset` on its line, as ariadne counts it.
fn column(source: &str, offset: usize) -> usize {
    let line_start = source.as_bytes()[..offset].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    // An offset inside a character (a span from a damaged source) counts bytes instead.
    source.get(line_start..offset).map_or(offset - line_start, |s| s.chars().count()) + 1
}

/// Renders every diagnostic, in source order.
pub fn render_all(diags: &[Diagnostic], file: &str, source: &str, color: bool) -> String {
    let mut sorted: Vec<&Diagnostic> = diags.iter().collect();
    sorted.sort_by_key(|d| (d.span.start, d.span.end));
    let indexed = Indexed::new(source);
    sorted.iter().map(|d| d.render_in(file, &indexed, color)).collect()
}
