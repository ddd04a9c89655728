//! The layout family: broadcast, transpose, expand, squeeze (index remappings as parallel
//! `linalg.generic`s) and reshape (`tensor.reshape`).

use melior::dialect::{arith, ods::tensor};
use melior::ir::operation::OperationBuilder;
use melior::ir::{Attribute, Identifier, Value};
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::{DType, Dim, Span, TensorType};

use super::elementwise::remap;
use crate::emitter::{Emitter, Idx};
use crate::error::{LowerError, Result};
use crate::scope::Scope;
use crate::types::tensor_type;

/// Whether result axis `i` stretches an operand of dims `from` (right-aligned into `to`):
/// the operand lacks the axis, or has a static 1 where the result does not.
fn stretches(from: &[Dim], to: &[Dim], i: usize) -> bool {
    let off = to.len() - from.len();
    i < off || (from[i - off] == Dim::Static(1) && to[i] != Dim::Static(1))
}

/// The broadcast rule, once: how `x` (of type `from`) is read inside a loop nest over `to`'s
/// dims, after checking at run time that every dim it does not stretch has the result's size
/// where that size is known (a static dim or a dimension name).
pub fn broadcast_view<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    from: &TensorType,
    to: &TensorType,
    span: &Span,
) -> Result<(Value<'c, 'a>, Vec<Idx>)> {
    let previous = crate::checks::at(Some(span.clone()));
    let off = to.rank() - from.rank();
    let mut idx = Vec::with_capacity(from.rank());
    let mut checked = false;
    for (j, d) in from.dims.iter().enumerate() {
        let i = off + j;
        if stretches(&from.dims, &to.dims, i) {
            idx.push(Idx::Zero);
            continue;
        }
        idx.push(Idx::Loop(i));
        let want = match &to.dims[i] {
            Dim::Static(n) if e.static_dim(x, j) != Some(*n) => Some(e.const_index(*n as i64)?),
            Dim::Symbol(s) if d != &to.dims[i] => Some(scope.symbol_size(e, s)?),
            _ => None,
        };
        if let Some(want) = want {
            let have = e.dim_value(x, j)?;
            e.check_equal(have, want, RuntimeCheck::Broadcast { from: from.clone(), to: to.clone(), axis: i })?;
            checked = true;
        }
    }
    crate::checks::at(previous);
    let x = if checked { e.checked_operand(x)? } else { x };
    Ok((x, idx))
}

/// A `?` result dim that the operand does not stretch into is sized by both the operand and
/// the broadcast's shape witness: they must agree (the interpreter checks the same, at the
/// broadcast), or a loop nest sized by one would read the other out of its bounds. Returns
/// the operand and the witness, each behind a barrier in a checks-only twin where a size was
/// checked (IREE must not meet sizes it can see to contradict each other past the check).
pub fn check_witness<'c, 'a>(
    e: &Emitter<'c, 'a>,
    x: Value<'c, 'a>,
    from: &TensorType,
    w: Value<'c, 'a>,
    w_ty: &TensorType,
    to: &TensorType,
    span: &Span,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>)> {
    let woff = to.rank() - w_ty.rank();
    let previous = crate::checks::at(Some(span.clone()));
    let off = to.rank() - from.rank();
    let mut checked = false;
    for i in off.max(woff)..to.rank() {
        if to.dims[i] == Dim::Unknown && !stretches(&from.dims, &to.dims, i) && w_ty.dims[i - woff] != Dim::Static(1) {
            let (have, want) = (e.dim_value(x, i - off)?, e.dim_value(w, i - woff)?);
            e.check_equal(have, want, RuntimeCheck::Broadcast { from: from.clone(), to: to.clone(), axis: i })?;
            checked = true;
        }
    }
    crate::checks::at(previous);
    if checked { Ok((e.checked_operand(x)?, e.checked_operand(w)?)) } else { Ok((x, w)) }
}

/// How a shape witness of type `w_ty` is indexed in a loop nest over `to`'s dims: it is read
/// by no one, only there for `dynamic_sizes` to find the sizes of the `?` dims it carries.
pub fn witness_map(w_ty: &TensorType, to: &TensorType) -> Vec<Idx> {
    let woff = to.rank() - w_ty.rank();
    (0..w_ty.rank())
        .map(|j| if w_ty.dims[j] == Dim::Static(1) && to.dims[woff + j] != Dim::Static(1) { Idx::Zero } else { Idx::Loop(woff + j) })
        .collect()
}

/// A materialised `Broadcast` node. A `?` result dim the operand stretches into takes its size
/// from the shape witness (`like`), or is 1 without one.
pub fn broadcast<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    from: &TensorType,
    like: Option<(Value<'c, 'a>, &TensorType)>,
    to: &TensorType,
    span: &Span,
) -> Result<Value<'c, 'a>> {
    let (x, like) = match like {
        Some((w, w_ty)) => {
            let (x, w) = check_witness(e, x, from, w, w_ty, to, span)?;
            (x, Some((w, w_ty)))
        }
        None => (x, None),
    };
    let (x, idx) = broadcast_view(e, scope, x, from, to, span)?;
    let mut operands = vec![(x, idx)];
    // The witness is an operand the generic never reads, there only to give sizes: a size
    // source needs an indexing of the loop nest, and `dynamic_sizes` finds it there.
    let mut dtypes = vec![from.dtype];
    if let Some((w, w_ty)) = like {
        operands.push((w, witness_map(w_ty, to)));
        dtypes.push(w_ty.dtype);
    }
    let stretched_unknown: Vec<usize> =
        (0..to.rank()).filter(|&i| to.dims[i] == Dim::Unknown && stretches(&from.dims, &to.dims, i)).collect();
    if !stretched_unknown.is_empty() && operands.len() == 1 {
        // No witness: a `?` the operand stretches into keeps the operand's size, 1. Give the
        // loop nest that size through a static-1 view.
        let dims: Vec<Dim> = (0..to.rank()).map(|i| if stretched_unknown.contains(&i) { Dim::Static(1) } else { to.dims[i].clone() }).collect();
        let narrow = TensorType::new(to.dtype, dims);
        let v = remap(e, scope, &narrow, &operands, &dtypes, |_, a| Ok(a[0]))?;
        return e.cast_tensor(v, tensor_type(e.ctx, to), to);
    }
    remap(e, scope, to, &operands, &dtypes, |_, a| Ok(a[0]))
}

/// Copies `x` with each result dim reading the operand dim its indexing names.
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

/// Row-major reshape through `tensor.reshape` with a shape computed at run time; the element
/// count is checked first.
pub fn reshape<'c, 'a>(
    e: &Emitter<'c, 'a>,
    scope: &Scope<'c, 'a>,
    x: Value<'c, 'a>,
    x_ty: &TensorType,
    like: Option<Value<'c, 'a>>,
    to: &TensorType,
) -> Result<Value<'c, 'a>> {
    let mut total = e.const_index(1)?;
    for i in 0..x_ty.rank() {
        let n = e.dim_value(x, i)?;
        total = e.append(arith::muli(total, n, e.loc))?;
    }
    let mut known = e.const_index(1)?;
    let mut sizes: Vec<Option<Value<'c, 'a>>> = Vec::new();
    for (i, d) in to.dims.iter().enumerate() {
        let v = match (d, like) {
            (Dim::Static(n), _) => Some(e.const_index(*n as i64)?),
            (Dim::Symbol(s), _) => Some(scope.symbol_size(e, s)?),
            // The shape witness's size there (the count is still checked below).
            (Dim::Unknown, Some(w)) => Some(e.dim_value(w, i)?),
            (Dim::Unknown, None) => None,
        };
        if let Some(v) = v {
            known = e.append(arith::muli(known, v, e.loc))?;
        }
        sizes.push(v);
    }
    let check = RuntimeCheck::Reshape { from: x_ty.clone(), to: to.clone() };
    if sizes.iter().filter(|s| s.is_none()).count() > 1 {
        // The count fixes one size, not two: the checker gives such a reshape a witness.
        return Err(LowerError::Internal(format!("a reshape to `{to}` without a shape witness")));
    }
    if sizes.iter().any(|s| s.is_none()) {
        // `known` must be nonzero and divide the count (`remui` by zero is undefined, so
        // divide by max(known, 1) and check `known != 0` as well).
        let zero = e.const_index(0)?;
        let one = e.const_index(1)?;
        let nonzero = e.append(arith::cmpi(e.ctx, arith::CmpiPredicate::Ne, known, zero, e.loc))?;
        let divisor = e.append(arith::select(nonzero, known, one, e.loc))?;
        let rem = e.append(arith::remui(total, divisor, e.loc))?;
        let divides = e.append(arith::cmpi(e.ctx, arith::CmpiPredicate::Eq, rem, zero, e.loc))?;
        let ok = e.append(arith::andi(nonzero, divides, e.loc))?;
        e.check(ok, check)?;
        known = divisor;
    } else {
        e.check_equal(total, known, check)?;
    }
    // A statically one-element tensor to rank 0: its element, read. IREE 3.13 fails to
    // compile `tensor.reshape` to rank 0 of a value it folds to a constant ("expected rank
    // to be smaller or equal to the other rank"; found by the random programs, batch seed
    // 1330). Not for bool: IREE's i1-to-i8 conversion leaves `tensor.from_elements` of an
    // i1 invalid (batch seeds 1359, 1377).
    if to.rank() == 0 && x_ty.dtype != DType::Bool && x_ty.dims.iter().all(|d| *d == Dim::Static(1)) {
        let zero = e.const_index(0)?;
        let v = e.append(tensor::extract(e.ctx, e.elem(x_ty.dtype), x, &vec![zero; x_ty.rank()], e.loc).into())?;
        return e.append(tensor::from_elements(e.ctx, tensor_type(e.ctx, to), &[v], e.loc).into());
    }
    let statics = |t: &TensorType| t.dims.iter().map(|d| if let Dim::Static(n) = d { Some(*n) } else { None }).collect::<Option<Vec<u64>>>();
    if let (Some(from), Some(dims)) = (statics(x_ty), statics(to))
        && !from.is_empty()
        && !dims.is_empty()
    {
        return static_reshape(e, x, &from, to, &dims);
    }
    // The shape travels as i64: index tensors may not cross IREE's dispatch boundaries.
    let i64_ty = crate::types::element_type(e.ctx, DType::I64);
    let mut shape = Vec::new();
    for s in sizes {
        let v = match s {
            Some(v) => v,
            None => e.append(arith::divui(total, known, e.loc))?,
        };
        shape.push(e.append(arith::index_cast(v, i64_ty, e.loc))?);
    }
    let shape_ty = crate::types::tensor_type_with_shape_elem(e.ctx, &[to.rank() as u64], i64_ty);
    let shape_t = e.append(tensor::from_elements(e.ctx, shape_ty, &shape, e.loc).into())?;
    e.append(tensor::reshape(e.ctx, tensor_type(e.ctx, to), x, shape_t, e.loc).into())
}

/// A reshape between static shapes (both of rank >= 1) as `tensor.collapse_shape` to one dim
/// and `tensor.expand_shape` from it, which IREE folds into its neighbours as pure metadata.
/// IREE 3.13 failed to compile `tensor.reshape` of a slice's broadcast ("expected rank to be
/// smaller or equal to the other rank"; random programs, batch seed 1424).
fn static_reshape<'c, 'a>(e: &Emitter<'c, 'a>, x: Value<'c, 'a>, from: &[u64], to: &TensorType, dims: &[u64]) -> Result<Value<'c, 'a>> {
    if from == dims {
        return Ok(x);
    }
    let group = |n: usize| format!("[[{}]]", (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
    let attr = |text: &str| Attribute::parse(e.ctx, text).ok_or_else(|| LowerError::Internal(format!("cannot build {text}")));
    let count: u64 = from.iter().product();
    let flat_ty = TensorType { dtype: to.dtype, dims: vec![Dim::Static(count)] };
    let flat = if from.len() == 1 {
        x
    } else {
        let op = OperationBuilder::new("tensor.collapse_shape", e.loc)
            .add_operands(&[x])
            .add_results(&[tensor_type(e.ctx, &flat_ty)])
            .add_attributes(&[(Identifier::new(e.ctx, "reassociation"), attr(&group(from.len()))?)])
            .build()?;
        e.append(op)?
    };
    if dims.len() == 1 {
        return Ok(flat);
    }
    let shape = format!("array<i64: {}>", dims.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "));
    let op = OperationBuilder::new("tensor.expand_shape", e.loc)
        .add_operands(&[flat])
        .add_results(&[tensor_type(e.ctx, to)])
        .add_attributes(&[
            (Identifier::new(e.ctx, "reassociation"), attr(&group(dims.len()))?),
            (Identifier::new(e.ctx, "static_output_shape"), attr(&shape)?),
        ])
        .build()?;
    e.append(op)
}
