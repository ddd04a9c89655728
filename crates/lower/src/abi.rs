//! The function boundary: bool tensors travel as `i8` (0/1) and become `i1` inside.

use melior::dialect::{arith, ods::tensor};
use melior::ir::{Value, attribute::IntegerAttribute, r#type::IntegerType};
use ptl_lang::{DType, TensorType};

use crate::ops::elementwise::dynamic_sizes;
use crate::emitter::{Emitter, Idx, Iter, static_shape};
use crate::error::Result;
use crate::scope::Scope;
use crate::types::tensor_type_with_shape_elem;

/// Converts a value from its boundary form to its in-body form.
pub fn from_abi<'c, 'a>(e: &Emitter<'c, 'a>, scope: &Scope<'c, 'a>, v: Value<'c, 'a>, ty: &TensorType) -> Result<Value<'c, 'a>> {
    if ty.dtype != DType::Bool {
        return Ok(v);
    }
    let i8t = IntegerType::new(e.ctx, 8).into();
    convert_elements(e, scope, v, ty, i8t, e.i1(), |inner, x| {
        let zero = inner.append(arith::constant(inner.ctx, IntegerAttribute::new(i8t, 0).into(), inner.loc))?;
        inner.append(arith::cmpi(inner.ctx, arith::CmpiPredicate::Ne, x, zero, inner.loc))
    })
}

/// Converts a value from its in-body form to its boundary form.
pub fn to_abi<'c, 'a>(e: &Emitter<'c, 'a>, scope: &Scope<'c, 'a>, v: Value<'c, 'a>, ty: &TensorType) -> Result<Value<'c, 'a>> {
    if ty.dtype != DType::Bool {
        return Ok(v);
    }
    let i8t = IntegerType::new(e.ctx, 8).into();
    convert_elements(e, scope, v, ty, e.i1(), i8t, |inner, x| inner.append(arith::extui(x, i8t, inner.loc)))
}

fn convert_elements<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    v: Value<'c, 'a>,
    ty: &TensorType,
    from: melior::ir::Type<'c>,
    to: melior::ir::Type<'c>,
    body: impl for<'b> FnOnce(&Emitter<'c, 'b>, Value<'c, 'b>) -> Result<Value<'c, 'b>>,
) -> Result<Value<'c, 'a>> {
    let idx: Vec<Idx> = (0..ty.rank()).map(Idx::Loop).collect();
    let sizes = dynamic_sizes(e, scope, &ty.dims, &[(v, idx.clone())])?;
    let out_ty = tensor_type_with_shape_elem(e.ctx, &static_shape(&ty.dims), to);
    let init = e.append(tensor::empty(e.ctx, out_ty, &sizes, e.loc).into())?;
    let iters = vec![Iter::Parallel; ty.rank()];
    e.generic(&[(v, idx.clone(), from)], init, &idx, to, &iters, |inner, args| body(inner, args[0]))
}
