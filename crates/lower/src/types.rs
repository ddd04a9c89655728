//! ptl types to MLIR types.

use melior::{
    Context,
    ir::{
        Type,
        r#type::{IntegerType, RankedTensorType},
    },
};
use ptl_lang::{DType, Dim, TensorType};

/// MLIR's marker for a dynamic dimension in a shaped type.
pub const DYNAMIC: u64 = i64::MIN as u64;

/// The element type used inside functions (bool is `i1`).
pub fn element_type<'c>(ctx: &'c Context, dtype: DType) -> Type<'c> {
    match dtype {
        DType::Bool => IntegerType::new(ctx, 1).into(),
        DType::I32 => IntegerType::new(ctx, 32).into(),
        DType::I64 => IntegerType::new(ctx, 64).into(),
        DType::F32 => Type::float32(ctx),
        DType::F64 => Type::float64(ctx),
    }
}

/// The element type at a function boundary: bool travels as `i8` (0 or 1), since a byte per
/// element is what host buffers hold.
pub fn abi_element_type<'c>(ctx: &'c Context, dtype: DType) -> Type<'c> {
    match dtype {
        DType::Bool => IntegerType::new(ctx, 8).into(),
        other => element_type(ctx, other),
    }
}

/// Static dims stay static; symbolic and unknown dims become `?`.
pub fn shape_of(ty: &TensorType) -> Vec<u64> {
    ty.dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => *n,
            Dim::Symbol(_) | Dim::Unknown => DYNAMIC,
        })
        .collect()
}

pub fn tensor_type<'c>(ctx: &'c Context, ty: &TensorType) -> Type<'c> {
    RankedTensorType::new(&shape_of(ty), element_type(ctx, ty.dtype), None).into()
}

pub fn abi_tensor_type<'c>(ctx: &'c Context, ty: &TensorType) -> Type<'c> {
    RankedTensorType::new(&shape_of(ty), abi_element_type(ctx, ty.dtype), None).into()
}

pub fn tensor_type_with_shape<'c>(ctx: &'c Context, shape: &[u64], dtype: DType) -> Type<'c> {
    RankedTensorType::new(shape, element_type(ctx, dtype), None).into()
}

pub fn tensor_type_with_shape_elem<'c>(_ctx: &'c Context, shape: &[u64], elem: Type<'c>) -> Type<'c> {
    RankedTensorType::new(shape, elem, None).into()
}
