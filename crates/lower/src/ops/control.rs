//! Control flow inside element code: a loop that runs until its body says stop (`scf.while`)
//! and a choice among algorithms that computes only the chosen one (`scf.index_switch`).
//! IREE 3.13 compiles both inside a `linalg.generic` body for the CPU.
//!
//! The bodies are built into blocks of their own; values from the enclosing element code
//! reach them through `captures` (a body sees them, in order, as its first slice).

use melior::dialect::arith;
use melior::dialect::scf;
use melior::ir::attribute::DenseI64ArrayAttribute;
use melior::ir::{Block, BlockLike, Region, RegionLike, Type, ValueLike};
use ptl_lang::DType;

use super::fbuild::{F, V};
use crate::emitter::Emitter;
use crate::error::Result;

/// Runs `step` on the state `init` until it returns `false` as its second result, or
/// `max_steps` times; returns the final state. `step` gets the captures and the state.
pub fn while_loop<'c, 'a>(
    f: F<'_, 'c, 'a>,
    captures: &[V<'c, 'a>],
    init: &[V<'c, 'a>],
    max_steps: i64,
    step: impl for<'b> Fn(F<'_, 'c, 'b>, &[V<'c, 'b>], &[V<'c, 'b>]) -> Result<(Vec<V<'c, 'b>>, V<'c, 'b>)>,
) -> Result<Vec<V<'c, 'a>>> {
    let e = f.e;
    let i64_ty = e.elem(DType::I64);
    let i1_ty = e.elem(DType::Bool);
    let state_types: Vec<Type<'c>> = init.iter().map(|v| v.r#type()).collect();
    // The loop carries (count, go, state...).
    let mut types = vec![i64_ty, i1_ty];
    types.extend(&state_types);
    let args: Vec<_> = types.iter().map(|t| (*t, e.loc)).collect();

    let before = Block::new(&args);
    {
        let inner = Emitter::new(e.ctx, &before, e.loc);
        let g = F::new(&inner);
        let count: V = before.argument(0)?.into();
        let go: V = before.argument(1)?.into();
        let room = g.ilt(count, g.i(max_steps)?)?;
        let cond = g.and(go, room)?;
        let all: Vec<V> = (0..types.len()).map(|i| before.argument(i).map(Into::into)).collect::<std::result::Result<_, _>>()?;
        before.append_operation(scf::condition(cond, &all, e.loc));
    }
    let after = Block::new(&args);
    {
        let inner = Emitter::new(e.ctx, &after, e.loc);
        let g = F::new(&inner);
        let count: V = after.argument(0)?.into();
        let state: Vec<V> = (2..types.len()).map(|i| after.argument(i).map(Into::into)).collect::<std::result::Result<_, _>>()?;
        let caps: Vec<V> = captures.to_vec();
        let (next, go) = step(g, &caps, &state)?;
        let mut out = vec![g.iadd(count, g.i(1)?)?, go];
        out.extend(next);
        after.append_operation(scf::r#yield(&out, e.loc));
    }
    let (before_region, after_region) = (Region::new(), Region::new());
    before_region.append_block(before);
    after_region.append_block(after);
    let mut inits = vec![f.i(0)?, e.const_scalar(DType::Bool, 1.0)?];
    inits.extend(init);
    let op = e.block.append_operation(scf::r#while(&inits, &types, before_region, after_region, e.loc));
    (2..types.len()).map(|i| Ok(op.result(i)?.into())).collect()
}

/// The value of case `index` (an `i64` in `0..cases`; any other value takes the last case):
/// `build` makes each case's element code, given the captures and the case number. Only the
/// chosen case runs.
pub fn switch<'c, 'a>(
    f: F<'_, 'c, 'a>,
    index: V<'c, 'a>,
    captures: &[V<'c, 'a>],
    cases: usize,
    build: impl for<'b> Fn(F<'_, 'c, 'b>, &[V<'c, 'b>], usize) -> Result<V<'c, 'b>>,
) -> Result<V<'c, 'a>> {
    let e = f.e;
    let f64_ty = e.elem(DType::F64);
    let mut regions = Vec::with_capacity(cases);
    // The default region is the last case; the others are listed.
    for case in (cases - 1..cases).chain(0..cases - 1) {
        let block = Block::new(&[]);
        {
            let inner = Emitter::new(e.ctx, &block, e.loc);
            let caps: Vec<V> = captures.to_vec();
            let v = build(F::new(&inner), &caps, case)?;
            block.append_operation(scf::r#yield(&[v], e.loc));
        }
        let region = Region::new();
        region.append_block(block);
        regions.push(region);
    }
    let listed: Vec<i64> = (0..cases as i64 - 1).collect();
    let index = e.append(arith::index_cast(index, e.index_type(), e.loc))?;
    let op = scf::index_switch(e.ctx, index, &[f64_ty], DenseI64ArrayAttribute::new(e.ctx, &listed), regions, e.loc);
    e.append(op)
}
