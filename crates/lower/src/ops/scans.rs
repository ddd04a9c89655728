//! The ops along one axis. The scans, `cumsum` / `cumprod`, are one `linalg.generic` with an extra
//! reduction loop `j` over the axis: `out[.., i, ..] = fold over j of (j <= i ? x[.., j, ..] :
//! identity)`. The elements are combined in order of `j`, as NumPy's accumulate does; the
//! work is quadratic in the axis length.

use melior::dialect::arith::{self, CmpfPredicate, CmpiPredicate};
use melior::ir::r#type::IntegerType;
use melior::ir::{Type, Value};
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

/// `sort` / `argsort` along `axis`, as two `linalg.generic`s with a reduction loop over the
/// axis (quadratic in its length, as the scans). First each element's rank: how many
/// elements of its lane come before it, ordering by value (NaN after every number) and equal
/// values by position, so the order is NumPy's stable one. Then position `k` of the result
/// takes the element (`sort`) or the position (`argsort`) whose rank is `k`. IREE's own sort
/// op is not used: IREE 3.13 sorts its operands in place even where they have other uses
/// (iree-org/iree#24665), and cannot compile it for `?` sizes (iree-org/iree#24735).
pub fn sort<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    axis: usize,
    arg: bool,
) -> Result<Value<'c, 'a>> {
    let dt = x_ty.dtype;
    let rank = x_ty.rank();
    let out_idx: Vec<Idx> = (0..rank).map(Idx::Loop).collect();
    // Loop `rank` runs over the axis a second time: `j` beside the output's `i`.
    let at_j: Vec<Idx> = (0..rank).map(|d| if d == axis { Idx::Loop(rank) } else { Idx::Loop(d) }).collect();
    let sizes = dynamic_sizes(e, scope, &x_ty.dims, &[(x, out_idx.clone())])?;
    let shape = static_shape(&x_ty.dims);
    let mut iters = vec![Iter::Parallel; rank];
    iters.push(Iter::Reduction);
    let elem = e.elem(dt);
    let i64_ty: Type<'c> = IntegerType::new(e.ctx, 64).into();

    let zero = e.const_int(DType::I64, 0)?;
    let counts = e.filled(&shape, DType::I64, &sizes, zero)?;
    let inputs = [(x, at_j.clone(), elem), (x, out_idx.clone(), elem)];
    let ranks = e.generic(&inputs, counts, &out_idx, i64_ty, &iters, |inner, a| {
        let (xj, xi, count) = (a[0], a[1], a[2]);
        let i = slices::loop_index(inner, axis)?;
        let j = slices::loop_index(inner, rank)?;
        let (less, equal) = order(inner, dt, xj, xi)?;
        let earlier = inner.append(arith::cmpi(inner.ctx, CmpiPredicate::Ult, j, i, inner.loc))?;
        let tie = inner.append(arith::andi(equal, earlier, inner.loc))?;
        let before = inner.append(arith::ori(less, tie, inner.loc))?;
        let one = inner.append(arith::extui(before, IntegerType::new(inner.ctx, 64).into(), inner.loc))?;
        inner.append(arith::addi(count, one, inner.loc))
    })?;

    // Position `i` of the result gathers over `j` the one element whose rank is `i`.
    let (out_dt, out_elem) = if arg { (DType::I64, i64_ty) } else { (dt, elem) };
    let fill = if out_dt.is_float() { e.const_scalar(out_dt, 0.0)? } else { e.const_int(out_dt, 0)? };
    let init = e.filled(&shape, out_dt, &sizes, fill)?;
    let mut inputs = vec![(ranks, at_j.clone(), i64_ty)];
    if !arg {
        inputs.push((x, at_j, elem));
    }
    e.generic(&inputs, init, &out_idx, out_elem, &iters, |inner, a| {
        let i = slices::loop_index(inner, axis)?;
        let j = slices::loop_index(inner, rank)?;
        let i = inner.append(arith::index_cast(i, IntegerType::new(inner.ctx, 64).into(), inner.loc))?;
        let here = inner.append(arith::cmpi(inner.ctx, CmpiPredicate::Eq, a[0], i, inner.loc))?;
        let value = if arg {
            inner.append(arith::index_cast(j, IntegerType::new(inner.ctx, 64).into(), inner.loc))?
        } else {
            a[1]
        };
        scalar::select(inner, here, value, *a.last().expect("the accumulator"))
    })
}

/// Whether `a` comes before `b` in NumPy's sort order (`less`), and whether they are equal
/// there (`equal`: NaN equals NaN, and -0.0 equals 0.0).
fn order<'c, 'b>(e: &Emitter<'c, 'b>, dt: DType, a: Value<'c, 'b>, b: Value<'c, 'b>) -> Result<(Value<'c, 'b>, Value<'c, 'b>)> {
    if dt.is_float() {
        let cmp = |p, l, r| e.append(arith::cmpf(e.ctx, p, l, r, e.loc));
        let a_nan = cmp(CmpfPredicate::Uno, a, a)?;
        let b_nan = cmp(CmpfPredicate::Uno, b, b)?;
        let a_num = cmp(CmpfPredicate::Ord, a, a)?;
        let lt = cmp(CmpfPredicate::Olt, a, b)?;
        let num_before_nan = e.append(arith::andi(b_nan, a_num, e.loc))?;
        let less = e.append(arith::ori(lt, num_before_nan, e.loc))?;
        let eq = cmp(CmpfPredicate::Oeq, a, b)?;
        let both_nan = e.append(arith::andi(a_nan, b_nan, e.loc))?;
        return Ok((less, e.append(arith::ori(eq, both_nan, e.loc))?));
    }
    let p = if dt == DType::Bool { CmpiPredicate::Ult } else { CmpiPredicate::Slt };
    let less = e.append(arith::cmpi(e.ctx, p, a, b, e.loc))?;
    Ok((less, e.append(arith::cmpi(e.ctx, CmpiPredicate::Eq, a, b, e.loc))?))
}
