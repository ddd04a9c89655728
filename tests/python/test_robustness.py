"""Hostile NumPy inputs through mode "PTL": memory layouts, dtypes and shapes that are wrong."""

import numpy as np
import pytest

pytensor = pytest.importorskip("pytensor")
pt = pytest.importorskip("pytensor.tensor")
pytest.importorskip("pytensor_ptl")


def _matrix_function():
    x = pt.matrix("x", dtype="float64")
    y = pt.vector("y", dtype="float64")
    return pytensor.function([x, y], (x * 2.0 + y).sum(axis=0), mode="PTL")


@pytest.mark.parametrize(
    "make",
    [
        lambda a: np.asfortranarray(a),
        lambda a: np.ascontiguousarray(a[:, ::-1])[:, ::-1],
        lambda a: np.repeat(a, 2, axis=1)[:, ::2],
        lambda a: a.T.copy().T,
    ],
    ids=["fortran", "negative-strides", "strided-slice", "transposed-view"],
)
def test_any_memory_layout_gives_numpys_answer(make):
    f = _matrix_function()
    a = np.arange(12.0).reshape(3, 4) - 5.5
    y = np.linspace(-1.0, 1.0, 4)
    x = make(a)
    assert np.array_equal(x, a)
    np.testing.assert_allclose(f(x, y), (a * 2.0 + y).sum(axis=0), rtol=1e-12)


def test_nan_and_inf_propagate_like_numpy():
    f = _matrix_function()
    a = np.array([[np.nan, 1.0], [np.inf, -np.inf]])
    y = np.array([0.0, 1.0])
    expected = (a * 2.0 + y).sum(axis=0)
    got = f(a, y)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(got[~np.isnan(got)], expected[~np.isnan(expected)])


def test_zero_size_inputs_work():
    f = _matrix_function()
    got = f(np.zeros((0, 4)), np.ones(4))
    np.testing.assert_array_equal(got, np.zeros(4))


def test_wrong_rank_and_shape_are_clear_errors():
    f = _matrix_function()
    with pytest.raises(Exception) as e:
        f(np.ones(3), np.ones(4))
    assert "dim" in str(e.value) or "rank" in str(e.value) or "shape" in str(e.value)
    # `x @ y` requires x's columns to be y's rows: one dimension name, so the call's argument
    # check refuses the disagreement before anything runs, naming both arguments.
    with pytest.raises(ValueError) as e:
        f(np.ones((3, 4)), np.ones(5))
    assert "argument `y`" in str(e.value) and "argument `x` fixed `x_dim1` = 4" in str(e.value), str(e.value)


@pytest.mark.serial
def test_the_gil_is_released_while_ptl_computes():
    import threading
    import time

    a = pt.matrix("a", dtype="float64")
    b = pt.matrix("b", dtype="float64")
    f = pytensor.function([a, b], a @ b, mode="PTL")
    x = np.random.default_rng(0).standard_normal((1024, 1024))
    f(x, x)  # compile and warm up
    start = time.perf_counter()
    f(x, x)
    one_call = time.perf_counter() - start

    stamps = []
    done = threading.Event()

    def work():
        for _ in range(3):
            f(x, x)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    gaps = np.diff(stamps)
    # With the GIL held through a call, this thread would stall for a whole call at a time.
    assert len(stamps) > 10
    assert gaps.max() < max(0.5 * one_call, 0.05), (gaps.max(), one_call)
