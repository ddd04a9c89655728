//! Reading a program's source: its size is limited before it is read, and it must be text.

use std::io::Read;
use std::path::Path;

/// The largest source ptl reads. Real programs are far smaller; the limit keeps a wrong
/// argument (a data file, a disk image) from being read whole into memory.
pub const MAX_SOURCE_BYTES: u64 = 16 * 1024 * 1024;

/// The text of the source file at `path`, or a one-line reason it cannot be a program.
pub fn read(path: &Path) -> Result<String, String> {
    let p = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {p}: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {p}: {e}"))?;
    if meta.is_dir() {
        return Err(format!("cannot read {p}: it is a directory"));
    }
    let too_big =
        || format!("{p} is larger than the 16 MiB ptl reads as a program; is it a source file?");
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(too_big());
    }
    // A pipe or a growing file has no honest length: read at most one byte past the limit.
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {p}: {e}"))?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_big());
    }
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        let (line, col) = line_col(&bytes, at);
        return Err(format!(
            "{p} is a binary file, not ptl source (a NUL byte at line {line}, column {col})"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let (line, col) = line_col(e.as_bytes(), e.utf8_error().valid_up_to());
        format!("{p} is not UTF-8 text (an invalid byte at line {line}, column {col})")
    })
}

/// The 1-based line and byte column of offset `at`.
fn line_col(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    (line, at - line_start + 1)
}

#[cfg(test)]
mod tests {
    use super::line_col;

    #[test]
    fn positions_are_one_based() {
        assert_eq!(line_col(b"ab\ncd", 0), (1, 1));
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
    }
}
