//! Reverse mode through an `if` whose blocks read values that depend on an active
//! parameter: each block becomes a function of the names the `if` reads
//! (`if__<f>__<k>__then`, `if__<f>__<k>__else` for the `k`th such `if` of `f`), the forward
//! code calls the chosen one, and the backward code calls the chosen block's derivative
//! helper under the same condition, once for each active name read.

use super::Derivs;
use super::AdError;
use super::loops::call;
use super::tape::{Step, Tape};
use crate::typed::{TBlock, TExpr, TExprKind, TFn, TIf, TParam};
use crate::types::TensorType;

impl Tape {
    /// The forward code of `e` (the `if` `c`), given the names it reads and their values.
    pub(crate) fn active_if(&mut self, e: &TExpr, c: &TIf, free: Vec<(String, TExpr)>) -> Result<TExpr, AdError> {
        let cond = self.atom(&c.cond)?;
        let k = self.ifs;
        self.ifs += 1;
        let params: Vec<TParam> = free.iter().map(|(n, v)| TParam { name: n.clone(), ty: v.ty.clone(), span: e.span.clone() }).collect();
        let args: Vec<TExpr> = free.into_iter().map(|(_, v)| v).collect();
        let mut blocks = Vec::new();
        let mut names = Vec::new();
        for (which, block) in [("then", &c.then), ("else", &c.otherwise)] {
            let [result] = block.results.as_slice() else {
                return Err(AdError::internal(&e.span, "an `if` block without one value"));
            };
            let name = format!("if__{}__{k}__{which}", self.function);
            let ty = result.ty.clone();
            self.lifted.push(TFn { name: name.clone(), params: params.clone(), body: block.clone(), results: vec![ty.clone()], span: e.span.clone() });
            let call = TExpr::new(TExprKind::Call(name.clone(), args.clone()), ty, e.span.clone());
            blocks.push(TBlock { lets: Vec::new(), results: vec![call] });
            names.push(name);
        }
        let otherwise = blocks.pop().expect("two blocks");
        let then = blocks.pop().expect("two blocks");
        let node = TExpr::new(TExprKind::If(Box::new(TIf { cond: cond.clone(), then, otherwise })), e.ty.clone(), e.span.clone());
        self.b.span = e.span.clone();
        let out = self.b.bind(node);
        if let TExprKind::Var(n) = &out.kind {
            self.active.insert(n.clone());
        }
        let else_fn = names.pop().expect("two names");
        let then_fn = names.pop().expect("two names");
        self.steps.push(Step::If { then_fn, else_fn, cond, free: args, out: out.clone(), span: e.span.clone() });
        Ok(out)
    }
}

/// The backward code of a recorded `if`: the cotangents of the active names it reads, given
/// the cotangent `ct` of its value.
pub(crate) fn backward(
    d: &mut Derivs,
    tape: &mut Tape,
    fns: [&str; 2],
    cond: &TExpr,
    free: &[TExpr],
    ct: TExpr,
) -> Result<Vec<(TExpr, TExpr)>, AdError> {
    let active: Vec<usize> = (0..free.len()).filter(|&j| tape.is_active(&free[j])).collect();
    let helpers = [d.vjp_helper(fns[0], &active)?, d.vjp_helper(fns[1], &active)?];
    let tys: Vec<TensorType> = active.iter().map(|&j| free[j].ty.clone()).collect();
    let mut args = free.to_vec();
    args.push(ct);
    let mut grads = Vec::new();
    for (q, &j) in active.iter().enumerate() {
        let mut blocks = Vec::new();
        for helper in &helpers {
            let mut inner = tape.b.nested();
            let gs = call(&mut inner, helper, args.clone(), &tys);
            tape.b.resume(&inner);
            blocks.push(TBlock { lets: inner.lets, results: vec![gs[q].clone()] });
        }
        let otherwise = blocks.pop().expect("two blocks");
        let then = blocks.pop().expect("two blocks");
        let node = TExpr::new(TExprKind::If(Box::new(TIf { cond: cond.clone(), then, otherwise })), tys[q].clone(), tape.b.span.clone());
        let g = tape.b.bind(node);
        grads.push((free[j].clone(), g));
    }
    Ok(grads)
}
