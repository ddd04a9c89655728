//! A whole program (or one function and what it calls) as one verified MLIR module.

use std::collections::BTreeSet;

use melior::{
    Context,
    dialect::func,
    ir::{
        Block, BlockLike, Identifier, Location, Module, Operation, Region, RegionLike, Type, Value, ValueLike,
        attribute::{StringAttribute, TypeAttribute},
        operation::OperationLike,
        r#type::FunctionType,
    },
};
use ptl_lang::typed::{TExpr, TExprKind, TFn, TProgram, TStmt};

use crate::checks::{self, CheckSite};
use crate::abi;
use crate::context::new_context;
use crate::emitter::Emitter;
use crate::error::{LowerError, Result};
use crate::expr;
use crate::host;
use crate::iree::CompileOptions;
use crate::scope::Scope;
use crate::specialize;
use crate::types::abi_tensor_type;

/// The exported function that runs a script's top-level statements and returns the printed values.
pub const SCRIPT_ENTRY: &str = "__ptl_script";

/// What a module is built for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// The top-level statements, as `SCRIPT_ENTRY`, plus every function they call.
    Script,
    /// One function, plus every function it calls.
    Function(String),
}

/// A lowered module: its text and the run-time checks its assertions name.
#[derive(Debug, Clone)]
pub struct Lowered {
    pub mlir: String,
    pub checks: Vec<CheckSite>,
}

/// Builds, verifies and prints the module for `entry`: plain MLIR that any IREE runtime runs.
pub fn lower_program(prog: &TProgram, entry: &Entry) -> Result<Lowered> {
    lower(prog, entry, None)
}

/// [`lower_program`] for ptl's own runtime compiling with `options`: large f64 matrix
/// products on the CPU call the runtime's host kernel (see [`CompileOptions::host_matmul_from`]).
pub fn lower_program_for(prog: &TProgram, entry: &Entry, options: &CompileOptions) -> Result<Lowered> {
    lower(prog, entry, Some(options))
}

fn lower(prog: &TProgram, entry: &Entry, options: Option<&CompileOptions>) -> Result<Lowered> {
    checks::begin();
    host::begin(options);
    let mlir = build(prog, entry, None);
    let checks = checks::finish();
    Ok(Lowered { mlir: mlir?, checks })
}

/// Function `name` compiled for arguments of exactly these shapes (one per parameter): the
/// exported `name` takes static types. Its results, checks and checks-only twin are those of
/// [`lower_program`] with `Entry::Function(name)`.
pub fn lower_specialized(prog: &TProgram, name: &str, shapes: &[Vec<usize>], options: &CompileOptions) -> Result<Lowered> {
    checks::begin();
    host::begin(Some(options));
    let mlir = build(prog, &Entry::Function(name.to_string()), Some(shapes));
    let mut checks = checks::finish();
    let renamed = specialize::dynamic_name(name);
    for site in &mut checks {
        if site.function.as_deref() == Some(renamed.as_str()) {
            site.function = Some(name.to_string());
        }
    }
    Ok(Lowered { mlir: mlir?, checks })
}

/// The exported function that runs only the run-time checks of `entry_name`: the same body
/// with no results, so IREE drops the computations and keeps the size arithmetic and the
/// assertions. The runtime calls it to explain a failure that IREE reported before any of
/// the program's own checks ran (IREE may order its buffer validation before them).
pub fn checks_entry(entry_name: &str) -> String {
    format!("__ptl_checks_{entry_name}")
}

fn build(prog: &TProgram, entry: &Entry, shapes: Option<&[Vec<usize>]>) -> Result<String> {
    let ctx = new_context();
    let loc = Location::unknown(&ctx);
    let module = Module::new(loc);
    let needed = reachable(prog, entry)?;
    for f in prog.fns.iter().filter(|f| needed.contains(f.name.as_str())) {
        match (entry, shapes) {
            (Entry::Function(name), Some(shapes)) if *name == f.name => {
                let mut body = f.clone();
                body.name = specialize::dynamic_name(&f.name);
                module.body().append_operation(lower_fn(&ctx, prog, &body, false)?);
                module.body().append_operation(specialize::wrapper(&ctx, f, shapes)?);
            }
            _ => {
                module.body().append_operation(lower_fn(&ctx, prog, f, false)?);
            }
        }
    }
    if *entry == Entry::Script {
        module.body().append_operation(lower_script(&ctx, prog, false)?);
    }
    // The checks-only twin of the entry, when it has checks at all, with twins of the
    // functions it calls (the same functions without barriers, see `Emitter::optimization_barrier`).
    if checks::count() > 0 {
        checks::set_twin(true);
        let twins = lower_twins(&ctx, prog, entry, &needed);
        checks::set_twin(false);
        for op in twins? {
            module.body().append_operation(op);
        }
    }
    for decl in host::declarations(&ctx) {
        module.body().append_operation(decl);
    }
    let mut module = module;
    if checks::decomposed() {
        let yes = melior::ir::attribute::BoolAttribute::new(&ctx, true).into();
        melior::ir::operation::OperationMutLike::set_discardable_attribute(&mut module.as_operation_mut(), crate::iree::WITHOUT_DATA_TILING, yes);
    }
    if !module.as_operation().verify() {
        return Err(LowerError::Verify(module.as_operation().to_string()));
    }
    Ok(module.as_operation().to_string())
}

fn lower_twins<'c>(ctx: &'c Context, prog: &TProgram, entry: &Entry, needed: &BTreeSet<&str>) -> Result<Vec<Operation<'c>>> {
    let mut ops = Vec::new();
    let entry_fn = match entry {
        Entry::Function(name) => Some(name.as_str()),
        Entry::Script => None,
    };
    for f in prog.fns.iter().filter(|f| needed.contains(f.name.as_str()) && Some(f.name.as_str()) != entry_fn) {
        ops.push(lower_fn(ctx, prog, f, false)?);
    }
    ops.push(match entry_fn {
        None => lower_script(ctx, prog, true)?,
        Some(name) => {
            let f = prog.function(name).ok_or_else(|| LowerError::Internal(format!("no function `{name}`")))?;
            lower_fn(ctx, prog, f, true)?
        }
    });
    Ok(ops)
}

/// The name of `function` in a checks-only twin's call graph.
pub(crate) fn twin_name(function: &str) -> String {
    format!("__ptl_twin_{function}")
}

/// Names of the functions `entry` needs, transitively.
fn reachable<'p>(prog: &'p TProgram, entry: &Entry) -> Result<BTreeSet<&'p str>> {
    let mut todo: Vec<&TExpr> = Vec::new();
    match entry {
        Entry::Script => {
            for s in &prog.top {
                match s {
                    TStmt::Let(l) => todo.push(&l.value),
                    TStmt::Print(es, _) => todo.extend(es.iter()),
                }
            }
        }
        Entry::Function(name) => {
            let f = prog.function(name).ok_or_else(|| LowerError::Internal(format!("no function `{name}`")))?;
            todo.push(&f.body.results[0]);
            todo.extend(f.body.results.iter().skip(1));
            todo.extend(f.body.lets.iter().map(|l| &l.value));
        }
    }
    let mut seen = BTreeSet::new();
    if let Entry::Function(name) = entry {
        if let Some(f) = prog.function(name) {
            seen.insert(f.name.as_str());
        }
    }
    while let Some(e) = todo.pop() {
        todo.extend(e.children());
        if let TExprKind::Call(name, _) | TExprKind::CallMulti(name, ..) = &e.kind {
            if let Some(f) = prog.function(name) {
                if seen.insert(f.name.as_str()) {
                    todo.extend(f.body.lets.iter().map(|l| &l.value));
                    todo.extend(f.body.results.iter());
                }
            }
        }
    }
    Ok(seen)
}

pub(crate) fn func_op<'c>(
    ctx: &'c Context,
    name: &str,
    inputs: &[Type<'c>],
    results: &[Type<'c>],
    region: Region<'c>,
    private: bool,
) -> Operation<'c> {
    let loc = Location::unknown(ctx);
    let visibility = [(Identifier::new(ctx, "sym_visibility"), StringAttribute::new(ctx, "private").into())];
    func::func(
        ctx,
        StringAttribute::new(ctx, name),
        TypeAttribute::new(FunctionType::new(ctx, inputs, results).into()),
        region,
        if private { &visibility[..] } else { &[] },
        loc,
    )
}

/// A function; with `checks_only`, its checks-only twin (see [`checks_entry`]).
fn lower_fn<'c>(ctx: &'c Context, prog: &TProgram, f: &TFn, checks_only: bool) -> Result<Operation<'c>> {
    checks::in_function(Some(&f.name));
    let loc = Location::unknown(ctx);
    let inputs: Vec<Type<'c>> = f.params.iter().map(|p| abi_tensor_type(ctx, &p.ty)).collect();
    let results: Vec<Type<'c>> =
        if checks_only { vec![] } else { f.results.iter().map(|t| abi_tensor_type(ctx, t)).collect() };
    let block = Block::new(&inputs.iter().map(|t| (*t, loc)).collect::<Vec<_>>());
    {
        let e = Emitter::new(ctx, &block, loc);
        let mut scope = Scope::new();
        for (i, p) in f.params.iter().enumerate() {
            let arg: Value = block.argument(i)?.into();
            // A `?` dim is only known when the program runs: hidden from IREE, which would
            // otherwise infer it from the ops that use it and assert that at the function's
            // boundary, before (and in place of) the program's own check.
            let arg = if p.ty.dims.contains(&ptl_lang::Dim::Unknown) { e.argument_barrier(arg)? } else { arg };
            let v = abi::from_abi(&e, &scope, arg, &p.ty)?;
            // Arguments fit the signature: the runtime checks the exported function's, and
            // each call inside the program checks its own (`expr::call`).
            for (axis, d) in p.ty.dims.iter().enumerate() {
                if let ptl_lang::Dim::Symbol(s) = d {
                    scope.bind_symbol(s, arg, axis);
                }
            }
            scope.bind(&p.name, v);
        }
        for l in &f.body.lets {
            crate::loops::bind_let(&e, &mut scope, prog, l)?;
        }
        let mut outs = Vec::new();
        for (r, ty) in f.body.results.iter().zip(&f.results) {
            let v = expr::lower(&e, &scope, prog, r)?;
            let v = abi::to_abi(&e, &scope, v, &r.ty)?;
            outs.push(e.cast_tensor(v, abi_tensor_type(ctx, ty), ty)?);
        }
        if checks_only {
            outs.clear();
        }
        block.append_operation(func::r#return(&outs, loc));
    }
    let region = Region::new();
    region.append_block(block);
    let name = match (checks_only, checks::in_twin()) {
        (true, _) => checks_entry(&f.name),
        (false, true) => twin_name(&f.name),
        (false, false) => f.name.clone(),
    };
    // A twin callee is only called by the checks entry: private, so IREE inlines it there and
    // drops the tensors it computes, instead of compiling a second, barrier-free copy of the
    // function as an export (one that IREE 3.13 could fail to partition).
    let private = !checks_only && checks::in_twin();
    Ok(func_op(ctx, &name, &inputs, &results, region, private))
}

fn lower_script<'c>(ctx: &'c Context, prog: &TProgram, checks_only: bool) -> Result<Operation<'c>> {
    checks::in_function(None);
    let loc = Location::unknown(ctx);
    let block = Block::new(&[]);
    let mut result_types = Vec::new();
    {
        let e = Emitter::new(ctx, &block, loc);
        let mut scope = Scope::new();
        let mut outs = Vec::new();
        for stmt in &prog.top {
            match stmt {
                TStmt::Let(l) => crate::loops::bind_let(&e, &mut scope, prog, l)?,
                TStmt::Print(exprs, _) => {
                    let (values, types) = print_values(&e, &scope, prog, exprs)?;
                    for (v, t) in values.into_iter().zip(types) {
                        let v = abi::to_abi(&e, &scope, v, &t)?;
                        let v = e.cast_tensor(v, abi_tensor_type(ctx, &t), &t)?;
                        result_types.push(v.r#type());
                        outs.push(v);
                    }
                }
            }
        }
        if checks_only {
            outs.clear();
            result_types.clear();
        }
        block.append_operation(func::r#return(&outs, loc));
    }
    let region = Region::new();
    region.append_block(block);
    let name = if checks_only { checks_entry(SCRIPT_ENTRY) } else { SCRIPT_ENTRY.to_string() };
    Ok(func_op(ctx, &name, &[], &result_types, region, false))
}

fn print_values<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    exprs: &[TExpr],
) -> Result<(Vec<Value<'c, 'a>>, Vec<ptl_lang::TensorType>)> {
    let mut values = Vec::new();
    let mut types = Vec::new();
    for x in exprs {
        values.extend(crate::loops::values(e, scope, prog, x)?);
        types.extend(x.result_types());
    }
    Ok((values, types))
}
