//! Results are checked against the memory actually available before they are allocated: a
//! well-typed program may ask for more than the machine has, and an allocation failure would
//! abort the process instead of reporting an error.

use super::error::{InterpError, Result};
use ptl_lang::span::Span;

/// Bytes of memory the system reports as available (Linux `MemAvailable`), or 1 TiB when unknown.
fn available_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()))
        })
        .map(|kb| kb.saturating_mul(1024))
        .unwrap_or(1 << 40)
}

/// Fails when an array of `shape` with `elem_bytes`-byte elements cannot fit in memory.
pub(crate) fn check_size(shape: &[usize], elem_bytes: usize, span: &Span) -> Result<()> {
    let bytes = shape.iter().fold(elem_bytes as u128, |acc, &d| acc.saturating_mul(d as u128));
    // Small results never need the system query.
    if bytes <= (1 << 28) {
        return Ok(());
    }
    let available = available_bytes();
    if bytes > available as u128 {
        return Err(InterpError::TooLarge { shape: shape.to_vec(), bytes, available, span: span.clone() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_results_are_errors_and_small_ones_pass() {
        assert!(check_size(&[3, 4], 8, &(0..1)).is_ok());
        let err = check_size(&[1 << 20, 1 << 20, 1 << 10], 8, &(0..1)).unwrap_err();
        assert!(err.to_string().contains("memory"), "{err}");
    }
}
