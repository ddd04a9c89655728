//! The scans: `cumsum` / `cumprod` along one axis as one `linalg.generic` with an extra
//! reduction loop `j` over the axis: `out[.., i, ..] = fold over j of (j <= i ? x[.., j, ..] :
//! identity)`. The elements are combined in order of `j`, as NumPy's accumulate does; the
//! work is quadratic in the axis length.

use melior::dialect::arith::{self, CmpiPredicate};
use melior::ir::Value;
use ptl_lang::typed::BinaryOp;
use ptl_lang::{DType, TensorType};

use super::elementwise::dynamic_sizes;
use super::{scalar, slices};
use crate::emitter::{Emitter, Idx, Iter, static_shape};
use crate::error::Result;
use crate::scope::Scope;

pub fn scan<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    prod: bool,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    axis: usize,
) -> Result<Value<'c, 'a>> {
    let dt = x_ty.dtype;
    let rank = x_ty.rank();
    let out_idx: Vec<Idx> = (0..rank).map(Idx::Loop).collect();
    // x is read at the source position `j` (loop `rank`) along the axis.
    let in_idx: Vec<Idx> = (0..rank).map(|i| if i == axis { Idx::Loop(rank) } else { Idx::Loop(i) }).collect();
    let sizes = dynamic_sizes(e, scope, &x_ty.dims, &[(x, out_idx.clone())])?;
    // -0.0 is the identity of float addition (0.0 + -0.0 would lose a sign).
    let init_value = identity_of(e, prod, dt)?;
    let init = e.filled(&static_shape(&x_ty.dims), dt, &sizes, init_value)?;
    let mut iters = vec![Iter::Parallel; rank];
    iters.push(Iter::Reduction);
    let combine = if prod { BinaryOp::Mul } else { BinaryOp::Add };
    e.generic(&[(x, in_idx, e.elem(dt))], init, &out_idx, e.elem(dt), &iters, |inner, a| {
        let i = slices::loop_index(inner, axis)?;
        let j = slices::loop_index(inner, rank)?;
        let take = inner.append(arith::cmpi(inner.ctx, CmpiPredicate::Ule, j, i, inner.loc))?;
        let none = identity_of(inner, prod, dt)?;
        let v = scalar::select(inner, take, a[0], none)?;
        scalar::binary(inner, combine, dt, a[1], v)
    })
}

fn identity_of<'c, 'b>(e: &Emitter<'c, 'b>, prod: bool, dt: DType) -> Result<Value<'c, 'b>> {
    match (prod, dt.is_float()) {
        (true, _) => e.const_scalar(dt, 1.0),
        (false, true) => e.const_scalar(dt, -0.0),
        (false, false) => e.const_scalar(dt, 0.0),
    }
}
