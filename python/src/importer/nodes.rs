//! One node of the description to one `let` of the function.

use ptl_lang::DType;
use ptl_lang::ast::{BinOp, Block, Expr, ExprKind, IfExpr, IndexItem};
use ptl_lang::ops::{BinaryOp, Builtin, ReduceOp, UnaryOp};

use super::desc::{Bound, Node, NodeKind, ReduceKind, Size, SubItem};
use super::error::{ImportError, Result};
use super::syntax::{SPAN, ascribe, bin, boolean, call, cast, ex, float, ident, int, int_list, neg};
use super::{Builder, Val};
use ptl_lang::ast::Let;

/// The node's inputs, which must be exactly `N`.
fn inputs<const N: usize>(node: &Node) -> Result<[usize; N]> {
    node.inputs.as_slice().try_into().map_err(|_| {
        ImportError::malformed(&node.at, format!("`{}` takes {N} inputs, got {}", node.op, node.inputs.len()))
    })
}

fn builtin(b: Builtin, args: Vec<Expr>) -> Expr {
    call(b.name(), args)
}

fn unary(op: UnaryOp, x: Expr) -> Expr {
    builtin(Builtin::Unary(op), vec![x])
}

fn select(c: Expr, a: Expr, e: Expr) -> Expr {
    builtin(Builtin::Where, vec![c, a, e])
}

pub(super) fn convert(b: &mut Builder, node: &Node) -> Result<()> {
    let at = node.at.as_str();
    let dt = node.dtype;
    let out = node.output;
    let e = match &node.kind {
        NodeKind::Unknown => {
            return Err(ImportError::unsupported(at, format!("operation `{}` is not supported by ptl", node.op)));
        }
        NodeKind::Alias => {
            let [x] = inputs(node)?;
            let (v, have) = b.get(x, at)?.clone();
            if have == dt {
                // The same value under a second id: no `let` needed.
                return b.define(out, v, dt, at);
            }
            b.operand(x, dt, at)?
        }
        NodeKind::Add | NodeKind::Mul => {
            let add = node.kind == NodeKind::Add;
            let args = b.args_in(&node.inputs, dt, at)?;
            let folded = if dt == DType::Bool {
                // PyTensor's `+` of bools is `or`, its `*` is `and`.
                args.into_iter().reduce(|a, x| if add { select(a, boolean(true), x) } else { select(a, x, boolean(false)) })
            } else {
                let o = if add { BinOp::Add } else { BinOp::Mul };
                args.into_iter().reduce(|a, x| bin(o, a, x))
            };
            folded.ok_or_else(|| ImportError::malformed(at, format!("`{}` without inputs", node.op)))?
        }
        NodeKind::Sub | NodeKind::TrueDiv | NodeKind::Pow => {
            let o = match node.kind {
                NodeKind::Sub => BinOp::Sub,
                NodeKind::TrueDiv => BinOp::Div,
                _ => BinOp::Pow,
            };
            let [x, y] = b.args_n(&inputs(node)?, dt, at)?;
            bin(o, x, y)
        }
        NodeKind::Neg => {
            let [x] = b.args_n(&inputs(node)?, dt, at)?;
            neg(x)
        }
        NodeKind::Sqr => {
            let [x] = b.args_n(&inputs(node)?, dt, at)?;
            bin(BinOp::Mul, x.clone(), x)
        }
        NodeKind::Reciprocal => {
            let [x] = b.args_n(&inputs(node)?, dt, at)?;
            bin(BinOp::Div, float(1.0), x)
        }
        NodeKind::Identity => {
            let [x] = b.args_n(&inputs(node)?, dt, at)?;
            x
        }
        NodeKind::Math { name } => math(b, node, name)?,
        NodeKind::Exp => elementwise_unary(b, node, UnaryOp::Exp)?,
        NodeKind::Log => elementwise_unary(b, node, UnaryOp::Log)?,
        NodeKind::Log1p => elementwise_unary(b, node, UnaryOp::Log1p)?,
        NodeKind::Sqrt => elementwise_unary(b, node, UnaryOp::Sqrt)?,
        NodeKind::Tanh => elementwise_unary(b, node, UnaryOp::Tanh)?,
        NodeKind::Abs => elementwise_unary(b, node, UnaryOp::Abs)?,
        NodeKind::Sigmoid => elementwise_unary(b, node, UnaryOp::Sigmoid)?,
        NodeKind::Maximum | NodeKind::Minimum => {
            let op = if node.kind == NodeKind::Maximum { BinaryOp::Maximum } else { BinaryOp::Minimum };
            let [x, y] = b.args_n(&inputs(node)?, dt, at)?;
            builtin(Builtin::Pair(op), vec![x, y])
        }
        NodeKind::Softplus => {
            // PyTensor's piecewise definition, branch for branch.
            let [x] = b.args_n(&inputs(node)?, dt, at)?;
            let exp = |e: Expr| unary(UnaryOp::Exp, e);
            select(
                bin(BinOp::Lt, x.clone(), float(-37.0)),
                exp(x.clone()),
                select(
                    bin(BinOp::Lt, x.clone(), float(18.0)),
                    unary(UnaryOp::Log1p, exp(x.clone())),
                    select(bin(BinOp::Lt, x.clone(), float(33.3)), bin(BinOp::Add, x.clone(), exp(neg(x.clone()))), x),
                ),
            )
        }
        NodeKind::Clip => {
            let [x, lo, hi] = b.args_n(&inputs(node)?, dt, at)?;
            let max = builtin(Builtin::Pair(BinaryOp::Maximum), vec![x, lo]);
            builtin(Builtin::Pair(BinaryOp::Minimum), vec![max, hi])
        }
        NodeKind::Switch => {
            let [c, x, y] = inputs(node)?;
            let cond = b.arg_in(c, DType::Bool, b.is_literal(c), at)?;
            let alone = b.is_literal(x) && b.is_literal(y);
            select(cond, b.arg_in(x, dt, alone, at)?, b.arg_in(y, dt, alone, at)?)
        }
        NodeKind::IfElse => {
            let [c, x, y] = inputs(node)?;
            let cond = b.arg_in(c, DType::Bool, true, at)?;
            let block = |e: Expr| Block { lets: Vec::new(), result: e, span: SPAN };
            let (then, otherwise) = (block(b.operand(x, dt, at)?), block(b.operand(y, dt, at)?));
            ex(ExprKind::If(Box::new(IfExpr { cond, then, otherwise })))
        }
        NodeKind::Second => {
            // `v` broadcast against `a`: a condition that is true everywhere, with `a`'s shape.
            let [a, v] = inputs(node)?;
            let shape_of = b.operand(a, b.dtype(a, at)?, at)?;
            let value = b.arg_in(v, dt, false, at)?;
            let value = if b.is_literal(v) { ascribe(value, dt, &[]) } else { value };
            select(bin(BinOp::Eq, shape_of.clone(), shape_of), value.clone(), value)
        }
        NodeKind::Cast => {
            let [x] = inputs(node)?;
            let have = b.dtype(x, at)?;
            let x = b.arg_in(x, have, true, at)?;
            if have == dt { x } else { cast(x, dt) }
        }
        NodeKind::And | NodeKind::Or | NodeKind::Xor | NodeKind::Invert => bitwise(b, node)?,
        NodeKind::Gt { compute } => comparison(b, node, BinOp::Gt, compute.0)?,
        NodeKind::Ge { compute } => comparison(b, node, BinOp::Ge, compute.0)?,
        NodeKind::Lt { compute } => comparison(b, node, BinOp::Lt, compute.0)?,
        NodeKind::Le { compute } => comparison(b, node, BinOp::Le, compute.0)?,
        NodeKind::Eq { compute } => comparison(b, node, BinOp::Eq, compute.0)?,
        NodeKind::Neq { compute } => comparison(b, node, BinOp::Ne, compute.0)?,
        NodeKind::DimShuffle { order, in_ndim } => {
            let [x] = inputs(node)?;
            dimshuffle(b.operand(x, dt, at)?, order, *in_ndim, at)?
        }
        NodeKind::Dot => {
            let [x, y] = inputs(node)?;
            bin(BinOp::MatMul, b.operand(x, dt, at)?, b.operand(y, dt, at)?)
        }
        NodeKind::Gemv | NodeKind::Gemm => {
            // beta * y + alpha * (a @ x)
            let [y, alpha, a, x, beta] = inputs(node)?;
            let y = b.operand(y, dt, at)?;
            let alpha = b.arg_in(alpha, dt, false, at)?;
            let ax = bin(BinOp::MatMul, b.operand(a, dt, at)?, b.operand(x, dt, at)?);
            let beta = b.arg_in(beta, dt, false, at)?;
            bin(BinOp::Add, bin(BinOp::Mul, beta, y), bin(BinOp::Mul, alpha, ax))
        }
        NodeKind::Reduce { kind, axes, in_ndim } => reduce(b, node, *kind, axes, *in_ndim)?,
        NodeKind::Softmax { axis } | NodeKind::LogSoftmax { axis } => {
            let log = matches!(node.kind, NodeKind::LogSoftmax { .. });
            let [x] = inputs(node)?;
            builtin(Builtin::Softmax { log }, vec![b.operand(x, dt, at)?, int(*axis as i64)])
        }
        NodeKind::Broadcast { shape } => {
            let [x] = inputs(node)?;
            let dims = ex(ExprKind::Array(shape.iter().map(|&n| size(n, at)).collect::<Result<_>>()?));
            builtin(Builtin::Broadcast, vec![b.operand(x, dt, at)?, dims])
        }
        NodeKind::BroadcastDims { shape } => {
            let [x] = inputs(node)?;
            let dims = shape
                .iter()
                .map(|s| match *s {
                    Size::Known(n) => size(n, at),
                    Size::Dim { input, axis } => b.dim_names.get(&(input, axis)).map(|name| super::syntax::var(name)).ok_or_else(|| {
                        ImportError::malformed(at, format!("axis {axis} of value {input} is no named dim of an input"))
                    }),
                })
                .collect::<Result<_>>()?;
            builtin(Builtin::Broadcast, vec![b.operand(x, dt, at)?, ex(ExprKind::Array(dims))])
        }
        NodeKind::Subtensor { items } => {
            let x = *node.inputs.first().ok_or_else(|| ImportError::malformed(at, "`subtensor` without an input"))?;
            let items = items
                .iter()
                .map(|item| {
                    Ok(match *item {
                        SubItem::Index(i) => IndexItem::Single(bound(b, node, i)?),
                        SubItem::Slice(start, stop, step) => {
                            let part = |p: Option<Bound>| p.map(|p| bound(b, node, p)).transpose();
                            IndexItem::Slice { start: part(start)?, stop: part(stop)?, step: part(step)?, span: SPAN }
                        }
                    })
                })
                .collect::<Result<_>>()?;
            ex(ExprKind::Index(Box::new(b.operand(x, dt, at)?), items))
        }
        NodeKind::Join { axis } => {
            let parts = node.inputs.iter().map(|&i| b.operand(i, dt, at)).collect::<Result<Vec<_>>>()?;
            builtin(Builtin::Concat, vec![ex(ExprKind::Array(parts)), int(*axis)])
        }
        NodeKind::Split { axis, sizes, outputs } => {
            let [x] = inputs(node)?;
            return split(b, node, b.operand(x, dt, at)?, *axis, sizes, outputs);
        }
        NodeKind::Slogdet { outputs } => {
            let [a] = inputs(node)?;
            return two_values(b, node, Builtin::Slogdet, b.operand(a, dt, at)?, outputs, &[dt, dt]);
        }
        NodeKind::MakeVector => {
            let parts = b.args_in(&node.inputs, dt, at)?;
            let parts = if parts.len() == 1 { vec![ascribe_if_literal(b, node.inputs[0], parts[0].clone(), dt)] } else { parts };
            builtin(Builtin::Stack, vec![ex(ExprKind::Array(parts)), int(0)])
        }
        NodeKind::Take { axis } => {
            let [x, idx] = inputs(node)?;
            builtin(Builtin::Take, vec![b.operand(x, dt, at)?, b.operand(idx, b.dtype(idx, at)?, at)?, int(*axis)])
        }
        NodeKind::MaskSelect => {
            let [x, mask] = inputs(node)?;
            let mask = b.operand(mask, DType::Bool, at)?;
            ex(ExprKind::Index(Box::new(b.operand(x, dt, at)?), vec![IndexItem::Single(mask)]))
        }
        NodeKind::MaskScatter { set } => {
            // ptl's scatter with a bool mask as the index: `x[mask] = y`, `x[mask] += y`.
            let [x, y, mask] = inputs(node)?;
            let mask = b.operand(mask, DType::Bool, at)?;
            builtin(Builtin::Scatter { add: !*set }, vec![b.operand(x, dt, at)?, mask, b.operand(y, dt, at)?])
        }
        NodeKind::Flatnonzero => {
            let [a] = inputs(node)?;
            builtin(Builtin::FlatNonzero, vec![b.operand(a, b.dtype(a, at)?, at)?])
        }
        NodeKind::Scatter { set } => {
            let [x, y, idx] = inputs(node)?;
            let idx = b.operand(idx, b.dtype(idx, at)?, at)?;
            builtin(Builtin::Scatter { add: !*set }, vec![b.operand(x, dt, at)?, idx, b.operand(y, dt, at)?])
        }
        NodeKind::SetSubtensor { item, set } => set_subtensor(b, node, *item, *set)?,
        NodeKind::SetSubtensorAxes { items, set, rank, value_rank } => set_subtensor_axes(b, node, items, *set, *rank, *value_rank)?,
        NodeKind::Arg { max, axis } => {
            let [x] = inputs(node)?;
            let own = b.dtype(x, at)?;
            builtin(Builtin::Arg { max: *max }, vec![b.operand(x, own, at)?, int(*axis)])
        }
        NodeKind::Cumulative { prod, axis } => {
            let [x] = inputs(node)?;
            builtin(Builtin::Scan { prod: *prod }, vec![b.operand(x, dt, at)?, int(*axis)])
        }
        NodeKind::Sort { arg, axis } => {
            let [x] = inputs(node)?;
            let own = b.dtype(x, at)?;
            builtin(Builtin::Sort { arg: *arg }, vec![b.operand(x, own, at)?, int(*axis)])
        }
        NodeKind::Diagonal => {
            let [x] = inputs(node)?;
            builtin(Builtin::Diagonal, vec![b.operand(x, dt, at)?])
        }
        NodeKind::BatchedDiagonal { n, rank } => {
            // sum(where(eye(n) != 0, x, 0), last axis): only the diagonal is added, to zeros.
            let [x] = inputs(node)?;
            let on = bin(BinOp::Ne, builtin(Builtin::Eye, vec![size(*n, at)?]), float(0.0));
            let kept = builtin(Builtin::Where, vec![on, b.operand(x, dt, at)?, cast(float(0.0), dt)]);
            builtin(Builtin::Reduce(ReduceOp::Sum), vec![kept, int_list([*rank as i64 - 1])])
        }
        NodeKind::AllocDiag => {
            let [v] = inputs(node)?;
            builtin(Builtin::Diag, vec![b.operand(v, dt, at)?])
        }
        NodeKind::Gather { sizes, shape, lead, index_rank } => {
            let (&x, idx) = node.inputs.split_first().ok_or_else(|| ImportError::malformed(at, "`gather` without an array"))?;
            let flat = flat_index(b, node, sizes, idx)?;
            let (x, moved) = indexed_first(b.operand(x, dt, at)?, shape, *lead, sizes.len());
            let rows = reshape_rows(x, sizes, &moved, at)?;
            // take gives the indices' axes first; NumPy puts the whole axes before them.
            let got = builtin(Builtin::Take, vec![rows, flat, int(0)]);
            swap_blocks(got, *index_rank, *lead, moved.len() - sizes.len() - *lead)
        }
        NodeKind::ScatterMulti { sizes, shape, values, set, lead, index_rank } => {
            let [x, y] = [node.inputs.first(), node.inputs.get(1)].map(|i| i.copied());
            let (Some(x), Some(y)) = (x, y) else {
                return Err(ImportError::malformed(at, "`scatter_multi` without an array and values"));
            };
            let flat = flat_index(b, node, sizes, &node.inputs[2..])?;
            let k = sizes.len();
            let (xm, moved) = indexed_first(b.operand(x, dt, at)?, shape, *lead, k);
            let rows = reshape_rows(xm, sizes, &moved, at)?;
            let dims = ex(ExprKind::Array(values.iter().map(|&n| size(n, at)).collect::<Result<_>>()?));
            let y = builtin(Builtin::Broadcast, vec![b.operand(y, dt, at)?, dims]);
            // The values in take's order: the indices' axes, then the whole ones.
            let rest = values.len() - *lead - *index_rank;
            let y = swap_blocks(y, *lead, *index_rank, rest);
            let scattered = builtin(Builtin::Scatter { add: !*set }, vec![rows, flat, y]);
            let back = moved.iter().map(|d| d.map_or(Ok(ex(ExprKind::UnknownDim)), |n| size(n, at))).collect::<Result<_>>()?;
            let reshaped = builtin(Builtin::Reshape, vec![scattered, ex(ExprKind::Array(back))]);
            // The indexed axes back to their place.
            swap_blocks(reshaped, k, *lead, shape.len() - k - *lead)
        }
        NodeKind::Cholesky { lower } => {
            let [x] = inputs(node)?;
            let x = b.operand(x, dt, at)?;
            let swap = || int_list([1, 0]);
            if *lower {
                builtin(Builtin::Cholesky, vec![x])
            } else {
                // The upper factor of `x` is the transposed lower factor of `x`'s transpose.
                let t = builtin(Builtin::Transpose, vec![x, swap()]);
                builtin(Builtin::Transpose, vec![builtin(Builtin::Cholesky, vec![t]), swap()])
            }
        }
        NodeKind::CholeskySolve { lower } => {
            let [c, rhs] = inputs(node)?;
            let c = b.operand(c, dt, at)?;
            let ct = builtin(Builtin::Transpose, vec![c.clone(), int_list([1, 0])]);
            // a = l l^T: l y = b, then l^T x = y (l = c, or c^T for an upper factor).
            let (l, lt) = if *lower { (c, ct) } else { (ct, c) };
            let y = builtin(Builtin::SolveTriangular, vec![l, b.operand(rhs, dt, at)?, boolean(true)]);
            builtin(Builtin::SolveTriangular, vec![lt, y, boolean(false)])
        }
        NodeKind::Solve => {
            let [a, rhs] = inputs(node)?;
            builtin(Builtin::Solve, vec![b.operand(a, dt, at)?, b.operand(rhs, dt, at)?])
        }
        NodeKind::Det | NodeKind::Inv => {
            let [a] = inputs(node)?;
            let f = if node.kind == NodeKind::Det { Builtin::Det } else { Builtin::Inv };
            builtin(f, vec![b.operand(a, dt, at)?])
        }
        NodeKind::SolveTriangular { lower, unit } => {
            let [a, rhs] = inputs(node)?;
            let flag = boolean(*lower);
            let a = b.operand(a, dt, at)?;
            // A unit diagonal: ones put on it, `where(diag(ones) != 0, 1, a)`.
            let a = if *unit {
                let d = builtin(Builtin::Diagonal, vec![a.clone()]);
                let ones = select(unary(UnaryOp::Isnan, d), float(1.0), float(1.0));
                let on = bin(BinOp::Ne, builtin(Builtin::Diag, vec![ones]), float(0.0));
                select(on, float(1.0), a)
            } else {
                a
            };
            builtin(Builtin::SolveTriangular, vec![a, b.operand(rhs, dt, at)?, flag])
        }
        NodeKind::Eigh { outputs, lower } => {
            let [a] = inputs(node)?;
            let a = b.operand(a, dt, at)?;
            // The upper triangle of `a` is the lower one of its transpose.
            let a = if *lower { a } else { builtin(Builtin::Transpose, vec![a, int_list([1, 0])]) };
            return two_values(b, node, Builtin::Eigh, a, outputs, &[dt, dt]);
        }
        NodeKind::LuFactor { outputs } => {
            let [a] = inputs(node)?;
            return two_values(b, node, Builtin::LuFactor, b.operand(a, dt, at)?, outputs, &[dt, DType::I32]);
        }
        NodeKind::PivotPermutation { inverse } => {
            let [piv] = inputs(node)?;
            let order = builtin(Builtin::LuPermutation, vec![b.operand(piv, b.dtype(piv, at)?, at)?]);
            if *inverse { order } else { builtin(Builtin::Sort { arg: true }, vec![order]) }
        }
        NodeKind::ArangeDim | NodeKind::EyeDim => {
            // `arange(n)` (0, 1, ..., n - 1 as `i64`) or `eye(n)` (`f64`) of a dimension name.
            let [n] = inputs(node)?;
            let arange = matches!(node.kind, NodeKind::ArangeDim);
            let f = if arange { Builtin::Arange } else { Builtin::Eye };
            let name = match b.get(n, at)? {
                (Val::Var(v), _) if b.dim_names.values().any(|d| d == v) => v.clone(),
                _ => return Err(ImportError::unsupported(at, format!("`{}` of a size that is not an input's dim", f.name()))),
            };
            let e = builtin(f, vec![super::syntax::var(&name)]);
            let own = if arange { DType::I64 } else { DType::F64 };
            match dt {
                d if d == own => e,
                DType::Bool => bin(BinOp::Ne, e, float(0.0)),
                d => cast(e, d),
            }
        }
        NodeKind::Guard { code } => {
            let (&x, conds) = node.inputs.split_first().ok_or_else(|| ImportError::malformed(at, "`guard` without a value"))?;
            let mut e = b.operand(x, dt, at)?;
            for &c in conds.iter().rev() {
                let cond = b.operand(c, DType::Bool, at)?;
                e = builtin(Builtin::Guard, vec![cond, e, int(*code)]);
            }
            e
        }
        NodeKind::Dim { input, axis } => {
            let name = b.dim_names.get(&(*input, *axis)).cloned().ok_or_else(|| {
                ImportError::malformed(at, format!("axis {axis} of value {input} is no named dim of an input"))
            })?;
            // The dimension name is itself an `i64` value of the function.
            let v = super::syntax::var(&name);
            if dt == DType::I64 {
                return b.define(out, Val::Var(name), DType::I64, at);
            }
            cast(v, dt)
        }
        NodeKind::Scan { scan } => return super::scan::convert(b, node, scan),
        NodeKind::Reshape { shape } => {
            let [x] = inputs(node)?;
            if shape.iter().filter(|d| d.is_none()).count() > 1 {
                return Err(ImportError::unsupported(at, "a shape with more than one size unknown until run time"));
            }
            let dims = shape.iter().map(|d| d.map_or(Ok(ex(ExprKind::UnknownDim)), |n| size(n, at))).collect::<Result<_>>()?;
            builtin(Builtin::Reshape, vec![b.operand(x, dt, at)?, ex(ExprKind::Array(dims))])
        }
    };
    b.bind(out, dt, e, at)
}

/// The flat index of `x[i0, i1, ...]` into `x` reshaped to one leading axis of the indexed
/// axes (of sizes `sizes`): each index normalised and bounds-checked by `take` from
/// `arange(size)`, then weighted by the sizes after its axis; the index arrays broadcast.
fn flat_index(b: &Builder, node: &Node, sizes: &[u64], idx: &[usize]) -> Result<Expr> {
    let at = &node.at;
    if idx.len() != sizes.len() {
        return Err(ImportError::malformed(at, format!("{} index arrays for {} sizes", idx.len(), sizes.len())));
    }
    let mut flat: Option<Expr> = None;
    for (j, (&i, &n)) in idx.iter().zip(sizes).enumerate() {
        let axis = builtin(Builtin::Arange, vec![size(n, at)?]);
        let norm = builtin(Builtin::Take, vec![axis, b.operand(i, b.dtype(i, at)?, at)?, int(0)]);
        let stride: u64 = sizes[j + 1..].iter().product();
        let term = if stride == 1 { norm } else { bin(BinOp::Mul, norm, size(stride, at)?) };
        flat = Some(match flat {
            None => term,
            Some(f) => bin(BinOp::Add, f, term),
        });
    }
    flat.ok_or_else(|| ImportError::malformed(at, "no index arrays"))
}

/// `x` with its axes `lead..lead + k` moved to the front, and its shape so permuted.
fn indexed_first(x: Expr, shape: &[Option<u64>], lead: usize, k: usize) -> (Expr, Vec<Option<u64>>) {
    let mut moved = shape[lead..lead + k].to_vec();
    moved.extend(&shape[..lead]);
    moved.extend(&shape[lead + k..]);
    (swap_blocks(x, lead, k, shape.len() - lead - k), moved)
}

/// `x` (axes: a block of `a`, a block of `b`, then `rest`) with its first two blocks swapped.
fn swap_blocks(x: Expr, a: usize, b: usize, rest: usize) -> Expr {
    if a == 0 || b == 0 {
        return x;
    }
    let perm = (a..a + b).chain(0..a).chain(a + b..a + b + rest).map(|i| i as i64);
    builtin(Builtin::Transpose, vec![x, int_list(perm)])
}

/// `x` reshaped so that its first `sizes.len()` axes are one (`shape` is `x`'s).
fn reshape_rows(x: Expr, sizes: &[u64], shape: &[Option<u64>], at: &str) -> Result<Expr> {
    let mut dims = vec![size(sizes.iter().product(), at)?];
    for d in &shape[sizes.len().min(shape.len())..] {
        dims.push(d.map_or(Ok(ex(ExprKind::UnknownDim)), |n| size(n, at))?);
    }
    Ok(builtin(Builtin::Reshape, vec![x, ex(ExprKind::Array(dims))]))
}

/// An index or a slice bound of `node`: a literal, or one of its inputs in its own dtype.
fn bound(b: &Builder, node: &Node, p: Bound) -> Result<Expr> {
    match p {
        Bound::Known(n) => Ok(int(n)),
        Bound::Input { input } => {
            let id = *node.inputs.get(input).filter(|_| input > 0).ok_or_else(|| {
                ImportError::malformed(&node.at, format!("bound input {input} of {} inputs", node.inputs.len()))
            })?;
            b.operand(id, b.dtype(id, &node.at)?, &node.at)
        }
    }
}

/// A scalar literal ascribed its dtype where it stands alone (a one-element `stack`).
fn ascribe_if_literal(b: &Builder, id: usize, e: Expr, dt: DType) -> Expr {
    if b.is_literal(id) { ascribe(e, dt, &[]) } else { e }
}

/// `let (p1, p2, ...) = split(x, [sizes], axis);` with each part defined as its output.
fn split(b: &mut Builder, node: &Node, x: Expr, axis: i64, sizes: &[u64], outputs: &[usize]) -> Result<()> {
    let at = node.at.as_str();
    if outputs.len() != sizes.len() || outputs.first() != Some(&node.output) {
        return Err(ImportError::malformed(at, "a split's outputs do not match its sizes"));
    }
    let sizes = sizes.iter().map(|&n| size(n, at)).collect::<Result<Vec<_>>>()?;
    let value = builtin(Builtin::Split, vec![x, ex(ExprKind::Array(sizes)), int(axis)]);
    if outputs.len() == 1 {
        return b.bind(node.output, node.dtype, value, at);
    }
    bind_values(b, node, value, outputs, &vec![node.dtype; outputs.len()])
}

/// `let (x, y, ...) = value` for a value of several parts: the node's outputs bound to the
/// names, of dtypes `dtypes`.
fn bind_values(b: &mut Builder, node: &Node, value: Expr, outputs: &[usize], dtypes: &[DType]) -> Result<()> {
    let at = node.at.as_str();
    let names: Vec<String> = outputs.iter().map(|_| b.names.temp()).collect();
    let mut all = names.iter().map(|n| ident(n));
    let first = all.next().ok_or_else(|| ImportError::malformed(at, "a value of several parts without parts"))?;
    b.lets.push(Let { name: first, ty: None, value, span: SPAN, rest: all.collect() });
    for ((&id, name), &dt) in outputs.iter().zip(&names).zip(dtypes) {
        b.define(id, Val::Var(name.clone()), dt, at)?;
    }
    Ok(())
}

/// `let (x, y) = f(a)` for a builtin of two values (`slogdet`, `lu_factor`, `eigh`): the node's two
/// outputs bound to the two names, of dtypes `dtypes`.
fn two_values(b: &mut Builder, node: &Node, f: Builtin, a: Expr, outputs: &[usize], dtypes: &[DType; 2]) -> Result<()> {
    let at = node.at.as_str();
    let [first, second] = outputs else {
        return Err(ImportError::malformed(at, format!("`{}` without two outputs", f.name())));
    };
    if *first != node.output {
        return Err(ImportError::malformed(at, format!("`{}` whose first output is not the node's", f.name())));
    }
    bind_values(b, node, builtin(f, vec![a]), &[*first, *second], dtypes)
}

/// PyTensor's `set_subtensor(x[item], y)` / `inc_subtensor(x[item], y)` on the first axis.
fn set_subtensor(b: &Builder, node: &Node, item: SubItem, set: bool) -> Result<Expr> {
    let at = node.at.as_str();
    let dt = node.dtype;
    let (&x, rest) = node.inputs.split_first().ok_or_else(|| ImportError::malformed(at, "no inputs"))?;
    let &y = rest.first().ok_or_else(|| ImportError::malformed(at, "`set_subtensor` without a value"))?;
    let xe = b.operand(x, dt, at)?;
    let ye = b.operand(y, dt, at)?;
    Ok(match item {
        SubItem::Index(i) => {
            // One row: a scatter at that index.
            let idx = ex(ExprKind::Array(vec![bound(b, node, i)?]));
            let rows = builtin(Builtin::Expand, vec![ye, int(0)]);
            builtin(Builtin::Scatter { add: !set }, vec![xe, idx, rows])
        }
        SubItem::Slice(start, stop, step) => {
            if !matches!(step, None | Some(Bound::Known(1))) {
                return Err(ImportError::unsupported(at, "setting a slice with a step other than 1"));
            }
            let lo = start.map_or(Ok(int(0)), |p| bound(b, node, p))?;
            let hi = stop.map_or(Ok(int(i64::MAX)), |p| bound(b, node, p))?;
            let value = if set {
                ye
            } else {
                let old = IndexItem::Slice { start: Some(lo.clone()), stop: Some(hi.clone()), step: None, span: SPAN };
                bin(BinOp::Add, ex(ExprKind::Index(Box::new(xe.clone()), vec![old])), ye)
            };
            builtin(Builtin::SetSlice, vec![xe, value, lo, hi])
        }
    })
}

/// `x[i0, a1:b1, ...] = y` (or `+=`) on the leading axes: each index `i` becomes the slice
/// `i:i+1` (and `y` gets a unit axis there), then, from the last axis in, the block is placed
/// into the slab it belongs to with `set_slice`, each axis moved to the front for it.
fn set_subtensor_axes(b: &Builder, node: &Node, items: &[SubItem], set: bool, rank: usize, value_rank: usize) -> Result<Expr> {
    let at = node.at.as_str();
    let dt = node.dtype;
    let (&x, rest) = node.inputs.split_first().ok_or_else(|| ImportError::malformed(at, "no inputs"))?;
    let &y = rest.first().ok_or_else(|| ImportError::malformed(at, "`set_subtensor` without a value"))?;
    let kept = rank - items.iter().filter(|i| matches!(i, SubItem::Index(_))).count();
    if items.len() > rank || value_rank > kept {
        return Err(ImportError::malformed(at, format!("{} items on rank {rank}, a value of rank {value_rank}", items.len())));
    }
    // `y` right-aligned to `x[items]`, then a unit axis at each index.
    let mut ye = b.operand(y, dt, at)?;
    for _ in value_rank..kept {
        ye = builtin(Builtin::Expand, vec![ye, int(0)]);
    }
    let mut bounds = Vec::new();
    for (axis, item) in items.iter().enumerate() {
        match *item {
            SubItem::Index(Bound::Known(i)) if i >= 0 => {
                ye = builtin(Builtin::Expand, vec![ye, int(axis as i64)]);
                bounds.push((int(i), int(i + 1)));
            }
            SubItem::Slice(start, stop, None | Some(Bound::Known(1))) => {
                let lo = start.map_or(Ok(int(0)), |p| bound(b, node, p))?;
                let hi = stop.map_or(Ok(int(i64::MAX)), |p| bound(b, node, p))?;
                bounds.push((lo, hi));
            }
            _ => return Err(ImportError::unsupported(at, "setting at an index that is negative or run-time, or a slice with a step, on one of several axes")),
        }
    }
    let xe = b.operand(x, dt, at)?;
    Ok(place(xe, ye, &bounds, 0, rank, set))
}

/// `x` (whose first `axis` axes are already the block's) with its part `[.., lo:hi, ..]` on
/// each later bounded axis replaced by `y` (set) or increased by it.
fn place(x: Expr, y: Expr, bounds: &[(Expr, Expr)], axis: usize, rank: usize, set: bool) -> Expr {
    let Some((lo, hi)) = bounds.get(axis) else {
        return if set { y } else { bin(BinOp::Add, x, y) };
    };
    let mut items: Vec<IndexItem> = (0..axis).map(|_| IndexItem::Slice { start: None, stop: None, step: None, span: SPAN }).collect();
    items.push(IndexItem::Slice { start: Some(lo.clone()), stop: Some(hi.clone()), step: None, span: SPAN });
    let slab = ex(ExprKind::Index(Box::new(x.clone()), items));
    let slab = place(slab, y, bounds, axis + 1, rank, set);
    // Swapping `axis` with the first one puts it where `set_slice` works, and back.
    let mut swap: Vec<usize> = (0..rank).collect();
    swap.swap(0, axis);
    let perm = || ex(ExprKind::Array(swap.iter().map(|&a| int(a as i64)).collect()));
    let front = |e: Expr| if axis == 0 { e } else { builtin(Builtin::Transpose, vec![e, perm()]) };
    front(builtin(Builtin::SetSlice, vec![front(x), front(slab), lo.clone(), hi.clone()]))
}

/// A size as a literal; sizes beyond `i64` cannot be ptl literals.
fn size(n: u64, at: &str) -> Result<Expr> {
    i64::try_from(n).map(int).map_err(|_| ImportError::malformed(at, format!("size {n} is out of range")))
}

fn elementwise_unary(b: &Builder, node: &Node, op: UnaryOp) -> Result<Expr> {
    let [x] = b.args_n(&inputs(node)?, node.dtype, &node.at)?;
    Ok(unary(op, x))
}

/// A builtin of the math library by name: operands in the output dtype, except for the tests
/// (`isnan`, `isinf`), whose operand keeps its own.
fn math(b: &Builder, node: &Node, name: &str) -> Result<Expr> {
    let at = node.at.as_str();
    match Builtin::from_name(name) {
        Some(Builtin::Unary(op)) if op.gives_bool() => {
            let [x] = inputs(node)?;
            let own = b.dtype(x, at)?;
            let [x] = b.args_n(&[x], own, at)?;
            Ok(unary(op, x))
        }
        Some(Builtin::Unary(op)) => elementwise_unary(b, node, op),
        Some(pair @ Builtin::Pair(_)) => {
            let [x, y] = b.args_n(&inputs(node)?, node.dtype, at)?;
            Ok(builtin(pair, vec![x, y]))
        }
        Some(triple @ Builtin::Triple(_)) => {
            let [a, c, x] = b.args_n(&inputs(node)?, node.dtype, at)?;
            Ok(builtin(triple, vec![a, c, x]))
        }
        _ => Err(ImportError::unsupported(at, format!("math operation `{name}` is not a ptl builtin"))),
    }
}

/// Compares in `compute`, the dtype PyTensor chose for the operands.
fn comparison(b: &Builder, node: &Node, op: BinOp, compute: DType) -> Result<Expr> {
    let [x, y] = b.args_n(&inputs(node)?, compute, &node.at)?;
    Ok(bin(op, x, y))
}

/// Bitwise operations on bool, as comparisons and selections.
fn bitwise(b: &Builder, node: &Node) -> Result<Expr> {
    let at = node.at.as_str();
    if node.dtype != DType::Bool {
        return Err(ImportError::unsupported(at, format!("bitwise `{}` on {} (only on bool)", node.op, node.dtype)));
    }
    Ok(match node.kind {
        NodeKind::Invert => {
            let [x] = b.args_n(&inputs(node)?, DType::Bool, at)?;
            bin(BinOp::Eq, x, boolean(false))
        }
        NodeKind::And => {
            let [x, y] = b.args_n(&inputs(node)?, DType::Bool, at)?;
            select(x, y, boolean(false))
        }
        NodeKind::Or => {
            let [x, y] = b.args_n(&inputs(node)?, DType::Bool, at)?;
            select(x, boolean(true), y)
        }
        _ => {
            let [x, y] = b.args_n(&inputs(node)?, DType::Bool, at)?;
            bin(BinOp::Ne, x, y)
        }
    })
}

fn reduce(b: &Builder, node: &Node, kind: ReduceKind, axes: &[usize], in_ndim: usize) -> Result<Expr> {
    let at = node.at.as_str();
    let [x] = inputs(node)?;
    if axes.iter().any(|&a| a >= in_ndim) || axes.windows(2).any(|w| w[0] >= w[1]) {
        return Err(ImportError::malformed(at, format!("axes {axes:?} are not sorted axes of a rank-{in_ndim} input")));
    }
    // `all` and `any` are `min` and `max` of bools.
    let (op, input_dtype) = match kind {
        ReduceKind::Sum => (ReduceOp::Sum, node.dtype),
        ReduceKind::Max => (ReduceOp::Max, node.dtype),
        ReduceKind::Min => (ReduceOp::Min, node.dtype),
        ReduceKind::Mean => (ReduceOp::Mean, node.dtype),
        ReduceKind::Prod => (ReduceOp::Prod, node.dtype),
        ReduceKind::LogSumExp => (ReduceOp::LogSumExp, node.dtype),
        ReduceKind::All => (ReduceOp::Min, DType::Bool),
        ReduceKind::Any => (ReduceOp::Max, DType::Bool),
    };
    let x = b.operand(x, input_dtype, at)?;
    let f = Builtin::Reduce(op);
    Ok(if axes.is_empty() {
        x
    } else if axes.len() == in_ndim {
        builtin(f, vec![x])
    } else {
        builtin(f, vec![x, int_list(axes.iter().map(|&a| a as i64))])
    })
}

/// PyTensor's `DimShuffle`: drop the axes `order` leaves out, permute, insert new axes
/// (`None` in `order`).
fn dimshuffle(mut x: Expr, order: &[Option<usize>], ndim: usize, at: &str) -> Result<Expr> {
    let kept: Vec<usize> = order.iter().filter_map(|&o| o).collect();
    let mut seen = vec![false; ndim];
    for &k in &kept {
        match seen.get_mut(k) {
            Some(s) if !*s => *s = true,
            _ => {
                let written: Vec<String> = order.iter().map(|o| o.map_or("x".to_string(), |i| i.to_string())).collect();
                let message = format!("order ({}) is no shuffle of {ndim} axes", written.join(", "));
                return Err(ImportError::malformed(at, message));
            }
        }
    }
    // Drop, highest axis first so the lower indices stay valid. PyTensor drops only axes it
    // knows have size 1, which ptl may type `?` (`x[:, :1]`): index 0 takes such an axis away
    // whatever its static type (and checks its size at run time).
    for axis in (0..ndim).rev().filter(|&a| !seen[a]) {
        let mut items: Vec<IndexItem> =
            (0..axis).map(|_| IndexItem::Slice { start: None, stop: None, step: None, span: SPAN }).collect();
        items.push(IndexItem::Single(int(0)));
        x = ex(ExprKind::Index(Box::new(x), items));
    }
    // The kept axes in their input order are positions 0.. now; `perm` lists them in output order.
    let mut sorted = kept.clone();
    sorted.sort_unstable();
    let perm: Vec<usize> = kept.iter().map(|k| sorted.partition_point(|s| s < k)).collect();
    if perm.iter().enumerate().any(|(i, &p)| p != i) {
        x = if perm.len() == 2 {
            ex(ExprKind::Transpose(Box::new(x)))
        } else {
            builtin(Builtin::Transpose, vec![x, int_list(perm.iter().map(|&p| p as i64))])
        };
    }
    for (pos, o) in order.iter().enumerate() {
        if o.is_none() {
            x = builtin(Builtin::Expand, vec![x, int(pos as i64)]);
        }
    }
    Ok(x)
}
