//! Reverse mode through a `loop`: the body becomes a function of the state, the counter and
//! the names it reads (`loop__<f>__<k>` for the `k`th loop of `f`); the forward code runs it
//! as a `scan` that also stacks the state each step starts from; the backward code is a loop over the steps in
//! reverse that calls the body's derivative helper with the stacked state and carries the
//! state's cotangent, adding up the cotangents of the names the body reads.

use std::collections::HashSet;

use super::AdError;
use super::Derivs;
use super::build::Builder;
use super::tape::{Step, Tape, free_names};
use crate::ops::{Op, SliceAxis};
use crate::typed::{TBlock, TExpr, TExprKind, TFn, TLoop, TParam};
use crate::types::{DType, Dim, TensorType};

fn refuse(e: &TExpr, label: &str) -> AdError {
    AdError { span: e.span.clone(), message: "cannot differentiate through this loop".into(), label: label.into(), quiet: false }
}

impl Tape {
    /// The forward code of a loop whose values depend on an active parameter.
    pub(crate) fn active_loop(&mut self, e: &TExpr, l: &TLoop) -> Result<Vec<TExpr>, AdError> {
        if l.state.iter().any(|n| n.starts_with('%')) {
            // A loop of derivative code (its names are generated): its reverse mode does not
            // give the right values yet.
            return Err(refuse(e, "a derivative taken through this loop cannot be differentiated again"));
        }
        let m = l.state.len();
        // A scan's per-step outputs are further results of the body.
        let out_tys = l.output_types();
        if l.init.len() != m {
            return Err(refuse(e, "its initial state is a call with several results; bind them with `let` first"));
        }
        let tys = l.results[..m].to_vec();
        if tys.iter().any(|t| t.dims.contains(&Dim::Unknown)) {
            return Err(refuse(e, "its state has `?` dims, so the states of the steps cannot be kept"));
        }
        let init: Vec<TExpr> = l.init.iter().map(|x| self.atom(x)).collect::<Result<_, _>>()?;
        let start = self.atom(&l.start)?;
        let stop = self.atom(&l.stop)?;
        // The names the body reads from the enclosing scope.
        let mut read = HashSet::new();
        for x in l.body.lets.iter().map(|l| &l.value).chain(&l.body.results) {
            free_names(x, &mut read);
        }
        let bound: HashSet<&String> = l.state.iter().chain(std::iter::once(&l.counter)).collect();
        let mut free: Vec<(String, TExpr)> = read
            .into_iter()
            .filter(|n| !bound.contains(n))
            .filter_map(|n| self.lookup(&n).map(|v| (n, v)))
            .collect();
        free.sort_by(|a, b| a.0.cmp(&b.0));
        let mut params: Vec<TParam> = l.state.iter().zip(&tys).map(|(n, t)| TParam { name: n.clone(), ty: t.clone(), span: e.span.clone() }).collect();
        params.push(TParam { name: l.counter.clone(), ty: TensorType::scalar(DType::I64), span: e.span.clone() });
        params.extend(free.iter().map(|(n, v)| TParam { name: n.clone(), ty: v.ty.clone(), span: e.span.clone() }));
        // Numbered in order, so differentiating `f` again names the same loop the same way.
        let name = format!("loop__{}__{}", self.function, self.loops);
        self.loops += 1;
        let body_tys: Vec<TensorType> = tys.iter().chain(&out_tys).cloned().collect();
        self.lifted.push(TFn { name: name.clone(), params, body: l.body.clone(), results: body_tys.clone(), span: e.span.clone() });

        // A scan that runs the body and stacks the state each step starts from.
        self.b.span = e.span.clone();
        let states: Vec<TExpr> = tys.iter().map(|t| {
            let n = self.b.fresh();
            self.b.var(&n, t.clone())
        }).collect();
        let counter = self.b.fresh();
        let mut args = states.clone();
        args.push(self.b.var(&counter, TensorType::scalar(DType::I64)));
        args.extend(free.iter().map(|(_, v)| v.clone()));
        let mut inner = self.b.nested();
        let next = call(&mut inner, &name, args, &body_tys);
        self.b.resume(&inner);
        let mut results_tys = l.results.clone();
        results_tys.extend(tys.iter().map(|t| {
            let mut dims = vec![Dim::Unknown];
            dims.extend(t.dims.iter().cloned());
            TensorType::new(t.dtype, dims)
        }));
        let scan = TLoop {
            scan: true,
            state: states.iter().map(|s| name_of(s).to_string()).collect(),
            init: init.clone(),
            counter,
            start: start.clone(),
            stop: stop.clone(),
            body: TBlock { lets: inner.lets, results: next.into_iter().chain(states.iter().cloned()).collect() },
            results: results_tys.clone(),
            until: None,
        };
        let outs = self.b.bind_multi(TExpr::new(TExprKind::Loop(Box::new(scan)), results_tys[0].clone(), e.span.clone()));
        let q = out_tys.len();
        let (finals, outputs, stacked) = (outs[..m].to_vec(), outs[m..m + q].to_vec(), outs[m + q..].to_vec());
        let free: Vec<TExpr> = free.into_iter().map(|(_, v)| v).collect();
        if init.iter().chain(&free).any(|x| self.is_active(x)) {
            for f in finals.iter().chain(&outputs).filter(|f| f.ty.dtype.is_float()) {
                self.active.insert(name_of(f).to_string());
            }
            let (finals, outputs) = (finals.clone(), outputs.clone());
            self.steps.push(Step::Loop { body: name, init, free, start, stop, finals, outputs, stacked, span: e.span.clone() });
        }
        Ok(finals.into_iter().chain(outputs).collect())
    }
}

fn name_of(e: &TExpr) -> &str {
    match &e.kind {
        TExprKind::Var(n) => n,
        _ => "",
    }
}

/// A call of `f` giving `tys`, bound to names.
pub(super) fn call(b: &mut Builder, f: &str, args: Vec<TExpr>, tys: &[TensorType]) -> Vec<TExpr> {
    let span = b.span.clone();
    if tys.len() == 1 {
        vec![b.bind(TExpr::new(TExprKind::Call(f.to_string(), args), tys[0].clone(), span))]
    } else {
        b.bind_multi(TExpr::new(TExprKind::CallMulti(f.to_string(), args, tys.to_vec()), tys[0].clone(), span))
    }
}

/// The backward code of a recorded loop: the cotangents of its initial state and of the names
/// its body reads, given those of its final state.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward(
    d: &mut Derivs,
    tape: &mut Tape,
    body: &str,
    init: &[TExpr],
    free: &[TExpr],
    start: &TExpr,
    stop: &TExpr,
    finals: &[TExpr],
    outputs: &[TExpr],
    stacked: &[TExpr],
    out_cts: Vec<Option<TExpr>>,
) -> Result<Vec<(TExpr, TExpr)>, AdError> {
    let m = finals.len();
    let float_states: Vec<usize> = (0..m).filter(|&k| finals[k].ty.dtype.is_float()).collect();
    let active_free: Vec<usize> = (0..free.len()).filter(|&j| tape.is_active(&free[j])).collect();
    let mut active: Vec<usize> = float_states.clone();
    active.extend(active_free.iter().map(|j| m + 1 + j));
    let helper = d.vjp_helper(body, &active)?;
    let b = &mut tape.b;
    // The carried values: the state's cotangents, then the sums for the names read.
    let mut carried_init: Vec<TExpr> = Vec::new();
    for &k in &float_states {
        carried_init.push(match &out_cts[k] {
            Some(ct) => ct.clone(),
            None => b.zeros_like(&finals[k]),
        });
    }
    for &j in &active_free {
        carried_init.push(b.zeros_like(&free[j]));
    }
    // The cotangents of a scan's stacked outputs, read a step at a time.
    let output_cts: Vec<TExpr> = outputs
        .iter()
        .zip(&out_cts[m..])
        .map(|(o, ct)| match ct {
            Some(ct) => ct.clone(),
            None => b.zeros_like(o),
        })
        .collect();
    let carried: Vec<TExpr> = carried_init.iter().map(|c| {
        let n = b.fresh();
        b.var(&n, c.ty.clone())
    }).collect();
    let trips = b.sub(stop.clone(), start.clone());
    let j = b.fresh();
    let mut inner = b.nested();
    // Step `i = stop - 1 - j` starts from the state stacked at `i - start`.
    let one = inner.lit(DType::I64, 1.0);
    let last = inner.sub(stop.clone(), one);
    let jv = inner.var(&j, TensorType::scalar(DType::I64));
    let i = inner.sub(last, jv);
    let at = inner.sub(i.clone(), start.clone());
    let step = |inner: &mut Builder, s: &TExpr| {
        let mut axes = vec![SliceAxis::Full; s.ty.rank()];
        axes[0] = SliceAxis::Index;
        let ty = TensorType::new(s.ty.dtype, s.ty.dims[1..].to_vec());
        inner.op(Op::Slice(axes), vec![s.clone(), at.clone()], ty)
    };
    let mut args: Vec<TExpr> = stacked.iter().map(|s| step(&mut inner, s)).collect();
    let states = args.clone();
    args.push(i);
    args.extend(free.iter().cloned());
    for k in 0..m {
        args.push(match float_states.iter().position(|&f| f == k) {
            Some(p) => carried[p].clone(),
            None => inner.zeros_like(&states[k]),
        });
    }
    for ct in &output_cts {
        args.push(step(&mut inner, ct));
    }
    let tys: Vec<TensorType> = active.iter().map(|&p| if p < m { finals[p].ty.clone() } else { free[p - m - 1].ty.clone() }).collect();
    let grads = call(&mut inner, &helper, args, &tys);
    let mut next: Vec<TExpr> = grads[..float_states.len()].to_vec();
    for (q, g) in grads[float_states.len()..].iter().enumerate() {
        let acc = carried[float_states.len() + q].clone();
        next.push(inner.add(acc, g.clone()));
    }
    let next: Vec<TExpr> = next.into_iter().zip(&carried).map(|(n, c)| inner.retype(n, c.ty.dims.clone())).collect();
    b.resume(&inner);
    let zero = b.lit(DType::I64, 0.0);
    let rev = TLoop {
        scan: false,
        state: carried.iter().map(|c| name_of(c).to_string()).collect(),
        init: carried_init,
        counter: j,
        start: zero,
        stop: trips,
        body: TBlock { lets: inner.lets, results: next },
        results: carried.iter().map(|c| c.ty.clone()).collect(),
        until: None,
    };
    let first = rev.results[0].clone();
    let outs = b.bind_multi(TExpr::new(TExprKind::Loop(Box::new(rev)), first, b.span.clone()));
    let mut grads = Vec::new();
    for (p, &k) in float_states.iter().enumerate() {
        grads.push((init[k].clone(), outs[p].clone()));
    }
    for (q, &j) in active_free.iter().enumerate() {
        grads.push((free[j].clone(), outs[float_states.len() + q].clone()));
    }
    Ok(grads)
}
