"""Large arguments are read where they are and large results become NumPy arrays over the memory
the call wrote (no copies): what a caller sees must be what copies would have given."""

import numpy as np
import pytensor
import pytensor.tensor as pt

import pytensor_ptl  # noqa: F401  (registers mode PTL and NumPy's aligned allocator)

N = 100_000  # 800 KB of float64: above the sizes read and returned in place


def test_new_numpy_arrays_are_64_byte_aligned():
    for n in (1, 7, 1000, N, 10 * N):
        assert np.empty(n).ctypes.data % 64 == 0
    a = np.zeros(N)
    b = np.resize(a, 3 * N)  # realloc'd
    assert b.ctypes.data % 64 == 0 and b.sum() == 0.0


def test_writing_into_a_result_changes_no_later_call():
    x = pt.dvector("x")
    f = pytensor.function([x], [x * 2.0, pt.ones_like(x) * 3.0], mode="PTL")
    a = np.arange(N, dtype="float64")
    first, const = f(a)
    assert type(first.base).__name__ == "ResultMemory"  # the call's own memory, not a copy
    first[:] = -1.0
    const[:] = -1.0
    again, const2 = f(a)
    np.testing.assert_array_equal(again, a * 2.0)
    np.testing.assert_array_equal(const2, np.full(N, 3.0))


def test_a_result_that_is_an_argument_is_its_own_copy():
    x = pt.dvector("x")
    f = pytensor.function([x], [x.reshape((N // 10, 10)), x + 0.0], mode="PTL")
    a = np.arange(N, dtype="float64")
    assert a.ctypes.data % 64 == 0
    r, s = f(a)
    a[:] = 7.0
    np.testing.assert_array_equal(r.ravel(), np.arange(N))
    np.testing.assert_array_equal(s, np.arange(N))
    assert not np.shares_memory(r, a) and not np.shares_memory(s, a)


def test_one_value_returned_twice_gives_two_arrays():
    x = pt.dvector("x")
    y = x * 2.0
    f = pytensor.function([x], [y, y], mode="PTL")
    p, q = f(np.ones(N))
    assert not np.shares_memory(p, q)
    p[:] = 0.0
    np.testing.assert_array_equal(q, np.full(N, 2.0))


def test_unaligned_and_strided_arguments_are_read_right():
    x, y = pt.dvector("x"), pt.dvector("y")
    f = pytensor.function([x, y], x * 2.0 + y, mode="PTL")
    base = np.random.default_rng(0).random(2 * N + 1)
    unaligned = base[1 : N + 1]  # 8 bytes past an aligned start
    strided = base[::2][:N]
    assert unaligned.ctypes.data % 64 != 0 and not strided.flags.c_contiguous
    np.testing.assert_array_equal(f(unaligned, strided), unaligned * 2.0 + strided)
    reversed_ = base[::-1][:N]
    np.testing.assert_array_equal(f(reversed_, unaligned), reversed_ * 2.0 + unaligned)


def test_large_bool_and_integer_arrays_in_and_out():
    x = pt.dvector("x")
    k = pt.lvector("k")
    f = pytensor.function([x, k], [x > 0.5, k * 3, pt.switch(x > 0.5, k, -k)], mode="PTL")
    a = np.random.default_rng(1).random(N)
    ks = np.arange(N, dtype="int64")
    b, t, s = f(a, ks)
    assert b.dtype == np.bool_ and t.dtype == np.int64
    np.testing.assert_array_equal(b, a > 0.5)
    np.testing.assert_array_equal(t, ks * 3)
    np.testing.assert_array_equal(s, np.where(a > 0.5, ks, -ks))
    # A bool result fed back in as an argument.
    m = pt.vector("m", dtype="bool")
    h = pytensor.function([m], m.astype("int64").sum(), mode="PTL")
    assert int(h(b)) == int((a > 0.5).sum())


def test_results_outlive_the_function_and_the_arguments():
    x = pt.dvector("x")
    f = pytensor.function([x], pt.exp(x), mode="PTL")
    a = np.linspace(-1, 1, N)
    r = f(a)
    del f, a
    import gc

    gc.collect()
    np.testing.assert_allclose(r, np.exp(np.linspace(-1, 1, N)), rtol=1e-15)


def test_results_may_be_freed_on_another_thread():
    import gc
    import threading

    x = pt.dvector("x")
    f = pytensor.function([x], x * 2.0, mode="PTL")
    results = [f(np.ones(N)) for _ in range(3)]
    assert type(results[0].base).__name__ == "ResultMemory"
    errors = []

    def drop():
        try:
            results.clear()
            gc.collect()
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    import sys

    seen = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    try:
        t = threading.Thread(target=drop)
        t.start()
        t.join()
    finally:
        sys.unraisablehook = old_hook
    assert not errors and not seen, (errors, seen)
