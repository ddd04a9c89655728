//! Reverse-mode automatic differentiation as a transformation of the typed program.
//!
//! `grad(f, w)` becomes an ordinary typed function `grad__f__w` with `f`'s parameters: the
//! forward code of `f` (every node bound to a `let`, see [`tape`]), then the backward code
//! that takes the result's cotangent back to `w` (see [`reverse`]) with the rule each op
//! states beside its type rule (`check/ops/vjp/`). A call of a user function `g` on the path
//! becomes a call of `vjp__g__<params>`, a generated function that takes `g`'s arguments and
//! the cotangents of its results and gives the cotangents of the named parameters. A `loop`
//! on the path is differentiated through its body, made a function (see [`loops`]). The
//! generated functions are compiled, cached and fused like any other, and differentiating
//! them again gives second derivatives.

pub(crate) mod build;
mod conditional;
mod loops;
mod reverse;
mod tape;

use std::collections::HashMap;

use crate::span::Span;
use crate::typed::{TBlock, TFn, TParam};
use reverse::{Seeds, derive};

/// Why a derivative cannot be taken: reported at `span` (in the differentiated function).
#[derive(Debug)]
pub(crate) struct AdError {
    pub(crate) span: Span,
    pub(crate) message: String,
    pub(crate) label: String,
    /// A function on the path had errors of its own (already reported): nothing to add.
    pub(crate) quiet: bool,
}

impl AdError {
    pub(crate) fn internal(span: &Span, what: &str) -> AdError {
        AdError { span: span.clone(), message: format!("internal error in differentiation: {what}"), label: "here".into(), quiet: false }
    }

    /// A call of a function that did not check.
    fn unchecked(span: &Span) -> AdError {
        AdError { quiet: true, ..AdError::internal(span, "a function that did not check") }
    }
}

/// Every checked function by name (user and generated), and the generated ones in order.
pub(crate) struct Derivs<'a> {
    pub(crate) fns: &'a mut HashMap<String, TFn>,
    pub(crate) generated: &'a mut Vec<String>,
}

impl Derivs<'_> {
    /// A name for a new function, unlike every function's; `None` when `base` was already
    /// generated.
    fn new_name(&self, base: String) -> Result<String, String> {
        let mut name = base;
        loop {
            if self.generated.contains(&name) {
                return Err(name);
            }
            if !self.fns.contains_key(&name) {
                return Ok(name);
            }
            name.push('_');
        }
    }

    pub(crate) fn add(&mut self, f: TFn) {
        self.generated.push(f.name.clone());
        self.fns.insert(f.name.clone(), f);
    }

    /// `grad(f, (w, ...))` (with `value`: `value_and_grad`): the name of the generated
    /// function giving `f`'s value (with `value`) and the gradients for the parameters `wrt`.
    pub(crate) fn gradient(&mut self, f: &str, wrt: &[usize], value: bool) -> Result<String, AdError> {
        let tf = self.fns.get(f).cloned().ok_or_else(|| AdError::unchecked(&(0..0)))?;
        let prefix = if value { "value_and_grad" } else { "grad" };
        let params: Vec<&str> = wrt.iter().map(|&i| tf.params[i].name.as_str()).collect();
        let name = match self.new_name(format!("{prefix}__{f}__{}", params.join("__"))) {
            Ok(n) => n,
            Err(done) => return Ok(done),
        };
        let (b, results, grads) = derive(self, &tf, wrt, Seeds::One)?;
        let mut out = Vec::new();
        if value {
            out.push(results[0].clone());
        }
        out.extend(grads);
        let result_tys = out.iter().map(|e| e.ty.clone()).collect();
        self.add(TFn { name: name.clone(), params: tf.params.clone(), body: TBlock { lets: b.lets, results: out }, results: result_tys, span: tf.span.clone() });
        Ok(name)
    }

    /// The derivative helper of `g` for its parameters `active`: `g`'s parameters followed
    /// by one cotangent per result, giving one cotangent per active parameter.
    pub(crate) fn vjp_helper(&mut self, g: &str, active: &[usize]) -> Result<String, AdError> {
        let tf = self.fns.get(g).cloned().ok_or_else(|| AdError::unchecked(&(0..0)))?;
        let params: Vec<&str> = active.iter().map(|&i| tf.params[i].name.as_str()).collect();
        let name = match self.new_name(format!("vjp__{g}__{}", params.join("__"))) {
            Ok(n) => n,
            Err(done) => return Ok(done),
        };
        let (b, _, grads) = derive(self, &tf, active, Seeds::Params)?;
        let mut fparams = tf.params.clone();
        for (i, ty) in tf.results.iter().enumerate() {
            fparams.push(TParam { name: format!("%ct{i}"), ty: ty.clone(), span: tf.span.clone() });
        }
        let result_tys = active.iter().map(|&i| tf.params[i].ty.clone()).collect();
        self.add(TFn { name: name.clone(), params: fparams, body: TBlock { lets: b.lets, results: grads }, results: result_tys, span: tf.span.clone() });
        Ok(name)
    }
}
