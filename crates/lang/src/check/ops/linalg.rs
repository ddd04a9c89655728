//! Type rules of the linear-algebra family: `cholesky`, `solve_triangular`, `solve`, `det`,
//! and `diag` and `inv` (which build on other ops).

use crate::ast::{Expr, ExprKind};
use crate::check::dims::unify;
use crate::check::dtype::common;
use crate::check::env::Scope;
use crate::check::{Checker, Typed, cast, has_type};
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::{BinaryOp, Builtin, Op};
use crate::span::Span;
use crate::typed::{TExpr, TExprKind};
use crate::types::{DType, Dim, TensorType};
use crate::ad::build::scalar_value;
use crate::check::ops::matrix::expand;

impl Checker {
    pub(crate) fn linalg_builtin(&mut self, sc: &Scope, b: Builtin, fname: &str, args: &[Expr], span: Span) -> Option<Typed> {
        match b {
            Builtin::Cholesky => {
                let a = self.expr(sc, &args[0])?;
                let a = self.float_matrix(a, fname, &span)?;
                let n = self.square_side(&a, fname, &span)?;
                let ty = TensorType::new(a.dtype(), vec![n.clone(), n]);
                Some(Typed::strong(TExpr::op(Op::Cholesky, vec![a.e], ty, span)))
            }
            Builtin::SolveTriangular | Builtin::Solve => {
                let a = self.expr(sc, &args[0]);
                let rhs = self.expr(sc, &args[1]);
                let lower = match args.get(2) {
                    None => false,
                    Some(Expr { kind: ExprKind::Bool(v), .. }) => *v,
                    Some(x) => {
                        return self.error(
                            ErrorKind::BadArgument,
                            x.span.clone(),
                            format!("the third argument of `{fname}` says which triangle `a` is: `true` (lower) or `false` (upper), as a literal"),
                            "not `true` or `false`",
                        );
                    }
                };
                let (a, rhs) = (a?, rhs?);
                let a = self.float_matrix(a, fname, &span)?;
                let n = self.square_side(&a, fname, &span)?;
                if !(1..=2).contains(&rhs.ty().rank()) || !rhs.dtype().is_float() {
                    let d = Diagnostic::new(ErrorKind::Rank, span, format!("`{fname}` needs a float vector or matrix as right-hand side"))
                        .with_label(rhs.e.span.clone(), has_type(rhs.ty()));
                    self.report(d);
                    return None;
                }
                let Some(rows) = unify(&n, &rhs.ty().dims[0]) else {
                    let d = Diagnostic::new(
                        ErrorKind::Shape,
                        span,
                        format!("`{fname}`: the right-hand side has `{}` rows, the matrix `{n}`", rhs.ty().dims[0]),
                    )
                    .with_label(a.e.span.clone(), has_type(a.ty()))
                    .with_label(rhs.e.span.clone(), has_type(rhs.ty()));
                    self.report(d);
                    return None;
                };
                let dt = common(a.key(), rhs.key());
                let mut dims = rhs.ty().dims.clone();
                dims[0] = rows;
                let ty = TensorType::new(dt, dims);
                let (a, rhs) = (cast(a.e, dt), cast(rhs.e, dt));
                let op = if b == Builtin::Solve { Op::Solve } else { Op::SolveTriangular { lower } };
                Some(Typed::strong(TExpr::op(op, vec![a, rhs], ty, span)))
            }
            Builtin::Det | Builtin::Inv => {
                let a = self.expr(sc, &args[0])?;
                let a = self.float_matrix(a, fname, &span)?;
                let n = self.square_side(&a, fname, &span)?;
                if b == Builtin::Det {
                    let ty = TensorType::scalar(a.dtype());
                    return Some(Typed::strong(TExpr::op(Op::Det, vec![a.e], ty, span)));
                }
                // solve(a, identity), the identity built as `diag` builds a matrix.
                let dt = a.dtype();
                let diag_ty = TensorType::new(dt, vec![n.clone()]);
                let d = TExpr::op(Op::Diagonal, vec![a.e.clone()], diag_ty, span.clone());
                let ones = fill_like(dt, 1.0, &d, &span);
                let eye = self.diag_matrix(Typed::strong(ones), &span)?;
                let ty = TensorType::new(dt, vec![n.clone(), n]);
                Some(Typed::strong(TExpr::op(Op::Solve, vec![a.e, eye], ty, span)))
            }
            Builtin::Diag => {
                let x = self.expr(sc, &args[0])?;
                match x.ty().rank() {
                    2 => self.matrix_builtin(sc, Builtin::Diagonal, fname, args, span),
                    1 => {
                        let weak = x.weak;
                        let e = self.diag_matrix(x, &span)?;
                        Some(Typed { e, weak })
                    }
                    _ => {
                        let d = Diagnostic::new(ErrorKind::Rank, span, format!("`{fname}` needs a vector (to build a matrix) or a matrix (to read its diagonal)"))
                            .with_label(x.e.span.clone(), has_type(x.ty()));
                        self.report(d);
                        None
                    }
                }
            }
            _ => None,
        }
    }

    /// `slogdet(a)`: the sign and the log of the absolute value of `det(a)`, two values (a
    /// [`TExprKind::Tuple`], as `split` gives), each a scalar of `a`'s dtype.
    pub(crate) fn slogdet_builtin(&mut self, sc: &Scope, args: &[Expr], span: Span, allow_multi: bool) -> Option<Typed> {
        let a = self.expr(sc, &args[0])?;
        let a = self.float_matrix(a, "slogdet", &span)?;
        self.square_side(&a, "slogdet", &span)?;
        if !allow_multi {
            return self.two_values_here("slogdet", "the sign and the log of the absolute determinant", "(sign, logdet)", span);
        }
        let ty = TensorType::scalar(a.dtype());
        let parts = [false, true].map(|log| TExpr::op(Op::Slogdet { log }, vec![a.e.clone()], ty.clone(), span.clone()));
        Some(Typed::strong(TExpr::new(TExprKind::Tuple(parts.to_vec()), ty, span)))
    }

    /// `lu_factor(a)`: the packed factors (`a`'s type) and the `i32` pivots, two values.
    pub(crate) fn lu_factor_builtin(&mut self, sc: &Scope, args: &[Expr], span: Span, allow_multi: bool) -> Option<Typed> {
        let a = self.expr(sc, &args[0])?;
        let a = self.float_matrix(a, "lu_factor", &span)?;
        let n = self.square_side(&a, "lu_factor", &span)?;
        if !allow_multi {
            return self.two_values_here("lu_factor", "the packed factors and the pivots", "(lu, piv)", span);
        }
        let lu_ty = TensorType::new(a.dtype(), vec![n.clone(), n.clone()]);
        let piv_ty = TensorType::new(DType::I32, vec![n]);
        let lu = TExpr::op(Op::LuFactor { pivots: false }, vec![a.e.clone()], lu_ty.clone(), span.clone());
        let piv = TExpr::op(Op::LuFactor { pivots: true }, vec![a.e], piv_ty, span.clone());
        Some(Typed::strong(TExpr::new(TExprKind::Tuple(vec![lu, piv]), lu_ty, span)))
    }

    /// `eigh(a)`: the eigenvalues (`a`'s dtype, `[n]`) and the eigenvectors (`a`'s type),
    /// two values.
    pub(crate) fn eigh_builtin(&mut self, sc: &Scope, args: &[Expr], span: Span, allow_multi: bool) -> Option<Typed> {
        let a = self.expr(sc, &args[0])?;
        let a = self.float_matrix(a, "eigh", &span)?;
        let n = self.square_side(&a, "eigh", &span)?;
        if !allow_multi {
            return self.two_values_here("eigh", "the eigenvalues and the eigenvectors", "(w, v)", span);
        }
        let w_ty = TensorType::new(a.dtype(), vec![n.clone()]);
        let v_ty = TensorType::new(a.dtype(), vec![n.clone(), n]);
        let w = TExpr::op(Op::Eigh { vectors: false }, vec![a.e.clone()], w_ty.clone(), span.clone());
        let v = TExpr::op(Op::Eigh { vectors: true }, vec![a.e], v_ty, span.clone());
        Some(Typed::strong(TExpr::new(TExprKind::Tuple(vec![w, v]), w_ty, span)))
    }

    /// The error for a builtin of two values (`what`) where one is expected.
    fn two_values_here(&mut self, fname: &str, what: &str, names: &str, span: Span) -> Option<Typed> {
        let d = Diagnostic::new(ErrorKind::Mismatch, span.clone(), format!("`{fname}` gives 2 values here, but one value is expected"))
            .with_label(span, what)
            .with_note(format!("bind them with `let {names} = {fname}(a)`, or print them"));
        self.report(d);
        None
    }

    /// `lu_permutation(piv)`: an integer vector's row order, `i64` of its dims.
    pub(crate) fn lu_permutation_builtin(&mut self, sc: &Scope, args: &[Expr], span: Span) -> Option<Typed> {
        let piv = self.expr(sc, &args[0])?;
        if piv.ty().rank() != 1 || !matches!(piv.dtype(), DType::I32 | DType::I64) {
            let d = Diagnostic::new(ErrorKind::DType, span.clone(), "`lu_permutation` needs a vector of integer pivots")
                .with_label(piv.e.span.clone(), has_type(piv.ty()));
            self.report(d);
            return None;
        }
        let piv = self.convert(piv, DType::I64)?;
        let ty = TensorType::new(DType::I64, piv.ty.dims.clone());
        Some(Typed::strong(TExpr::op(Op::LuPermutation, vec![piv], ty, span)))
    }

    /// The square matrix with the vector `x` on its diagonal: `where(i == j, outer(x, ones),
    /// 0)`, `i` and `j` counted by running sums.
    fn diag_matrix(&mut self, x: Typed, span: &Span) -> Option<TExpr> {
        let dt = x.dtype();
        let ones = fill_like(dt, 1.0, &x.e, span);
        // (For bools, `and` with true.)
        let spread = if dt == DType::Bool { BinaryOp::LogicalAnd } else { BinaryOp::Mul };
        let m = self.binary(spread, "diag", expand(x, 1), expand(Typed::strong(ones), 0), span.clone())?.e;
        let counts = fill_like(DType::I64, 1.0, &m, span);
        let i = TExpr::op(Op::Scan { prod: false, axis: 0 }, vec![counts.clone()], counts.ty.clone(), span.clone());
        let j = TExpr::op(Op::Scan { prod: false, axis: 1 }, vec![counts.clone()], counts.ty.clone(), span.clone());
        let on = TExpr::op(Op::Binary(BinaryOp::Eq), vec![i, j], TensorType::new(DType::Bool, m.ty.dims.clone()), span.clone());
        let zeros = fill_like(dt, 0.0, &m, span);
        let ty = m.ty.clone();
        Some(TExpr::op(Op::Select, vec![on, m, zeros], ty, span.clone()))
    }

    /// `a` itself when it is a float matrix; else an error.
    fn float_matrix(&mut self, a: Typed, fname: &str, span: &Span) -> Option<Typed> {
        if a.ty().rank() != 2 {
            let d = Diagnostic::new(ErrorKind::Rank, span.clone(), format!("`{fname}` needs a matrix (rank 2)"))
                .with_label(a.e.span.clone(), has_type(a.ty()));
            self.report(d);
            return None;
        }
        if !a.dtype().is_float() {
            let d = Diagnostic::new(ErrorKind::DType, span.clone(), format!("`{fname}` needs a float matrix"))
                .with_label(a.e.span.clone(), has_type(a.ty()))
                .with_note("cast it first: `cast(a, f64)`");
            self.report(d);
            return None;
        }
        Some(a)
    }

    /// The side of the square matrix `a` (its two dims unified; a `?` is checked at run time).
    fn square_side(&mut self, a: &Typed, fname: &str, span: &Span) -> Option<Dim> {
        let (r, c) = (&a.ty().dims[0], &a.ty().dims[1]);
        match unify(r, c) {
            Some(n) => Some(n),
            None => {
                let d = Diagnostic::new(ErrorKind::Shape, span.clone(), format!("`{fname}` needs a square matrix: `{r}` rows, `{c}` columns"))
                    .with_label(a.e.span.clone(), has_type(a.ty()));
                self.report(d);
                None
            }
        }
    }
}

/// A scalar literal of `dtype`.
fn scalar(dtype: DType, v: f64, span: &Span) -> TExpr {
    TExpr::new(TExprKind::Literal(scalar_value(dtype, v)), TensorType::scalar(dtype), span.clone())
}

/// A scalar broadcast to the dims of `like` (which is also the shape witness).
fn fill_like(dtype: DType, v: f64, like: &TExpr, span: &Span) -> TExpr {
    let ty = TensorType::new(dtype, like.ty.dims.clone());
    TExpr::op(Op::Broadcast, vec![scalar(dtype, v, span), like.clone()], ty, span.clone())
}
