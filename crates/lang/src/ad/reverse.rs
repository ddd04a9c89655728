//! The backward half: cotangents flow from the results to the active parameters, through
//! each recorded step in reverse order, by the op's rule ([`crate::ops::Op::vjp`]) or, for a
//! call of a user function, by a call of that function's own derivative.

use std::collections::HashMap;

use super::build::Builder;
use super::tape::{Step, Tape};
use super::{AdError, Derivs};
use crate::check::ops::vjp::Node;
use crate::typed::{TExpr, TExprKind, TFn};
use crate::types::{Dim, TensorType};

/// Where the backward half starts.
pub(crate) enum Seeds {
    /// The function's one (scalar) result has cotangent 1.
    One,
    /// One cotangent per result, given as parameters named `%ct0`, `%ct1`, ...
    Params,
}

/// The derivative code of `f` with respect to its `active` parameters: the builder holding
/// every `let`, the results as names, and one cotangent per active parameter.
pub(crate) fn derive(d: &mut Derivs, f: &TFn, active: &[usize], seeds: Seeds) -> Result<(Builder, Vec<TExpr>, Vec<TExpr>), AdError> {
    let mut tape = Tape::new(f, active);
    let results = tape.body(&f.body)?;
    for body in std::mem::take(&mut tape.lifted) {
        if !d.fns.contains_key(&body.name) {
            d.add(body);
        }
    }
    let mut cts: HashMap<String, TExpr> = HashMap::new();
    for (i, r) in results.iter().enumerate() {
        if !tape.is_active(r) {
            continue;
        }
        let seed = match seeds {
            Seeds::One => tape.b.lit(r.ty.dtype, 1.0),
            Seeds::Params => tape.b.var(&format!("%ct{i}"), f.results[i].clone()),
        };
        accumulate(&mut tape.b, &mut cts, r, seed);
    }
    let steps = std::mem::take(&mut tape.steps);
    for step in steps.iter().rev() {
        match step {
            Step::Op { op, args, out, span } => {
                let Some(ct) = cts.remove(name(out)) else { continue };
                tape.b.span = span.clone();
                let active: Vec<bool> = args.iter().map(|a| tape.is_active(a)).collect();
                let node = Node { args, out, active: &active };
                let grads = op.vjp(&mut tape.b, &node, ct).map_err(|why| AdError {
                    span: span.clone(),
                    message: format!("cannot differentiate `{}`", op.name()),
                    label: why,
                    quiet: false,
                })?;
                for ((a, g), act) in args.iter().zip(grads).zip(&active) {
                    if let (true, Some(g)) = (act, g) {
                        accumulate(&mut tape.b, &mut cts, a, g);
                    }
                }
            }
            Step::Call { function, args, outs, span } => {
                let out_cts: Vec<Option<TExpr>> = outs.iter().map(|o| cts.remove(name(o))).collect();
                if out_cts.iter().all(Option::is_none) {
                    continue;
                }
                tape.b.span = span.clone();
                let grads = call(d, &mut tape, function, args, outs, out_cts)?;
                for (a, g) in grads {
                    accumulate(&mut tape.b, &mut cts, &a, g);
                }
            }
            Step::If { then_fn, else_fn, cond, free, out, span } => {
                let Some(ct) = cts.remove(name(out)) else { continue };
                tape.b.span = span.clone();
                let grads = super::conditional::backward(d, &mut tape, [then_fn, else_fn], cond, free, ct)?;
                for (a, g) in grads {
                    accumulate(&mut tape.b, &mut cts, &a, g);
                }
            }
            Step::Loop { body, init, free, start, stop, finals, outputs, stacked, span } => {
                let out_cts: Vec<Option<TExpr>> = finals.iter().chain(outputs).map(|o| cts.remove(name(o))).collect();
                if out_cts.iter().all(Option::is_none) {
                    continue;
                }
                tape.b.span = span.clone();
                let grads = super::loops::backward(d, &mut tape, body, init, free, start, stop, finals, outputs, stacked, out_cts)?;
                for (a, g) in grads {
                    if tape.is_active(&a) {
                        accumulate(&mut tape.b, &mut cts, &a, g);
                    }
                }
            }
        }
    }
    let grads = active
        .iter()
        .map(|&i| {
            let p = &f.params[i];
            let v = tape.b.var(&p.name, p.ty.clone());
            match cts.remove(&p.name) {
                Some(g) => g,
                None => tape.b.zeros_like(&v),
            }
        })
        .collect();
    Ok((tape.b, results, grads))
}

fn name(e: &TExpr) -> &str {
    match &e.kind {
        TExprKind::Var(n) => n,
        _ => "",
    }
}

/// Adds `g` to the cotangent of `a` (a name; literals have none).
fn accumulate(b: &mut Builder, cts: &mut HashMap<String, TExpr>, a: &TExpr, g: TExpr) {
    let TExprKind::Var(n) = &a.kind else { return };
    let g = b.cast(g, a.ty.dtype);
    let g = b.retype(g, a.ty.dims.clone());
    let total = match cts.remove(n) {
        Some(old) => {
            let s = b.add(old, g);
            b.retype(s, a.ty.dims.clone())
        }
        None => g,
    };
    cts.insert(n.clone(), total);
}

/// The cotangents of the active arguments of a call of `function`, by a call of its
/// derivative helper (made on first use).
fn call(d: &mut Derivs, tape: &mut Tape, function: &str, args: &[TExpr], outs: &[TExpr], out_cts: Vec<Option<TExpr>>) -> Result<Vec<(TExpr, TExpr)>, AdError> {
    let active: Vec<usize> = (0..args.len()).filter(|&i| tape.is_active(&args[i])).collect();
    let helper = d.vjp_helper(function, &active)?;
    let g = d.fns.get(function).cloned().ok_or_else(|| AdError::unchecked(&tape.b.span))?;
    let b = &mut tape.b;
    let mut operands = args.to_vec();
    for (o, ct) in outs.iter().zip(out_cts) {
        operands.push(match ct {
            Some(ct) => ct,
            None => b.zeros_like(o),
        });
    }
    // The helper's result types with the call's dims for the callee's dimension names.
    let mut bound: HashMap<String, Dim> = HashMap::new();
    for (p, a) in g.params.iter().zip(args) {
        for (pd, ad) in p.ty.dims.iter().zip(&a.ty.dims) {
            if let Dim::Symbol(s) = pd {
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
    let tys: Vec<TensorType> = active.iter().map(|&i| subst(&g.params[i].ty)).collect();
    let span = b.span.clone();
    let grads = if tys.len() == 1 {
        vec![b.bind(TExpr::new(TExprKind::Call(helper, operands), tys[0].clone(), span))]
    } else {
        b.bind_multi(TExpr::new(TExprKind::CallMulti(helper, operands, tys.clone()), tys[0].clone(), span))
    };
    Ok(active.iter().map(|&i| args[i].clone()).zip(grads).collect())
}
