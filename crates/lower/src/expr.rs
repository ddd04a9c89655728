//! Lowering of typed expressions: one match arm per node kind, delegating to the op families.

use melior::ir::{
    ValueLike,
    Type, Value,
    attribute::{DenseElementsAttribute, FlatSymbolRefAttribute},
};
use ptl_lang::typed::{TExpr, TExprKind, TProgram};
use ptl_lang::{Dim, TensorType, Value as Data};

use crate::abi;
use crate::elementwise::{self, expand_map, relayout, squeeze_map, transpose_map};
use crate::emitter::Emitter;
use crate::error::{LowerError, Result};
use crate::scalar;
use crate::scope::Scope;
use crate::types::{abi_tensor_type, tensor_type};
use crate::{matmul, reduce};

/// Lowers `expr`; the value has exactly the MLIR type of `expr.ty`.
pub fn lower<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    expr: &TExpr,
) -> Result<Value<'c, 'a>> {
    let ty = &expr.ty;
    let v = match &expr.kind {
        TExprKind::Literal(data) => literal(e, data)?,
        TExprKind::Var(name) => scope.lookup(name)?,
        TExprKind::Unary(op, x) => {
            let xv = lower(e, scope, prog, x)?;
            let (op, dt) = (*op, x.ty.dtype);
            elementwise::map(e, scope, ty, &[(xv, &x.ty)], |inner, a| scalar::unary(inner, op, dt, a[0]))?
        }
        TExprKind::Binary(op, a, b) => {
            let (av, bv) = (lower(e, scope, prog, a)?, lower(e, scope, prog, b)?);
            let (op, dt) = (*op, a.ty.dtype);
            elementwise::map(e, scope, ty, &[(av, &a.ty), (bv, &b.ty)], |inner, x| {
                scalar::binary(inner, op, dt, x[0], x[1])
            })?
        }
        TExprKind::Where(c, a, b) => {
            let (cv, av, bv) = (lower(e, scope, prog, c)?, lower(e, scope, prog, a)?, lower(e, scope, prog, b)?);
            elementwise::map(e, scope, ty, &[(cv, &c.ty), (av, &a.ty), (bv, &b.ty)], |inner, x| {
                inner.op1("arith.select", &[x[0], x[1], x[2]], x[1].r#type(), &[])
            })?
        }
        TExprKind::Cast(x) => {
            let xv = lower(e, scope, prog, x)?;
            let (from, to) = (x.ty.dtype, ty.dtype);
            elementwise::map(e, scope, ty, &[(xv, &x.ty)], |inner, a| scalar::convert(inner, from, to, a[0]))?
        }
        TExprKind::MatMul(a, b) => {
            let (av, bv) = (lower(e, scope, prog, a)?, lower(e, scope, prog, b)?);
            matmul::matmul(e, scope, av, &a.ty, bv, &b.ty, ty)?
        }
        TExprKind::Transpose(x, perm) => {
            let xv = lower(e, scope, prog, x)?;
            relayout(e, scope, xv, &x.ty, ty, transpose_map(perm))?
        }
        TExprKind::Broadcast(x) => {
            let xv = lower(e, scope, prog, x)?;
            elementwise::map(e, scope, ty, &[(xv, &x.ty)], |_, a| Ok(a[0]))?
        }
        TExprKind::Expand(x, axis) => {
            let xv = lower(e, scope, prog, x)?;
            relayout(e, scope, xv, &x.ty, ty, expand_map(x.ty.rank(), *axis))?
        }
        TExprKind::Squeeze(x, axis) => {
            let xv = lower(e, scope, prog, x)?;
            relayout(e, scope, xv, &x.ty, ty, squeeze_map(x.ty.rank(), *axis))?
        }
        TExprKind::Reshape(x) => {
            let xv = lower(e, scope, prog, x)?;
            reshape(e, scope, xv, &x.ty, ty)?
        }
        TExprKind::Reduce(op, x, axes) => {
            let xv = lower(e, scope, prog, x)?;
            reduce::reduce(e, scope, *op, xv, &x.ty, axes)?
        }
        TExprKind::Softmax(x, axis) | TExprKind::LogSoftmax(x, axis) => {
            let log = matches!(expr.kind, TExprKind::LogSoftmax(..));
            let xv = lower(e, scope, prog, x)?;
            reduce::softmax(e, scope, xv, &x.ty, *axis, log)?
        }
        TExprKind::Call(name, args) => {
            let mut results = call(e, scope, prog, name, args, std::slice::from_ref(ty))?;
            results.pop().ok_or_else(|| LowerError::Internal(format!("`{name}` returned nothing")))?
        }
        TExprKind::CallMulti(name, _) => {
            return Err(LowerError::Internal(format!("multi-result call of `{name}` outside print")));
        }
    };
    e.cast_tensor(v, tensor_type(e.ctx, ty))
}

/// Calls a user function through its exported signature; `result_tys` are the call site's
/// types (with the caller's dims substituted).
pub fn call<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    name: &str,
    args: &[TExpr],
    result_tys: &[TensorType],
) -> Result<Vec<Value<'c, 'a>>> {
    let callee = prog.function(name).ok_or_else(|| LowerError::Internal(format!("no function `{name}`")))?;
    let mut operands = Vec::new();
    for (arg, param) in args.iter().zip(&callee.params) {
        let v = lower(e, scope, prog, arg)?;
        let v = abi::to_abi(e, scope, v, &arg.ty)?;
        operands.push(e.cast_tensor(v, abi_tensor_type(e.ctx, &param.ty))?);
    }
    let callee_results: Vec<Type<'c>> = callee.results.iter().map(|t| abi_tensor_type(e.ctx, t)).collect();
    let op = e.op(
        "func.call",
        &operands,
        &callee_results,
        &[("callee", FlatSymbolRefAttribute::new(e.ctx, name).into())],
    )?;
    let mut out = Vec::new();
    for (i, ty) in result_tys.iter().enumerate() {
        let r: Value<'c, 'a> = op.result(i)?.into();
        let r = e.cast_tensor(r, abi_tensor_type(e.ctx, ty))?;
        out.push(abi::from_abi(e, scope, r, ty)?);
    }
    Ok(out)
}

fn literal<'c, 'a>(e: &Emitter<'c, 'a>, data: &Data) -> Result<Value<'c, 'a>> {
    let ty = tensor_type(e.ctx, &data.tensor_type());
    let attr = match data {
        Data::Bool(a) => DenseElementsAttribute::bool_values(ty, &a.iter().map(|&b| b as i32).collect::<Vec<_>>()),
        Data::I32(a) => DenseElementsAttribute::i32_values(ty, &a.iter().copied().collect::<Vec<_>>()),
        Data::I64(a) => DenseElementsAttribute::i64_values(ty, &a.iter().copied().collect::<Vec<_>>()),
        Data::F32(a) => DenseElementsAttribute::f32_values(ty, &a.iter().copied().collect::<Vec<_>>()),
        Data::F64(a) => DenseElementsAttribute::f64_values(ty, &a.iter().copied().collect::<Vec<_>>()),
    };
    e.append(melior::dialect::arith::constant(e.ctx, attr.into(), e.loc))
}

/// Row-major reshape through `tensor.reshape` with a shape computed at run time.
fn reshape<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    to: &TensorType,
) -> Result<Value<'c, 'a>> {
    let idx = e.index_type();
    // Total element count, for an unknown target dim.
    let mut total = e.const_index(1)?;
    for (i, d) in x_ty.dims.iter().enumerate() {
        let n = match d {
            Dim::Static(n) => e.const_index(*n as i64)?,
            _ => e.dim(x, i)?,
        };
        total = e.op1("arith.muli", &[total, n], idx, &[])?;
    }
    let mut known = e.const_index(1)?;
    let mut sizes: Vec<Option<Value<'c, 'a>>> = Vec::new();
    for d in &to.dims {
        let v = match d {
            Dim::Static(n) => Some(e.const_index(*n as i64)?),
            Dim::Symbol(s) => Some(scope.symbol_size(e, s)?),
            Dim::Unknown => None,
        };
        if let Some(v) = v {
            known = e.op1("arith.muli", &[known, v], idx, &[])?;
        }
        sizes.push(v);
    }
    let has_unknown = sizes.iter().any(|s| s.is_none());
    if has_unknown {
        let rem = e.op1("arith.remui", &[total, known], idx, &[])?;
        let zero = e.const_index(0)?;
        e.assert_equal(rem, zero, "`reshape`: the element count is not a multiple of the known dims")?;
    } else {
        e.assert_equal(total, known, "`reshape`: the element count changes")?;
    }
    // The shape travels as i64: index tensors may not cross IREE's dispatch boundaries.
    let i64_ty = crate::types::element_type(e.ctx, ptl_lang::DType::I64);
    let mut shape = Vec::new();
    for s in sizes {
        let v = match s {
            Some(v) => v,
            None => e.op1("arith.divui", &[total, known], idx, &[])?,
        };
        shape.push(e.op1("arith.index_cast", &[v], i64_ty, &[])?);
    }
    let shape_ty = crate::types::tensor_type_with_shape_elem(e.ctx, &[to.rank() as u64], i64_ty);
    let shape_t = e.op1("tensor.from_elements", &shape, shape_ty, &[])?;
    e.op1("tensor.reshape", &[x, shape_t], tensor_type(e.ctx, to), &[])
}

