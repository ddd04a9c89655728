//! Calls from compiled code into the runtime's host module, `ptl_host`: work that IREE
//! compiles poorly runs in an optimised host kernel instead. An f64 matrix product has no
//! IREE microkernel (IREE's own code runs it about six times slower than a BLAS), so large
//! ones call the host's.
//!
//! A module with such calls runs only where the runtime registers `ptl_host` (ptl's own
//! runtime does, on the CPU), so the calls are made only when [`CompileOptions::host_matmul_from`]
//! asks, for the CPU target: [`crate::lower_program`] alone never emits them.
//!
//! Each call is an IREE synchronous import: IREE waits for the operands, passes them as
//! buffer views, and takes the returned buffer view as ready.

use std::cell::RefCell;
use std::collections::BTreeSet;

use melior::Context;
use melior::dialect::ods::tensor;
use melior::dialect::{arith, func, scf};
use melior::ir::attribute::FlatSymbolRefAttribute;
use melior::ir::{Block, BlockLike, Operation, Region, RegionLike, Type, Value, ValueLike};
use ptl_lang::DType;

use crate::emitter::Emitter;
use crate::error::Result;
use crate::iree::CompileOptions;
use crate::target::Target;
use crate::types::tensor_type_with_shape;

/// The module name the runtime registers.
pub const MODULE: &str = "ptl_host";

/// The host functions, by their name in [`MODULE`]. Each takes and returns buffer views.
pub const MATMUL_F64: &str = "matmul_f64";

#[derive(Default)]
struct Registry {
    /// Products of at least this many multiply-adds call the host (`None`: none do).
    matmul_from: Option<u64>,
    /// The host functions the module calls, to declare.
    used: BTreeSet<&'static str>,
    /// How many loop bodies enclose the code being lowered.
    loops: usize,
}

thread_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry::default());
}

/// Starts a module: host calls as `options` allow (none for `None`).
pub(crate) fn begin(options: Option<&CompileOptions>) {
    let matmul_from = options.filter(|o| o.target == Target::Cpu).and_then(|o| o.host_matmul_from);
    REGISTRY.with(|r| *r.borrow_mut() = Registry { matmul_from, used: BTreeSet::new(), loops: 0 });
}

/// The size from which a matrix product calls the host, when it may.
pub(crate) fn matmul_from() -> Option<u64> {
    if crate::checks::in_twin() {
        // A checks-only twin keeps only the size arithmetic; a call would run the product.
        return None;
    }
    // IREE 3.13 cannot compile a loop that carries a host call's result from a constant
    // initial value ("successor operand type '!stream.resource<constant>' should match
    // '!stream.resource<external>'"), so loop bodies keep IREE's code.
    REGISTRY.with(|r| r.borrow().matmul_from.filter(|_| r.borrow().loops == 0))
}

/// Marks the code lowered while the guard lives as inside a loop body.
pub(crate) fn in_loop() -> LoopGuard {
    REGISTRY.with(|r| r.borrow_mut().loops += 1);
    LoopGuard
}

pub(crate) struct LoopGuard;

impl Drop for LoopGuard {
    fn drop(&mut self) {
        REGISTRY.with(|r| r.borrow_mut().loops -= 1);
    }
}

/// The declarations of the host functions called since [`begin`].
pub(crate) fn declarations(ctx: &Context) -> Vec<Operation<'_>> {
    let used = REGISTRY.with(|r| r.borrow().used.clone());
    used.into_iter()
        .map(|name| {
            let (inputs, results) = signature(ctx, name);
            crate::module::func_op(ctx, &format!("{MODULE}.{name}"), &inputs, &results, Region::new(), true)
        })
        .collect()
}

fn signature<'c>(ctx: &'c Context, name: &str) -> (Vec<Type<'c>>, Vec<Type<'c>>) {
    let matrix = tensor_type_with_shape(ctx, &[DYN, DYN], DType::F64);
    match name {
        MATMUL_F64 => (vec![matrix, matrix], vec![matrix]),
        _ => unreachable!("host function {name} has no signature"),
    }
}

const DYN: u64 = i64::MIN as u64;

/// How a product of two f64 matrices is computed.
pub(crate) enum Plan<'c, 'a> {
    Host,
    Compiled,
    /// The host when this `i1` holds, else compiled (the sizes are known only at run time).
    Either(Value<'c, 'a>),
}

/// The plan for `a @ b`: the host's kernel when `m * k * n` reaches `from`.
pub(crate) fn plan_matmul<'c, 'a>(e: &Emitter<'c, 'a>, a: Value<'c, 'a>, b: Value<'c, 'a>, from: u64) -> Result<Plan<'c, 'a>> {
    if let [Some(m), Some(k), Some(n)] = [e.static_dim(a, 0), e.static_dim(a, 1), e.static_dim(b, 1)] {
        return Ok(if m.saturating_mul(k).saturating_mul(n) >= from { Plan::Host } else { Plan::Compiled });
    }
    let (m, k, n) = (e.dim(a, 0)?, e.dim(a, 1)?, e.dim(b, 1)?);
    let mk = e.append(arith::muli(m, k, e.loc).into())?;
    let work = e.append(arith::muli(mk, n, e.loc).into())?;
    let bound = e.const_index(from.min(i64::MAX as u64) as i64)?;
    Ok(Plan::Either(e.append(arith::cmpi(e.ctx, arith::CmpiPredicate::Uge, work, bound, e.loc).into())?))
}

/// `scf.if` over two blocks that each end in an `scf.yield` of one `result`.
/// Its dynamic sizes are `dims` (one per dynamic dim of `result`, in order), which IREE is
/// told: it cannot derive them through the `scf.if` once inlined into a loop.
pub(crate) fn branch<'c, 'a>(
    e: &Emitter<'c, 'a>,
    cond: Value<'c, 'a>,
    result: Type<'c>,
    dims: &[Value<'c, 'a>],
    then_block: Block<'c>,
    else_block: Block<'c>,
) -> Result<Value<'c, 'a>> {
    let (then_region, else_region) = (Region::new(), Region::new());
    then_region.append_block(then_block);
    else_region.append_block(else_block);
    let v = e.append(scf::r#if(cond, &[result], then_region, else_region, e.loc))?;
    if dims.is_empty() { Ok(v) } else { crate::loops::tie_shape(e, v, dims) }
}

/// Ends `e`'s block with `scf.yield v`.
pub(crate) fn yield_value<'c>(e: &Emitter<'c, '_>, v: Value<'c, '_>) {
    e.block.append_operation(scf::r#yield(&[v], e.loc));
}

/// `a @ b` by the host's kernel, as `result`.
pub(crate) fn call_matmul<'c, 'a>(e: &Emitter<'c, 'a>, a: Value<'c, 'a>, b: Value<'c, 'a>, result: Type<'c>) -> Result<Value<'c, 'a>> {
    REGISTRY.with(|r| r.borrow_mut().used.insert(MATMUL_F64));
    let (inputs, results) = signature(e.ctx, MATMUL_F64);
    let a = to_type(e, a, inputs[0])?;
    let b = to_type(e, b, inputs[1])?;
    let callee = FlatSymbolRefAttribute::new(e.ctx, &format!("{MODULE}.{MATMUL_F64}"));
    let (m, n) = (e.dim(a, 0)?, e.dim(b, 1)?);
    let out = e.append(func::call(e.ctx, callee, &[a, b], &results, e.loc))?;
    // The sizes of the result, which IREE would otherwise read off the returned buffer view
    // only at run time (it cannot then place a call inlined into a loop).
    let out = crate::loops::tie_shape(e, out, &[m, n])?;
    to_type(e, out, result)
}

/// `tensor.cast` between types of the same element type and rank (sizes already agree).
fn to_type<'c, 'a>(e: &Emitter<'c, 'a>, v: Value<'c, 'a>, to: Type<'c>) -> Result<Value<'c, 'a>> {
    if v.r#type() == to {
        return Ok(v);
    }
    e.append(tensor::cast(e.ctx, to, v, e.loc).into())
}
