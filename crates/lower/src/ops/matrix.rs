//! The matrix helpers: `diagonal` (the leading square block read along its diagonal by a
//! `linalg.generic` whose input map is `(d0) -> (d0, d0)`) and `tril` / `triu` (a parallel
//! generic that keeps an element by its loop indices).

use melior::dialect::arith::{self, CmpiPredicate};
use melior::ir::Value;
use ptl_lang::{Dim, TensorType};

use super::elementwise::remap;
use super::slices::{self, Pos};
use super::scalar;
use crate::emitter::{Emitter, Idx, Iter, static_shape};
use crate::error::Result;
use crate::scope::Scope;
use crate::types::tensor_type_with_shape;

pub fn diagonal<'c, 'a>(e: &Emitter<'c, 'a>, m: Value<'c, 'a>, m_ty: &TensorType, ty: &TensorType) -> Result<Value<'c, 'a>> {
    let dt = m_ty.dtype;
    let n = match ty.dims[0] {
        Dim::Static(n) => Pos::Static(n as i64),
        _ => {
            let r = e.dim_value(m, 0)?;
            let c = e.dim_value(m, 1)?;
            Pos::Dynamic(e.append(arith::minsi(r, c, e.loc))?)
        }
    };
    let square = match (e.static_dim(m, 0), e.static_dim(m, 1), n) {
        (Some(r), Some(c), _) if r == c => m,
        (_, _, n) => {
            let side = match n {
                Pos::Static(k) => k as u64,
                Pos::Dynamic(_) => i64::MIN as u64,
            };
            let square_ty = tensor_type_with_shape(e.ctx, &[side, side], dt);
            slices::extract_front(e, m, &[n, n], square_ty)?
        }
    };
    let sizes = match n {
        Pos::Static(_) => vec![],
        Pos::Dynamic(v) => vec![v],
    };
    let init = e.empty(&static_shape(&ty.dims), dt, &sizes)?;
    let inputs = [(square, vec![Idx::Loop(0), Idx::Loop(0)], e.elem(dt))];
    e.generic(&inputs, init, &[Idx::Loop(0)], e.elem(dt), &[Iter::Parallel], |_, a| Ok(a[0]))
}

/// Keeps `[.., i, j]` where `j - i <= k` (`tril`) or `j - i >= k` (`triu`), else zero.
pub fn tri<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    upper: bool,
    k: i64,
) -> Result<Value<'c, 'a>> {
    let dt = x_ty.dtype;
    let rank = x_ty.rank();
    let full: Vec<Idx> = (0..rank).map(Idx::Loop).collect();
    remap(e, scope, x_ty, &[(x, full)], &[dt], |inner, a| {
        let i = slices::loop_index(inner, rank - 2)?;
        let j = slices::loop_index(inner, rank - 1)?;
        let d = inner.append(arith::subi(j, i, inner.loc))?;
        let k = inner.const_index(k)?;
        let p = if upper { CmpiPredicate::Sge } else { CmpiPredicate::Sle };
        let keep = inner.append(arith::cmpi(inner.ctx, p, d, k, inner.loc))?;
        let zero = inner.const_scalar(dt, 0.0)?;
        scalar::select(inner, keep, a[0], zero)
    })
}
