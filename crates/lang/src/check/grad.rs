//! `grad(f, w)(args)`, `grad(f, (w, b))(args)` and `value_and_grad(f, w)(args)`: the
//! arguments are checked as a call of `f`, and the call becomes a call of the derivative
//! function `crate::ad` generates.

use std::collections::HashMap;

use super::env::{Scope, suggest};
use super::{Checker, Typed};
use crate::ad::Derivs;
use crate::ast::{Expr, ExprKind, Ident};
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::typed::{TExpr, TExprKind};
use crate::types::{Dim, TensorType};

/// The names that give a function to call.
const FORMS: [&str; 2] = ["grad", "value_and_grad"];

/// The error for `grad(f, w)` written without the call of its result.
pub(crate) fn unapplied(name: &Ident, is_user_fn: bool) -> Option<Diagnostic> {
    if is_user_fn || !FORMS.contains(&name.name.as_str()) {
        return None;
    }
    let n = &name.name;
    Some(
        Diagnostic::new(ErrorKind::Arity, name.span.clone(), format!("`{n}(f, w)` is a function; call it with `f`'s arguments"))
            .with_label(name.span.clone(), "not called")
            .with_note(format!("write `{n}(f, w)(x, ...)`")),
    )
}

impl Checker {
    pub(crate) fn apply(&mut self, sc: &Scope, callee: &Expr, args: &[Expr], span: Span, allow_multi: bool) -> Option<Typed> {
        let ExprKind::Call(form, spec) = &callee.kind else {
            return self.error(ErrorKind::Syntax, callee.span.clone(), "only a call can be called", "not a call");
        };
        let value = match form.name.as_str() {
            "grad" => false,
            "value_and_grad" => true,
            other => {
                let d = Diagnostic::new(ErrorKind::Mismatch, callee.span.clone(), format!("the result of `{other}(..)` is not a function"))
                    .with_label(callee.span.clone(), "this gives a value")
                    .with_note("only `grad(f, w)` and `value_and_grad(f, w)` give functions to call");
                self.report(d);
                return None;
            }
        };
        let fname = &form.name;
        let (f, wrt) = match spec.as_slice() {
            [Expr { kind: ExprKind::Var(f), span: fspan }, w] => {
                let names: Option<Vec<(String, Span)>> = match &w.kind {
                    ExprKind::Var(n) => Some(vec![(n.clone(), w.span.clone())]),
                    ExprKind::Tuple(items) if !items.is_empty() => items
                        .iter()
                        .map(|i| match &i.kind {
                            ExprKind::Var(n) => Some((n.clone(), i.span.clone())),
                            _ => None,
                        })
                        .collect(),
                    _ => None,
                };
                let Some(names) = names else {
                    return self.error(
                        ErrorKind::BadArgument,
                        w.span.clone(),
                        format!("the second argument of `{fname}` names parameters"),
                        "expected a parameter name, or a tuple of them like `(w, b)`",
                    );
                };
                (Ident { name: f.clone(), span: fspan.clone() }, names)
            }
            _ => {
                let d = Diagnostic::new(ErrorKind::Arity, callee.span.clone(), format!("`{fname}` takes a function and a parameter name"))
                    .with_label(callee.span.clone(), format!("{} argument{} given", spec.len(), if spec.len() == 1 { "" } else { "s" }))
                    .with_note(format!("write `{fname}(f, w)(x, ...)`, where `w` is a parameter of `f`"));
                self.report(d);
                return None;
            }
        };
        let Some(sig) = self.sigs.get(&f.name).cloned() else {
            let mut d = Diagnostic::new(ErrorKind::UnknownName, f.span.clone(), format!("unknown function `{}`", f.name))
                .with_label(f.span.clone(), "no user function has this name");
            if let Some(s) = suggest(&f.name, self.sigs.keys().map(String::as_str)) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            self.report(d);
            return None;
        };
        let mut wrt_idx = Vec::new();
        for (w, wspan) in &wrt {
            let Some(i) = sig.params.iter().position(|(p, _, _)| p == w) else {
                let mut d = Diagnostic::new(ErrorKind::UnknownName, wspan.clone(), format!("`{}` has no parameter `{w}`", f.name))
                    .with_label(wspan.clone(), "not a parameter of the function");
                if let Some(s) = suggest(w, sig.params.iter().map(|(p, _, _)| p.as_str())) {
                    d = d.with_note(format!("did you mean `{s}`?"));
                }
                self.report(d);
                return None;
            };
            let (_, pty, pspan) = &sig.params[i];
            if !pty.dtype.is_float() {
                let d = Diagnostic::new(ErrorKind::Gradient, wspan.clone(), format!("cannot differentiate with respect to `{w}`, of type `{pty}`"))
                    .with_label(wspan.clone(), "a gradient needs a float parameter")
                    .with_label(pspan.clone(), format!("`{w}` is declared `{pty}` here"))
                    .with_note("derivatives with respect to integers and bools do not exist; cast inside the function instead");
                self.report(d);
                return None;
            }
            if wrt_idx.contains(&i) {
                return self.error(ErrorKind::Duplicate, wspan.clone(), format!("`{w}` is named twice"), "named again here");
            }
            wrt_idx.push(i);
        }
        let call = self.call(sc, &f, args, span.clone(), true)?;
        let out_args = match call.e.kind {
            TExprKind::Call(_, a) | TExprKind::CallMulti(_, a, _) => a,
            _ => return None,
        };
        // `f` was checked before its callers; when it had errors they are reported already.
        let tf = self.typed_fns.get(&f.name)?.clone();
        if tf.results.len() != 1 || !tf.results[0].is_scalar() || !tf.results[0].dtype.is_float() {
            let shown = tf.results.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
            let d = Diagnostic::new(ErrorKind::Gradient, f.span.clone(), format!("`{}` must return one float scalar to be differentiated", f.name))
                .with_label(f.span.clone(), format!("this returns `{shown}`"))
                .with_label(tf.span.start..tf.span.start + 2, "defined here")
                .with_note("a gradient is taken of a scalar loss: reduce the result, with `sum` say");
            self.report(d);
            return None;
        }
        let n_results = wrt_idx.len() + usize::from(value);
        if n_results > 1 && !allow_multi {
            let d = Diagnostic::new(ErrorKind::Mismatch, span.clone(), format!("`{fname}` here gives {n_results} results, but one value is expected"))
                .with_label(span, "this gives a tuple")
                .with_note("bind the results with `let (a, b) = ...`, or print them whole");
            self.report(d);
            return None;
        }
        let mut derivs = Derivs { fns: &mut self.typed_fns, generated: &mut self.generated };
        let name = match derivs.gradient(&f.name, &wrt_idx, value) {
            Ok(n) => n,
            Err(e) if e.quiet => return None,
            Err(e) => {
                let d = Diagnostic::new(ErrorKind::Gradient, e.span.clone(), e.message)
                    .with_label(e.span, e.label)
                    .with_label(callee.span.clone(), format!("in the derivative of `{}` taken here", f.name));
                self.report(d);
                return None;
            }
        };
        // The result types with the call's dims for `f`'s dimension names.
        let mut bound: HashMap<String, Dim> = HashMap::new();
        for ((_, pty, _), a) in sig.params.iter().zip(&out_args) {
            for (pd, ad) in pty.dims.iter().zip(&a.ty.dims) {
                if let Dim::Symbol(s) = pd
                    && !matches!(ad, Dim::Unknown)
                {
                    bound.entry(s.clone()).or_insert_with(|| ad.clone());
                }
            }
        }
        let subst = |t: &TensorType| {
            let dims = t.dims.iter().map(|d| match d {
                Dim::Symbol(s) => bound.get(s).cloned().unwrap_or(Dim::Unknown),
                other => other.clone(),
            });
            TensorType::new(t.dtype, dims.collect())
        };
        let mut tys = Vec::new();
        if value {
            tys.push(tf.results[0].clone());
        }
        tys.extend(wrt_idx.iter().map(|&i| subst(&sig.params[i].1)));
        let kind = if tys.len() == 1 { TExprKind::Call(name, out_args) } else { TExprKind::CallMulti(name, out_args, tys.clone()) };
        Some(Typed::strong(TExpr::new(kind, tys[0].clone(), span)))
    }
}
