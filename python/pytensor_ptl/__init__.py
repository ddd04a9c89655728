"""Run PyTensor graphs with ptl.

``import pytensor_ptl`` registers the PyTensor mode ``"PTL"``: ``pytensor.function(...,
mode="PTL")`` converts the rewritten graph to a ptl program, which IREE compiles for the CPU.
Modes ``"PTL_VULKAN"`` and ``"PTL_CUDA"`` run it on the first Vulkan device or NVIDIA GPU.
:func:`from_fgraph` gives the program itself (its ptl source, its checks, and a callable).
"""

from __future__ import annotations

import re

import numpy as np

from . import _ptl
from .importer import NeedsStaticShapes, check_supported, describe, from_fgraph

__all__ = ["Program", "from_fgraph", "NeedsStaticShapes", "check_supported", "describe", "run_script", "PTLLinker"]

run_script = _ptl.run_script


#: ptl's dtype names as NumPy spells them.
_NUMPY_NAMES = {"bool": "bool", "i32": "int32", "i64": "int64", "f32": "float32", "f64": "float64"}


class Program:
    """A ptl program with one function, converted from a PyTensor graph.

    ``prog(*arrays)`` compiles it (once; compiled modules are cached on disk as well) and runs
    it, returning a list with one NumPy array per graph output. The function's parameters are
    the graph's inputs followed by its large constants (:meth:`constants`), which the program
    keeps and passes on each call.
    """

    def __init__(self, native, fgraph=None):
        self._native = native
        self._out_dtypes = [o.type.dtype for o in fgraph.outputs] if fgraph is not None else None
        self._in_dtypes = [i.type.dtype for i in fgraph.inputs] if fgraph is not None else None
        # Per `guard` code: the exception type and message of the PyTensor assertion it checks.
        self._guards = []
        # Whether a result's dtype differs from the graph output's (and is converted).
        try:
            ptl_dtypes = [_NUMPY_NAMES.get(d, d) for d in native.result_dtypes()]
        except ValueError:  # it does not type-check: it never runs
            ptl_dtypes = None
        self._cast_results = self._out_dtypes is not None and ptl_dtypes != self._out_dtypes

    def source(self) -> str:
        """The canonical ptl text of the program (as ``ptl fmt`` prints it)."""
        return self._native.source()

    @property
    def entry(self) -> str:
        """The name of the function."""
        return self._native.entry

    def constants(self) -> list[np.ndarray]:
        """The graph's constants too large to be written into the source, in the order the
        function takes them: after the graph's inputs. A call passes them itself; running
        ``source()`` elsewhere needs them as the last arguments."""
        return self._native.constants()

    def check(self) -> None:
        """Raises ``ValueError`` with the rendered diagnostics unless the program type-checks."""
        self._native.check()

    def result_types(self) -> list[str]:
        return self._native.result_types()

    def mlir(self) -> str:
        return self._native.mlir()

    def _args(self, arrays):
        if self._in_dtypes is not None and len(arrays) != len(self._in_dtypes):
            raise TypeError(f"the function takes {len(self._in_dtypes)} arguments, got {len(arrays)}")
        out = []
        for k, a in enumerate(arrays):
            a = np.asarray(a)
            if self._in_dtypes is not None and str(a.dtype) != self._in_dtypes[k]:
                if not np.can_cast(a.dtype, self._in_dtypes[k], casting="same_kind"):
                    raise TypeError(f"argument {k} has dtype {a.dtype}, expected {self._in_dtypes[k]}")
                a = a.astype(self._in_dtypes[k])
            out.append(a)
        return out

    def _results(self, outs):
        if self._out_dtypes is None:
            return outs
        return [o if str(o.dtype) == d else o.astype(d) for o, d in zip(outs, self._out_dtypes)]

    def __call__(self, *arrays):
        try:
            try:
                # NumPy arrays of the parameters' dtypes are read in place.
                outs = self._native.run(*arrays)
            except TypeError:
                outs = self._native.run(*self._args(arrays))
        except (RuntimeError, ValueError) as e:
            raise self._guard_error(e) from e
        return self._results(outs) if self._cast_results else outs

    def interpret(self, *arrays):
        """Runs the program with ptl's reference interpreter instead of compiling it."""
        try:
            return self._results(self._native.interpret(*self._args(arrays)))
        except (RuntimeError, ValueError) as e:
            raise self._guard_error(e) from e

    def _guard_error(self, e):
        """A failed `guard` as the PyTensor assertion it checks (its exception and message);
        any other error as it is."""
        m = re.search(r"guard (\d+) failed", str(e))
        if m and int(m.group(1)) < len(self._guards):
            exc_type, msg = self._guards[int(m.group(1))]
            return exc_type(msg)
        return e

    def __repr__(self) -> str:
        return f"<ptl Program `{self.entry}`>\n{self.source()}"


from .linker import PTLLinker, register  # noqa: E402

register()
