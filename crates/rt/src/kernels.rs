//! The host kernels behind `ptl_host` ([`crate::host`]), on row-major slices.

use faer::linalg::matmul::matmul;
use faer::linalg::solvers::Solve;
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::traits::RealField;
use faer::{Accum, MatMut, MatRef, Par, Side};

/// `c = a @ b` for an `m x k` matrix `a` and a `k x n` matrix `b`, one thread. `c` is only
/// written (its old contents may be anything).
pub fn matmul_f64(a: &[f64], b: &[f64], c: &mut [f64], m: usize, k: usize, n: usize) {
    assert!(a.len() == m * k && b.len() == k * n && c.len() == m * n, "matmul_f64 of mismatched slices");
    if k == 0 || m == 0 || n == 0 {
        c.fill(0.0);
        return;
    }
    let a = MatRef::from_row_major_slice(a, m, k);
    let b = MatRef::from_row_major_slice(b, k, n);
    let c = MatMut::from_row_major_slice_mut(c, m, n);
    matmul(c, Accum::Replace, a, b, 1.0, Par::Seq);
}

/// The element types the linear-algebra kernels take.
pub trait Real: RealField + Copy {
    const NAN: Self;
    const ZERO: Self;
}

impl Real for f32 {
    const NAN: Self = f32::NAN;
    const ZERO: Self = 0.0;
}

impl Real for f64 {
    const NAN: Self = f64::NAN;
    const ZERO: Self = 0.0;
}

/// The lower Cholesky factor of the `n x n` matrix `a` (only its lower triangle read) into
/// `out`, zeros above the diagonal. A matrix that is not positive definite gives NaN in every
/// element, as ptl's `cholesky` defines.
pub fn cholesky<T: Real>(a: &[T], out: &mut [T], n: usize) {
    assert!(a.len() == n * n && out.len() == n * n, "cholesky of mismatched slices");
    let m = MatRef::from_row_major_slice(a, n, n);
    match m.llt(Side::Lower) {
        Ok(llt) => {
            let l = llt.L();
            for i in 0..n {
                for j in 0..n {
                    out[i * n + j] = if j <= i { l[(i, j)] } else { T::ZERO };
                }
            }
        }
        Err(_) => out.fill(T::NAN),
    }
}

/// Solves `t x = b` for `x` into `out`, `t` the `n x n` matrix `a` read as lower (or upper)
/// triangular, `b` holding `k` columns per row (`k` = 1 for a vector).
pub fn solve_triangular<T: Real>(a: &[T], b: &[T], out: &mut [T], n: usize, k: usize, lower: bool) {
    assert!(a.len() == n * n && b.len() == n * k && out.len() == n * k, "solve_triangular of mismatched slices");
    out.copy_from_slice(b);
    if n == 0 || k == 0 {
        return;
    }
    let t = MatRef::from_row_major_slice(a, n, n);
    let x = MatMut::from_row_major_slice_mut(out, n, k);
    if lower {
        solve_lower_triangular_in_place(t, x, Par::Seq);
    } else {
        solve_upper_triangular_in_place(t, x, Par::Seq);
    }
}

/// Solves `a x = b` into `out` by LU with partial pivoting (LAPACK's `gesv`).
pub fn solve<T: Real>(a: &[T], b: &[T], out: &mut [T], n: usize, k: usize) {
    assert!(a.len() == n * n && b.len() == n * k && out.len() == n * k, "solve of mismatched slices");
    out.copy_from_slice(b);
    if n == 0 || k == 0 {
        return;
    }
    let lu = MatRef::from_row_major_slice(a, n, n).partial_piv_lu();
    lu.solve_in_place(MatMut::from_row_major_slice_mut(out, n, k));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the textbook triple loop, on sizes around faer's blocking and edge cases.
    #[test]
    fn agrees_with_the_definition() {
        for &(m, k, n) in &[(1, 1, 1), (3, 0, 2), (0, 4, 5), (7, 13, 5), (64, 65, 63), (130, 17, 129)] {
            let a: Vec<f64> = (0..m * k).map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0).collect();
            let b: Vec<f64> = (0..k * n).map(|i| ((i * 53 % 89) as f64 - 44.0) / 3.0).collect();
            let mut c = vec![f64::NAN; m * n];
            matmul_f64(&a, &b, &mut c, m, k, n);
            for i in 0..m {
                for j in 0..n {
                    let want: f64 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                    let got = c[i * n + j];
                    assert!((got - want).abs() <= 1e-12 * (1.0 + want.abs()), "{m}x{k}x{n} at ({i}, {j}): {got} vs {want}");
                }
            }
        }
    }

    #[test]
    fn nan_and_infinity_propagate() {
        let a = [f64::NAN, 1.0, f64::INFINITY, 0.0];
        let b = [1.0, 0.0, 0.0, 1.0];
        let mut c = [0.0; 4];
        matmul_f64(&a, &b, &mut c, 2, 2, 2);
        assert!(c[0].is_nan() && c[1].is_nan(), "{c:?}");
        assert!(c[2] == f64::INFINITY && c[3].is_nan(), "inf * 0 is NaN as IEEE says: {c:?}");
    }
}
