//! Helpers the joining and matrix lowerings share: the loop index inside a `linalg.generic`
//! body, and `tensor.insert_slice` / `tensor.extract_slice` with unit strides. Those ops are
//! built in generic form, as `linalg.generic` is: each position of a slice is static where
//! the size is known, so the slice type equals the operand's type.

use melior::ir::attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute};
use melior::ir::operation::OperationBuilder;
use melior::ir::r#type::IntegerType;
use melior::ir::{Identifier, Type, Value, ValueLike};

use crate::emitter::{Emitter, static_dims};
use crate::error::Result;

/// `linalg.index dim`: the current iteration of loop `dim` of the enclosing generic.
pub fn loop_index<'c, 'a>(e: &Emitter<'c, 'a>, dim: usize) -> Result<Value<'c, 'a>> {
    let i64_ty: Type<'c> = IntegerType::new(e.ctx, 64).into();
    let op = OperationBuilder::new("linalg.index", e.loc)
        .add_attributes(&[(Identifier::new(e.ctx, "dim"), IntegerAttribute::new(i64_ty, dim as i64).into())])
        .add_results(&[e.index_type()])
        .build()?;
    e.append(op)
}

/// One position of a slice: known now, or a run-time `index`.
#[derive(Clone, Copy)]
pub enum Pos<'c, 'a> {
    Static(i64),
    Dynamic(Value<'c, 'a>),
}

/// MLIR's marker for a dynamic entry of `static_offsets` / `static_sizes`.
const DYNAMIC: i64 = i64::MIN;

fn split<'c, 'a>(positions: &[Pos<'c, 'a>]) -> (Vec<i64>, Vec<Value<'c, 'a>>) {
    let mut statics = Vec::new();
    let mut dynamics = Vec::new();
    for p in positions {
        match p {
            Pos::Static(n) => statics.push(*n),
            Pos::Dynamic(v) => {
                statics.push(DYNAMIC);
                dynamics.push(*v);
            }
        }
    }
    (statics, dynamics)
}

/// The sizes of `value`, static where its type knows them.
pub fn sizes_of<'c, 'a>(e: &Emitter<'c, 'a>, value: Value<'c, 'a>) -> Result<Vec<Pos<'c, 'a>>> {
    let mut out = Vec::new();
    for (axis, d) in static_dims(value.r#type()).into_iter().enumerate() {
        out.push(match d {
            Some(n) => Pos::Static(n as i64),
            None => Pos::Dynamic(e.dim(value, axis)?),
        });
    }
    Ok(out)
}

fn slice_attrs<'c>(
    e: &Emitter<'c, '_>,
    offsets: &[i64],
    sizes: &[i64],
    segments: &[i32],
) -> Vec<(Identifier<'c>, melior::ir::Attribute<'c>)> {
    let ones = vec![1i64; sizes.len()];
    vec![
        (Identifier::new(e.ctx, "static_offsets"), DenseI64ArrayAttribute::new(e.ctx, offsets).into()),
        (Identifier::new(e.ctx, "static_sizes"), DenseI64ArrayAttribute::new(e.ctx, sizes).into()),
        (Identifier::new(e.ctx, "static_strides"), DenseI64ArrayAttribute::new(e.ctx, &ones).into()),
        (Identifier::new(e.ctx, "operandSegmentSizes"), DenseI32ArrayAttribute::new(e.ctx, segments).into()),
    ]
}

/// `tensor.insert_slice source into dest[offsets]` with `source`'s own sizes.
pub fn insert_slice<'c, 'a>(
    e: &Emitter<'c, 'a>,
    source: Value<'c, 'a>,
    dest: Value<'c, 'a>,
    offsets: &[Pos<'c, 'a>],
) -> Result<Value<'c, 'a>> {
    let (off_static, off_dyn) = split(offsets);
    let (size_static, size_dyn) = split(&sizes_of(e, source)?);
    let mut operands = vec![source, dest];
    operands.extend(&off_dyn);
    operands.extend(&size_dyn);
    let segments = [1, 1, off_dyn.len() as i32, size_dyn.len() as i32, 0];
    let op = OperationBuilder::new("tensor.insert_slice", e.loc)
        .add_operands(&operands)
        .add_attributes(&slice_attrs(e, &off_static, &size_static, &segments))
        .add_results(&[dest.r#type()])
        .build()?;
    e.append(op)
}

/// `tensor.insert_slice source into dest[row]`, where `dest` has one more (leading) dim than
/// `source`: the rank-reducing insertion of one row of a stack.
pub fn insert_row<'c, 'a>(
    e: &Emitter<'c, 'a>,
    source: Value<'c, 'a>,
    dest: Value<'c, 'a>,
    row: Pos<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let mut offsets = vec![row];
    let mut sizes = vec![Pos::Static(1)];
    for p in sizes_of(e, source)? {
        offsets.push(Pos::Static(0));
        sizes.push(p);
    }
    let (off_static, off_dyn) = split(&offsets);
    let (size_static, size_dyn) = split(&sizes);
    let mut operands = vec![source, dest];
    operands.extend(&off_dyn);
    operands.extend(&size_dyn);
    let segments = [1, 1, off_dyn.len() as i32, size_dyn.len() as i32, 0];
    let op = OperationBuilder::new("tensor.insert_slice", e.loc)
        .add_operands(&operands)
        .add_attributes(&slice_attrs(e, &off_static, &size_static, &segments))
        .add_results(&[dest.r#type()])
        .build()?;
    e.append(op)
}

/// `tensor.extract_slice source[offsets .. offsets + sizes]` of type `result`.
pub fn extract_window<'c, 'a>(
    e: &Emitter<'c, 'a>,
    source: Value<'c, 'a>,
    offsets: &[Pos<'c, 'a>],
    sizes: &[Pos<'c, 'a>],
    result: Type<'c>,
) -> Result<Value<'c, 'a>> {
    let (off_static, off_dyn) = split(offsets);
    let (size_static, size_dyn) = split(sizes);
    let mut operands = vec![source];
    operands.extend(&off_dyn);
    operands.extend(&size_dyn);
    let segments = [1, off_dyn.len() as i32, size_dyn.len() as i32, 0];
    let op = OperationBuilder::new("tensor.extract_slice", e.loc)
        .add_operands(&operands)
        .add_attributes(&slice_attrs(e, &off_static, &size_static, &segments))
        .add_results(&[result])
        .build()?;
    e.append(op)
}

/// `tensor.extract_slice source[0..sizes]` (from the origin) of type `result`.
pub fn extract_front<'c, 'a>(
    e: &Emitter<'c, 'a>,
    source: Value<'c, 'a>,
    sizes: &[Pos<'c, 'a>],
    result: Type<'c>,
) -> Result<Value<'c, 'a>> {
    extract_window(e, source, &vec![Pos::Static(0); sizes.len()], sizes, result)
}
