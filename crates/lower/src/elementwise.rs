//! Elementwise operations with broadcasting expressed in indexing maps, and the layout ops
//! (transpose, broadcast, expand, squeeze) that are pure index remappings.

use melior::ir::Value;
use ptl_lang::{DType, Dim, TensorType};

use crate::emitter::{Emitter, Idx, Iter, static_shape};
use crate::error::{LowerError, Result};
use crate::scope::Scope;

/// One operand of an elementwise op: its value and type.
pub type Operand<'c, 'a, 't> = (Value<'c, 'a>, &'t TensorType);

/// How an operand of rank `t.rank()` is indexed inside a loop nest over `result`'s dims, by
/// right alignment; a static 1 against a dim that is not static 1 reads index 0.
pub fn broadcast_map(t: &TensorType, result: &[Dim]) -> Vec<Idx> {
    let off = result.len() - t.rank().min(result.len());
    t.dims
        .iter()
        .enumerate()
        .map(|(j, d)| {
            let i = off + j;
            if *d == Dim::Static(1) && result[i] != Dim::Static(1) { Idx::Zero } else { Idx::Loop(i) }
        })
        .collect()
}

/// The run-time size of every dynamic dim of `result`, taken from an operand that carries that
/// dim at full size (or from the function's symbolic dims).
pub fn dynamic_sizes<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    result: &[Dim],
    operands: &[(Value<'c, 'a>, Vec<Idx>)],
) -> Result<Vec<Value<'c, 'a>>> {
    Ok(sizes_with_sources(e, scope, result, operands)?.into_iter().filter_map(|s| s.map(|(v, _)| v)).collect())
}

/// For each result dim: `None` when static, else its size and which (operand, axis) gave it.
type Sized<'c, 'a> = Vec<Option<(Value<'c, 'a>, Option<(usize, usize)>)>>;

fn sizes_with_sources<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    result: &[Dim],
    operands: &[(Value<'c, 'a>, Vec<Idx>)],
) -> Result<Sized<'c, 'a>> {
    let mut sizes = Vec::new();
    for (i, d) in result.iter().enumerate() {
        if matches!(d, Dim::Static(_)) {
            sizes.push(None);
            continue;
        }
        // Prefer an operand whose dim is static, then any operand, then the signature's symbol.
        let carriers: Vec<(usize, usize)> = operands
            .iter()
            .enumerate()
            .filter_map(|(k, (_, idx))| idx.iter().position(|x| *x == Idx::Loop(i)).map(|axis| (k, axis)))
            .collect();
        let best = carriers.iter().find(|(k, axis)| e.static_dim(operands[*k].0, *axis).is_some()).or(carriers.first());
        let size = match (best, d) {
            (Some(&(k, axis)), _) => (e.dim_value(operands[k].0, axis)?, Some((k, axis))),
            (None, Dim::Symbol(s)) => (scope.symbol_size(e, s)?, None),
            _ => {
                return Err(LowerError::Internal(format!("no operand gives the size of result dim {i}")));
            }
        };
        sizes.push(Some(size));
    }
    Ok(sizes)
}

/// Checks at run time that every operand dim indexed by a loop has that loop's size: a `?` that
/// the checker accepted against a known dim is verified here, before any element is computed.
fn check_operand_dims<'c, 'a>(
    e: &Emitter<'c, 'a>,
    result: &[Dim],
    operands: &[(Value<'c, 'a>, Vec<Idx>)],
    sizes: &Sized<'c, 'a>,
    what: &str,
) -> Result<()> {
    for (k, (v, idx)) in operands.iter().enumerate() {
        for (axis, x) in idx.iter().enumerate() {
            let Idx::Loop(i) = *x else { continue };
            let Some(want) = result.get(i) else { continue };
            let have = e.static_dim(*v, axis);
            match (have, want, &sizes[i]) {
                (Some(h), Dim::Static(w), _) if h == *w => {}
                (None, Dim::Static(w), _) => {
                    let d = e.dim(*v, axis)?;
                    let c = e.const_index(*w as i64)?;
                    e.assert_equal(d, c, &format!("{what}: operand {} dim {axis} must be {w}", k + 1))?;
                }
                (_, _, Some((size, source))) if *source != Some((k, axis)) => {
                    let d = e.dim_value(*v, axis)?;
                    e.assert_equal(d, *size, &format!("{what}: operand {} dim {axis} does not match the other operands", k + 1))?;
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// An elementwise map over operands broadcast to `result`; `body` gets one element per operand.
pub fn map<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    result: &TensorType,
    operands: &[Operand<'c, 'a, '_>],
    body: impl for<'b> FnOnce(&Emitter<'c, 'b>, &[Value<'c, 'b>]) -> Result<Value<'c, 'b>>,
) -> Result<Value<'c, 'a>> {
    let indexed: Vec<(Value<'c, 'a>, Vec<Idx>)> =
        operands.iter().map(|(v, t)| (*v, broadcast_map(t, &result.dims))).collect();
    remap(e, scope, result, &indexed, &operands.iter().map(|(_, t)| t.dtype).collect::<Vec<_>>(), body)
}

/// A parallel `linalg.generic` over `result`'s dims with explicit operand indexings.
pub fn remap<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    result: &TensorType,
    operands: &[(Value<'c, 'a>, Vec<Idx>)],
    dtypes: &[DType],
    body: impl for<'b> FnOnce(&Emitter<'c, 'b>, &[Value<'c, 'b>]) -> Result<Value<'c, 'b>>,
) -> Result<Value<'c, 'a>> {
    let sized = sizes_with_sources(e, scope, &result.dims, operands)?;
    if operands.len() > 1 || sized.iter().any(|s| s.is_none()) {
        check_operand_dims(e, &result.dims, operands, &sized, "elementwise operation")?;
    }
    let sizes: Vec<Value<'c, 'a>> = sized.into_iter().filter_map(|s| s.map(|(v, _)| v)).collect();
    let init = e.empty(&static_shape(&result.dims), result.dtype, &sizes)?;
    let inputs: Vec<_> =
        operands.iter().zip(dtypes).map(|((v, idx), dt)| (*v, idx.clone(), e.elem(*dt))).collect();
    let out_idx: Vec<Idx> = (0..result.rank()).map(Idx::Loop).collect();
    let iters = vec![Iter::Parallel; result.rank()];
    e.generic(&inputs, init, &out_idx, e.elem(result.dtype), &iters, |inner, args| {
        body(inner, &args[..args.len() - 1])
    })
}

/// Copies with each result dim `i` reading operand dim `source[i]`-style indexings.
pub fn relayout<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    result: &TensorType,
    idx: Vec<Idx>,
) -> Result<Value<'c, 'a>> {
    remap(e, scope, result, &[(x, idx)], &[x_ty.dtype], |_, args| Ok(args[0]))
}

pub fn transpose_map(perm: &[usize]) -> Vec<Idx> {
    // Result dim i reads operand dim perm[i], so operand dim j is indexed by the i with perm[i] == j.
    let mut idx = vec![Idx::Zero; perm.len()];
    for (i, &j) in perm.iter().enumerate() {
        idx[j] = Idx::Loop(i);
    }
    idx
}

pub fn expand_map(rank: usize, axis: usize) -> Vec<Idx> {
    (0..rank).map(|j| Idx::Loop(if j < axis { j } else { j + 1 })).collect()
}

pub fn squeeze_map(rank: usize, axis: usize) -> Vec<Idx> {
    (0..rank)
        .map(|j| match j.cmp(&axis) {
            std::cmp::Ordering::Less => Idx::Loop(j),
            std::cmp::Ordering::Equal => Idx::Zero,
            std::cmp::Ordering::Greater => Idx::Loop(j - 1),
        })
        .collect()
}
