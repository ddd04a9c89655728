"""The PyTensor linker and mode "PTL"."""

from __future__ import annotations

from pytensor.compile.mode import Mode, predefined_modes, register_mode
from pytensor.graph.rewriting.db import RewriteDatabaseQuery
from pytensor.link.basic import JITLinker

from . import islands
from .importer import NeedsStaticShapes, check_supported, from_fgraph


class PTLLinker(JITLinker):
    """A ``Linker`` that converts the ``FunctionGraph`` to ptl functions.

    The program is built and compiled when ``pytensor.function`` runs. Nodes ptl cannot express
    run with PyTensor's own implementation between compiled islands of the rest
    (:mod:`pytensor_ptl.islands`), with a :class:`~pytensor_ptl.islands.PTLFallbackWarning`
    naming each such op type once; with ``strict`` (mode ``"PTL_STRICT"``) they raise
    ``NotImplementedError`` naming the node instead. A graph that computes with sizes known only
    at run time (``Shape_i`` of a ``None`` dim feeding a ``Reshape``, a ``mean``'s divisor,
    shape assertions) is compiled once per set of input shapes instead, when it is called.
    """

    incompatible_rewrites = (
        "cxx_only",
        "BlasOpt",
        "local_careduce_fusion",
        "inplace",
        "scan_reduce_trace_prealloc",
        "inline_einsum",
    )

    #: Where compiled calls run: ``"cpu"``, ``"vulkan"`` or ``"cuda"`` (a class attribute:
    #: PyTensor makes new linkers of the same class).
    device = "cpu"
    #: Refuse a graph with any node ptl cannot express instead of running that node with
    #: PyTensor (a class attribute, like ``device``).
    strict = False

    def fgraph_convert(self, fgraph, **kwargs):
        if not self.strict:
            return islands.convert(fgraph, self.device, self._ready, lambda fg: _PerShape(fg, self.device))
        check_supported(fgraph)
        try:
            prog = from_fgraph(fgraph)
        except NeedsStaticShapes:
            return _PerShape(fgraph, self.device)
        self._ready(prog)
        return prog

    def _ready(self, prog):
        prog._native.set_device(self.device)
        prog.check()
        prog._native.compile()

    def jit_compile(self, fn):
        return fn

    def create_thunk_inputs(self, storage_map):
        return [storage_map[n] for n in self.fgraph.inputs]


class _PerShape:
    """One program per tuple of input shapes."""

    def __init__(self, fgraph, device):
        self.fgraph = fgraph
        self.device = device
        self.programs = {}

    def __call__(self, *arrays):
        key = tuple(getattr(a, "shape", ()) for a in arrays)
        prog = self.programs.get(key)
        if prog is None:
            prog = from_fgraph(self.fgraph, input_shapes=key)
            prog._native.set_device(self.device)
            prog.check()
            self.programs[key] = prog
        return prog(*arrays)


# The rewrites PyTensor runs for "fast_run", minus those that produce C/BLAS-only or in-place ops.
PTL_QUERY = RewriteDatabaseQuery(include=["fast_run"], exclude=list(PTLLinker.incompatible_rewrites))


class PTLStrictLinker(PTLLinker):
    """:class:`PTLLinker` that refuses what ptl cannot express (mode ``"PTL_STRICT"``)."""

    strict = True


class PTLVulkanLinker(PTLLinker):
    """:class:`PTLLinker` running on the first Vulkan device (mode ``"PTL_VULKAN"``)."""

    device = "vulkan"


class PTLCudaLinker(PTLLinker):
    """:class:`PTLLinker` running on the first NVIDIA GPU (mode ``"PTL_CUDA"``)."""

    device = "cuda"


#: The modes, by name, with their linkers.
MODES = {"PTL": PTLLinker, "PTL_STRICT": PTLStrictLinker, "PTL_VULKAN": PTLVulkanLinker, "PTL_CUDA": PTLCudaLinker}


def register() -> None:
    for name, linker in MODES.items():
        if name not in predefined_modes:
            register_mode(name, Mode(linker(), PTL_QUERY))
    _accept_in_config()


def _accept_in_config() -> None:
    """Lets ``pytensor.config.mode = "PTL"`` through: PyTensor checks mode names against a fixed
    list before looking them up among the registered modes."""
    import pytensor

    param = pytensor.config._config_var_dict.get("mode")
    apply = getattr(param, "_apply", None)
    if apply is None or getattr(apply, "_ptl", False):
        return

    def accept(val, _apply=apply):
        if isinstance(val, str) and val.upper() in MODES:
            return val.upper()
        return _apply(val)

    accept._ptl = True
    param._apply = accept
