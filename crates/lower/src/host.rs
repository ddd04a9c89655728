//! Calls from compiled code into the runtime's host module, `ptl_host`: work that IREE
//! compiles poorly runs in an optimised host kernel instead. An f64 matrix product has no
//! IREE microkernel (IREE's own code runs it about six times slower than a BLAS), so large
//! ones call the host's.
//!
//! IREE's code for `cholesky`, `eigh`, `solve_triangular` and `solve` is a loop of vector operations,
//! tens to hundreds of times slower than LAPACK, so they always call the host's.
//!
//! A module with such calls runs only where the runtime registers `ptl_host` (ptl's own
//! runtime does, on the CPU), so the calls are made only when [`CompileOptions`] asks
//! (`host_matmul_from`, `host_linalg`), for the CPU target: [`crate::lower_program`] alone
//! never emits them.
//!
//! Each call is an IREE synchronous import: IREE waits for the operands, passes them as
//! buffer views, and takes the returned buffer view as ready.

use std::cell::RefCell;
use std::collections::BTreeMap;

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

/// The names of the host functions in [`MODULE`]. Each takes and returns buffer views; the
/// runtime exports every name these make.
pub mod names {
    /// Takes and returns nothing; fails while the runtime is asked to stop (every step of a
    /// compiled loop calls it).
    pub const CHECK_INTERRUPT: &str = "check_interrupt";

    /// Takes a rank-1 tensor of `elem` (`i8` for bools) and does nothing with it: IREE waits
    /// for the value before the call, so no work on it is in flight after the call.
    pub fn await_value(elem: &str) -> String {
        format!("await_{elem}")
    }

    /// The element types [`await_value`] is exported for.
    pub const AWAITED: [&str; 5] = ["i8", "i32", "i64", "f32", "f64"];

    /// `a @ b` of two matrices.
    pub fn matmul(dtype: &str) -> String {
        format!("matmul_{dtype}")
    }

    pub fn cholesky(dtype: &str) -> String {
        format!("cholesky_{dtype}")
    }

    /// One part of `eigh(a)`: the eigenvalues, or the eigenvectors.
    pub fn eigh(dtype: &str, vectors: bool) -> String {
        format!("eigh_{}_{dtype}", if vectors { "vectors" } else { "values" })
    }

    /// Both parts of `eigh(a)` in one `(n + 1) x n` matrix: the eigenvalues in row 0, the
    /// eigenvectors below.
    pub fn eigh_both(dtype: &str) -> String {
        format!("eigh_both_{dtype}")
    }

    /// `solve(a, b)`, `b` a vector or a matrix (one import per signature).
    pub fn solve(dtype: &str, vector: bool) -> String {
        format!("solve_{dtype}_{}", if vector { "vector" } else { "matrix" })
    }

    pub fn solve_triangular(dtype: &str, lower: bool, vector: bool) -> String {
        format!("solve_{}_{dtype}_{}", if lower { "lower" } else { "upper" }, if vector { "vector" } else { "matrix" })
    }
}

#[derive(Default)]
struct Registry {
    /// Products of at least this many multiply-adds call the host (`None`: none do).
    matmul_from: Option<u64>,
    /// Whether the factorisations and solves call the host.
    linalg: bool,
    /// The host functions the module calls, with their signatures (ranks and element type
    /// of the arguments, then of the result), to declare.
    used: BTreeMap<String, (Vec<usize>, usize, DType)>,
    /// How many loop bodies enclose the code being lowered.
    loops: usize,
    /// Whether loop steps check for a request to stop, and whether one does.
    interruptible: bool,
    polled: bool,
    /// The element types of the values awaited before a check.
    awaited: std::collections::BTreeSet<DType>,
}

thread_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry::default());
}

/// Starts a module: host calls as `options` allow (none for `None`).
pub(crate) fn begin(options: Option<&CompileOptions>) {
    let cpu = options.filter(|o| o.target == Target::Cpu);
    let matmul_from = cpu.and_then(|o| o.host_matmul_from);
    let linalg = cpu.is_some_and(|o| o.host_linalg);
    let interruptible = cpu.is_some();
    REGISTRY.with(|r| *r.borrow_mut() = Registry { matmul_from, linalg, used: BTreeMap::new(), loops: 0, interruptible, polled: false, awaited: Default::default() });
}

/// Whether calls may be made here at all: not in a checks-only twin (which keeps only the
/// size arithmetic; a call would run the work), not in a loop body (IREE 3.13 cannot compile
/// a loop that carries a host call's result from a constant initial value: "successor
/// operand type '!stream.resource<constant>' should match '!stream.resource<external>'").
fn callable_here() -> bool {
    !crate::checks::in_twin() && REGISTRY.with(|r| r.borrow().loops == 0)
}

/// Whether `cholesky`, `solve_triangular` and `solve` call the host here.
pub(crate) fn linalg() -> bool {
    callable_here() && REGISTRY.with(|r| r.borrow().linalg)
}

/// The size from which a matrix product calls the host, when it may.
pub(crate) fn matmul_from() -> Option<u64> {
    if !callable_here() {
        return None;
    }
    REGISTRY.with(|r| r.borrow().matmul_from)
}

/// While the guard lives, loops get no interrupt checks.
pub(crate) fn without_interrupts() -> InterruptGuard {
    InterruptGuard(REGISTRY.with(|r| std::mem::replace(&mut r.borrow_mut().interruptible, false)))
}

pub(crate) struct InterruptGuard(bool);

impl Drop for InterruptGuard {
    fn drop(&mut self) {
        REGISTRY.with(|r| r.borrow_mut().interruptible = self.0);
    }
}

/// Marks the code lowered while the guard lives as inside a loop body (or a branch of an
/// `if`, which joins values the same way).
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

/// At the start of a loop step: a call that stops the invocation when the runtime is asked
/// to (Ctrl-C in the REPL, `KeyboardInterrupt` in Python), where the module runs on ptl's
/// runtime. The values the loop carries (`state`, with their types) are awaited first: an
/// invocation that stops must leave no work in flight, which would go on writing into
/// memory the stopped invocation releases.
///
/// The wait at every step also keeps IREE 3.13's local-task driver from failing loops
/// ("transient buffer has not been committed; ensure the alloca signal semaphores are
/// satisfied", or a crash, seen for scans of 10 to 200,000 steps and for loops whose steps
/// run ahead of their work). It costs about 2 us a step on local-sync and about 50 us on
/// local-task (a wake-up of the calling thread); checking only every 16th step brought
/// those failures back.
pub(crate) fn check_interrupt<'c, 'a>(e: &Emitter<'c, 'a>, state: &[(Value<'c, 'a>, DType)]) -> Result<()> {
    if !REGISTRY.with(|r| r.borrow().interruptible) {
        return Ok(());
    }
    REGISTRY.with(|r| r.borrow_mut().polled = true);
    for &(v, dtype) in state {
        REGISTRY.with(|r| r.borrow_mut().awaited.insert(dtype));
        let rank = crate::emitter::static_dims(v.r#type()).len();
        // As a rank-1 tensor of all its elements: one import per element type serves every rank.
        let mut total = e.const_index(1)?;
        for axis in 0..rank {
            let n = e.dim(v, axis)?;
            total = e.append(arith::muli(total, n, e.loc))?;
        }
        let i64_ty = crate::types::element_type(e.ctx, DType::I64);
        let count = e.append(arith::index_cast(total, i64_ty, e.loc))?;
        let shape_ty = crate::types::tensor_type_with_shape_elem(e.ctx, &[1], i64_ty);
        let shape = e.append(tensor::from_elements(e.ctx, shape_ty, &[count], e.loc).into())?;
        let flat = e.append(tensor::reshape(e.ctx, awaited_type(e.ctx, dtype), v, shape, e.loc).into())?;
        let callee = FlatSymbolRefAttribute::new(e.ctx, &format!("{MODULE}.{}", names::await_value(&abi_elem(dtype))));
        e.block.append_operation(func::call(e.ctx, callee, &[flat], &[], e.loc));
    }
    let callee = FlatSymbolRefAttribute::new(e.ctx, &format!("{MODULE}.{}", names::CHECK_INTERRUPT));
    e.block.append_operation(func::call(e.ctx, callee, &[], &[], e.loc));
    Ok(())
}

/// The declarations of the host functions called since [`begin`].
pub(crate) fn declarations(ctx: &Context) -> Vec<Operation<'_>> {
    let (used, polled) = REGISTRY.with(|r| (r.borrow().used.clone(), r.borrow().polled));
    let mut out: Vec<Operation<'_>> = used
        .into_iter()
        .map(|(name, (args, result, dtype))| {
            let inputs: Vec<Type> = args.iter().map(|&rank| dynamic(ctx, rank, dtype)).collect();
            crate::module::func_op(ctx, &format!("{MODULE}.{name}"), &inputs, &[dynamic(ctx, result, dtype)], Region::new(), true)
        })
        .collect();
    if polled {
        let name = format!("{MODULE}.{}", names::CHECK_INTERRUPT);
        out.push(crate::module::func_op(ctx, &name, &[], &[], Region::new(), true));
    }
    for dtype in REGISTRY.with(|r| r.borrow().awaited.clone()) {
        let name = format!("{MODULE}.{}", names::await_value(&abi_elem(dtype)));
        out.push(crate::module::func_op(ctx, &name, &[awaited_type(ctx, dtype)], &[], Region::new(), true));
    }
    out
}

/// `tensor<?xT>` for the element type `T` a value of `dtype` has in a loop's state.
fn awaited_type(ctx: &Context, dtype: DType) -> Type<'_> {
    let elem = if dtype == DType::Bool { melior::ir::r#type::IntegerType::new(ctx, 8).into() } else { crate::types::element_type(ctx, dtype) };
    crate::types::tensor_type_with_shape_elem(ctx, &[i64::MIN as u64], elem)
}

/// The element type a value of `dtype` has in a loop's state: bools travel as `i8`.
fn abi_elem(dtype: DType) -> String {
    if dtype == DType::Bool { "i8".to_string() } else { dtype.to_string() }
}

/// A tensor type of `rank` with every dim dynamic: the host functions' signatures.
fn dynamic(ctx: &Context, rank: usize, dtype: DType) -> Type<'_> {
    tensor_type_with_shape(ctx, &vec![i64::MIN as u64; rank], dtype)
}

/// Calls host function `name` on `args` (tensors of `dtype`), for a result of type `result`
/// whose sizes are `sizes` (one per dim), which IREE is told: it would otherwise read them
/// off the returned buffer view at run time only, and cannot then place a call inlined into
/// a loop.
pub(crate) fn call<'c, 'a>(
    e: &Emitter<'c, 'a>,
    name: &str,
    args: &[Value<'c, 'a>],
    dtype: DType,
    result: Type<'c>,
    sizes: &[Value<'c, 'a>],
) -> Result<Value<'c, 'a>> {
    let ranks: Vec<usize> = args.iter().map(|a| crate::emitter::static_dims(a.r#type()).len()).collect();
    REGISTRY.with(|r| r.borrow_mut().used.insert(name.to_string(), (ranks.clone(), sizes.len(), dtype)));
    let mut cast = Vec::new();
    for (a, rank) in args.iter().zip(&ranks) {
        cast.push(to_type(e, *a, dynamic(e.ctx, *rank, dtype))?);
    }
    let callee = FlatSymbolRefAttribute::new(e.ctx, &format!("{MODULE}.{name}"));
    let out = e.append(func::call(e.ctx, callee, &cast, &[dynamic(e.ctx, sizes.len(), dtype)], e.loc))?;
    let out = crate::loops::tie_shape(e, out, sizes)?;
    to_type(e, out, result)
}

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
    let mk = e.append(arith::muli(m, k, e.loc))?;
    let work = e.append(arith::muli(mk, n, e.loc))?;
    let bound = e.const_index(from.min(i64::MAX as u64) as i64)?;
    Ok(Plan::Either(e.append(arith::cmpi(e.ctx, arith::CmpiPredicate::Uge, work, bound, e.loc))?))
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
    let sizes = [e.dim(a, 0)?, e.dim(b, 1)?];
    call(e, &names::matmul("f64"), &[a, b], DType::F64, result, &sizes)
}

/// `tensor.cast` between types of the same element type and rank (sizes already agree).
fn to_type<'c, 'a>(e: &Emitter<'c, 'a>, v: Value<'c, 'a>, to: Type<'c>) -> Result<Value<'c, 'a>> {
    if v.r#type() == to {
        return Ok(v);
    }
    e.append(tensor::cast(e.ctx, to, v, e.loc).into())
}
