"""Modes "PTL_VULKAN" and "PTL_CUDA": mode "PTL" on another device, compared with PyTensor's
own result. The Vulkan tests run on lavapipe where the set-up installed it; without a Vulkan
device they skip, except under PTL_REQUIRE_VULKAN=1 (CI)."""

from __future__ import annotations

import os

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import pytensor_ptl
from pytensor_ptl import run_script

rng = np.random.default_rng(11)


def _vulkan_or_skip():
    try:
        run_script("print 1;", device="vulkan")
    except RuntimeError as e:
        if os.environ.get("PTL_REQUIRE_VULKAN") == "1":
            raise
        pytest.skip(f"no Vulkan device: {e}")


def test_mode_ptl_vulkan_matches_pytensor():
    _vulkan_or_skip()
    x = pt.matrix("x", dtype="float32")
    w = pt.matrix("w", dtype="float32")
    out = pt.tanh(x @ w).sum(axis=0) + pt.sqr(x).mean()
    f = pytensor.function([x, w], out, mode="PTL_VULKAN")
    ref = pytensor.function([x, w], out, mode="FAST_COMPILE")
    xv = rng.standard_normal((5, 4)).astype("float32")
    wv = rng.standard_normal((4, 3)).astype("float32")
    np.testing.assert_allclose(f(xv, wv), ref(xv, wv), rtol=1e-5, atol=1e-6)
    assert f.maker.linker.device == "vulkan"


def test_f64_exp_is_refused_on_vulkan_by_name():
    _vulkan_or_skip()
    x = pt.vector("x", dtype="float64")
    # Refused when the function is made, before anything is compiled.
    with pytest.raises(RuntimeError, match="`exp` computes in f64"):
        pytensor.function([x], pt.exp(x), mode="PTL_VULKAN")


def test_run_script_on_vulkan_matches_the_cpu():
    _vulkan_or_skip()
    src = "print sum([1, 2, 3]) * 3000000000;\nprint [1.5, 2.5] * (2.0 : f32);"
    got, want = run_script(src, device="vulkan"), run_script(src)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_unknown_device_is_a_value_error():
    with pytest.raises(ValueError, match="unknown device `tpu`"):
        run_script("print 1;", device="tpu")


def test_cuda_mode_says_why_it_cannot_run():
    assert "PTL_CUDA" in pytensor_ptl.linker.MODES
    if _cuda_runs():
        pytest.skip("this build has CUDA and a GPU")
    x = pt.vector("x", dtype="float32")
    with pytest.raises(RuntimeError, match="`cuda` driver|NVIDIA GPU|CUDA device"):
        pytensor.function([x], x * 2.0, mode="PTL_CUDA")


def _cuda_runs() -> bool:
    try:
        run_script("print 1;", device="cuda")
        return True
    except RuntimeError:
        return False
