//! The arguments of `ptl run --fn`: `NAME=FILE.npy` or `NAME=LITERAL`, matched to the
//! function's parameters and converted to their dtypes when that loses nothing.

use std::collections::HashMap;
use std::path::Path;

use ptl_lang::diag::render_all;
use ptl_lang::typed::TFn;
use ptl_lang::{DType, TensorType, Value};

use crate::{npy, npz};
use crate::report::{Failed, color_stderr, fail, shift_diagnostics};

/// `f(x: f64[n], y: f64[n])`.
pub fn signature(f: &TFn) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}: {}", p.name, p.ty))
        .collect();
    format!("{}({})", f.name, params.join(", "))
}

/// One value per parameter of `f`, in order, from the `--arg NAME=VALUE` texts.
pub fn function_args(f: &TFn, raw: &[String]) -> Result<Vec<Value>, Failed> {
    let mut given: HashMap<&str, &str> = HashMap::new();
    for r in raw {
        let Some((name, value)) = r.split_once('=') else {
            return Err(fail(format!(
                "--arg `{r}` is not of the form NAME=VALUE (e.g. --arg x=x.npy)"
            )));
        };
        let name = name.trim();
        if f.params.iter().all(|p| p.name != name) {
            return Err(fail(format!(
                "`{}` has no parameter named `{name}`; its signature is {}",
                f.name,
                signature(f)
            )));
        }
        if given.insert(name, value).is_some() {
            return Err(fail(format!("argument `{name}` is given more than once")));
        }
    }
    let missing: Vec<String> = f
        .params
        .iter()
        .filter(|p| !given.contains_key(p.name.as_str()))
        .map(|p| format!("`{}: {}`", p.name, p.ty))
        .collect();
    if !missing.is_empty() {
        return Err(fail(format!(
            "missing argument{} {} of `{}`; pass each as --arg NAME=FILE.npy or --arg NAME='[...]'",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            f.name
        )));
    }
    f.params
        .iter()
        .map(|p| argument(&p.name, given[p.name.as_str()], &p.ty))
        .collect()
}

fn argument(name: &str, text: &str, ty: &TensorType) -> Result<Value, Failed> {
    let file = text.trim();
    let read = if file.ends_with(".npy") {
        npy::read
    } else if file.ends_with(".npz") {
        npz::read
    } else {
        return literal(name, text, ty);
    };
    let v = read(Path::new(file)).map_err(|e| fail(format!("argument `{name}`: {e}")))?;
    Ok(widen(v, ty.dtype))
}

/// Converts to `to` when ptl would do so implicitly (bool to anything, i32 to i64 or f64,
/// i64 to f64, f32 to f64); otherwise leaves the value for the signature check to report.
fn widen(v: Value, to: DType) -> Value {
    use DType::*;
    let from = v.dtype();
    if from != to
        && matches!(
            (from, to),
            (Bool, _) | (I32, I64 | F64) | (I64, F64) | (F32, F64)
        )
    {
        ptl_interp::cast(&v, to)
    } else {
        v
    }
}

/// Evaluates a ptl expression given on the command line. Its number literals are first
/// given the parameter's dtype (as `let a: f32[?] = [1, 2];` would); if that does not
/// type-check, the expression is evaluated as written and the signature check reports the
/// mismatch with both types.
fn literal(name: &str, text: &str, ty: &TensorType) -> Result<Value, Failed> {
    let (parsed, diags) = ptl_lang::syntax::parse_expr(text);
    if parsed.is_none() || !diags.is_empty() {
        eprint!(
            "{}",
            render_all(&diags, &format!("--arg {name}"), text, color_stderr())
        );
        return Err(fail(format!(
            "argument `{name}` is neither a .npy file nor a valid ptl expression"
        )));
    }
    let dims = vec!["?"; ty.rank()].join(", ");
    let declared = if ty.rank() == 0 {
        ty.dtype.to_string()
    } else {
        format!("{}[{dims}]", ty.dtype)
    };
    let ascribed = format!("let __arg: {declared} = ({text});\nprint __arg;\n");
    if let Ok(p) = ptl_lang::frontend(&ascribed) {
        if let Ok(mut values) = ptl_interp::run_program(&p) {
            if let Some(v) = values.pop() {
                return Ok(v);
            }
        }
    }
    const PREFIX: &str = "print (";
    let plain = format!("{PREFIX}{text});\n");
    match ptl_lang::frontend(&plain) {
        Ok(p) => {
            let mut values = ptl_interp::run_program(&p)
                .map_err(|e| fail(format!("argument `{name}`: {e}")))?;
            match (values.pop(), values.is_empty()) {
                (Some(v), true) => Ok(v),
                _ => Err(fail(format!("argument `{name}` must be a single value"))),
            }
        }
        Err(diags) => {
            let diags = shift_diagnostics(&diags, PREFIX.len(), text.len());
            eprint!(
                "{}",
                render_all(&diags, &format!("--arg {name}"), text, color_stderr())
            );
            Err(fail(format!(
                "argument `{name}` is neither a .npy file nor a valid ptl expression"
            )))
        }
    }
}
