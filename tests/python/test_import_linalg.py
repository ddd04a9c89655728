"""Linear algebra and advanced indexing with several index arrays, imported from PyTensor
graphs: mode "PTL_STRICT" (every node through ptl) against PyTensor's own result, and the same
program run by ptl's interpreter."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import assert_same, compare_strict


rng = np.random.default_rng(5)
_m = rng.standard_normal((5, 5))
SPD = _m @ _m.T + 5 * np.eye(5)
B = rng.standard_normal((5, 3))
V = rng.standard_normal(5)


_compare = compare_strict


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky(lower):
    a = pt.matrix("a")
    _compare([a], pt.linalg.cholesky(a, lower=lower), [SPD])


def test_cholesky_of_a_matrix_that_is_not_positive_definite_is_nan_as_in_pytensor():
    a = pt.matrix("a")
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    f = pytensor.function([a], pt.linalg.cholesky(a), mode="PTL_STRICT")
    want = pytensor.function([a], pt.linalg.cholesky(a))(bad)
    assert np.isnan(want).all()
    assert_same(f(bad), want)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("matrix_rhs", [False, True])
def test_solve_triangular(lower, trans, matrix_rhs):
    a = pt.matrix("a")
    b = pt.matrix("b") if matrix_rhs else pt.vector("b")
    tri = np.tril(SPD) if lower else np.triu(SPD)
    x = pt.linalg.solve_triangular(a, b, lower=lower, trans=trans)
    _compare([a, b], x, [tri, B if matrix_rhs else V])


def test_gaussian_log_density_and_its_gradient_through_the_factor():
    # Static shapes: the gradient sets a diagonal with two index arrays, which ptl writes
    # only for sizes it knows (else that node runs with PyTensor, see the next test).
    a, y = pt.matrix("a", shape=(5, 5)), pt.vector("y", shape=(5,))
    l = pt.linalg.cholesky(a)
    z = pt.linalg.solve_triangular(l, y, lower=True)
    logp = -0.5 * pt.sum(z**2) - pt.sum(pt.log(pt.diagonal(l)))
    _compare([a, y], [logp, *pytensor.grad(logp, [a, y])], [SPD, V])


def test_the_same_with_sizes_known_only_at_run_time_runs_one_node_with_pytensor():
    a, y = pt.matrix("a"), pt.vector("y")
    l = pt.linalg.cholesky(a)
    z = pt.linalg.solve_triangular(l, y, lower=True)
    logp = -0.5 * pt.sum(z**2) - pt.sum(pt.log(pt.diagonal(l)))
    outs = [logp, *pytensor.grad(logp, [a, y])]
    with pytest.warns(UserWarning, match="AdvancedIncSubtensor"):
        f = pytensor.function([a, y], outs, mode="PTL")
        got = f(SPD, V)
    for g, w in zip(got, pytensor.function([a, y], outs)(SPD, V)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_diag_of_a_vector():
    v = pt.vector("v", shape=(5,))
    _compare([v], pt.diag(v) * 2.0, [V])


def test_gather_with_two_index_arrays():
    m = pt.matrix("m", shape=(5, 3))
    i, j = pt.lvector("i"), pt.lvector("j")
    _compare([m, i, j], m[i, j] + 1.0, [B, np.array([0, 4, -1, 2]), np.array([2, 0, 1, -3])])


def test_gather_with_broadcast_index_arrays_on_a_rank_3_array():
    # A static 1 stretches (ptl broadcasts only those; a `?` must match).
    x = pt.tensor3("x", shape=(4, 3, 2))
    i, j = pt.lmatrix("i", shape=(None, 1)), pt.lvector("j")
    data = rng.standard_normal((4, 3, 2))
    _compare([x, i, j], x[i, j], [data, np.array([[0], [3], [1]]), np.array([2, 0])])


@pytest.mark.parametrize("set_", [True, False])
def test_set_and_increment_with_two_index_arrays(set_):
    m = pt.matrix("m", shape=(5, 3))
    y = pt.vector("y", shape=(4,))
    i, j = pt.lvector("i", shape=(4,)), pt.lvector("j", shape=(4,))
    op = pt.set_subtensor if set_ else pt.inc_subtensor
    # Repeated pairs: the last wins when setting, all add up when incrementing.
    _compare([m, y, i, j], op(m[i, j], y), [B, V[:4], np.array([0, 4, 0, -1]), np.array([1, 2, 1, 0])])


def test_an_index_out_of_range_on_either_axis_is_an_error():
    m = pt.matrix("m", shape=(5, 3))
    i, j = pt.lvector("i"), pt.lvector("j")
    f = pytensor.function([m, i, j], m[i, j], mode="PTL_STRICT")
    # (0, 3) would be element 3 of the flattened matrix: it must not be read as (1, 0).
    with pytest.raises(Exception, match="out of range"):
        f(B, np.array([0]), np.array([3]))
    with pytest.raises(Exception, match="out of range"):
        f(B, np.array([-6]), np.array([0]))


def test_det_and_inverse():
    # (Their gradients are rewritten by PyTensor into an `LUFactor`, which ptl lacks.)
    a = pt.matrix("a")
    _compare([a], [pt.linalg.det(a), pt.linalg.inv(a) * 2.0], [_m])


@pytest.mark.parametrize("lower", [True, False])
def test_solve_of_a_positive_definite_matrix_through_its_factor(lower):
    # PyTensor rewrites it to `CholeskySolve` of the factor.
    a, b = pt.matrix("a"), pt.vector("b")
    x = pt.linalg.solve(a, b, assume_a="pos", lower=lower)
    _compare([a, b], x, [SPD, V])


@pytest.mark.parametrize("set_", [True, False])
def test_set_and_increment_a_slice_with_a_step(set_):
    x, y, z = pt.vector("x", shape=(7,)), pt.vector("y", shape=(3,)), pt.vector("z", shape=(2,))
    op = pt.set_subtensor if set_ else pt.inc_subtensor
    _compare([x, y, z], [op(x[1::3], z), op(x[5:0:-2], y * 2.0)], [np.arange(7.0), V[:3], V[3:]])


def test_diagonals_of_a_batch_of_matrices():
    x = pt.tensor3("x", shape=(2, 3, 3))
    data = rng.standard_normal((2, 3, 3))
    data[0, 0, 1] = np.inf  # off the diagonal: must not reach it
    _compare([x], [pt.diagonal(x, axis1=1, axis2=2) * 2.0, pt.diagonal(x, axis1=2, axis2=1)], [data])


@pytest.mark.parametrize("kind", ["get", "set", "inc"])
def test_index_arrays_after_whole_axes(kind):
    x = pt.tensor3("x", shape=(2, 3, 4))
    i, j = pt.lvector("i", shape=(5,)), pt.lvector("j", shape=(5,))
    y = pt.matrix("y", shape=(2, 5))
    data = rng.standard_normal((2, 3, 4))
    ii, jj = np.array([0, 2, -1, 1, 0]), np.array([3, 0, 1, 1, 3])
    if kind == "get":
        _compare([x, i, j], x[:, i, j] * 2.0, [data, ii, jj])
    else:
        op = pt.set_subtensor if kind == "set" else pt.inc_subtensor
        _compare([x, y, i, j], op(x[:, i, j], y), [data, rng.standard_normal((2, 5)), ii, jj])


def test_slogdet_and_the_gradient_of_its_log():
    a = pt.matrix("a")
    sign, logabs = pt.linalg.slogdet(a)
    mixed = np.array([[4.0, 2.0, 0.4], [2.0, -5.0, 1.0], [0.4, 1.0, 3.0]])
    _compare([a], [sign, logabs, pytensor.grad(logabs, a)], [mixed])
    # Beyond the float range of `det` the log is still finite, as NumPy's (PyTensor 3.3's
    # own `slogdet` gives inf there).
    f = pytensor.function([a], [sign, logabs], mode="PTL_STRICT")
    got = f(SPD * 1e100)
    want = np.linalg.slogdet(SPD * 1e100)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


@pytest.mark.parametrize("lower", [True, False])
def test_eigh_and_its_gradient(lower):
    # LAPACK leaves each eigenvector's sign open: the graph fixes it (the first row positive,
    # as ptl's are where that component is not tiny), so PyTensor's and ptl's agree.
    # (The upper triangle's gradient, `triu(g) + tril(g, -1).T`, is written with `arange`s
    # from 1 that ptl imports only for static sizes.)
    a = pt.matrix("a") if lower else pt.matrix("a", shape=(5, 5))
    w, v = pt.linalg.eigh(a, lower=lower)
    v1 = v * pt.sign(v[0])
    loss = (w * pt.exp(w / 4.0)).sum() + (v1**3).sum()
    sym = _m + _m.T
    # Only one triangle is read: the other is garbage.
    read = np.tril(sym) + np.triu(np.full((5, 5), 99.0), 1) if lower else np.triu(sym) + np.tril(np.full((5, 5), 99.0), -1)
    _compare([a], [w, v1, pytensor.grad(loss, a)], [read])


def test_eigh_of_a_nan_is_nan_where_pytensor_raises():
    a = pt.matrix("a")
    f = pytensor.function([a], pt.linalg.eigh(a), mode="PTL_STRICT")
    w, v = f(np.array([[np.nan, 0.0], [0.0, 1.0]]))
    assert np.isnan(w).all() and np.isnan(v).all()


def test_general_solve_through_pytensors_lu_rewrite():
    # PyTensor rewrites `solve` (and the gradients of `det` and `inv`) into `LUFactor`,
    # `PivotToPermutations` and unit-diagonal triangular solves; all of them are ptl's.
    a = pt.matrix("a")
    b = pt.vector("b")
    x = pt.linalg.solve(a, b)
    g = np.array([[2.0, 1.0, -1.0], [-3.0, -1.0, 2.0], [-2.0, 1.0, 2.0]])
    outs = [x, pytensor.grad(x.sum(), a), pytensor.grad(pt.linalg.det(a), a), pytensor.grad(pt.linalg.inv(a).sum(), a)]
    want = pytensor.function([a, b], outs)(g, np.array([8.0, -11.0, -3.0]))
    f = pytensor.function([a, b], outs, mode="PTL_STRICT")
    kinds = {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    assert "LUFactor" in kinds and "PivotToPermutations" in kinds, kinds
    for got, w in zip(f(g, np.array([8.0, -11.0, -3.0])), want):
        assert_same(got, w)


def test_lu_factor_and_its_permutation_as_scipy_computes_them():
    import scipy.linalg as sl
    from pytensor.tensor.linalg import LUFactor, PivotToPermutations

    a = pt.matrix("a")
    lu, piv = LUFactor()(a)
    outs = [lu, piv, PivotToPermutations(inverse=True)(piv), PivotToPermutations(inverse=False)(piv)]
    f = pytensor.function([a], outs, mode="PTL_STRICT")
    got = f(SPD - 3.0)
    want_lu, want_piv = sl.lu_factor(SPD - 3.0)
    assert_same(got[0], want_lu)
    np.testing.assert_array_equal(got[1], want_piv)
    p = got[2]
    np.testing.assert_allclose((SPD - 3.0)[p], (np.tril(got[0], -1) + np.eye(5)) @ np.triu(got[0]), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got[3], np.argsort(p))


def test_batched_linear_algebra_is_unrolled_over_a_known_batch():
    # PyTensor's Blockwise of a core op: the core op once per batch element; a batch axis of
    # size 1 stretches, as NumPy broadcasts.
    a = pt.tensor("a", shape=(3, 4, 4))
    b = pt.tensor("b", shape=(3, 4, 2))
    c = pt.tensor("c", shape=(1, 4, 2))
    m = rng.standard_normal((3, 4, 4))
    spd = m @ m.transpose(0, 2, 1) + 4 * np.eye(4)
    chol = pt.linalg.cholesky(a)
    outs = [chol, pt.linalg.solve_triangular(chol, b, lower=True), pt.linalg.solve(a, c), pt.linalg.det(a)]
    _compare([a, b, c], outs, [spd, rng.standard_normal((3, 4, 2)), rng.standard_normal((1, 4, 2))])


def test_batched_cholesky_of_a_batch_known_only_at_run_time_is_one_program_per_shape():
    a = pt.tensor3("a")
    m = rng.standard_normal((2, 3, 3))
    spd = m @ m.transpose(0, 2, 1) + 3 * np.eye(3)
    f = pytensor.function([a], pt.linalg.cholesky(a), mode="PTL_STRICT")
    want = pytensor.function([a], pt.linalg.cholesky(a))
    for batch in (spd, spd[:1]):
        assert_same(f(batch), want(batch))


def test_batched_cholesky_of_a_computed_batch_of_run_time_size_falls_back():
    # Fixing the input shapes does not fix a computed array's: that node runs in PyTensor.
    from pytensor_ptl import islands

    islands._warned.discard("Blockwise")  # warned once per process
    a = pt.tensor3("a")
    m = pt.matmul(a, a.transpose(0, 2, 1)) + 3 * pt.eye(3)
    out = pt.linalg.cholesky(m).sum() + pt.linalg.det(m).sum()
    with pytest.warns(UserWarning, match="Blockwise"):
        f = pytensor.function([a], out, mode="PTL")
    x = rng.standard_normal((2, 3, 3))
    np.testing.assert_allclose(f(x), pytensor.function([a], out)(x), rtol=1e-12)
