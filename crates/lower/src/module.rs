//! A whole program (or one function and what it calls) as one verified MLIR module.

use std::collections::BTreeSet;

use melior::{
    Context,
    dialect::func,
    ir::{
        Block, BlockLike, Location, Module, Operation, Region, RegionLike, Type, Value, ValueLike,
        attribute::{StringAttribute, TypeAttribute},
        operation::OperationLike,
        r#type::FunctionType,
    },
};
use ptl_lang::typed::{TExpr, TExprKind, TFn, TProgram, TStmt};

use crate::abi;
use crate::context::new_context;
use crate::emitter::Emitter;
use crate::error::{LowerError, Result};
use crate::expr;
use crate::scope::Scope;
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

/// Builds, verifies and prints the module for `entry`.
pub fn lower_program(prog: &TProgram, entry: &Entry) -> Result<String> {
    let ctx = new_context();
    let loc = Location::unknown(&ctx);
    let module = Module::new(loc);
    let needed = reachable(prog, entry)?;
    for f in prog.fns.iter().filter(|f| needed.contains(f.name.as_str())) {
        module.body().append_operation(lower_fn(&ctx, prog, f)?);
    }
    if *entry == Entry::Script {
        module.body().append_operation(lower_script(&ctx, prog)?);
    }
    if !module.as_operation().verify() {
        return Err(LowerError::Verify(module.as_operation().to_string()));
    }
    Ok(module.as_operation().to_string())
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
        if let TExprKind::Call(name, _) | TExprKind::CallMulti(name, _) = &e.kind {
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

fn func_op<'c>(
    ctx: &'c Context,
    name: &str,
    inputs: &[Type<'c>],
    results: &[Type<'c>],
    region: Region<'c>,
) -> Operation<'c> {
    let loc = Location::unknown(ctx);
    func::func(
        ctx,
        StringAttribute::new(ctx, name),
        TypeAttribute::new(FunctionType::new(ctx, inputs, results).into()),
        region,
        &[],
        loc,
    )
}

fn lower_fn<'c>(ctx: &'c Context, prog: &TProgram, f: &TFn) -> Result<Operation<'c>> {
    let loc = Location::unknown(ctx);
    let inputs: Vec<Type<'c>> = f.params.iter().map(|p| abi_tensor_type(ctx, &p.ty)).collect();
    let results: Vec<Type<'c>> = f.results.iter().map(|t| abi_tensor_type(ctx, t)).collect();
    let block = Block::new(&inputs.iter().map(|t| (*t, loc)).collect::<Vec<_>>());
    {
        let e = Emitter::new(ctx, &block, loc);
        let mut scope = Scope::new();
        for (i, p) in f.params.iter().enumerate() {
            let arg: Value = block.argument(i)?.into();
            let v = abi::from_abi(&e, &scope, arg, &p.ty)?;
            for (axis, d) in p.ty.dims.iter().enumerate() {
                if let ptl_lang::Dim::Symbol(s) = d {
                    // Every use of a symbol is the same size; callers inside the program may pass `?`.
                    if let Some(first) = scope.symbol_size_if_bound(&e, s)? {
                        let here = e.dim(arg, axis)?;
                        e.assert_equal(here, first, &format!("`{}`: argument `{}` dim {axis} must equal `{s}`", f.name, p.name))?;
                    }
                    scope.bind_symbol(s, arg, axis);
                }
            }
            scope.bind(&p.name, v);
        }
        for l in &f.body.lets {
            let v = expr::lower(&e, &scope, prog, &l.value)?;
            scope.bind(&l.name, v);
        }
        let mut outs = Vec::new();
        for (r, ty) in f.body.results.iter().zip(&f.results) {
            let v = expr::lower(&e, &scope, prog, r)?;
            let v = abi::to_abi(&e, &scope, v, &r.ty)?;
            outs.push(e.cast_tensor(v, abi_tensor_type(ctx, ty))?);
        }
        e.op("func.return", &outs, &[], &[])?;
    }
    let region = Region::new();
    region.append_block(block);
    Ok(func_op(ctx, &f.name, &inputs, &results, region))
}

fn lower_script<'c>(ctx: &'c Context, prog: &TProgram) -> Result<Operation<'c>> {
    let loc = Location::unknown(ctx);
    let block = Block::new(&[]);
    let mut result_types = Vec::new();
    {
        let e = Emitter::new(ctx, &block, loc);
        let mut scope = Scope::new();
        let mut outs = Vec::new();
        for stmt in &prog.top {
            match stmt {
                TStmt::Let(l) => {
                    let v = expr::lower(&e, &scope, prog, &l.value)?;
                    scope.bind(&l.name, v);
                }
                TStmt::Print(exprs, _) => {
                    let (values, types) = print_values(&e, &scope, prog, exprs)?;
                    for (v, t) in values.into_iter().zip(types) {
                        let v = abi::to_abi(&e, &scope, v, &t)?;
                        let v = e.cast_tensor(v, abi_tensor_type(ctx, &t))?;
                        result_types.push(v.r#type());
                        outs.push(v);
                    }
                }
            }
        }
        e.op("func.return", &outs, &[], &[])?;
    }
    let region = Region::new();
    region.append_block(block);
    Ok(func_op(ctx, SCRIPT_ENTRY, &[], &result_types, region))
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
        if let TExprKind::CallMulti(name, args) = &x.kind {
            let callee = prog.function(name).ok_or_else(|| LowerError::Internal(format!("no function `{name}`")))?;
            // The call site's result types: the callee's, with dims as the checker resolved them
            // for the first result; the rest keep the callee's declared dims.
            let mut tys = callee.results.clone();
            tys[0] = x.ty.clone();
            values.extend(expr::call(e, scope, prog, name, args, &tys)?);
            types.extend(tys);
        } else {
            values.push(expr::lower(e, scope, prog, x)?);
            types.push(x.ty.clone());
        }
    }
    Ok((values, types))
}
