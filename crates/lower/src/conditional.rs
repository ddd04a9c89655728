//! `if cond { a } else { b }` as one `scf.if` on the condition's element: only the chosen
//! block's code runs. Each block yields its value cast to the node's type (a static dim
//! becomes `?` where the two blocks' dims differ). As in loops, a bool value crosses the
//! join as `i8`, and no host call is made inside a block (IREE 3.13 cannot join a host
//! call's result with a value of another storage).
//!
//! In a checks-only twin, a block holds no check, no barrier and no interrupt point of a
//! loop: IREE 3.13 fails to compile a twin ("maximum iteration count exceeded in fixed point
//! pipeline", found by the random programs, batch seeds 1698 to 1725) whose `if` is not used
//! by what the twin returns (nothing) and whose blocks hold such side effects. The twin then
//! computes a block's value only where a later check needs it, and a check inside a block is
//! made by the function itself (the twin explains failures IREE reports before any check of
//! the program runs).

use melior::dialect::{ods::tensor, scf};
use melior::ir::{Block, BlockLike, Region, RegionLike, Value};
use ptl_lang::typed::{TBlock, TIf, TProgram};
use ptl_lang::{DType, TensorType};

use crate::abi;
use crate::emitter::Emitter;
use crate::error::{LowerError, Result};
use crate::expr;
use crate::loops::bind_let;
use crate::scope::Scope;
use crate::types::{abi_tensor_type, tensor_type};

/// Lowers one block into `block`, ending it with the `scf.yield` of its value.
fn branch<'c, 'a>(e: &Emitter<'c, 'a>, scope: &Scope<'c, 'a>, prog: &TProgram, b: &TBlock, ty: &TensorType, block: &Block<'c>) -> Result<()> {
    let _no_host_calls = crate::host::in_loop();
    let _no_interrupts_in_twins = crate::checks::in_twin().then(crate::host::without_interrupts);
    let _no_checks_in_twins = crate::checks::in_twin().then(crate::checks::in_twin_block);
    let inner = Emitter::new(e.ctx, block, e.loc);
    let mut sc: Scope<'c, '_> = scope.clone();
    for l in &b.lets {
        bind_let(&inner, &mut sc, prog, l)?;
    }
    let [result] = b.results.as_slice() else {
        return Err(LowerError::Internal(format!("an `if` block giving {} values", b.results.len())));
    };
    let v = expr::lower(&inner, &sc, prog, result)?;
    let v = inner.cast_tensor(v, tensor_type(e.ctx, ty), ty)?;
    let v = inner.cast_tensor(abi::to_abi(&inner, &sc, v, ty)?, abi_tensor_type(e.ctx, ty), ty)?;
    block.append_operation(scf::r#yield(&[v], e.loc));
    Ok(())
}

pub fn lower_if<'c, 'a>(e: &Emitter<'c, 'a>, scope: &Scope<'c, 'a>, prog: &TProgram, c: &TIf, ty: &TensorType) -> Result<Value<'c, 'a>> {
    let cond = expr::lower(e, scope, prog, &c.cond)?;
    let cond = e.append(tensor::extract(e.ctx, e.elem(DType::Bool), cond, &[], e.loc).into())?;
    let (then_block, else_block) = (Block::new(&[]), Block::new(&[]));
    branch(e, scope, prog, &c.then, ty, &then_block)?;
    branch(e, scope, prog, &c.otherwise, ty, &else_block)?;
    let (then_region, else_region) = (Region::new(), Region::new());
    then_region.append_block(then_block);
    else_region.append_block(else_block);
    let v = e.append(scf::r#if(cond, &[abi_tensor_type(e.ctx, ty)], then_region, else_region, e.loc))?;
    let v = abi::from_abi(e, scope, v, ty)?;
    e.cast_tensor(v, tensor_type(e.ctx, ty), ty)
}
