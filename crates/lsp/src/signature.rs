//! Signatures as text: a function's (`fn f(x: f64[n]) -> f64[n]`) and a call's, with the
//! dimension names bound to the dims of its arguments.

use ptl_lang::ast::{FnDef, TypeExpr};
use ptl_lang::typed::TFn;
use ptl_lang::{Dim, TensorType};

/// One type, or several in parentheses.
pub fn types_text(ts: &[TensorType]) -> String {
    match ts {
        [one] => one.to_string(),
        many => format!("({})", many.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

fn signature(name: &str, params: &[(String, String)], results: &[TensorType]) -> String {
    let params: Vec<String> = params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
    let mut out = format!("fn {name}({})", params.join(", "));
    if !results.is_empty() {
        out.push_str(" -> ");
        out.push_str(&types_text(results));
    }
    out
}

/// `fn f(x: f64[n]) -> f64[n]`, with the result types as checked.
pub fn fn_signature(f: &TFn) -> String {
    let params: Vec<(String, String)> = f.params.iter().map(|p| (p.name.clone(), p.ty.to_string())).collect();
    signature(&f.name, &params, &f.results)
}

/// The signature as written (result types only when declared).
pub fn written_signature(f: &FnDef) -> String {
    let params: Vec<(String, String)> = f.params.iter().map(|p| (p.name.name.clone(), written(&p.ty).to_string())).collect();
    let results: Vec<TensorType> = f.ret.iter().flatten().map(written).collect();
    signature(&f.name.name, &params, &results)
}

/// The type a written type stands for.
pub fn written(t: &TypeExpr) -> TensorType {
    TensorType::new(t.dtype, t.dims.iter().map(|d| d.dim.clone()).collect())
}

/// The dimension names of `params` bound by arguments of types `args`, in order of first
/// appearance: a name takes the dim of the first argument that gives it one (a `?` binds
/// nothing).
pub fn bind_dims(params: &[TensorType], args: &[TensorType]) -> Vec<(String, Dim)> {
    let mut bound: Vec<(String, Dim)> = Vec::new();
    for (p, a) in params.iter().zip(args) {
        if p.rank() != a.rank() {
            continue;
        }
        for (pd, ad) in p.dims.iter().zip(&a.dims) {
            if let Dim::Symbol(n) = pd
                && !matches!(ad, Dim::Unknown)
                && !bound.iter().any(|(b, _)| b == n)
            {
                bound.push((n.clone(), ad.clone()));
            }
        }
    }
    bound
}

/// `f: f64[3, 2] -> f64[3, 4]` (arguments in parentheses when there are several).
pub fn call_signature(name: &str, args: &[TensorType], results: &[TensorType]) -> String {
    let args = match args {
        [one] => one.to_string(),
        many => format!("({})", many.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")),
    };
    format!("{name}: {args} -> {}", types_text(results))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptl_lang::DType;

    fn t(dims: &[Dim]) -> TensorType {
        TensorType::new(DType::F64, dims.to_vec())
    }

    fn sym(s: &str) -> Dim {
        Dim::Symbol(s.to_string())
    }

    #[test]
    fn dims_bind_from_the_first_argument_that_fixes_them() {
        let params = [t(&[sym("n"), Dim::Static(2)]), t(&[Dim::Static(2), sym("m")]), t(&[sym("n")])];
        let args = [t(&[Dim::Static(3), Dim::Static(2)]), t(&[Dim::Static(2), Dim::Unknown]), t(&[Dim::Static(3)])];
        assert_eq!(bind_dims(&params, &args), vec![("n".to_string(), Dim::Static(3))]);
    }

    #[test]
    fn signatures_read_as_written() {
        let args = [t(&[Dim::Static(3), Dim::Static(2)])];
        let results = [t(&[Dim::Static(3), Dim::Static(4)])];
        assert_eq!(call_signature("layer", &args, &results), "layer: f64[3, 2] -> f64[3, 4]");
        let two = [t(&[]), TensorType::scalar(DType::I64)];
        assert_eq!(call_signature("g", &two, &results[..]), "g: (f64, i64) -> f64[3, 4]");
        assert_eq!(types_text(&two), "(f64, i64)");
    }
}
