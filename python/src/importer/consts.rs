//! How a constant of the graph appears in the ptl function: a one-element constant is a
//! literal written where it is used; a small array is a `let` of an array literal (`inf`,
//! `-inf` and `nan` included); anything larger becomes a parameter of the function, and its array is passed with every call. A weight matrix
//! thus never turns into megabytes of source to print, parse and check again.

use ptl_lang::ast::{Expr, ExprKind};
use ptl_lang::{DType, Dim, Value};

use super::syntax::{ascribe, ex, float, int};

/// Arrays with more elements than this are passed as arguments.
pub const MAX_LITERAL_ELEMENTS: usize = 16;

/// One element of a constant, kept exactly.
#[derive(Debug, Clone, Copy)]
pub enum Scalar {
    B(bool),
    I(i64),
    F(f64),
}

impl Scalar {
    /// The literal for this value converted to `dtype` (as a cast would).
    pub fn literal(self, dtype: DType) -> Expr {
        match (self, dtype) {
            (s, DType::Bool) => ex(ExprKind::Bool(match s {
                Scalar::B(b) => b,
                Scalar::I(i) => i != 0,
                Scalar::F(f) => f != 0.0,
            })),
            (Scalar::B(b), DType::I32 | DType::I64) => int(b as i64),
            (Scalar::I(i), DType::I32 | DType::I64) => int(if dtype == DType::I32 { i as i32 as i64 } else { i }),
            (Scalar::F(f), DType::I32) => int(f as i32 as i64),
            (Scalar::F(f), DType::I64) => int(f as i64),
            (Scalar::B(b), _) => float(b as u8 as f64),
            (Scalar::I(i), DType::F32) => float(i as f32 as f64),
            (Scalar::I(i), _) => float(i as f64),
            (Scalar::F(f), d) => {
                // `inf`, `-inf` and `nan` are literals too.
                float(if d == DType::F32 { f as f32 as f64 } else { f })
            }
        }
    }

    pub fn is_finite(self) -> bool {
        match self {
            Scalar::F(f) => f.is_finite(),
            _ => true,
        }
    }
}

fn scalars(v: &Value) -> Vec<Scalar> {
    match v {
        Value::Bool(a) => a.iter().map(|&b| Scalar::B(b)).collect(),
        Value::I32(a) => a.iter().map(|&i| Scalar::I(i as i64)).collect(),
        Value::I64(a) => a.iter().map(|&i| Scalar::I(i)).collect(),
        Value::F32(a) => a.iter().map(|&f| Scalar::F(f as f64)).collect(),
        Value::F64(a) => a.iter().map(|&f| Scalar::F(f)).collect(),
    }
}

/// How one constant is written.
pub enum Binding {
    /// In place, where it is used; with the constant's shape (all 1s), which an operand that
    /// is not elementwise keeps.
    Scalar(Scalar, Vec<u64>),
    /// As an array literal, ascribed its dtype and shape.
    Literal(Expr),
    /// As a parameter of the function.
    Parameter,
}

pub fn binding(v: &Value) -> Binding {
    // A large array is a parameter whatever it holds, so its elements are never visited.
    if v.len() > MAX_LITERAL_ELEMENTS {
        return Binding::Parameter;
    }
    let values = scalars(v);
    match values.as_slice() {
        [one] => Binding::Scalar(*one, v.shape().iter().map(|&n| n as u64).collect()),
        _ => {
            let dims: Vec<Dim> = v.shape().iter().map(|&n| Dim::Static(n as u64)).collect();
            let lit = if values.is_empty() { ex(ExprKind::Array(vec![])) } else { nested(&values, v.shape(), v.dtype()) };
            Binding::Literal(ascribe(lit, v.dtype(), &dims))
        }
    }
}

/// A nested array literal of `values` in row-major order for `shape` (`values` is not empty
/// and has `shape`'s element count).
fn nested(values: &[Scalar], shape: &[usize], dtype: DType) -> Expr {
    let Some((&n, rest)) = shape.split_first() else {
        return values.first().map_or(ex(ExprKind::Array(vec![])), |s| s.literal(dtype));
    };
    let inner: usize = rest.iter().product();
    ex(ExprKind::Array((0..n).map(|i| nested(&values[i * inner..(i + 1) * inner], rest, dtype)).collect()))
}
