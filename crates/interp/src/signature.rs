//! Run-time checks of values against declared types: arguments against parameters (binding
//! symbolic dims), results against declared results.

use std::collections::HashMap;

use ptl_lang::types::{Dim, TensorType};
use ptl_lang::value::Value;

/// A symbolic dim's run-time size and where it was first seen (`argument `x``, dim index).
#[derive(Debug, Clone, Default)]
pub(crate) struct SymbolBindings {
    map: HashMap<String, (usize, String, usize)>,
}

impl SymbolBindings {
    pub(crate) fn get(&self, name: &str) -> Option<usize> {
        self.map.get(name).map(|b| b.0)
    }
}

/// The first axis where `value`'s dims do not fit `ty` given the bindings `syms` (and those
/// `ty`'s own earlier dims make), when dtype and rank fit.
pub(crate) fn mismatched_axis(ty: &TensorType, value: &Value, syms: &SymbolBindings) -> Option<usize> {
    if value.dtype() != ty.dtype || value.shape().len() != ty.rank() {
        return None;
    }
    let mut local: Vec<(&str, usize)> = Vec::new();
    for (i, (dim, &n)) in ty.dims.iter().zip(value.shape()).enumerate() {
        match dim {
            Dim::Static(m) if n as u64 != *m => return Some(i),
            Dim::Symbol(s) => match syms.get(s).or_else(|| local.iter().find(|(l, _)| l == s).map(|(_, m)| *m)) {
                Some(m) if m != n => return Some(i),
                Some(_) => {}
                None => local.push((s, n)),
            },
            _ => {}
        }
    }
    None
}

/// Checks `value` against `ty`, binding unbound symbols to the value's dims. `who` names the
/// value in messages (`argument `x``). On mismatch, returns what is wrong.
pub(crate) fn match_type(ty: &TensorType, value: &Value, who: &str, syms: &mut SymbolBindings) -> Result<(), String> {
    if value.dtype() != ty.dtype {
        return Err(format!("dtype {} is not {}", value.dtype(), ty.dtype));
    }
    let shape = value.shape();
    if shape.len() != ty.rank() {
        return Err(format!("rank {} is not {}", shape.len(), ty.rank()));
    }
    // Check every dim before binding anything, so a failed match leaves `syms` unchanged.
    let mut fresh: Vec<(String, usize, usize)> = Vec::new();
    for (i, (dim, &n)) in ty.dims.iter().zip(shape).enumerate() {
        match dim {
            Dim::Static(m) => {
                if n as u64 != *m {
                    return Err(format!("dim {i} is {n}, not {m}"));
                }
            }
            Dim::Symbol(s) => {
                if let Some((m, by, j)) = syms.map.get(s) {
                    if *m != n {
                        let place = if by == who { format!("its dim {j}") } else { format!("{by} (dim {j})") };
                        return Err(format!("dim {i} is {n}, but `{s}` is {m}, bound by {place}"));
                    }
                } else if let Some((_, m, j)) = fresh.iter().find(|(name, _, _)| name == s) {
                    if *m != n {
                        return Err(format!("dim {i} is {n}, but `{s}` is {m}, bound by its dim {j}"));
                    }
                } else {
                    fresh.push((s.clone(), n, i));
                }
            }
            Dim::Unknown => {}
        }
    }
    for (s, n, i) in fresh {
        syms.map.insert(s, (n, who.to_string(), i));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptl_lang::types::DType;
    use ndarray::{ArrayD, IxDyn};

    fn ty(dims: Vec<Dim>) -> TensorType {
        TensorType::new(DType::F64, dims)
    }

    fn zeros(shape: &[usize]) -> Value {
        Value::F64(ArrayD::zeros(IxDyn(shape)))
    }

    #[test]
    fn symbols_bind_across_values() {
        let mut syms = SymbolBindings::default();
        let n = || Dim::Symbol("n".into());
        assert!(match_type(&ty(vec![n(), Dim::Static(3)]), &zeros(&[4, 3]), "argument `x`", &mut syms).is_ok());
        assert_eq!(syms.get("n"), Some(4));
        let e = match_type(&ty(vec![n()]), &zeros(&[5]), "argument `y`", &mut syms).unwrap_err();
        assert_eq!(e, "dim 0 is 5, but `n` is 4, bound by argument `x` (dim 0)");
    }

    #[test]
    fn same_symbol_twice_in_one_type() {
        let mut syms = SymbolBindings::default();
        let n = || Dim::Symbol("n".into());
        let e = match_type(&ty(vec![n(), n()]), &zeros(&[2, 3]), "argument `m`", &mut syms).unwrap_err();
        assert_eq!(e, "dim 1 is 3, but `n` is 2, bound by its dim 0");
        assert_eq!(syms.get("n"), None);
        assert!(match_type(&ty(vec![Dim::Unknown, Dim::Unknown]), &zeros(&[0, 7]), "x", &mut syms).is_ok());
    }
}
