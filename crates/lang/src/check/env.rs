//! Scopes: the variables visible at a point, and the dimension names in scope.

use crate::types::TensorType;

/// The names visible while checking one function body or the top level.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    /// Variables in binding order; a later entry shadows an earlier one. `None` marks a
    /// variable whose definition had an error (uses of it report nothing more).
    pub(crate) vars: Vec<(String, Option<TensorType>)>,
    /// Dimension names of the enclosing function's signature; empty at top level.
    pub(crate) symbols: Vec<String>,
    /// The enclosing function, if any.
    pub(crate) function: Option<String>,
    /// Top-level `let` names, for a hint when a function body refers to one.
    pub(crate) globals: Vec<String>,
}

pub(crate) enum Lookup<'a> {
    Found(&'a TensorType),
    Poisoned,
    Missing,
}

impl Scope {
    pub(crate) fn bind(&mut self, name: &str, ty: Option<TensorType>) {
        self.vars.push((name.to_string(), ty));
    }

    pub(crate) fn lookup(&self, name: &str) -> Lookup<'_> {
        match self.vars.iter().rev().find(|(n, _)| n == name) {
            Some((_, Some(t))) => Lookup::Found(t),
            Some((_, None)) => Lookup::Poisoned,
            None => Lookup::Missing,
        }
    }

    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.vars.iter().map(|(n, _)| n.as_str())
    }

    pub(crate) fn has_symbol(&self, name: &str) -> bool {
        self.symbols.iter().any(|s| s == name)
    }
}

/// Edit distance counting an adjacent transposition as one edit, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The closest candidate to `name`, if it is close enough to be a likely typo.
pub(crate) fn suggest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let limit = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest("sofmax", ["softmax", "sum"]),
            Some("softmax".to_string())
        );
        assert_eq!(suggest("xs", ["x", "ys"]), Some("x".to_string()));
        assert_eq!(suggest("valeu", ["value", "x"]), Some("value".to_string()));
        assert_eq!(suggest("banana", ["x", "y"]), None);
    }
}
