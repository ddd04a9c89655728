//! A function compiled for the argument shapes of one call (shape specialisation).
//!
//! The function is lowered as usual, under another name, and the exported function of the
//! entry's name takes arguments of static types, casts them to the function's own (dynamic)
//! types and calls it. IREE inlines the call and folds the casts into the kernels, which then
//! see static sizes: reductions get vector accumulators, loops lose their size arithmetic. A
//! dim the signature writes `?` keeps its barrier (see `module::lower_fn`) and stays dynamic.

use melior::{
    Context,
    dialect::{func, ods::tensor},
    ir::{
        Block, BlockLike, Location, Operation, Region, RegionLike, Type, Value,
        attribute::{FlatSymbolRefAttribute, StringAttribute, TypeAttribute},
        r#type::{FunctionType, RankedTensorType},
    },
};
use ptl_lang::typed::TFn;

use crate::error::{LowerError, Result};
use crate::types::{abi_element_type, abi_tensor_type};

/// The name the entry's own (dynamic) body has in a specialised module.
pub(crate) fn dynamic_name(entry: &str) -> String {
    format!("__ptl_dynamic_{entry}")
}

/// The exported wrapper `f.name(static args) -> dynamic results` around `dynamic_name`.
pub(crate) fn wrapper<'c>(ctx: &'c Context, f: &TFn, shapes: &[Vec<usize>]) -> Result<Operation<'c>> {
    if shapes.len() != f.params.len() {
        return Err(LowerError::Internal(format!("`{}` takes {} arguments, {} shapes given", f.name, f.params.len(), shapes.len())));
    }
    let loc = Location::unknown(ctx);
    let mut inputs: Vec<Type<'c>> = Vec::new();
    let mut dynamic: Vec<Type<'c>> = Vec::new();
    for (p, shape) in f.params.iter().zip(shapes) {
        if shape.len() != p.ty.dims.len() {
            return Err(LowerError::Internal(format!("argument `{}` has rank {}, shape {shape:?} given", p.name, p.ty.dims.len())));
        }
        let sizes: Vec<u64> = shape.iter().map(|&n| n as u64).collect();
        inputs.push(RankedTensorType::new(&sizes, abi_element_type(ctx, p.ty.dtype), None).into());
        dynamic.push(abi_tensor_type(ctx, &p.ty));
    }
    let results: Vec<Type<'c>> = f.results.iter().map(|t| abi_tensor_type(ctx, t)).collect();
    let block = Block::new(&inputs.iter().map(|t| (*t, loc)).collect::<Vec<_>>());
    let mut operands: Vec<Value> = Vec::new();
    for (i, ty) in dynamic.iter().enumerate() {
        let arg: Value = block.argument(i)?.into();
        let op = block.append_operation(tensor::cast(ctx, *ty, arg, loc).into());
        operands.push(op.result(0)?.into());
    }
    let callee = FlatSymbolRefAttribute::new(ctx, &dynamic_name(&f.name));
    let call = block.append_operation(func::call(ctx, callee, &operands, &results, loc));
    let outs: Vec<Value> = (0..results.len()).map(|i| call.result(i).map(Into::into)).collect::<std::result::Result<_, _>>()?;
    block.append_operation(func::r#return(&outs, loc));
    let region = Region::new();
    region.append_block(block);
    Ok(func::func(
        ctx,
        StringAttribute::new(ctx, &f.name),
        TypeAttribute::new(FunctionType::new(ctx, &inputs, &results).into()),
        region,
        &[],
        loc,
    ))
}
