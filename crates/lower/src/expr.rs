//! Lowering of typed expressions: leaves and calls here, ops by their family (`ops`).

use melior::dialect::func;
use melior::ir::{
    BlockLike, Type, Value,
    attribute::{DenseElementsAttribute, FlatSymbolRefAttribute},
};
use ptl_lang::typed::{TExpr, TExprKind, TProgram};
use ptl_lang::{Dim, TensorType, Value as Data};

use crate::emitter::Emitter;
use crate::error::{LowerError, Result};
use crate::scope::Scope;
use crate::types::{abi_tensor_type, tensor_type};
use crate::{abi, checks, ops};
use ptl_lang::runtime::RuntimeCheck;

/// Lowers `expr`; the value has exactly the MLIR type of `expr.ty`. Run-time checks emitted
/// while lowering a node are recorded at the node's span.
pub fn lower<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    expr: &TExpr,
) -> Result<Value<'c, 'a>> {
    let ty = &expr.ty;
    let previous = checks::at(Some(expr.span.clone()));
    let v = match &expr.kind {
        TExprKind::Literal(data) => literal(e, data)?,
        TExprKind::Var(name) => scope.lookup(name)?,
        TExprKind::DimValue(name) => {
            // The size of the dimension, as an `i64` scalar (a rank-0 tensor).
            let n = scope.symbol_size(e, name)?;
            let i64_ty = crate::types::element_type(e.ctx, ptl_lang::DType::I64);
            let n = e.append(melior::dialect::arith::index_cast(n, i64_ty, e.loc))?;
            let t = crate::types::tensor_type_with_shape_elem(e.ctx, &[], i64_ty);
            e.append(melior::dialect::ods::tensor::from_elements(e.ctx, t, &[n], e.loc).into())?
        }
        TExprKind::Op(op, operands) => ops::lower(e, scope, prog, expr, op, operands)?,
        TExprKind::Call(name, args) => {
            let mut results = call(e, scope, prog, name, args, std::slice::from_ref(ty))?;
            results.pop().ok_or_else(|| LowerError::Internal(format!("`{name}` returned nothing")))?
        }
        TExprKind::Loop(l) => {
            let mut values = crate::loops::lower_loop(e, scope, prog, l)?;
            if values.len() != 1 {
                return Err(LowerError::Internal(format!("a loop giving {} values where one is expected", values.len())));
            }
            values.remove(0)
        }
        TExprKind::If(c) => crate::conditional::lower_if(e, scope, prog, c, ty)?,
        TExprKind::CallMulti(name, ..) => {
            return Err(LowerError::Internal(format!("multi-result call of `{name}` outside print")));
        }
        TExprKind::Tuple(_) => return Err(LowerError::Internal("several values where one is expected".into())),
    };
    let v = e.cast_tensor(v, tensor_type(e.ctx, ty), ty)?;
    checks::at(previous);
    Ok(v)
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
    // The sizes the call binds to the callee's dimension names: the first argument that
    // carries a name gives its size.
    let mut bound: Vec<(&str, Value<'c, 'a>)> = Vec::new();
    for (arg, param) in args.iter().zip(&callee.params) {
        let v = lower(e, scope, prog, arg)?;
        let v = abi::to_abi(e, scope, v, &arg.ty)?;
        // Each dim of a `?` argument is checked against the parameter here, in the order the
        // interpreter checks them when the call binds its parameters.
        for (axis, d) in param.ty.dims.iter().enumerate() {
            let check = || RuntimeCheck::Argument {
                function: name.to_string(),
                param: param.name.clone(),
                axis,
                expected: d.to_string(),
            };
            match d {
                Dim::Static(n) if e.static_dim(v, axis) != Some(*n) => {
                    let (have, want) = (e.dim_value(v, axis)?, e.const_index(*n as i64)?);
                    e.check_equal(have, want, check())?;
                }
                Dim::Symbol(s) => match bound.iter().find(|(b, _)| b == s) {
                    Some(&(_, size)) => {
                        let have = e.dim_value(v, axis)?;
                        e.check_equal(have, size, check())?;
                    }
                    None => bound.push((s.as_str(), e.dim_value(v, axis)?)),
                },
                _ => {}
            }
        }
        let v = e.cast_tensor(v, abi_tensor_type(e.ctx, &param.ty), &param.ty)?;
        // A static size passed where the callee declares `?` is hidden from IREE's folding:
        // once inlined, IREE would fold the size into the callee's body, and a run-time check
        // that must fail (a `?` that does not fit) would become a compile error instead of
        // the check's report.
        let specialises = arg.ty.dims.iter().zip(&param.ty.dims).any(|(ad, pd)| *pd == Dim::Unknown && *ad != Dim::Unknown);
        // A constant tensor passed to a function is hidden from IREE too: IREE 3.13 fails at
        // run time ("indirect buffer reference slot 0 is out range") on a scan that starts
        // from a constant and stacks its state beside other stacks.
        let constant = arg.ty.rank() > 0 && is_constant(v);
        operands.push(if specialises || constant { e.optimization_barrier(v)? } else { v });
    }
    let callee_results: Vec<Type<'c>> = callee.results.iter().map(|t| abi_tensor_type(e.ctx, t)).collect();
    let symbol = if checks::in_twin() { crate::module::twin_name(name) } else { name.to_string() };
    let callee_ref = FlatSymbolRefAttribute::new(e.ctx, &symbol);
    let op = e.block.append_operation(func::call(e.ctx, callee_ref, &operands, &callee_results, e.loc));
    let mut out = Vec::new();
    for (i, ty) in result_tys.iter().enumerate() {
        let r: Value<'c, 'a> = op.result(i)?.into();
        let r = e.cast_tensor(r, abi_tensor_type(e.ctx, ty), ty)?;
        out.push(abi::from_abi(e, scope, r, ty)?);
    }
    Ok(out)
}

/// Whether `v` is the result of an `arith.constant`.
fn is_constant(v: Value<'_, '_>) -> bool {
    use melior::ir::operation::OperationLike;
    melior::ir::operation::OperationResult::try_from(v)
        .is_ok_and(|r| r.owner().name().as_string_ref().as_str().is_ok_and(|n| n == "arith.constant"))
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

