//! Arguments are checked against the signature before IREE sees them: dtype, rank, static dims
//! exact, and every use of a symbolic dim the same size.

use std::collections::HashMap;

use ptl_lang::typed::TFn;
use ptl_lang::{Dim, Value};

use crate::error::{Result, RtError};
use crate::values::{Shaped, describe_shape};

/// `f64[3, 4]` for an actual value.
pub fn describe(v: &Value) -> String {
    v.tensor_type().to_string()
}

pub fn check_arguments<A: Shaped>(f: &TFn, args: &[A]) -> Result<()> {
    if args.len() != f.params.len() {
        return Err(RtError::ArgumentCount { function: f.name.clone(), expected: f.params.len(), got: args.len() });
    }
    // Symbol -> (size, the argument that fixed it).
    let mut bound: HashMap<&str, (usize, &str)> = HashMap::new();
    for (p, v) in f.params.iter().zip(args) {
        let fail = |detail: String| RtError::Argument {
            function: f.name.clone(),
            name: p.name.clone(),
            got: describe_shape(v.dtype(), v.shape()),
            expected: p.ty.to_string(),
            detail,
            span: Some(p.span.clone()),
        };
        if v.dtype() != p.ty.dtype {
            return Err(fail(format!(" (dtype {} where {} is expected)", v.dtype(), p.ty.dtype)));
        }
        if v.shape().len() != p.ty.rank() {
            return Err(fail(format!(" (rank {} where {} is expected)", v.shape().len(), p.ty.rank())));
        }
        for (axis, (d, &n)) in p.ty.dims.iter().zip(v.shape()).enumerate() {
            match d {
                Dim::Static(s) if *s as usize != n => {
                    return Err(fail(format!(" (axis {axis} has size {n}, expected {s})")));
                }
                Dim::Symbol(s) => match bound.get(s.as_str()) {
                    Some(&(m, other)) if m != n => {
                        return Err(fail(format!(
                            " (axis {axis} is `{s}` = {n}, but argument `{other}` fixed `{s}` = {m})"
                        )));
                    }
                    Some(_) => {}
                    None => {
                        bound.insert(s, (n, &p.name));
                    }
                },
                _ => {}
            }
        }
    }
    Ok(())
}
