//! Dimension arithmetic: broadcasting, unification and symbolic element counts.

use std::collections::HashMap;

use crate::types::Dim;

/// Broadcasts two dims by PyTensor's rule: a static `1` stretches, `?` takes the other side
/// (checked at run time), equal dims stay. Dim names are rigid: `n` never meets `m` or `3`.
pub(crate) fn broadcast_dim(a: &Dim, b: &Dim) -> Option<Dim> {
    match (a, b) {
        (Dim::Static(1), x) | (x, Dim::Static(1)) => Some(x.clone()),
        (Dim::Unknown, x) | (x, Dim::Unknown) => Some(x.clone()),
        (x, y) if x == y => Some(x.clone()),
        _ => None,
    }
}

/// Right-aligned broadcast of two shapes; on failure, the two dims that clash.
pub(crate) fn broadcast(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>, (Dim, Dim)> {
    let rank = a.len().max(b.len());
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let da = (i + a.len()).checked_sub(rank).map(|j| &a[j]);
        let db = (i + b.len()).checked_sub(rank).map(|j| &b[j]);
        let d = match (da, db) {
            (Some(x), Some(y)) => broadcast_dim(x, y).ok_or_else(|| (x.clone(), y.clone()))?,
            (Some(x), None) | (None, Some(x)) => x.clone(),
            (None, None) => Dim::Unknown,
        };
        out.push(d);
    }
    Ok(out)
}

/// Two dims that must be equal: `?` takes the other side.
pub(crate) fn unify(a: &Dim, b: &Dim) -> Option<Dim> {
    match (a, b) {
        (Dim::Unknown, x) | (x, Dim::Unknown) => Some(x.clone()),
        (x, y) if x == y => Some(x.clone()),
        _ => None,
    }
}

/// Whether a value with dim `actual` may be given the declared dim `declared`.
pub(crate) fn fits(declared: &Dim, actual: &Dim) -> bool {
    matches!(declared, Dim::Unknown) || declared == actual
}

/// Normalizes a possibly negative axis against `rank` (valid: `-rank..rank`).
pub(crate) fn normalize_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    if axis >= -r && axis < r {
        Some(if axis < 0 {
            (axis + r) as usize
        } else {
            axis as usize
        })
    } else {
        None
    }
}

/// The most elements a shape's static dims may multiply to: 2^60, so that even 8-byte
/// elements stay addressable with a signed 64-bit byte count.
pub(crate) const MAX_STATIC_ELEMENTS: u128 = 1 << 60;

/// The element count of a shape: a static factor, named factors, and whether any dim is `?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Count {
    pub(crate) fixed: u128,
    pub(crate) names: HashMap<String, usize>,
    pub(crate) unknown: usize,
    pub(crate) overflow: bool,
}

impl Count {
    pub(crate) fn of(dims: &[Dim]) -> Count {
        let mut c = Count {
            fixed: 1,
            names: HashMap::new(),
            unknown: 0,
            overflow: false,
        };
        for d in dims {
            match d {
                Dim::Static(n) => match c.fixed.checked_mul(*n as u128) {
                    Some(v) => c.fixed = v,
                    None => c.overflow = true,
                },
                Dim::Symbol(s) => *c.names.entry(s.clone()).or_insert(0) += 1,
                Dim::Unknown => c.unknown += 1,
            }
        }
        c
    }

    /// More static elements than any buffer can hold: every element count (and byte size) a
    /// program computes must stay far from overflowing 64 bits, or compiled code wraps around.
    pub(crate) fn too_large(&self) -> bool {
        self.overflow || self.fixed > MAX_STATIC_ELEMENTS
    }

    /// `self / other` when it divides exactly: the remaining fixed factor and names.
    pub(crate) fn divide(&self, other: &Count) -> Option<(u128, HashMap<String, usize>)> {
        if other.fixed == 0 || !self.fixed.is_multiple_of(other.fixed) {
            return None;
        }
        let mut names = self.names.clone();
        for (k, v) in &other.names {
            let e = names.get_mut(k)?;
            if *e < *v {
                return None;
            }
            *e -= v;
        }
        names.retain(|_, v| *v > 0);
        Some((self.fixed / other.fixed, names))
    }

    pub(crate) fn describe(&self) -> String {
        if self.unknown > 0 || self.overflow {
            return "an unknown number of".to_string();
        }
        let mut names: Vec<String> = self
            .names
            .iter()
            .flat_map(|(k, v)| std::iter::repeat_n(k.clone(), *v))
            .collect();
        names.sort();
        if names.is_empty() {
            return self.fixed.to_string();
        }
        if self.fixed != 1 {
            names.insert(0, self.fixed.to_string());
        }
        names.join("*")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: u64) -> Dim {
        Dim::Static(n)
    }
    fn y(n: &str) -> Dim {
        Dim::Symbol(n.to_string())
    }

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast(&[y("n"), s(3)], &[s(3)]), Ok(vec![y("n"), s(3)]));
        assert_eq!(
            broadcast(&[s(1), s(3)], &[s(4), s(1)]),
            Ok(vec![s(4), s(3)])
        );
        assert_eq!(broadcast(&[Dim::Unknown], &[s(3)]), Ok(vec![s(3)]));
        assert_eq!(broadcast(&[Dim::Unknown], &[s(1)]), Ok(vec![Dim::Unknown]));
        assert!(broadcast(&[y("n")], &[y("m")]).is_err());
        assert!(broadcast(&[y("n")], &[s(3)]).is_err());
        assert_eq!(broadcast(&[y("n")], &[s(1)]), Ok(vec![y("n")]));
        assert!(broadcast(&[s(2)], &[s(3)]).is_err());
    }

    #[test]
    fn axes() {
        assert_eq!(normalize_axis(-1, 3), Some(2));
        assert_eq!(normalize_axis(3, 3), None);
        assert_eq!(normalize_axis(-4, 3), None);
        assert_eq!(normalize_axis(0, 0), None);
    }
}
