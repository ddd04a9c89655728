//! The builder derivative code is written with: every node it makes is bound to a fresh
//! `let` (`%0`, `%1`, ...: names no source program can use), so operands are always names or
//! literals and a rule can use a value twice without computing it twice.

use ndarray::{ArrayD, IxDyn};

use crate::ops::{BinaryOp, Op, ReduceOp, SliceAxis, UnaryOp};
use crate::span::Span;
use crate::typed::{TExpr, TExprKind, TLet};
use crate::types::{DType, Dim, TensorType};
use crate::value::Value;

pub struct Builder {
    pub(crate) lets: Vec<TLet>,
    next: usize,
    /// The span generated nodes carry: the op being differentiated, so a run-time check in
    /// derivative code points at the source it came from.
    pub(crate) span: Span,
}

/// Whether `e` is a name or a literal (an operand a rule may repeat freely).
pub(crate) fn is_atom(e: &TExpr) -> bool {
    matches!(e.kind, TExprKind::Var(_) | TExprKind::Literal(_) | TExprKind::DimValue(_))
}

/// A scalar of `dtype` with value `v`.
pub(crate) fn scalar_value(dtype: DType, v: f64) -> Value {
    let at = IxDyn(&[]);
    match dtype {
        DType::Bool => Value::Bool(ArrayD::from_elem(at, v != 0.0)),
        DType::I32 => Value::I32(ArrayD::from_elem(at, v as i32)),
        DType::I64 => Value::I64(ArrayD::from_elem(at, v as i64)),
        DType::F32 => Value::F32(ArrayD::from_elem(at, v as f32)),
        DType::F64 => Value::F64(ArrayD::from_elem(at, v)),
    }
}

impl Builder {
    /// A builder whose names start at `%first` (after those the code already uses).
    pub(crate) fn new(span: Span, first: usize) -> Self {
        Builder { lets: Vec::new(), next: first, span }
    }

    /// A builder for a loop body inside this code: its names continue this builder's, so
    /// the body can read every name here.
    pub(crate) fn nested(&self) -> Builder {
        Builder { lets: Vec::new(), next: self.next, span: self.span.clone() }
    }

    /// Continues numbering after the names `inner` made.
    pub(crate) fn resume(&mut self, inner: &Builder) {
        self.next = self.next.max(inner.next);
    }

    pub(crate) fn fresh(&mut self) -> String {
        let n = format!("%{}", self.next);
        self.next += 1;
        n
    }

    pub(crate) fn var(&self, name: &str, ty: TensorType) -> TExpr {
        TExpr::new(TExprKind::Var(name.to_string()), ty, self.span.clone())
    }

    /// Binds `e` to a fresh name (an atom is returned as it is).
    pub(crate) fn bind(&mut self, e: TExpr) -> TExpr {
        if is_atom(&e) {
            return e;
        }
        let name = self.fresh();
        let v = TExpr::new(TExprKind::Var(name.clone()), e.ty.clone(), e.span.clone());
        self.lets.push(TLet { name, value: e, span: self.span.clone(), rest: Vec::new() });
        v
    }

    /// Binds a node giving several values; returns one name per value.
    pub(crate) fn bind_multi(&mut self, e: TExpr) -> Vec<TExpr> {
        let tys = e.result_types();
        let names: Vec<String> = tys.iter().map(|_| self.fresh()).collect();
        let vars = names.iter().zip(&tys).map(|(n, t)| self.var(n, t.clone())).collect();
        self.lets.push(TLet { name: names[0].clone(), value: e, span: self.span.clone(), rest: names[1..].to_vec() });
        vars
    }

    pub(crate) fn op(&mut self, op: Op, args: Vec<TExpr>, ty: TensorType) -> TExpr {
        let e = TExpr::op(op, args, ty, self.span.clone());
        self.bind(e)
    }

    pub(crate) fn lit(&self, dtype: DType, v: f64) -> TExpr {
        TExpr::new(TExprKind::Literal(scalar_value(dtype, v)), TensorType::scalar(dtype), self.span.clone())
    }

    /// `x` broadcast to the dims of `target` (which is also the shape witness).
    pub(crate) fn like(&mut self, x: TExpr, target: &TExpr) -> TExpr {
        if x.ty.dims == target.ty.dims {
            return x;
        }
        let ty = TensorType::new(x.ty.dtype, target.ty.dims.clone());
        self.op(Op::Broadcast, vec![x, target.clone()], ty)
    }

    pub(crate) fn zeros_like(&mut self, x: &TExpr) -> TExpr {
        let z = self.lit(x.ty.dtype, 0.0);
        self.like(z, x)
    }

    /// Ones of dtype `dtype` with the shape of `x`.
    pub(crate) fn ones_like(&mut self, x: &TExpr, dtype: DType) -> TExpr {
        let one = self.lit(dtype, 1.0);
        let ty = TensorType::new(dtype, x.ty.dims.clone());
        if x.ty.dims.is_empty() {
            return one;
        }
        self.op(Op::Broadcast, vec![one, x.clone()], ty)
    }

    /// An elementwise binary op; a scalar operand is broadcast to the other's shape.
    pub(crate) fn bin(&mut self, op: BinaryOp, a: TExpr, b: TExpr) -> TExpr {
        let (a, b) = match (a.ty.rank(), b.ty.rank()) {
            (0, r) if r > 0 => (self.like(a, &b), b),
            (r, 0) if r > 0 => {
                let b = self.like(b, &a);
                (a, b)
            }
            _ => (a, b),
        };
        let dtype = if op.is_comparison() || op.is_logical() { DType::Bool } else { a.ty.dtype };
        let ty = TensorType::new(dtype, a.ty.dims.clone());
        self.op(Op::Binary(op), vec![a, b], ty)
    }

    pub(crate) fn add(&mut self, a: TExpr, b: TExpr) -> TExpr {
        self.bin(BinaryOp::Add, a, b)
    }

    pub(crate) fn sub(&mut self, a: TExpr, b: TExpr) -> TExpr {
        self.bin(BinaryOp::Sub, a, b)
    }

    pub(crate) fn mul(&mut self, a: TExpr, b: TExpr) -> TExpr {
        self.bin(BinaryOp::Mul, a, b)
    }

    pub(crate) fn div(&mut self, a: TExpr, b: TExpr) -> TExpr {
        self.bin(BinaryOp::Div, a, b)
    }

    /// `a * c` for a number `c`.
    pub(crate) fn scale(&mut self, a: TExpr, c: f64) -> TExpr {
        let c = self.lit(a.ty.dtype, c);
        self.mul(a, c)
    }

    pub(crate) fn un(&mut self, op: UnaryOp, x: TExpr) -> TExpr {
        let ty = x.ty.clone();
        self.op(Op::Unary(op), vec![x], ty)
    }

    pub(crate) fn neg(&mut self, x: TExpr) -> TExpr {
        self.un(UnaryOp::Neg, x)
    }

    /// `where(c, a, b)`; scalar branches are broadcast to the condition's shape.
    pub(crate) fn select(&mut self, c: TExpr, a: TExpr, b: TExpr) -> TExpr {
        let a = self.like(a, &c);
        let b = self.like(b, &c);
        let ty = a.ty.clone();
        self.op(Op::Select, vec![c, a, b], ty)
    }

    /// `where(c, x, 0)`.
    pub(crate) fn keep(&mut self, c: TExpr, x: TExpr) -> TExpr {
        let z = self.lit(x.ty.dtype, 0.0);
        self.select(c, x, z)
    }

    /// `where(c, 0, x)`.
    pub(crate) fn keep_not(&mut self, c: TExpr, x: TExpr) -> TExpr {
        let z = self.lit(x.ty.dtype, 0.0);
        self.select(c, z, x)
    }

    pub(crate) fn cast(&mut self, x: TExpr, to: DType) -> TExpr {
        if x.ty.dtype == to {
            return x;
        }
        let ty = TensorType::new(to, x.ty.dims.clone());
        self.op(Op::Cast, vec![x], ty)
    }

    /// A reduction over sorted `axes`.
    pub(crate) fn reduce(&mut self, op: ReduceOp, x: TExpr, axes: &[usize]) -> TExpr {
        if axes.is_empty() {
            return x;
        }
        let dims = x.ty.dims.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, d)| d.clone()).collect();
        let ty = TensorType::new(x.ty.dtype, dims);
        self.op(Op::Reduce(op, axes.to_vec()), vec![x], ty)
    }

    pub(crate) fn expand(&mut self, x: TExpr, axis: usize) -> TExpr {
        let mut dims = x.ty.dims.clone();
        dims.insert(axis, Dim::Static(1));
        let ty = TensorType::new(x.ty.dtype, dims);
        self.op(Op::Expand(axis), vec![x], ty)
    }

    /// `x` reduced over sorted `axes` of `target`, brought back to `target`'s shape: each
    /// reduced axis is put back as a 1 and stretched.
    pub(crate) fn unreduce(&mut self, x: TExpr, axes: &[usize], target: &TExpr) -> TExpr {
        if x.ty.rank() == 0 {
            // A scalar stretches to any shape as it is (a 1 stretched into a `?` dim takes
            // its size from the witness, which compiled code does not do yet).
            let x = self.like(x, target);
            return self.retype(x, target.ty.dims.clone());
        }
        let mut x = x;
        for &a in axes {
            x = self.expand(x, a);
        }
        let x = self.like(x, target);
        self.retype(x, target.ty.dims.clone())
    }

    pub(crate) fn transpose(&mut self, x: TExpr, perm: &[usize]) -> TExpr {
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return x;
        }
        let dims = perm.iter().map(|&p| x.ty.dims[p].clone()).collect();
        let ty = TensorType::new(x.ty.dtype, dims);
        self.op(Op::Transpose(perm.to_vec()), vec![x], ty)
    }

    /// `x` seen with other (equal at run time) dims: a `?` where a name is known, say.
    pub(crate) fn retype(&mut self, x: TExpr, dims: Vec<Dim>) -> TExpr {
        TExpr { ty: TensorType::new(x.ty.dtype, dims), ..x }
    }

    /// The run-time size of axis `axis` of `x`, as an `i64` scalar.
    pub(crate) fn dim_size(&mut self, x: &TExpr, axis: usize) -> TExpr {
        match &x.ty.dims[axis] {
            Dim::Static(n) => self.lit(DType::I64, *n as f64),
            Dim::Symbol(s) => TExpr::new(TExprKind::DimValue(s.clone()), TensorType::scalar(DType::I64), self.span.clone()),
            Dim::Unknown => {
                // Counting ones along the axis works even when another axis is empty.
                let ones = self.ones_like(x, DType::I64);
                let others: Vec<usize> = (0..x.ty.rank()).filter(|&i| i != axis).collect();
                let per = self.reduce(ReduceOp::Sum, ones, &others);
                let ones = self.ones_like(&per, DType::I64);
                self.reduce(ReduceOp::Sum, ones, &[0])
            }
        }
    }

    /// `x[.., a:b, ..]` on one axis (`b` = `None` runs to the end).
    pub(crate) fn slice_axis(&mut self, x: TExpr, axis: usize, a: TExpr, b: Option<TExpr>, ty: TensorType) -> TExpr {
        let mut axes = vec![SliceAxis::Full; x.ty.rank()];
        axes[axis] = SliceAxis::Range { start: true, stop: b.is_some(), step: false };
        let mut args = vec![x, a];
        args.extend(b);
        self.op(Op::Slice(axes), args, ty)
    }
}

/// The permutation that undoes `perm`.
pub(crate) fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    inv
}

/// The permutation that moves axis `axis` of a rank-`rank` array to the front.
pub(crate) fn to_front(axis: usize, rank: usize) -> Vec<usize> {
    let mut p = vec![axis];
    p.extend((0..rank).filter(|&i| i != axis));
    p
}
