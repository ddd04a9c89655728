//! The elementwise family (unary math, binary arithmetic and comparisons, `where`, casts) as
//! one parallel `linalg.generic` per node, and the parallel generic the layout and reduction
//! families build on. The element code is in `scalar.rs`.
//!
//! Operands have the result's dims (broadcasts are explicit nodes). An operand that is a
//! `Broadcast` node is not materialised: its indexing map reads the broadcast operand
//! directly (`layout::broadcast_view`), so `x + 1.0` is one loop nest, as before broadcasts
//! were explicit.

use melior::ir::Value;
use ptl_lang::ops::Op;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::typed::{TExpr, TExprKind, TProgram};
use ptl_lang::{DType, Dim, TensorType};

use super::{layout, scalar};
use crate::emitter::{Emitter, Idx, Iter, static_shape};
use crate::error::{LowerError, Result};
use crate::expr;
use crate::scope::Scope;

/// Lowers an elementwise node: `op` over `operands`, with result type `ty`.
pub fn lower<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prog: &TProgram,
    op: &Op,
    operands: &[TExpr],
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    let mut indexed = Vec::with_capacity(operands.len());
    // The shape witnesses of broadcast operands: a `?` result dim that every operand
    // stretches into takes its size from one of them.
    let mut witnesses = Vec::new();
    for x in operands {
        indexed.push(match &x.kind {
            TExprKind::Op(Op::Broadcast, args) => {
                let mut v = expr::lower(e, scope, prog, &args[0])?;
                // The witness's sizes, checked as the materialised broadcast checks them, so
                // that both paths report a contradicting size at the broadcast.
                if let Some(w) = args.get(1) {
                    let wv = expr::lower(e, scope, prog, w)?;
                    let (checked, wv) = layout::check_witness(e, v, &args[0].ty, wv, &w.ty, &x.ty, &x.span)?;
                    v = checked;
                    witnesses.push(((wv, layout::witness_map(&w.ty, &x.ty)), w.ty.dtype));
                }
                layout::broadcast_view(e, scope, v, &args[0].ty, &x.ty, &x.span)?
            }
            _ => {
                let v = expr::lower(e, scope, prog, x)?;
                (v, (0..ty.rank()).map(Idx::Loop).collect())
            }
        });
    }
    check_same_dims(e, op, operands, &indexed, &ty.dims)?;
    let mut dtypes: Vec<DType> = operands.iter().map(|x| x.ty.dtype).collect();
    // A `?` dim no operand carries (each stretches into it) is sized by a witness, an extra
    // operand the body never reads.
    for (i, d) in ty.dims.iter().enumerate() {
        let carried = |idx: &[Idx]| idx.contains(&Idx::Loop(i));
        if *d == Dim::Unknown && !indexed.iter().any(|(_, idx)| carried(idx)) {
            if let Some((w, dt)) = witnesses.iter().find(|((_, idx), _)| carried(idx)) {
                indexed.push(w.clone());
                dtypes.push(*dt);
            }
        }
    }
    let in_dt = dtypes.first().copied().unwrap_or(ty.dtype);
    let out_dt = ty.dtype;
    remap(e, scope, ty, &indexed, &dtypes, |inner, x| match op {
        Op::Unary(u) => scalar::unary(inner, *u, in_dt, x[0]),
        Op::Binary(b) => scalar::binary(inner, *b, in_dt, x[0], x[1]),
        Op::Ternary(t) => super::mathlib::ternary(inner, *t, in_dt, x[0], x[1], x[2]),
        Op::Select => scalar::select(inner, x[0], x[1], x[2]),
        Op::Cast => scalar::convert(inner, in_dt, out_dt, x[0]),
        other => Err(LowerError::Internal(format!("`{other}` is not elementwise"))),
    })
}

/// Where a result dim is `?`, the operands that carry it must have equal sizes at run time
/// (the checker could not prove it); one check per such axis and operand.
fn check_same_dims<'c, 'a>(
    e: &Emitter<'c, 'a>,
    op: &Op,
    operands: &[TExpr],
    indexed: &[(Value<'c, 'a>, Vec<Idx>)],
    dims: &[Dim],
) -> Result<()> {
    for (i, d) in dims.iter().enumerate() {
        if *d != Dim::Unknown {
            continue;
        }
        let carriers: Vec<(Value<'c, 'a>, usize)> = indexed
            .iter()
            .filter_map(|(v, idx)| idx.iter().position(|x| *x == Idx::Loop(i)).map(|axis| (*v, axis)))
            .collect();
        let Some(&(first, first_axis)) = carriers.first() else { continue };
        for &(v, axis) in &carriers[1..] {
            if let (Some(a), Some(b)) = (e.static_dim(first, first_axis), e.static_dim(v, axis))
                && a == b
            {
                continue;
            }
            let (a, b) = (e.dim_value(first, first_axis)?, e.dim_value(v, axis)?);
            let check = RuntimeCheck::SameDims {
                op: op.name().to_string(),
                axis: i,
                types: operands.iter().map(|o| o.ty.clone()).collect(),
            };
            e.check_equal(a, b, check)?;
        }
    }
    Ok(())
}

/// The run-time size of every dynamic dim of `result`, from an operand that carries the dim
/// at full size (preferring one whose size is static), else from the function's symbols.
pub fn dynamic_sizes<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    result: &[Dim],
    operands: &[(Value<'c, 'a>, Vec<Idx>)],
) -> Result<Vec<Value<'c, 'a>>> {
    let mut sizes = Vec::new();
    for (i, d) in result.iter().enumerate() {
        if matches!(d, Dim::Static(_)) {
            continue;
        }
        let carriers: Vec<(usize, usize)> = operands
            .iter()
            .enumerate()
            .filter_map(|(k, (_, idx))| idx.iter().position(|x| *x == Idx::Loop(i)).map(|axis| (k, axis)))
            .collect();
        let best = carriers.iter().find(|(k, axis)| e.static_dim(operands[*k].0, *axis).is_some()).or(carriers.first());
        let size = match (best, d) {
            (Some(&(k, axis)), _) => e.dim_value(operands[k].0, axis)?,
            (None, Dim::Symbol(s)) => scope.symbol_size(e, s)?,
            _ => return Err(LowerError::Internal(format!("no operand gives the size of result dim {i}"))),
        };
        sizes.push(size);
    }
    Ok(sizes)
}

/// A parallel `linalg.generic` over `result`'s dims with explicit operand indexings; `body`
/// gets one element per operand.
pub fn remap<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    result: &TensorType,
    operands: &[(Value<'c, 'a>, Vec<Idx>)],
    dtypes: &[DType],
    body: impl for<'b> FnOnce(&Emitter<'c, 'b>, &[Value<'c, 'b>]) -> Result<Value<'c, 'b>>,
) -> Result<Value<'c, 'a>> {
    let sizes = dynamic_sizes(e, scope, &result.dims, operands)?;
    let init = e.empty(&static_shape(&result.dims), result.dtype, &sizes)?;
    let inputs: Vec<_> = operands.iter().zip(dtypes).map(|((v, idx), dt)| (*v, idx.clone(), e.elem(*dt))).collect();
    let out_idx: Vec<Idx> = (0..result.rank()).map(Idx::Loop).collect();
    let iters = vec![Iter::Parallel; result.rank()];
    e.generic(&inputs, init, &out_idx, e.elem(result.dtype), &iters, |inner, args| body(inner, &args[..args.len() - 1]))
}
