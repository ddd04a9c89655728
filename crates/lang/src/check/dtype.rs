//! Dtype promotion: NumPy's rules for arrays, with literals weakly typed (NEP 50).

use crate::types::DType;

/// How a literal (or an expression made only of literals) adapts to the other operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Weak {
    /// An integer literal: takes any numeric dtype of the other operand.
    Int,
    /// A float literal: takes the other operand's float dtype, else f64.
    Float,
}

impl Weak {
    pub(crate) fn of(dtype: DType) -> Weak {
        if dtype.is_float() {
            Weak::Float
        } else {
            Weak::Int
        }
    }
}

/// The common dtype of two (strongly typed) array operands, as `numpy.result_type`.
pub(crate) fn promote(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a, b) {
        (Bool, x) | (x, Bool) => x,
        (I32, I64) | (I64, I32) => I64,
        (F32, F64) | (F64, F32) => F64,
        // Any integer with any float: NumPy gives float64 (even i32 + f32).
        _ => F64,
    }
}

/// The dtype a weak literal takes next to an operand of dtype `other`.
pub(crate) fn adapt(weak: Weak, other: DType) -> DType {
    match (weak, other) {
        (Weak::Int, DType::Bool) => DType::I64,
        (Weak::Int, d) => d,
        (Weak::Float, d) if d.is_float() => d,
        (Weak::Float, _) => DType::F64,
    }
}

/// The common dtype of two operands, either of which may be a weak literal.
pub(crate) fn common(l: (DType, Option<Weak>), r: (DType, Option<Weak>)) -> DType {
    match (l.1, r.1) {
        (None, None) => promote(l.0, r.0),
        (Some(w), None) => adapt(w, r.0),
        (None, Some(w)) => adapt(w, l.0),
        (Some(a), Some(b)) => {
            if a == Weak::Float || b == Weak::Float {
                DType::F64
            } else {
                DType::I64
            }
        }
    }
}

/// Whether a value of dtype `from` converts to `to` without loss (`numpy.can_cast(.., "safe")`).
pub(crate) fn can_widen(from: DType, to: DType) -> bool {
    use DType::*;
    from == to
        || matches!(
            (from, to),
            (Bool, _) | (I32, I64 | F64) | (I64, F64) | (F32, F64)
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn numpy_promotions() {
        assert_eq!(promote(I32, F32), F64);
        assert_eq!(promote(I64, F32), F64);
        assert_eq!(promote(I32, I64), I64);
        assert_eq!(promote(Bool, I32), I32);
        assert_eq!(promote(F32, F64), F64);
        assert_eq!(promote(F32, F32), F32);
    }

    #[test]
    fn weak_literals() {
        assert_eq!(adapt(Weak::Float, F32), F32);
        assert_eq!(adapt(Weak::Int, F32), F32);
        assert_eq!(adapt(Weak::Float, I32), F64);
        assert_eq!(adapt(Weak::Int, I32), I32);
        assert_eq!(adapt(Weak::Int, Bool), I64);
        assert_eq!(
            common((I64, Some(Weak::Int)), (F64, Some(Weak::Float))),
            F64
        );
    }
}
