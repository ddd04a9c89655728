//! Byte offsets (what the frontend's spans hold) to LSP positions (line, UTF-16 code unit)
//! and back.
//!
//! Lines end at `\n`; a `\r` before it belongs to no column a position can name (a position
//! past the end of a line's text clamps to just before its line break).

use lsp_types::{Position, Range};
use ptl_lang::Span;

/// The start of every line of a text, for converting positions in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset of the first character of each line; the first is 0.
    starts: Vec<usize>,
    /// The length of the text in bytes.
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
        LineIndex { starts, len: text.len() }
    }

    /// The number of lines (a text ending in `\n` has an empty last line).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The end of line `line`'s text: before its `\n` (and a `\r` before that).
    fn line_end(&self, text: &str, line: usize) -> usize {
        let end = self.starts.get(line + 1).map_or(self.len, |&next| next - 1);
        let start = self.starts[line];
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') && end < self.len {
            end - 1
        } else {
            end
        }
    }

    /// The position of byte `offset` of `text`. An offset past the end clamps to the end; one
    /// inside a multi-byte character counts from that character's start.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(self.len);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character: usize = text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(line as u32, character as u32)
    }

    /// The byte offset of `pos` in `text`. A line past the last clamps to the end of the
    /// text; a character past the end of its line clamps to the line's end; one in the
    /// middle of a surrogate pair counts as the start of that character.
    pub fn offset(&self, text: &str, pos: Position) -> usize {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return self.len;
        }
        let start = self.starts[line];
        let end = self.line_end(text, line);
        let mut units = 0usize;
        for (i, c) in text[start..end].char_indices() {
            let next = units + c.len_utf16();
            if next > pos.character as usize {
                return start + i;
            }
            units = next;
        }
        end
    }

    /// The range of byte span `span` of `text`.
    pub fn range(&self, text: &str, span: &Span) -> Range {
        let start = self.position(text, span.start);
        let end = self.position(text, span.end.max(span.start));
        Range::new(start, end)
    }

    /// The range covering all of `text`.
    pub fn full_range(&self, text: &str) -> Range {
        self.range(text, &(0..self.len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) {
        let idx = LineIndex::new(text);
        for (offset, _) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
            let pos = idx.position(text, offset);
            // A `\r\n` line break has no position of its own: it maps back to the line end.
            if text[offset..].starts_with("\r\n") || (text[offset..].starts_with('\n') && text[..offset].ends_with('\r')) {
                continue;
            }
            assert_eq!(idx.offset(text, pos), offset, "offset {offset} -> {pos:?} in {text:?}");
        }
    }

    #[test]
    fn ascii_lines() {
        let text = "let a = 1;\nprint a;\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 3);
        assert_eq!(idx.position(text, 0), Position::new(0, 0));
        assert_eq!(idx.position(text, 4), Position::new(0, 4));
        assert_eq!(idx.position(text, 10), Position::new(0, 10));
        assert_eq!(idx.position(text, 11), Position::new(1, 0));
        assert_eq!(idx.position(text, 17), Position::new(1, 6));
        assert_eq!(idx.position(text, text.len()), Position::new(2, 0));
        assert_eq!(idx.offset(text, Position::new(1, 6)), 17);
        round_trip(text);
    }

    #[test]
    fn multi_byte_characters_count_in_utf16_units() {
        // `é` is 2 bytes and 1 UTF-16 unit; `€` is 3 bytes and 1 unit; `𝛼` is 4 bytes and 2 units.
        let text = "// é€𝛼\nlet x = 1;";
        let idx = LineIndex::new(text);
        let e_acute = text.find('é').unwrap();
        let euro = text.find('€').unwrap();
        let alpha = text.find('𝛼').unwrap();
        assert_eq!(idx.position(text, e_acute), Position::new(0, 3));
        assert_eq!(idx.position(text, euro), Position::new(0, 4));
        assert_eq!(idx.position(text, alpha), Position::new(0, 5));
        assert_eq!(idx.position(text, alpha + 4), Position::new(0, 7));
        let x = text.find('x').unwrap();
        assert_eq!(idx.position(text, x), Position::new(1, 4));
        assert_eq!(idx.offset(text, Position::new(0, 5)), alpha);
        assert_eq!(idx.offset(text, Position::new(0, 7)), alpha + 4);
        // Inside the surrogate pair: the character's start.
        assert_eq!(idx.offset(text, Position::new(0, 6)), alpha);
        round_trip(text);
    }

    #[test]
    fn offsets_inside_a_character_and_out_of_range_clamp() {
        let text = "é\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 1), Position::new(0, 0));
        assert_eq!(idx.position(text, 99), Position::new(1, 0));
        assert_eq!(idx.offset(text, Position::new(0, 40)), 2);
        assert_eq!(idx.offset(text, Position::new(7, 0)), text.len());
    }

    #[test]
    fn crlf_line_ends() {
        let text = "let a = 1;\r\nprint a;\r\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 12), Position::new(1, 0));
        assert_eq!(idx.offset(text, Position::new(0, 99)), 10);
        assert_eq!(idx.offset(text, Position::new(1, 6)), 18);
        round_trip(text);
    }

    #[test]
    fn ranges_of_spans() {
        let text = "fn f(x: f64) -> f64 { x }\n// ü\nprint f(1.0);";
        let idx = LineIndex::new(text);
        let call = text.find("f(1.0)").unwrap();
        assert_eq!(idx.range(text, &(call..call + 6)), Range::new(Position::new(2, 6), Position::new(2, 12)));
        assert_eq!(idx.full_range(text).end, Position::new(2, 13));
    }
}
