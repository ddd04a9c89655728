"""PyTensor's `sort` and `argsort` imported as ptl's: mode "PTL_STRICT" (every node through
ptl) against PyTensor's own result, and the same program run by ptl's interpreter."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import compare_strict

rng = np.random.default_rng(11)
M = rng.standard_normal((4, 6))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sort_and_argsort_of_a_matrix(axis):
    x = pt.matrix("x")
    compare_strict([x], [pt.sort(x, axis=axis), pt.argsort(x, axis=axis)], [M])


def test_sort_of_a_vector_with_nan_and_infinities_puts_nan_last():
    x = pt.vector("x")
    v = np.array([2.0, np.nan, -np.inf, 0.5, np.inf, -3.0])
    compare_strict([x], [pt.sort(x), pt.argsort(x)], [v])


def test_sort_of_integers_and_float32():
    i = pt.lvector("i")
    f = pt.fvector("f")
    compare_strict([i, f], [pt.sort(i), pt.argsort(i), pt.sort(f * 2)], [np.array([5, -2, 9, 0, 3]), np.array([0.5, -1.5, 2.0], np.float32)])


def test_stable_argsort_keeps_ties_in_order():
    x = pt.vector("x")
    compare_strict([x], pt.argsort(x, stable=True), [np.array([1.0, 0.0, 1.0, 0.0, 2.0, 1.0])])


def test_median_of_rows_through_sort():
    x = pt.matrix("x")
    compare_strict([x], pt.sort(x, axis=1)[:, 2], [rng.standard_normal((3, 5))])


def test_gradient_through_sort_is_pytensors():
    x = pt.vector("x")
    w = pt.constant(np.array([0.5, -1.0, 2.0, 0.25, 3.0]))
    cost = pt.sum(pt.sort(x) * w) + pt.sum(pt.sort(x) ** 2)
    f = compare_strict([x], [cost, pytensor.grad(cost, x)], [rng.standard_normal(5)])
    assert f is not None
