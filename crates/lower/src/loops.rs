//! `loop` and `scan` as one `scf.for` over `index` with the state as tensor `iter_args`, so
//! the whole loop runs inside the compiled call: the body's dispatches sit inside the loop
//! and no step returns to the host program's caller. A scan also carries its stacks: each
//! is a `tensor.empty` with the trip count as leading dim, allocated before the loop, and
//! step `i` writes its output into row `i - start` with `tensor.insert_slice`. A trip count
//! of zero (or less: `scf.for` runs no step when `ub <= lb`) returns the initial state and
//! empty stacks.
//!
//! Two details keep IREE 3.13 able to compile every loop: bool values travel through the
//! loop as `i8` (as they do across function boundaries), and the sizes a carried value's
//! type fixes (dimension names, the stacks' trip count) are stated with
//! `flow.tensor.tie_shape` inside and after the loop.
//!
//! Also here: values of nodes that give several (a multi-result call, a multi-value loop,
//! `split`'s tuple),
//! and `let` statements that bind them.

use melior::dialect::{arith, ods::tensor, scf};
use melior::ir::{Block, BlockLike, Region, RegionLike, Type, Value, ValueLike, operation::OperationBuilder};
use ptl_lang::typed::{TExpr, TExprKind, TLet, TLoop, TProgram};
use ptl_lang::{DType, Dim};

use crate::emitter::Emitter;
use crate::error::{LowerError, Result};
use crate::expr;
use crate::ops::slices::{Pos, insert_row};
use crate::scope::Scope;
use crate::abi;
use crate::types::{abi_tensor_type, element_type, tensor_type, tensor_type_with_shape_elem};

/// Every value of `x`: one, or several for a multi-result call or loop.
pub fn values<'c, 'a>(e: &Emitter<'c, 'a>, scope: &Scope<'c, 'a>, prog: &TProgram, x: &TExpr) -> Result<Vec<Value<'c, 'a>>> {
    match &x.kind {
        TExprKind::CallMulti(name, args, tys) => expr::call(e, scope, prog, name, args, tys),
        TExprKind::Loop(l) => lower_loop(e, scope, prog, l),
        TExprKind::Tuple(items) => {
            if let [w, v] = items.as_slice()
                && let Some((w, v)) = crate::ops::linalg::lower_eigh_pair(e, scope, prog, w, v)?
            {
                return Ok(vec![w, v]);
            }
            items.iter().map(|item| expr::lower(e, scope, prog, item)).collect()
        }
        _ => Ok(vec![expr::lower(e, scope, prog, x)?]),
    }
}

/// A `let`: binds its name, or each name of a destructuring `let`.
pub fn bind_let<'c, 'a>(e: &Emitter<'c, 'a>, scope: &mut Scope<'c, 'a>, prog: &TProgram, l: &TLet) -> Result<()> {
    if l.rest.is_empty() {
        let v = expr::lower(e, scope, prog, &l.value)?;
        scope.bind(&l.name, v);
        return Ok(());
    }
    let vs = values(e, scope, prog, &l.value)?;
    if vs.len() != 1 + l.rest.len() {
        return Err(LowerError::Internal(format!("{} values for {} names", vs.len(), 1 + l.rest.len())));
    }
    for (name, v) in l.names().zip(vs) {
        scope.bind(name, v);
    }
    Ok(())
}

/// The sizes of the dynamic dims of a value of type `t` when the type determines them (static
/// dims and dimension names; `None` when a dim is `?`, or nothing is dynamic). A scan's stack
/// has the trip count as leading dim: its sizes are read from the allocated stack `stack`.
fn known_sizes<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    t: &ptl_lang::TensorType,
    stack: Option<Value<'c, 'a>>,
) -> Result<Option<Vec<Value<'c, 'a>>>> {
    let mut out = Vec::new();
    for (axis, d) in t.dims.iter().enumerate() {
        match (d, stack) {
            (Dim::Static(_), _) => {}
            (_, Some(s)) => out.push(e.dim(s, axis)?),
            (Dim::Symbol(name), None) => out.push(scope.symbol_size(e, name)?),
            (Dim::Unknown, None) => return Ok(None),
        }
    }
    Ok((!out.is_empty()).then_some(out))
}

/// IREE's `flow.tensor.tie_shape`: `value` with the sizes of its dynamic dims stated.
pub(crate) fn tie_shape<'c, 'a>(e: &Emitter<'c, 'a>, value: Value<'c, 'a>, dims: &[Value<'c, 'a>]) -> Result<Value<'c, 'a>> {
    let mut operands = vec![value];
    operands.extend(dims);
    // IREE's op, in generic form: no builder exists for it.
    let op = OperationBuilder::new("flow.tensor.tie_shape", e.loc)
        .add_operands(&operands)
        .add_results(&[value.r#type()])
        .build()?;
    e.append(op)
}

/// A loop bound as an `index`.
fn bound<'c, 'a>(e: &Emitter<'c, 'a>, scope: &Scope<'c, 'a>, prog: &TProgram, x: &TExpr) -> Result<Value<'c, 'a>> {
    let t = expr::lower(e, scope, prog, x)?;
    let v = e.append(tensor::extract(e.ctx, e.elem(DType::I64), t, &[], e.loc).into())?;
    e.append(arith::index_cast(v, e.index_type(), e.loc))
}

/// The loop's values: the final state, then (scan) the stacked outputs.
pub fn lower_loop<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    l: &TLoop,
) -> Result<Vec<Value<'c, 'a>>> {
    let n_state = l.state.len();
    let types: Vec<Type<'c>> = l.results.iter().map(|t| tensor_type(e.ctx, t)).collect();
    // Bool values travel through the loop as `i8` (as they cross function boundaries): IREE
    // 3.13 fails to partition some programs whose loops carry `i1` tensors.
    let carry_types: Vec<Type<'c>> = l.results.iter().map(|t| abi_tensor_type(e.ctx, t)).collect();
    let mut carried = Vec::new();
    for x in &l.init {
        carried.extend(values(e, scope, prog, x)?);
    }
    if carried.len() != n_state {
        return Err(LowerError::Internal(format!("{} initial values for {} state names", carried.len(), n_state)));
    }
    for (k, v) in carried.iter_mut().enumerate() {
        let t = &l.results[k];
        *v = e.cast_tensor(*v, types[k], t)?;
        *v = e.cast_tensor(abi::to_abi(e, scope, *v, t)?, carry_types[k], t)?;
        // IREE 3.13 may otherwise give the loop an initial value computed in a storage that
        // another function's result of the same module also uses: the loop then starts from
        // that result (seen for a broadcast scalar as initial state, in a module where a
        // function called before it returns a broadcast product). A loop with `until` keeps
        // the barrier in a checks-only twin too: without it, IREE 3.13's global optimisation
        // did not converge ("maximum iteration count exceeded in fixed point pipeline") on a
        // twin whose `scf.while` started from a `cumsum` (random programs, batch seed 1749).
        *v = if l.until.is_some() { e.argument_barrier(*v)? } else { e.optimization_barrier(*v)? };
    }
    let lb = bound(e, scope, prog, &l.start)?;
    let ub = bound(e, scope, prog, &l.stop)?;
    let step = e.const_index(1)?;
    if l.scan {
        // The trip count, max(ub - lb, 0), is the stacks' leading dim.
        let diff = e.append(arith::subi(ub, lb, e.loc))?;
        let zero = e.const_index(0)?;
        let trips = e.append(arith::maxsi(diff, zero, e.loc))?;
        for t in &l.results[n_state..] {
            // A leading dim the type knows statically is the trip count already.
            let mut dynamic = Vec::new();
            if !matches!(t.dims[0], Dim::Static(_)) {
                dynamic.push(trips);
            }
            for d in &t.dims[1..] {
                match d {
                    Dim::Static(_) => {}
                    Dim::Symbol(s) => dynamic.push(scope.symbol_size(e, s)?),
                    Dim::Unknown => return Err(LowerError::Internal(format!("a scan output of type {t} with an unknown dim"))),
                }
            }
            carried.push(e.append(tensor::empty(e.ctx, carry_types[carried.len()], &dynamic, e.loc).into())?);
        }
    }

    // Every value the loop carries keeps its type, so where that type names its dims (static
    // or dimension names of the signature) their sizes are known before the loop; IREE is
    // told so inside and after the loop, rather than deriving them from the loop.
    let mut sizes = Vec::new();
    for (k, t) in l.results.iter().enumerate() {
        sizes.push(known_sizes(e, scope, t, (k >= n_state).then_some(carried[k]))?);
    }

    // With `until`, an `scf.while` over the steps taken, `s` (the counter is `lb + s`), which
    // the step that meets the condition sets to `-s - 2` (negative: the loop ends, and
    // `-s - 1` steps ran). A flag of its own would be an `i1` the condition reads but no
    // step uses: IREE 3.13's canonicalizer drops it from the values the condition forwards,
    // and its stream conversion then fails on the loop's two block signatures.
    let until = l.until.as_ref();
    let i1_ty = e.elem(DType::Bool);
    let mut arg_types = vec![(e.index_type(), e.loc)];
    arg_types.extend(carry_types.iter().map(|t| (*t, e.loc)));
    let body = Block::new(&arg_types);
    {
        let _in_loop = crate::host::in_loop();
        let inner = Emitter::new(e.ctx, &body, e.loc);
        let mut state = Vec::new();
        for (k, t) in l.results.iter().enumerate() {
            state.push((body.argument(k + 1)?.into(), t.dtype));
        }
        let first: Value<'c, '_> = body.argument(0)?.into();
        let iv = if until.is_some() { inner.append(arith::addi(lb, first, e.loc))? } else { first };
        crate::host::check_interrupt(&inner, &state)?;
        let mut sc: Scope<'c, '_> = scope.clone();
        for (k, name) in l.state.iter().enumerate() {
            let v: Value<'c, '_> = body.argument(k + 1)?.into();
            // (Not in an `scf.while`: there IREE 3.13 carried a size so stated as another
            // value of the loop, and its stream conversion then failed on the loop's block
            // signatures, "region branch point has 3 operands, but region successor needs 4
            // inputs"; random programs, batch seed 1752.)
            let v = match &sizes[k] {
                Some(dims) if until.is_none() => tie_shape(&inner, v, dims)?,
                _ => v,
            };
            let v = abi::from_abi(&inner, &sc, v, &l.results[k])?;
            let v = inner.cast_tensor(v, types[k], &l.results[k])?;
            sc.bind(name, v);
        }
        // The counter as an `i64` scalar.
        let i64_ty = element_type(e.ctx, DType::I64);
        let i = inner.append(arith::index_cast(iv, i64_ty, e.loc))?;
        let scalar_ty = tensor_type_with_shape_elem(e.ctx, &[], i64_ty);
        let i = inner.append(tensor::from_elements(e.ctx, scalar_ty, &[i], e.loc).into())?;
        sc.bind(&l.counter, i);
        for b in &l.body.lets {
            bind_let(&inner, &mut sc, prog, b)?;
        }
        let mut next = Vec::new();
        for r in &l.body.results {
            next.extend(values(&inner, &sc, prog, r)?);
        }
        if next.len() != types.len() {
            return Err(LowerError::Internal(format!("a loop body gave {} values for {}", next.len(), types.len())));
        }
        // `until`: over the enclosing scope, the new state and this step's counter.
        let stop_now = match until {
            Some(c) => {
                let mut after = scope.clone();
                for (k, name) in l.state.iter().enumerate() {
                    after.bind(name, inner.cast_tensor(next[k], types[k], &l.results[k])?);
                }
                after.bind(&l.counter, i);
                let flag = expr::lower(&inner, &after, prog, c)?;
                Some(inner.append(tensor::extract(e.ctx, i1_ty, flag, &[], e.loc).into())?)
            }
            None => None,
        };
        for (k, v) in next.iter_mut().enumerate().take(n_state) {
            let t = &l.results[k];
            *v = inner.cast_tensor(*v, types[k], t)?;
            *v = inner.cast_tensor(abi::to_abi(&inner, &sc, *v, t)?, carry_types[k], t)?;
        }
        if l.scan {
            let row = if until.is_some() { first } else { inner.append(arith::subi(iv, lb, e.loc))? };
            let outputs = l.output_types();
            for (k, out_ty) in outputs.iter().enumerate() {
                let out = inner.cast_tensor(next[n_state + k], tensor_type(e.ctx, out_ty), out_ty)?;
                let out = abi::to_abi(&inner, &sc, out, out_ty)?;
                // IREE 3.13 gave wrong stacks when a step's output is the state the step starts
                // from (as the forward code of a derivative through a loop stacks it) and the
                // trip count is known only at run time: the rows came out as the final state
                // and the other stacks. Behind a barrier, each row is written from a value of
                // its own. (A barrier on every output breaks other scans at run time.)
                let carried = l.body.results.get(n_state + k).is_some_and(|r| matches!(&r.kind, TExprKind::Var(v) if l.state.contains(v)));
                let out = if carried { inner.optimization_barrier(out)? } else { out };
                let stack: Value<'c, '_> = body.argument(1 + n_state + k)?.into();
                next[n_state + k] = insert_row(&inner, out, stack, Pos::Dynamic(row))?;
            }
        }
        match stop_now {
            Some(flag) => {
                let on = inner.append(arith::addi(first, step, e.loc))?;
                let two = inner.const_index(2)?;
                let zero = inner.const_index(0)?;
                let neg = inner.append(arith::subi(zero, first, e.loc))?;
                let ended = inner.append(arith::subi(neg, two, e.loc))?;
                let mut yielded = vec![inner.append(arith::select(flag, ended, on, e.loc))?];
                yielded.extend(&next);
                body.append_operation(scf::r#yield(&yielded, e.loc));
            }
            None => {
                body.append_operation(scf::r#yield(&next, e.loc));
            }
        }
    }
    let region = Region::new();
    region.append_block(body);
    // The results: the carried values (after the counter, in an `scf.while`).
    let (op, first) = if until.is_some() {
        // Before each step: `0 <= s < trips` (the condition not met yet, steps left).
        let diff = e.append(arith::subi(ub, lb, e.loc))?;
        let trips = e.append(arith::maxsi(diff, e.const_index(0)?, e.loc))?;
        let before = Block::new(&arg_types);
        {
            let inner = Emitter::new(e.ctx, &before, e.loc);
            let s: Value<'c, '_> = before.argument(0)?.into();
            let zero = inner.const_index(0)?;
            let room = inner.append(arith::cmpi(e.ctx, arith::CmpiPredicate::Slt, s, trips, e.loc))?;
            let going = inner.append(arith::cmpi(e.ctx, arith::CmpiPredicate::Sge, s, zero, e.loc))?;
            let go = inner.append(arith::andi(room, going, e.loc))?;
            let all: Vec<Value<'c, '_>> = (0..arg_types.len()).map(|k| before.argument(k).map(Into::into)).collect::<std::result::Result<_, _>>()?;
            before.append_operation(scf::condition(go, &all, e.loc));
        }
        let before_region = Region::new();
        before_region.append_block(before);
        let mut inits = vec![e.const_index(0)?];
        inits.extend(&carried);
        let all_types: Vec<Type<'c>> = arg_types.iter().map(|(t, _)| *t).collect();
        (e.block.append_operation(scf::r#while(&inits, &all_types, before_region, region, e.loc)), 1)
    } else {
        let mut operands = vec![lb, ub, step];
        operands.extend(&carried);
        let op = OperationBuilder::new("scf.for", e.loc)
            .add_operands(&operands)
            .add_results(&carry_types)
            .add_regions([region])
            .build()?;
        (e.block.append_operation(op), 0)
    };
    // A scan that stopped early keeps the rows of the steps it ran: `s`, or `-s - 1`.
    let rows = if until.is_some() && l.scan {
        let s: Value<'c, 'a> = op.result(0)?.into();
        let zero = e.const_index(0)?;
        let one = e.const_index(1)?;
        let ended = e.append(arith::cmpi(e.ctx, arith::CmpiPredicate::Slt, s, zero, e.loc))?;
        let neg = e.append(arith::subi(zero, s, e.loc))?;
        let ran = e.append(arith::subi(neg, one, e.loc))?;
        Some(e.append(arith::select(ended, ran, s, e.loc))?)
    } else {
        None
    };
    let mut out = Vec::new();
    for k in 0..types.len() {
        let v: Value<'c, 'a> = op.result(first + k)?.into();
        let v = match &sizes[k] {
            Some(dims) => tie_shape(e, v, dims)?,
            None => v,
        };
        let v = match rows {
            Some(n) if k >= n_state => first_rows(e, v, &l.results[k], n)?,
            _ => v,
        };
        let v = abi::from_abi(e, scope, v, &l.results[k])?;
        out.push(e.cast_tensor(v, types[k], &l.results[k])?);
    }
    Ok(out)
}

/// The first `n` rows of a stack of type `t` (in its carried form).
fn first_rows<'c, 'a>(e: &Emitter<'c, 'a>, stack: Value<'c, 'a>, t: &ptl_lang::TensorType, n: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    let mut sizes = vec![Pos::Dynamic(n)];
    sizes.extend(crate::ops::slices::sizes_of(e, stack)?.into_iter().skip(1).take(t.rank() - 1));
    crate::ops::slices::extract_front(e, stack, &sizes, stack.r#type())
}
