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

/// Edit distance, for "did you mean" suggestions.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest candidate to `name`, if it is close enough to be a likely typo.
pub(crate) fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
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
        assert_eq!(suggest("sofmax", ["softmax", "sum"]), Some("softmax".to_string()));
        assert_eq!(suggest("xs", ["x", "ys"]), Some("x".to_string()));
        assert_eq!(suggest("banana", ["x", "y"]), None);
    }
}
