//! The host kernels behind `ptl_host` ([`crate::host`]), on row-major slices.

use faer::linalg::solvers::Solve;
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::traits::RealField;
use faer::{Accum, MatMut, MatRef, Par, Side};

// OpenBLAS, the system's library (Debian: `libopenblas-dev`). CBLAS's declarations come from
// `cblas-sys`; this one is OpenBLAS's own.
#[link(name = "openblas")]
unsafe extern "C" {
    fn openblas_set_num_threads(threads: std::ffi::c_int);
}

/// `c = a @ b` for an `m x k` matrix `a` and a `k x n` matrix `b`, one thread: OpenBLAS's
/// `dgemm`, which runs about twice as fast as faer's product on AVX-512 machines (faer's
/// AVX-512 kernels need a nightly compiler). `c` is only written (its old contents may be
/// anything).
pub fn matmul_f64(a: &[f64], b: &[f64], c: &mut [f64], m: usize, k: usize, n: usize) {
    assert!(a.len() == m * k && b.len() == k * n && c.len() == m * n, "matmul_f64 of mismatched slices");
    if k == 0 || m == 0 || n == 0 {
        c.fill(0.0);
        return;
    }
    static ONE_THREAD: std::sync::Once = std::sync::Once::new();
    // SAFETY: sets a count OpenBLAS reads at its next call; any count from 1 up is valid.
    ONE_THREAD.call_once(|| unsafe { openblas_set_num_threads(1) });
    let (Ok(mi), Ok(ki), Ok(ni)) = (i32::try_from(m), i32::try_from(k), i32::try_from(n)) else {
        // Past CBLAS's `int` dims: faer's product.
        let a = MatRef::from_row_major_slice(a, m, k);
        let b = MatRef::from_row_major_slice(b, k, n);
        let c = MatMut::from_row_major_slice_mut(c, m, n);
        return faer::linalg::matmul::matmul(c, Accum::Replace, a, b, 1.0, Par::Seq);
    };
    let (m, k, n) = (mi, ki, ni);
    // SAFETY: row-major `a` (m x k, leading dim k), `b` (k x n, leading dim n) and `c`
    // (m x n, leading dim n) hold exactly those elements (asserted above).
    unsafe {
        cblas_sys::cblas_dgemm(
            cblas_sys::CBLAS_LAYOUT::CblasRowMajor,
            cblas_sys::CBLAS_TRANSPOSE::CblasNoTrans,
            cblas_sys::CBLAS_TRANSPOSE::CblasNoTrans,
            m,
            n,
            k,
            1.0,
            a.as_ptr(),
            k,
            b.as_ptr(),
            n,
            0.0,
            c.as_mut_ptr(),
            n,
        );
    }
}

/// The element types the linear-algebra kernels take.
pub trait Real: RealField + Copy {
    const NAN: Self;
    const ZERO: Self;
    /// The square root of the machine epsilon.
    const SQRT_EPS: f64;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
}

impl Real for f32 {
    const NAN: Self = f32::NAN;
    const ZERO: Self = 0.0;
    const SQRT_EPS: f64 = 0.00034526698300124393;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl Real for f64 {
    const NAN: Self = f64::NAN;
    const ZERO: Self = 0.0;
    const SQRT_EPS: f64 = 1.4901161193847656e-8;
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> Self {
        x
    }
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

/// What [`eigh`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EighPart {
    /// The `n` eigenvalues, in ascending order.
    Values,
    /// The `n x n` unit eigenvectors, as columns.
    Vectors,
    /// Both in one `(n + 1) x n` matrix: the eigenvalues in row 0, the eigenvectors below.
    Both,
}

/// `part` of `eigh` of the `n x n` matrix `a` (only its lower triangle read) into `out`. Each
/// eigenvector is signed so that its first component above `sqrt(eps)` of `T` in magnitude
/// is positive. Computed in f64 whatever `T` is. A NaN or infinity in the lower triangle, or
/// no convergence, gives NaN in every element.
pub fn eigh<T: Real>(a: &[T], out: &mut [T], n: usize, part: EighPart) {
    let len = match part {
        EighPart::Values => n,
        EighPart::Vectors => n * n,
        EighPart::Both => n * n + n,
    };
    assert!(a.len() == n * n && out.len() == len, "eigh of mismatched slices");
    if n == 0 {
        // (faer 0.24's workspace size underflows for an empty matrix.)
        return;
    }
    let m = faer::Mat::<f64>::from_fn(n, n, |i, j| if j <= i { a[i * n + j].to_f64() } else { 0.0 });
    let finite = (0..n).all(|i| (0..=i).all(|j| m[(i, j)].is_finite()));
    if !finite {
        out.fill(T::NAN);
        return;
    }
    if part == EighPart::Values {
        // (Without the eigenvectors: a third of the work.)
        match m.self_adjoint_eigenvalues(Side::Lower) {
            Ok(w) => out.iter_mut().zip(w).for_each(|(o, x)| *o = T::from_f64(x)),
            Err(_) => out.fill(T::NAN),
        }
        return;
    }
    let Ok(evd) = m.self_adjoint_eigen(Side::Lower) else {
        out.fill(T::NAN);
        return;
    };
    let (values, vectors) = if part == EighPart::Both { out.split_at_mut(n) } else { (&mut [][..], out) };
    for (i, o) in values.iter_mut().enumerate() {
        *o = T::from_f64(evd.S()[i]);
    }
    let u = evd.U();
    for j in 0..n {
        let lead = (0..n).map(|i| u[(i, j)]).find(|x| x.abs() > T::SQRT_EPS).unwrap_or(1.0);
        let sign = if lead < 0.0 { -1.0 } else { 1.0 };
        for i in 0..n {
            vectors[i * n + j] = T::from_f64(sign * u[(i, j)]);
        }
    }
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

    /// `a v = v diag(w)` with `v` orthonormal, `w` ascending, each column's first component
    /// positive; the upper triangle is not read; NaN and the empty matrix.
    #[test]
    fn eigh_decomposes_the_lower_triangle() {
        let n = 4;
        let sym: Vec<f64> = (0..n * n).map(|k| {
            let (i, j) = (k / n, k % n);
            ((i.min(j) * 7 + i.max(j) * 3) % 11) as f64 - 5.0
        }).collect();
        let garbage: Vec<f64> = (0..n * n).map(|k| if k % n > k / n { 99.0 } else { sym[k] }).collect();
        let (mut w, mut v) = (vec![0.0; n], vec![0.0; n * n]);
        eigh(&garbage, &mut w, n, EighPart::Values);
        eigh(&garbage, &mut v, n, EighPart::Vectors);
        let mut both = vec![0.0; n * n + n];
        eigh(&garbage, &mut both, n, EighPart::Both);
        assert_eq!(both[n..], v[..], "the vectors of both");
        assert!(both[..n].iter().zip(&w).all(|(a, b)| (a - b).abs() < 1e-12), "the values of both: {both:?} vs {w:?}");
        assert!(w.windows(2).all(|p| p[0] <= p[1]), "{w:?}");
        for j in 0..n {
            assert!(v[j] > 0.0, "column {j} starts negative: {v:?}");
            for i in 0..n {
                let av: f64 = (0..n).map(|k| sym[i * n + k] * v[k * n + j]).sum();
                assert!((av - w[j] * v[i * n + j]).abs() < 1e-12, "column {j}, row {i}");
                let dot: f64 = (0..n).map(|k| v[k * n + i] * v[k * n + j]).sum();
                assert!((dot - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12, "columns {i}, {j}");
            }
        }
        let mut nan = vec![0.0f32; 4];
        eigh(&[f32::NAN, 0.0, 0.0, 1.0], &mut nan, 2, EighPart::Vectors);
        assert!(nan.iter().all(|x| x.is_nan()), "{nan:?}");
        eigh::<f64>(&[], &mut [], 0, EighPart::Both);
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
