//! Joining: `concat` (and `stack`, which the checker writes as `concat` of expanded operands)
//! as a `tensor.empty` of the result's size filled by one `tensor.insert_slice` per operand.
//! The sizes off the joining axis are checked first, so no slice reaches past the result.
//! `split`'s parts are `tensor.extract_slice`s of a static window along the axis, after the
//! check that the axis has the size the parts add up to.

use melior::dialect::arith;
use melior::ir::Value;
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::{Dim, TensorType};

use super::slices::{self, Pos};
use crate::emitter::{Emitter, static_shape};
use crate::error::{LowerError, Result};
use crate::types::tensor_type_with_shape;

pub fn concat<'c, 'a>(
    e: &Emitter<'c, 'a>,
    operands: &[(Value<'c, 'a>, &TensorType)],
    axis: usize,
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    if operands.is_empty() {
        return Err(LowerError::Internal("`concat` of nothing".into()));
    }
    let types: Vec<TensorType> = operands.iter().map(|(_, t)| (*t).clone()).collect();
    let check = |i: usize| RuntimeCheck::Join { axis: i, types: types.clone() };
    // Off the axis, every operand must have the result's size where that is static, else
    // the first operand's: checked axis by axis, in the interpreter's order.
    let mut dynamic = Vec::new();
    for (i, d) in ty.dims.iter().enumerate() {
        if i == axis {
            continue;
        }
        let (reference, known) = match d {
            Dim::Static(n) => (e.const_index(*n as i64)?, Some(*n)),
            _ => (e.dim_value(operands[0].0, i)?, e.static_dim(operands[0].0, i)),
        };
        for (k, &(v, _)) in operands.iter().enumerate() {
            let is_reference = k == 0 && !matches!(d, Dim::Static(_));
            if is_reference || (known.is_some() && e.static_dim(v, i) == known) {
                continue;
            }
            let size = e.dim_value(v, i)?;
            e.check_equal(size, reference, check(i))?;
        }
        if !matches!(d, Dim::Static(_)) {
            dynamic.push((i, reference));
        }
    }
    // Then an operand takes the result's static sizes off the axis, so that each slice's
    // type agrees with the result's.
    let mut cast = Vec::with_capacity(operands.len());
    for &(v, t) in operands {
        let shape: Vec<u64> = static_shape(&ty.dims)
            .into_iter()
            .enumerate()
            .map(|(i, d)| if i == axis || d == i64::MIN as u64 { e.static_dim(v, i).unwrap_or(i64::MIN as u64) } else { d })
            .collect();
        let to = tensor_type_with_shape(e.ctx, &shape, t.dtype);
        cast.push(e.cast_tensor_checked(v, to, check)?);
    }
    let operands = cast;
    let first = operands[0];
    // IREE may run the copies before a failed check stops the call, so each operand is first
    // cut to the result's sizes off the axis: a mismatch can then never write out of bounds.
    let mut clamped = vec![first];
    for &v in &operands[1..] {
        let mut sizes = Vec::with_capacity(ty.rank());
        let mut shape = Vec::with_capacity(ty.rank());
        let mut cut = false;
        for i in 0..ty.rank() {
            let reference = dynamic.iter().find(|(j, _)| *j == i).map(|(_, r)| *r);
            let same = e.static_dim(v, i).is_some() && e.static_dim(v, i) == e.static_dim(first, i);
            match (e.static_dim(v, i), reference) {
                (_, Some(r)) if i != axis && !same => {
                    let size = e.dim_value(v, i)?;
                    sizes.push(Pos::Dynamic(e.append(arith::minsi(size, r, e.loc))?));
                    shape.push(i64::MIN as u64);
                    cut = true;
                }
                (Some(n), _) => {
                    sizes.push(Pos::Static(n as i64));
                    shape.push(n);
                }
                (None, _) => {
                    sizes.push(Pos::Dynamic(e.dim(v, i)?));
                    shape.push(i64::MIN as u64);
                }
            }
        }
        clamped.push(if cut {
            let to = tensor_type_with_shape(e.ctx, &shape, ty.dtype);
            slices::extract_front(e, v, &sizes, to)?
        } else {
            v
        });
    }
    let operands = clamped;
    // The offset of each operand along the axis, and the total.
    let mut offsets: Vec<Pos<'c, 'a>> = Vec::new();
    let mut at = Pos::Static(0);
    for &v in &operands {
        offsets.push(at);
        at = match (at, e.static_dim(v, axis)) {
            (Pos::Static(a), Some(n)) => Pos::Static(a + n as i64),
            (a, _) => {
                let a = match a {
                    Pos::Static(a) => e.const_index(a)?,
                    Pos::Dynamic(a) => a,
                };
                let n = e.dim_value(v, axis)?;
                Pos::Dynamic(e.append(arith::addi(a, n, e.loc))?)
            }
        };
    }
    if !matches!(ty.dims[axis], Dim::Static(_)) {
        let total = match at {
            Pos::Static(n) => e.const_index(n)?,
            Pos::Dynamic(v) => v,
        };
        dynamic.push((axis, total));
    }
    dynamic.sort_by_key(|(i, _)| *i);
    let sizes: Vec<Value<'c, 'a>> = dynamic.into_iter().map(|(_, v)| v).collect();
    let mut out = e.empty(&static_shape(&ty.dims), ty.dtype, &sizes)?;
    for (&v, off) in operands.iter().zip(offsets) {
        let position: Vec<Pos<'c, 'a>> = (0..ty.rank()).map(|i| if i == axis { off } else { Pos::Static(0) }).collect();
        out = slices::insert_slice(e, v, out, &position)?;
    }
    Ok(out)
}

/// One part of `split`: `len` elements of `x` from `start` along `axis`, of type `ty`. The axis
/// must have `total` elements: checked here where its size is not static (the checker
/// compared static sizes).
#[allow(clippy::too_many_arguments)]
pub fn split_part<'c, 'a>(
    e: &Emitter<'c, 'a>,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    axis: usize,
    start: u64,
    len: u64,
    total: u64,
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    if axis >= x_ty.rank() {
        return Err(LowerError::Internal(format!("`split` along axis {axis} of `{x_ty}`")));
    }
    // An empty part starts at 0: MLIR rejects a static offset at the end of the axis.
    let start = if len == 0 { 0 } else { start };
    let mut offsets = vec![Pos::Static(0); x_ty.rank()];
    let mut sizes = slices::sizes_of(e, x)?;
    let shape = static_shape(&ty.dims);
    if matches!(x_ty.dims[axis], Dim::Static(_)) {
        offsets[axis] = Pos::Static(start as i64);
        sizes[axis] = Pos::Static(len as i64);
        return slices::extract_window(e, x, &offsets, &sizes, tensor_type_with_shape(e.ctx, &shape, ty.dtype));
    }
    let size = e.dim_value(x, axis)?;
    let want = e.const_index(total as i64)?;
    e.check_equal(size, want, RuntimeCheck::Split { ty: x_ty.clone(), axis, total })?;
    // The window is clamped to the axis, so that a program whose check fails (with constant
    // sizes IREE sees at compile time) reads nothing out of bounds and still compiles.
    let first = e.append(arith::minui(e.const_index(start as i64)?, size, e.loc))?;
    let room = e.append(arith::subi(size, first, e.loc))?;
    let count = e.append(arith::minui(e.const_index(len as i64)?, room, e.loc))?;
    offsets[axis] = Pos::Dynamic(first);
    sizes[axis] = Pos::Dynamic(count);
    let mut open = shape.clone();
    open[axis] = crate::types::DYNAMIC;
    let window = slices::extract_window(e, x, &offsets, &sizes, tensor_type_with_shape(e.ctx, &open, ty.dtype))?;
    // Behind a barrier, so that the static type below is not folded back into the window.
    let window = e.optimization_barrier(window)?;
    e.cast_tensor_checked(window, tensor_type_with_shape(e.ctx, &shape, ty.dtype), |_| RuntimeCheck::Split {
        ty: x_ty.clone(),
        axis,
        total,
    })
}
