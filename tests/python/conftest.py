"""Shared helpers for the PyTensor importer and PTL mode tests."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

# PyTensor's reference results come from its Python implementations: `cxx=` turns off its C
# code generation, which on a fresh machine compiles each op's C module with g++ on first use
# (minutes of a clean run, and nothing more of ptl tested). Mode PTL's fallback islands then
# run those Python implementations too. PyTensor's default backend (Numba) is unchanged. Set
# here, before PyTensor is imported, so that every test process and its children inherit it;
# a `cxx` the caller set in PYTENSOR_FLAGS is kept.
_flags = os.environ.get("PYTENSOR_FLAGS", "")
if "cxx" not in _flags:
    os.environ["PYTENSOR_FLAGS"] = ",".join(f for f in (_flags, "cxx=") if f)

pytensor = pytest.importorskip("pytensor")
pytensor_ptl = pytest.importorskip("pytensor_ptl")

ROOT = Path(__file__).resolve().parents[2]
PTL_BIN = ROOT / "target" / "debug" / "ptl"


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "serial: depends on timing (a signal sent after a delay, a thread's gaps), so `make test` "
        "runs it after the others, alone, rather than beside another test process",
    )

_NP_TO_PTL = {"bool": "bool", "int32": "i32", "int64": "i64", "float32": "f32", "float64": "f64"}


def ptl_literal(a) -> str:
    """A NumPy array as a ptl literal with its dtype and shape."""
    a = np.asarray(a)
    dt = _NP_TO_PTL[str(a.dtype)]

    def lit(x):
        if isinstance(x, np.ndarray):
            if x.ndim == 0:
                return lit(x.item())
            return "[" + ", ".join(lit(y) for y in x) + "]"
        if a.dtype == bool:
            return "true" if x else "false"
        if a.dtype.kind == "f":
            x = float(x)
            if np.isnan(x):
                return "nan"
            if np.isinf(x):
                return "inf" if x > 0 else "-inf"
            return repr(x)
        return str(int(x))

    dims = ", ".join(str(d) for d in a.shape)
    ty = f"{dt}[{dims}]" if a.ndim else dt
    return f"({lit(a)} : {ty})"


def roundtrip_script(prog, args) -> str:
    """`prog.source()` and a `print` of its function on `args`; the program's bound constants
    follow them as the last arguments."""
    args = list(args) + list(prog.constants())
    call = f"{prog.entry}({', '.join(ptl_literal(a) for a in args)})"
    return prog.source() + f"\nprint {call};\n"


def run_roundtrip(prog, args):
    """Runs `prog.source()` as a script on literal arguments, compiled, through the extension."""
    return pytensor_ptl.run_script(roundtrip_script(prog, args))


def run_cli(script: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".ptl", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        r = subprocess.run([str(PTL_BIN), "run", path], capture_output=True, text=True, timeout=300)
    finally:
        os.unlink(path)
    assert r.returncode == 0, r.stderr
    return r.stdout


def assert_same(got, want, rtol=None, atol=None):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        tight = want.dtype == np.float64
        np.testing.assert_allclose(
            got,
            want,
            rtol=rtol if rtol is not None else (1e-10 if tight else 2e-5),
            atol=atol if atol is not None else (1e-12 if tight else 1e-6),
            equal_nan=True,
        )
    else:
        np.testing.assert_array_equal(got, want)


def compare_strict(inputs, outputs, args, **tol):
    """`outputs` in mode "PTL_STRICT" (every node through ptl, nothing left to PyTensor) against
    PyTensor's own result, and the same program run by ptl's interpreter; the function."""
    import pytensor

    from pytensor_ptl import from_fgraph

    want = pytensor.function(inputs, outputs, mode="FAST_COMPILE")(*args)
    f = pytensor.function(inputs, outputs, mode="PTL_STRICT")
    got = f(*args)
    if not isinstance(outputs, list):
        got, want = [got], [want]
    for g, w in zip(got, want):
        assert_same(g, w, **tol)
    prog = from_fgraph(f.maker.fgraph)
    for g, w in zip(prog.interpret(*args), want):
        assert_same(g, w, **tol)
    return f
