//! Small helpers for appending operations to a block: the building blocks every lowering uses.

use melior::{
    Context,
    dialect::{
        arith, cf,
        ods::{linalg, tensor},
    },
    ir::{
        AffineMap, Attribute, Block, BlockLike, Identifier, Location, Region,
        operation::OperationLike,
        RegionLike, Type, Value,
        AffineExpr, ValueLike,
        attribute::{
            ArrayAttribute, DenseI32ArrayAttribute, FloatAttribute, IntegerAttribute,
        },
        operation::OperationBuilder,
        r#type::{DimSize, IntegerType, RankedTensorType, ShapedTypeLike},
    },
};
use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::{DType, Dim, TensorType};

use crate::error::{LowerError, Result};
use crate::types::{element_type, tensor_type_with_shape};

/// How one operand dim is indexed by a `linalg.generic` loop nest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idx {
    /// By loop dimension `d_i`.
    Loop(usize),
    /// By the constant 0 (a broadcast size-1 dim).
    Zero,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Iter {
    Parallel,
    Reduction,
}

/// Appends operations to one block.
pub struct Emitter<'c, 'a> {
    pub ctx: &'c Context,
    pub block: &'a Block<'c>,
    pub loc: Location<'c>,
}

impl<'c, 'a> Emitter<'c, 'a> {
    pub fn new(ctx: &'c Context, block: &'a Block<'c>, loc: Location<'c>) -> Self {
        Emitter { ctx, block, loc }
    }

    /// Appends a one-result operation given by name, for ops melior has no builder for
    /// (IREE's, in generic form).
    fn op1(&self, name: &str, operands: &[Value<'c, 'a>], result: Type<'c>) -> Result<Value<'c, 'a>> {
        let op = OperationBuilder::new(name, self.loc).add_operands(operands).add_results(&[result]).build()?;
        self.append(op)
    }

    pub fn append(&self, op: melior::ir::Operation<'c>) -> Result<Value<'c, 'a>> {
        Ok(self.block.append_operation(op).result(0)?.into())
    }

    pub fn index_type(&self) -> Type<'c> {
        Type::index(self.ctx)
    }

    pub fn const_index(&self, v: i64) -> Result<Value<'c, 'a>> {
        let ty = self.index_type();
        self.append(arith::constant(self.ctx, IntegerAttribute::new(ty, v).into(), self.loc))
    }

    /// A scalar constant of `dtype` (bool: nonzero is true).
    pub fn const_scalar(&self, dtype: DType, v: f64) -> Result<Value<'c, 'a>> {
        let ty = element_type(self.ctx, dtype);
        let attr: Attribute<'c> = match dtype {
            DType::F32 | DType::F64 => FloatAttribute::new(self.ctx, ty, v).into(),
            DType::Bool => IntegerAttribute::new(ty, (v != 0.0) as i64).into(),
            DType::I32 | DType::I64 => IntegerAttribute::new(ty, v as i64).into(),
        };
        self.append(arith::constant(self.ctx, attr, self.loc))
    }

    pub fn const_int(&self, dtype: DType, v: i64) -> Result<Value<'c, 'a>> {
        let ty = element_type(self.ctx, dtype);
        self.append(arith::constant(self.ctx, IntegerAttribute::new(ty, v).into(), self.loc))
    }

    /// `tensor.dim %t, axis`.
    pub fn dim(&self, tensor: Value<'c, 'a>, axis: usize) -> Result<Value<'c, 'a>> {
        let c = self.const_index(axis as i64)?;
        self.append(tensor::dim(self.ctx, self.index_type(), tensor, c, self.loc).into())
    }

    /// `tensor.empty` of the given shape; `dynamic` holds one index per `?` in `shape`.
    pub fn empty(&self, shape: &[u64], dtype: DType, dynamic: &[Value<'c, 'a>]) -> Result<Value<'c, 'a>> {
        let ty = tensor_type_with_shape(self.ctx, shape, dtype);
        self.append(tensor::empty(self.ctx, ty, dynamic, self.loc).into())
    }

    /// `tensor.cast` when the static information differs; a no-op otherwise. Where a dynamic
    /// dim becomes static, its size is checked at run time first, as `check(axis)` says.
    pub fn cast_tensor_checked(
        &self,
        value: Value<'c, 'a>,
        to: Type<'c>,
        check: impl Fn(usize) -> RuntimeCheck,
    ) -> Result<Value<'c, 'a>> {
        if value.r#type() == to {
            return Ok(value);
        }
        for axis in 0..static_dims(to).len() {
            if let (None, Some(n)) = (self.static_dim(value, axis), static_dims(to)[axis]) {
                let d = self.dim(value, axis)?;
                let expected = self.const_index(n as i64)?;
                self.check_equal(d, expected, check(axis))?;
            }
        }
        self.append(tensor::cast(self.ctx, to, value, self.loc).into())
    }

    /// `tensor.cast` of a node's value to its static type. The node's op has checked its
    /// sizes already; the assertion only guards that invariant.
    pub fn cast_tensor(&self, value: Value<'c, 'a>, to: Type<'c>, ty: &TensorType) -> Result<Value<'c, 'a>> {
        self.cast_tensor_checked(value, to, |axis| RuntimeCheck::Value { ty: ty.clone(), axis })
    }

    /// The static size of `value`'s dim `axis`, if its type has one.
    pub fn static_dim(&self, value: Value<'c, 'a>, axis: usize) -> Option<u64> {
        static_dims(value.r#type()).get(axis).copied().flatten()
    }

    /// Fails the call with `check` (recorded for the runtime's report) unless `a == b`.
    pub fn check_equal(&self, a: Value<'c, 'a>, b: Value<'c, 'a>, check: RuntimeCheck) -> Result<()> {
        let eq = self.append(arith::cmpi(self.ctx, arith::CmpiPredicate::Eq, a, b, self.loc))?;
        self.check(eq, check)
    }

    /// Fails the call with `check` unless the `i1` condition holds.
    pub fn check(&self, cond: Value<'c, 'a>, check: RuntimeCheck) -> Result<()> {
        if crate::checks::silent() {
            return Ok(());
        }
        let msg = crate::checks::register(check);
        self.block.append_operation(cf::assert(self.ctx, cond, &msg, self.loc));
        Ok(())
    }

    /// IREE's `util.optimization_barrier`: the value unchanged, with nothing about it (its
    /// sizes included) folded through. The op is IREE's, written in generic form, so the
    /// context allows unregistered dialects. A checks-only twin skips these (it keeps only
    /// what its checks need); its arguments take [`Emitter::argument_barrier`].
    pub fn optimization_barrier(&self, value: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
        if crate::checks::in_twin() {
            return Ok(value);
        }
        self.barrier(value)
    }

    /// [`Emitter::optimization_barrier`] in a checks-only twin too: for arguments with `?`
    /// dims, whose sizes IREE would otherwise infer from the ops that use them and assert at
    /// the function's boundary. A twin that computes tensors (a loop's state, a broadcast
    /// after it) gave IREE's "input 1 shape dimension 0 mismatch" instead of the check.
    pub fn argument_barrier(&self, value: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
        self.barrier(value)
    }

    /// In a checks-only twin, [`Emitter::argument_barrier`] on an operand whose `?` dims were
    /// just checked against the sizes of the op that reads it; elsewhere the value itself.
    /// IREE infers an operand's sizes from the op that uses it, and carries them back through
    /// the code that made it, past the check: in a twin that keeps that code (a loop, which
    /// its interrupt points keep), a kernel then read past an argument's buffer
    /// (`OUT_OF_RANGE`) instead of the check failing.
    pub fn checked_operand(&self, value: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
        if crate::checks::in_twin() && !crate::checks::silent() { self.barrier(value) } else { Ok(value) }
    }

    /// `value` behind a barrier that gives it the sizes `sizes` (where `Some`) it was just
    /// checked to have: an op reading it past the check then meets sizes that agree with its
    /// loops, even where IREE can see the value's own (of a constant) contradict them.
    pub fn with_checked_sizes(&self, value: Value<'c, 'a>, sizes: &[Option<Value<'c, 'a>>]) -> Result<Value<'c, 'a>> {
        let ty = value.r#type();
        let dims = static_dims(ty);
        let mut tied = Vec::new();
        for (axis, d) in dims.iter().enumerate() {
            if d.is_none() {
                tied.push(match sizes.get(axis).copied().flatten() {
                    Some(n) => n,
                    None => self.dim(value, axis)?,
                });
            }
        }
        let behind = self.op1("util.optimization_barrier", &[value], ty)?;
        if tied.is_empty() {
            return Ok(behind);
        }
        let mut operands = vec![behind];
        operands.extend(tied);
        self.op1("flow.tensor.tie_shape", &operands, ty)
    }

    fn barrier(&self, value: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
        // The barrier's result carries its sizes explicitly (`flow.tensor.tie_shape`), as
        // IREE needs for a value whose producer it cannot see into.
        let mut dims = Vec::new();
        for (axis, d) in static_dims(value.r#type()).iter().enumerate() {
            if d.is_none() {
                dims.push(self.dim(value, axis)?);
            }
        }
        let behind = self.op1("util.optimization_barrier", &[value], value.r#type())?;
        if dims.is_empty() {
            return Ok(behind);
        }
        let mut operands = vec![behind];
        operands.extend(dims);
        // IREE's op too, in generic form: no builder exists for it.
        self.op1("flow.tensor.tie_shape", &operands, value.r#type())
    }

    /// The run-time size of `value`'s dim `axis` (a constant when static).
    pub fn dim_value(&self, value: Value<'c, 'a>, axis: usize) -> Result<Value<'c, 'a>> {
        match self.static_dim(value, axis) {
            Some(n) => self.const_index(n as i64),
            None => self.dim(value, axis),
        }
    }

    pub fn affine_map(&self, n_loops: usize, idx: &[Idx]) -> Attribute<'c> {
        let exprs: Vec<AffineExpr<'c>> = idx
            .iter()
            .map(|i| match i {
                Idx::Loop(d) => AffineExpr::dim(self.ctx, *d),
                Idx::Zero => AffineExpr::constant(self.ctx, 0),
            })
            .collect();
        let map = AffineMap::new(self.ctx, n_loops, 0, &exprs);
        // SAFETY: the map was just created in this context.
        unsafe { Attribute::from_raw(mlir_sys::mlirAffineMapAttrGet(map.to_raw())) }
    }

    fn iterator_attr(&self, it: Iter) -> Result<Attribute<'c>> {
        let text = match it {
            Iter::Parallel => "#linalg.iterator_type<parallel>",
            Iter::Reduction => "#linalg.iterator_type<reduction>",
        };
        Attribute::parse(self.ctx, text).ok_or_else(|| LowerError::Internal(format!("cannot build {text}")))
    }

    /// A `linalg.generic` with one output. `inputs` pairs each operand with its indexing and
    /// dtype; `body` receives the element values (inputs, then the output's current value)
    /// and returns the element to yield.
    #[allow(clippy::too_many_arguments)]
    pub fn generic(
        &self,
        inputs: &[(Value<'c, 'a>, Vec<Idx>, Type<'c>)],
        init: Value<'c, 'a>,
        out_idx: &[Idx],
        out_elem: Type<'c>,
        iterators: &[Iter],
        body: impl for<'b> FnOnce(&Emitter<'c, 'b>, &[Value<'c, 'b>]) -> Result<Value<'c, 'b>>,
    ) -> Result<Value<'c, 'a>> {
        let n_loops = iterators.len();
        let mut maps: Vec<Attribute<'c>> =
            inputs.iter().map(|(_, idx, _)| self.affine_map(n_loops, idx)).collect();
        maps.push(self.affine_map(n_loops, out_idx));
        let iters = iterators.iter().map(|&it| self.iterator_attr(it)).collect::<Result<Vec<_>>>()?;

        let mut arg_types: Vec<(Type<'c>, Location<'c>)> =
            inputs.iter().map(|(_, _, t)| (*t, self.loc)).collect();
        arg_types.push((out_elem, self.loc));
        let body_block = Block::new(&arg_types);
        {
            let inner = Emitter::new(self.ctx, &body_block, self.loc);
            let args = (0..arg_types.len())
                .map(|i| body_block.argument(i).map(Into::into))
                .collect::<std::result::Result<Vec<Value<'c, '_>>, _>>()?;
            let result = body(&inner, &args)?;
            inner.block.append_operation(linalg::r#yield(self.ctx, &[result], self.loc).into());
        }
        let region = Region::new();
        region.append_block(body_block);

        let mut operands: Vec<Value<'c, 'a>> = inputs.iter().map(|(v, _, _)| *v).collect();
        operands.push(init);
        // melior has no usable builder for `linalg.generic`.
        let op = OperationBuilder::new("linalg.generic", self.loc)
            .add_operands(&operands)
            .add_results(&[init.r#type()])
            .add_attributes(&[
                (Identifier::new(self.ctx, "indexing_maps"), ArrayAttribute::new(self.ctx, &maps).into()),
                (Identifier::new(self.ctx, "iterator_types"), ArrayAttribute::new(self.ctx, &iters).into()),
                (
                    Identifier::new(self.ctx, "operandSegmentSizes"),
                    DenseI32ArrayAttribute::new(self.ctx, &[inputs.len() as i32, 1]).into(),
                ),
            ])
            .add_regions([region])
            .build()?;
        Ok(self.block.append_operation(op).result(0)?.into())
    }

    /// A tensor of `shape` filled with `scalar` (`linalg.fill`).
    pub fn filled(
        &self,
        shape: &[u64],
        dtype: DType,
        dynamic: &[Value<'c, 'a>],
        scalar: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>> {
        let empty = self.empty(shape, dtype, dynamic)?;
        self.named_linalg("linalg.fill", &[scalar], empty)
    }

    /// A named linalg op (`linalg.fill`, `linalg.matmul`, ...) with its standard body.
    pub fn named_linalg(&self, name: &str, inputs: &[Value<'c, 'a>], init: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
        let mut operands = inputs.to_vec();
        operands.push(init);
        // Named linalg ops have no usable builder either; the body comes from MLIR below.
        let op = OperationBuilder::new(name, self.loc)
            .add_operands(&operands)
            .add_results(&[init.r#type()])
            .add_attributes(&[(
                Identifier::new(self.ctx, "operandSegmentSizes"),
                DenseI32ArrayAttribute::new(self.ctx, &[inputs.len() as i32, 1]).into(),
            )])
            .add_regions([Region::new()])
            .build()?;
        // SAFETY: the op is a linalg named op with one empty region, which this fills.
        unsafe { mlir_sys::mlirLinalgFillBuiltinNamedOpRegion(op.to_raw()) };
        Ok(self.block.append_operation(op).result(0)?.into())
    }

    /// The element type of `dtype` inside function bodies.
    pub fn elem(&self, dtype: DType) -> Type<'c> {
        element_type(self.ctx, dtype)
    }

    pub fn i1(&self) -> Type<'c> {
        IntegerType::new(self.ctx, 1).into()
    }
}

/// Each dim of a ranked tensor type: `Some(size)` when static.
pub fn static_dims(ty: Type<'_>) -> Vec<Option<u64>> {
    match RankedTensorType::try_from(ty) {
        Ok(t) => (0..t.rank())
            .map(|i| match t.dim_size(i) {
                Ok(DimSize::Static(n)) => Some(n),
                _ => None,
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Static dims of a type, with `?` for symbolic/unknown ones.
pub fn static_shape(dims: &[Dim]) -> Vec<u64> {
    crate::types::shape_of(&TensorType::new(DType::F64, dims.to_vec()))
}
