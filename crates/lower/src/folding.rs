//! Operands IREE folds to constants, which its CPU code generation (IREE 3.13) then reduces
//! wrongly: in `sum(x - x + 1, 1)` the fused reduction no longer uses `x`, `x` is dropped,
//! and with it the extent of the reduced axis, so each row summed one element (1 instead of
//! 3); `sum(broadcast(-4, [3, 1]))`, a sum over a unit axis and then over the other, gave -4
//! instead of -12 the same way. Such an operand of a reduction, scan or contraction is put
//! behind a barrier; every other operand keeps its fusion.
//!
//! "Folds" follows the identities MLIR's folders apply: a power with exponent 0, integer
//! products with 0 and logic with a fixed side, integer differences and comparisons of a
//! value with itself, a select with a literal condition, and anything computed from folded
//! values alone. Float identities such as `x * 0.0` or `x - x` do not fold (NaN, infinities).

use ptl_lang::ops::{BinaryOp, Op};
use ptl_lang::typed::{TExpr, TExprKind};
use ptl_lang::Value;

/// Whether `e` may fold to a constant (a literal operand is one already).
pub fn may_fold_to_constant(e: &TExpr) -> bool {
    !matches!(e.kind, TExprKind::Literal(_)) && folds(e)
}

fn folds(e: &TExpr) -> bool {
    let TExprKind::Op(op, args) = &e.kind else {
        return matches!(e.kind, TExprKind::Literal(_));
    };
    match op {
        Op::Broadcast | Op::Transpose(_) | Op::Expand(_) | Op::Squeeze(_) | Op::Reshape | Op::Cast | Op::Unary(_) => folds(&args[0]),
        Op::Ternary(_) => args.iter().all(folds),
        Op::Select => match literal(&args[0]).and_then(|v| all_equal(v, 1.0).then_some(true).or(all_equal(v, 0.0).then_some(false))) {
            Some(true) => folds(&args[1]),
            Some(false) => folds(&args[2]),
            None => args.iter().all(folds),
        },
        Op::Binary(b) => {
            let (x, y) = (&args[0], &args[1]);
            if folds(x) && folds(y) {
                return true;
            }
            let exact = !x.ty.dtype.is_float();
            let is = |e: &TExpr, target: f64| literal(e).is_some_and(|v| all_equal(v, target));
            use BinaryOp::*;
            match b {
                Pow => is(y, 0.0),
                Mul | LogicalAnd if exact => is(x, 0.0) || is(y, 0.0),
                LogicalOr => is(x, 1.0) || is(y, 1.0),
                Sub | Eq | Ne | Lt | Le | Gt | Ge | LogicalXor | Mod if exact => same(x, y),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The value of a literal, or of a broadcast literal.
fn literal(e: &TExpr) -> Option<&Value> {
    match &e.kind {
        TExprKind::Literal(v) => Some(v),
        TExprKind::Op(Op::Broadcast | Op::Cast, args) => literal(&args[0]),
        _ => None,
    }
}

fn all_equal(v: &Value, target: f64) -> bool {
    match v {
        Value::Bool(a) => a.iter().all(|&b| f64::from(u8::from(b)) == target),
        Value::I32(a) => a.iter().all(|&x| f64::from(x) == target),
        Value::I64(a) => a.iter().all(|&x| x as f64 == target),
        Value::F32(a) => a.iter().all(|&x| f64::from(x) == target),
        Value::F64(a) => a.iter().all(|&x| x == target),
    }
}

/// The same computation (spans aside).
fn same(a: &TExpr, b: &TExpr) -> bool {
    a.ty == b.ty
        && match (&a.kind, &b.kind) {
            (TExprKind::Var(x), TExprKind::Var(y)) | (TExprKind::DimValue(x), TExprKind::DimValue(y)) => x == y,
            (TExprKind::Literal(x), TExprKind::Literal(y)) => x == y,
            (TExprKind::Op(p, xs), TExprKind::Op(q, ys)) => p == q && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y)),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The operand of the reduction in `g`'s body.
    fn operand(body: &str) -> TExpr {
        let src = format!("fn g(x: i64[n, 3], f: f64[n, 3]) -> i64[n] {{ sum({body}, 1) }}");
        let prog = ptl_lang::frontend(&src).unwrap_or_else(|d| panic!("{body}: {d:?}"));
        let mut e = &prog.function("g").unwrap().body.results[0];
        while let TExprKind::Op(Op::Cast, args) = &e.kind {
            e = &args[0];
        }
        match &e.kind {
            TExprKind::Op(Op::Reduce(..), args) => args[0].clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn operands_that_may_fold_to_constants_are_found() {
        for body in ["x - x + 1", "x * 0", "cast(x == x, i64)", "x ** 0", "where(true, 1, x)", "cast(f ** 0, i64)", "0 * x + (x - x)", "ones([n, 3], i64)"] {
            assert!(may_fold_to_constant(&operand(body)), "{body}");
        }
    }

    #[test]
    fn other_operands_keep_their_fusion() {
        for body in ["x * 2 + 1", "x - 1", "cast(f - f, i64)", "cast(f * 0.0, i64)", "where(false, 1, x)", "x * x"] {
            assert!(!may_fold_to_constant(&operand(body)), "{body}");
        }
    }
}
