//! PyTensor's `Scan` to one ptl `scan` expression (a `loop` when nothing is stacked).
//!
//! The node's inputs are PyTensor's outer inputs in its order: the number of steps, the
//! sequences, the initial values of the states with one tap (`sit_sot`, then the untraced
//! ones), then the non-sequences. Its `scan` field ([`ScanDesc`]) holds the inner graph: its
//! inputs (the step's element of each sequence, the states, the non-sequences), its nodes
//! (described like the outer graph's, with ids of their own) and its outputs (the next value of
//! each traced state, each per-step output (`nit_sot`), the next value of each untraced state),
//! and the ids of the node's outer outputs: a traced state's whole trace (the initial value
//! then one row per step, as PyTensor's buffer holds it), each stacked output, and each
//! untraced state's final value.
//!
//! A `while` scan's stopping condition is one more state, the ptl loop's `until`. Mapped states
//! with several taps (`mit_sot`, `mit_mot`) are refused on the Python side, naming the node.

use ptl_lang::DType;
use ptl_lang::ast::{Block, Expr, ExprKind, IndexItem, Let, LoopExpr, LoopKind};
use serde::Deserialize;

use super::desc::{Node, NpDType};
use super::error::{ImportError, Result};
use super::syntax::{SPAN, ascribe, call, ex, ident, int, var};
use super::{Builder, Val, nodes};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScanDesc {
    n_seqs: usize,
    n_sit_sot: usize,
    n_nit_sot: usize,
    n_untraced: usize,
    n_non_seqs: usize,
    inner_inputs: Vec<InnerInput>,
    nodes: Vec<Node>,
    inner_outputs: Vec<usize>,
    outputs: Vec<usize>,
    /// A `while` scan's stopping condition (a `bool` scalar of the inner graph): the loop
    /// carries it as one more state and stops `until` it holds.
    #[serde(default)]
    until: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InnerInput {
    id: usize,
    dtype: NpDType,
}

fn count(at: &str, what: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        return Ok(());
    }
    Err(ImportError::malformed(at, format!("a scan with {want} {what} has {got}")))
}

pub(super) fn convert(b: &mut Builder, node: &Node, scan: &serde_json::Value) -> Result<()> {
    let at = node.at.as_str();
    let d: ScanDesc =
        serde_json::from_value(scan.clone()).map_err(|e| ImportError::malformed(at, format!("bad scan description: {e}")))?;
    let n_states = d.n_sit_sot + d.n_untraced;
    let n_inner = d.n_seqs + n_states + d.n_non_seqs;
    count(at, "outer inputs", node.inputs.len(), 1 + n_inner)?;
    count(at, "inner inputs", d.inner_inputs.len(), n_inner)?;
    let n_out = d.n_sit_sot + d.n_nit_sot + d.n_untraced;
    count(at, "inner outputs", d.inner_outputs.len(), n_out)?;
    count(at, "outer outputs", d.outputs.len(), n_out)?;
    let steps = node.inputs[0];
    let seqs = &node.inputs[1..1 + d.n_seqs];
    let inits = &node.inputs[1 + d.n_seqs..1 + d.n_seqs + n_states];
    let non_seqs = &node.inputs[1 + d.n_seqs + n_states..];
    let state_dtypes: Vec<DType> = d.inner_inputs[d.n_seqs..d.n_seqs + n_states].iter().map(|i| i.dtype.0).collect();

    let counter = b.names.fresh("step");
    // A scan without states (a map over sequences) carries a counter of its own: a ptl loop
    // has at least one state.
    let mut state_names: Vec<String> = (0..n_states).map(|_| b.names.temp()).collect();
    let dummy = n_states == 0;
    if dummy {
        state_names.push(b.names.temp());
    }
    let stop_name = d.until.map(|_| b.names.temp());
    if let Some(s) = &stop_name {
        state_names.push(s.clone());
    }

    // The body: the inner graph, with each inner input bound to what it stands for.
    let mut inner =
        Builder { vals: b.vals.clone(), lets: Vec::new(), names: std::mem::take(&mut b.names), dim_names: b.dim_names.clone() };
    let built = (|| -> Result<Vec<Expr>> {
        for (k, input) in d.inner_inputs.iter().enumerate() {
            let dt = input.dtype.0;
            if k < d.n_seqs {
                let seq = b.operand(seqs[k], dt, at)?;
                let element = ex(ExprKind::Index(Box::new(seq), vec![IndexItem::Single(var(&counter))]));
                inner.bind(input.id, dt, element, at)?;
            } else if k < d.n_seqs + n_states {
                inner.define(input.id, Val::Var(state_names[k - d.n_seqs].clone()), dt, at)?;
            } else {
                let outer = non_seqs[k - d.n_seqs - n_states];
                let (v, have) = b.get(outer, at)?.clone();
                if have == dt {
                    inner.define(input.id, v, dt, at)?;
                } else {
                    inner.bind(input.id, dt, b.operand(outer, dt, at)?, at)?;
                }
            }
        }
        for n in &d.nodes {
            nodes::convert(&mut inner, n)?;
        }
        let outs = &d.inner_outputs;
        let (traced, rest) = outs.split_at(d.n_sit_sot);
        let (stacked, untraced) = rest.split_at(d.n_nit_sot);
        let mut results = Vec::new();
        for (k, &id) in traced.iter().chain(untraced).enumerate() {
            results.push(inner.operand(id, state_dtypes[k], at)?);
        }
        if dummy {
            results.push(var(&state_names[0]));
        }
        if let Some(id) = d.until {
            results.push(inner.operand(id, DType::Bool, at)?);
        }
        for (k, &id) in traced.iter().enumerate() {
            results.push(inner.operand(id, state_dtypes[k], at)?);
        }
        for &id in stacked {
            results.push(inner.operand(id, inner.dtype(id, at)?, at)?);
        }
        Ok(results)
    })();
    b.names = std::mem::take(&mut inner.names);
    let mut results = built?;
    let stacked_dtypes: Vec<DType> = d.inner_outputs[d.n_sit_sot..d.n_sit_sot + d.n_nit_sot]
        .iter()
        .map(|&id| inner.dtype(id, at))
        .collect::<Result<_>>()?;
    let body = Block {
        lets: std::mem::take(&mut inner.lets),
        result: if results.len() == 1 { results.remove(0) } else { ex(ExprKind::Tuple(results)) },
        span: SPAN,
    };

    let mut init: Vec<Expr> = inits.iter().zip(&state_dtypes).map(|(&id, &dt)| b.operand(id, dt, at)).collect::<Result<_>>()?;
    if dummy {
        init.push(ascribe(int(0), DType::I64, &[]));
    }
    if stop_name.is_some() {
        init.push(ex(ExprKind::Bool(false)));
    }
    let n_stacks = d.n_sit_sot + d.n_nit_sot;
    let kind = if n_stacks > 0 { LoopKind::Scan } else { LoopKind::Loop };
    let l = LoopExpr {
        kind,
        state: state_names.iter().map(|n| ident(n)).collect(),
        tuple: state_names.len() > 1,
        init: if init.len() == 1 { init.remove(0) } else { ex(ExprKind::Tuple(init)) },
        counter: ident(&counter),
        start: int(0),
        stop: b.operand(steps, DType::I64, at)?,
        body,
        until: stop_name.as_deref().map(var),
    };

    // `let (finals..., stacks...) = scan ...;`
    let finals: Vec<String> = (0..state_names.len()).map(|_| b.names.temp()).collect();
    let stacks: Vec<String> = (0..n_stacks).map(|_| b.names.temp()).collect();
    let mut all = finals.iter().chain(&stacks).map(|n| ident(n));
    let first = all.next().ok_or_else(|| ImportError::malformed(at, "a scan without values"))?;
    b.lets.push(Let { name: first, ty: None, value: ex(ExprKind::Loop(Box::new(l))), span: SPAN, rest: all.collect() });

    // The outer outputs.
    for k in 0..d.n_sit_sot {
        // PyTensor's buffer of a traced state: the initial value, then each step's.
        let dt = state_dtypes[k];
        let first = call("expand", vec![b.operand(inits[k], dt, at)?, int(0)]);
        let trace = call("concat", vec![ex(ExprKind::Array(vec![first, var(&stacks[k])])), int(0)]);
        b.bind(d.outputs[k], dt, trace, at)?;
    }
    for k in 0..d.n_nit_sot {
        b.define(d.outputs[d.n_sit_sot + k], Val::Var(stacks[d.n_sit_sot + k].clone()), stacked_dtypes[k], at)?;
    }
    for k in 0..d.n_untraced {
        let state = d.n_sit_sot + k;
        b.define(d.outputs[d.n_sit_sot + d.n_nit_sot + k], Val::Var(finals[state].clone()), state_dtypes[state], at)?;
    }
    Ok(())
}
