"""PyTensor ``FunctionGraph`` -> plain description -> ptl program (built in Rust).

The walk here only classifies nodes, folds what is known before run time (constants and
shapes), and writes each node as ``{"op": KIND, FIELDS..., "inputs": [ids], "output": id,
"dtype": NAME, "at": WHERE}``. The kinds and their fields are fixed by the Rust side
(``python/src/importer/desc.rs``), which refuses a description of any other shape;
``_Describer.emit`` and its callers below write exactly those. Constants travel as NumPy
arrays next to the description, never as text. ``_ptl.build_program`` turns the description
into a ptl ``fn`` and checks it.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytensor.scalar as ps
import pytensor.scalar.math as psm
import pytensor.tensor as pt
from pytensor.compile.builders import OpFromGraph
from pytensor.compile.ops import DeepCopyOp, TypeCastingOp
from pytensor.graph.basic import Constant
from pytensor.graph.fg import FunctionGraph
from pytensor.raise_op import CheckAndRaise
from pytensor.tensor import blas
from pytensor.scan.op import Scan
from pytensor.tensor.basic import (
    Alloc,
    AllocEmpty,
    ExtractDiag,
    Join,
    MakeVector,
    Nonzero,
    ScalarFromTensor,
    Split,
    TensorFromScalar,
)
from pytensor.tensor.extra_ops import CumOp

try:  # PyTensor 3.3
    from pytensor.conditional.op import IfElse
except ImportError:  # PyTensor 3.0
    from pytensor.ifelse import IfElse
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.sort import ArgSortOp, SortOp
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.math import All, Any, Argmax, Dot, Max, Min, Prod, Sum
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from pytensor.tensor.special import LogSoftmax, Softmax
from pytensor.tensor import basic as _basic
from pytensor.tensor import subtensor as _subtensor
from pytensor.tensor.subtensor import IncSubtensor, Subtensor, indices_from_subtensor

# `x[idx]` and `x[idx] = y` with one integer vector on the first axis (PyTensor 3.0's names).
_TAKE_OPS = tuple(getattr(_subtensor, n) for n in ("AdvancedSubtensor1",) if hasattr(_subtensor, n))
_SCATTER_OPS = tuple(getattr(_subtensor, n) for n in ("AdvancedIncSubtensor1",) if hasattr(_subtensor, n))
# BLAS ops: the set differs between PyTensor versions (3.3 has no `Ger`); absent ones are an
# empty tuple, which `isinstance` never matches.
def _blas(*names):
    return tuple(getattr(blas, n) for n in names if hasattr(blas, n))


_BLAS_REFUSED = _blas("Dot22Scalar", "Ger")
_BLAS_DOT = _blas("Dot22")
_BLAS_GEMV = _blas("Gemv")
_BLAS_GEMM = _blas("Gemm")
_BATCHED_DOT = _blas("BatchedDot")
try:
    from pytensor.tensor.basic import ARange
except ImportError:  # pragma: no cover
    ARange = ()
_EYE = getattr(_basic, "Eye", ())
_ADVANCED_SUB = getattr(_subtensor, "AdvancedSubtensor", None)
# PyTensor 3.3's `logsumexp` is an op of its own (an `OpFromGraph`); ptl has it as a builtin.
try:
    from pytensor.tensor.special import LogSumExp as _LOGSUMEXP
except ImportError:
    _LOGSUMEXP = None
_ADVANCED_INC = getattr(_subtensor, "AdvancedIncSubtensor", None)
_ALLOC_DIAG = getattr(_basic, "AllocDiag", None)
# Linear algebra: `pytensor.tensor.linalg` in PyTensor 3.3, `slinalg` before.
try:
    from pytensor.tensor.linalg import Cholesky, CholeskySolve, Det, MatrixInverse, SLogDet, Solve, SolveTriangular
    from pytensor.tensor.linalg import Eigh, LUFactor, PivotToPermutations
except ImportError:  # pragma: no cover
    from pytensor.tensor.nlinalg import Eigh
    from pytensor.tensor.nlinalg import Det, MatrixInverse, SLogDet

    class LUFactor:  # not in PyTensor 3.0: nothing is an instance
        pass

    PivotToPermutations = LUFactor
    from pytensor.tensor.slinalg import Cholesky, CholeskySolve, Solve, SolveTriangular


def _is_int_index(v) -> bool:
    return getattr(v.type, "dtype", None) in ("int32", "int64")


def _take_axis(node):
    """The axis of `take(x, idx, axis)` that `node` is, or None: PyTensor 3.0's
    `AdvancedSubtensor1`, or (PyTensor 3.3) an `AdvancedSubtensor` with one integer array
    index and every other axis whole."""
    op = node.op
    if isinstance(op, _TAKE_OPS):
        return 0
    if _ADVANCED_SUB is not None and isinstance(op, _ADVANCED_SUB) and hasattr(op, "_take_axis"):
        axis = op._take_axis()
        if axis is not None and len(node.inputs) == 2 and _is_int_index(node.inputs[1]):
            return axis
    return None


def _is_scatter(node) -> bool:
    """`x[idx] = y` / `x[idx] += y` on the first axis with one integer vector: PyTensor 3.0's
    `AdvancedIncSubtensor1`, or (PyTensor 3.3) an `AdvancedIncSubtensor` of index list (0,)
    that adds repeated indices up."""
    op = node.op
    if isinstance(op, _SCATTER_OPS):
        return True
    return (
        _ADVANCED_INC is not None
        and isinstance(op, _ADVANCED_INC)
        and getattr(op, "idx_list", None) == (0,)
        and (op.set_instead_of_inc or not getattr(op, "ignore_duplicates", False))
        and len(node.inputs) == 3
        and _is_int_index(node.inputs[2])
        and node.inputs[2].type.ndim == 1
    )


def _multi_index(node):
    """(s, k), where `node` indexes the axes s, ..., s + k - 1 of its array with k >= 2 integer
    arrays and takes the s axes before them whole (PyTensor's `AdvancedSubtensor` /
    `AdvancedIncSubtensor` of index list (:, ..., :, 0, 1, ..., k - 1)): ptl computes it on the
    array with the indexed axes moved to the front and reshaped to one, at flat indices.
    Else None."""
    op = node.op
    inc = _ADVANCED_INC is not None and isinstance(op, _ADVANCED_INC)
    if not (inc or (_ADVANCED_SUB is not None and isinstance(op, _ADVANCED_SUB))):
        return None
    idx = node.inputs[2 if inc else 1 :]
    k = len(idx)
    items = tuple(getattr(op, "idx_list", ()))
    s = len(items) - k
    if k < 2 or s < 0 or items[s:] != tuple(range(k)):
        return None
    if any(not (isinstance(it, slice) and (it.start, it.stop, it.step) == (None, None, None)) for it in items[:s]):
        return None
    if inc and not op.set_instead_of_inc and getattr(op, "ignore_duplicates", False):
        return None
    if any(getattr(i.type, "dtype", "")[:3] not in ("int", "uin") or i.type.ndim == 0 for i in idx):
        return None
    return s, k


def _mask_set(node):
    """The bool mask, where `node` is `x[mask] = y` or `x[mask] += y` with one value `y` for
    every selected element (a scalar) and a mask of `x`'s rank: PyTensor's
    `AdvancedIncSubtensor` at the outputs of one `Nonzero(mask)`, which ptl computes as
    `where(mask, y, x)` (or `where(mask, x + y, x)`) without the indices. Else None."""
    op = node.op
    if _ADVANCED_INC is None or not isinstance(op, _ADVANCED_INC) or len(node.inputs) < 3:
        return None
    x, y, idx = node.inputs[0], node.inputs[1], node.inputs[2:]
    owner = idx[0].owner
    if len(idx) == 1 and idx[0].type.dtype == "bool":
        mask = idx[0]  # the mask itself, before PyTensor's rewrite to `Nonzero`
        idx = [None] * x.type.ndim
    elif owner is None or not isinstance(owner.op, Nonzero) or list(idx) != list(owner.outputs):
        return None
    else:
        mask = owner.inputs[0]
    if mask.type.dtype != "bool" or mask.type.ndim != x.type.ndim or len(idx) != x.type.ndim:
        return None
    if len(getattr(op, "idx_list", ())) not in (1, len(idx)):
        return None
    if not all(y.type.broadcastable):
        return None
    return mask


def _nonzero_mask(idx):
    """The mask whose one `Nonzero` gives exactly the index arrays `idx`, else None."""
    owner = idx[0].owner if idx else None
    if owner is None or not isinstance(owner.op, Nonzero) or list(idx) != list(owner.outputs):
        return None
    return owner.inputs[0]


def _mask_index(node, inc: bool):
    """(x, mask), where `node` indexes `x` with a bool mask over its leading axes, and nothing
    else: PyTensor's `AdvancedSubtensor` (`inc` false) or `AdvancedIncSubtensor` of the mask
    itself, or of the outputs of one `Nonzero(mask)` (PyTensor's rewrite). Else None."""
    op = node.op
    kind = _ADVANCED_INC if inc else _ADVANCED_SUB
    first = 2 if inc else 1
    if kind is None or not isinstance(op, kind) or len(node.inputs) <= first:
        return None
    x, idx = node.inputs[0], list(node.inputs[first:])
    if len(idx) == 1 and idx[0].type.dtype == "bool":
        mask = idx[0]
    else:
        mask = _nonzero_mask(idx)
    if mask is None or mask.type.dtype != "bool" or not 1 <= mask.type.ndim <= x.type.ndim:
        return None
    if tuple(getattr(op, "idx_list", ())) != tuple(range(len(idx))):
        return None
    return x, mask


def _mask_read(node):
    """The bool mask, where `node` reads `x[mask]`: ptl's boolean index. Else None."""
    found = _mask_index(node, inc=False)
    return None if found is None else found[1]


def _mask_scatter(node):
    """The bool mask, where `node` is `x[mask] = y` or `x[mask] += y` with a value per selected
    element or row (a gradient of `x[mask]`): ptl's `scatter_set`/`scatter_add` with the mask
    as the index. (One value for every element at once is `_mask_set`.) A mask of rank k >= 2
    below `x`'s rank reads its axes as one, so ptl needs the sizes of those axes, or of the
    others, known. Else None."""
    found = _mask_index(node, inc=True)
    if found is None or _mask_set(node) is not None:
        return None
    x, mask = found
    k, shape = mask.type.ndim, x.type.shape
    if 1 < k < len(shape) and None in shape[:k] and None in shape[k:]:
        return None
    return mask


def _mask_only(node, fgraph) -> bool:
    """Whether `node` is a `Nonzero` whose indices serve only masked reads and sets
    (`_mask_read`, `_mask_set`, `_mask_scatter`), which read its mask instead: then it needs no
    equivalent of its own."""
    if not isinstance(node.op, Nonzero):
        return False
    users = [client for o in node.outputs for client, _ in fgraph.clients.get(o, [])]
    uses_mask = lambda u: _mask_set(u) is not None or _mask_read(u) is not None or _mask_scatter(u) is not None  # noqa: E731
    return bool(users) and all(not isinstance(u, str) and uses_mask(u) for u in users)


def _separated_index(node):
    """perm, where `node` reads `x[...]` with k >= 2 integer arrays on axes that are not
    adjacent (whole axes between them: `x[i, :, j]`): NumPy then puts the indices' axes first,
    then the whole axes in order, which is the gather of the leading axes of `x` transposed by
    `perm` (the indexed axes, then the rest). Else None."""
    op = node.op
    if _ADVANCED_SUB is None or not isinstance(op, _ADVANCED_SUB):
        return None
    items = tuple(getattr(op, "idx_list", ()))
    idx = node.inputs[1:]
    k = len(idx)
    arrays = [a for a, it in enumerate(items) if not isinstance(it, slice)]
    if k < 2 or len(arrays) != k or [items[a] for a in arrays] != list(range(k)):
        return None
    if arrays == list(range(arrays[0], arrays[0] + k)):
        return None  # adjacent: `_multi_index`
    if any((it.start, it.stop, it.step) != (None, None, None) for it in items if isinstance(it, slice)):
        return None
    if any(getattr(i.type, "dtype", "")[:3] not in ("int", "uin") or i.type.ndim == 0 for i in idx):
        return None
    ndim = node.inputs[0].type.ndim
    return arrays + [a for a in range(ndim) if a not in arrays]


def _multi_index_shapes(node, s, k, at, perm=None):
    """The static sizes of the k indexed axes, the array's shape, the rank of the broadcast
    index arrays, and (for a set or an increment) the static shape of the indexed part, in
    NumPy's order (the s whole axes, the indices', the rest). PyTensor's static types must
    give them (the indexed axes' sizes, and every size of a set's or increment's operands):
    ptl writes the flattening as a reshape to sizes it knows."""
    x = node.inputs[0]
    inc = _ADVANCED_INC is not None and isinstance(node.op, _ADVANCED_INC)
    idx = node.inputs[2 if inc else 1 :]
    shape = [None if d is None else int(d) for d in x.type.shape]
    if perm is not None:  # the array as `_separated_index` transposes it
        shape = [shape[a] for a in perm]
    others = shape[:s] + shape[s + k :]
    if any(d is None for d in shape[s : s + k]) or others.count(None) > (0 if inc else 1):
        # Mode PTL then makes one program per input shape.
        raise NeedsStaticShapes(f"{at}: advanced indexing of an array whose indexed dims are known only at run time")
    lead = np.broadcast_shapes(*[tuple(1 if d is None else d for d in i.type.shape) for i in idx])
    if inc and any(d is None for i in idx for d in i.type.shape):
        raise NeedsStaticShapes(f"{at}: advanced indexing with index arrays of sizes known only at run time")
    values = shape[:s] + [int(d) for d in lead] + shape[s + k :]
    return shape[s : s + k], shape, len(lead), values


def _batched_diagonal(node):
    """n, where `node` is the main diagonal of the last two axes (static, both n) of an array
    of rank 3 or more (PyTensor's `ExtractDiag` of a batch of matrices). Else None."""
    op, x = node.op, node.inputs[0]
    nd = x.type.ndim
    if not isinstance(op, ExtractDiag) or nd < 3 or op.offset != 0 or sorted((op.axis1, op.axis2)) != [nd - 2, nd - 1]:
        return None
    r, c = x.type.shape[-2:]
    return int(r) if r is not None and r == c else None


def _alloc_diag(node) -> bool:
    """PyTensor's `AllocDiag` of a vector on its main diagonal: ptl's `diag(v)`."""
    op = node.op
    return (
        _ALLOC_DIAG is not None
        and isinstance(op, _ALLOC_DIAG)
        and (op.offset, op.axis1, op.axis2) == (0, 0, 1)
        and node.inputs[0].type.ndim == 1
    )


from . import _ptl

# The most batch elements a `Blockwise` is unrolled over (each is the core op's own code).
_MAX_UNROLLED_BATCH = 64

SUPPORTED_DTYPES = ("bool", "int32", "int64", "float32", "float64")

# Constants of other dtypes are rewritten to one of ptl's (their values are kept exactly).
_CONST_DTYPES = {
    "int8": "int32",
    "int16": "int32",
    "uint8": "int32",
    "uint16": "int32",
    "uint32": "int64",
    "float16": "float32",
}

_SCALAR_OPS = {
    ps.Add: "add",
    ps.Sub: "sub",
    ps.Mul: "mul",
    ps.TrueDiv: "true_div",
    ps.Neg: "neg",
    ps.Pow: "pow",
    ps.Exp: "exp",
    ps.Log: "log",
    ps.Log1p: "log1p",
    ps.Sqrt: "sqrt",
    ps.Tanh: "tanh",
    ps.Abs: "abs",
    psm.Sigmoid: "sigmoid",
    psm.Softplus: "softplus",
    ps.Maximum: "maximum",
    ps.Minimum: "minimum",
    ps.GT: "gt",
    ps.GE: "ge",
    ps.LT: "lt",
    ps.LE: "le",
    ps.EQ: "eq",
    ps.NEQ: "neq",
    ps.Switch: "switch",
    ps.Cast: "cast",
    ps.Second: "second",
    ps.Identity: "identity",
    ps.Sqr: "sqr",
    ps.Reciprocal: "reciprocal",
    ps.AND: "and",
    ps.OR: "or",
    ps.XOR: "xor",
    ps.Invert: "invert",
    ps.Clip: "clip",
}
# Scalar operations that are ptl builtins of the same meaning: imported as `{"op": "math",
# "name": BUILTIN}` and called by that name.
_MATH_OPS = {
    ps.Sin: "sin",
    ps.Cos: "cos",
    ps.Tan: "tan",
    ps.ArcSin: "arcsin",
    ps.ArcCos: "arccos",
    ps.ArcTan: "arctan",
    ps.Sinh: "sinh",
    ps.Cosh: "cosh",
    ps.ArcSinh: "arcsinh",
    ps.ArcCosh: "arccosh",
    ps.ArcTanh: "arctanh",
    ps.Exp2: "exp2",
    ps.Expm1: "expm1",
    ps.Log2: "log2",
    ps.Log10: "log10",
    ps.Sign: "sign",
    ps.Floor: "floor",
    ps.Ceil: "ceil",
    ps.RoundHalfToEven: "round",
    ps.Trunc: "trunc",
    ps.IsNan: "isnan",
    ps.IsInf: "isinf",
    ps.ArcTan2: "arctan2",
    ps.Mod: "mod",
    ps.IntDiv: "floor_divide",
    psm.Erf: "erf",
    psm.Erfc: "erfc",
    psm.Erfcx: "erfcx",
    psm.Erfinv: "erfinv",
    psm.Erfcinv: "erfcinv",
    psm.Gamma: "gamma",
    psm.GammaLn: "gammaln",
    psm.GammaInc: "gammainc",
    psm.GammaIncC: "gammaincc",
    psm.GammaIncInv: "gammaincinv",
    psm.GammaIncCInv: "gammainccinv",
    psm.BetaInc: "betainc",
    psm.BetaIncInv: "betaincinv",
    psm.Psi: "digamma",
    psm.Log1mexp: "log1mexp",
    psm.I0: "i0",
    psm.I1: "i1",
    psm.J0: "j0",
    psm.J1: "j1",
    psm.TriGamma: "trigamma",
    psm.Owens_t: "owens_t",
    psm.Kve: "kve",
}
# `polygamma(n, x)` of a constant order 0 or 1: `digamma`, `trigamma`.
_POLYGAMMA = ("digamma", "trigamma")
# Bessel functions of an order given as their first operand: ptl has orders 0 and 1, and the
# importer writes 2 and the negative orders from them (PyTensor's gradients of `i1`, `ive` and
# `jv` use them), so the order must be a constant from -2 to 2 (`pt.ive(0, x)`, `pt.jv(1, x)`).
_ORDER_OPS = {psm.Ive: ("i0e", "i1e"), psm.Jv: ("j0", "j1")}
_ORDERS = (-2, -1, 0, 1, 2)
_COMPARISONS = {"gt", "ge", "lt", "le", "eq", "neq"}
_REDUCTIONS = {Sum: "sum", Prod: "prod", Max: "max", Min: "min", All: "all", Any: "any"}
_REDUCE_SCALAR = {ps.Add: "sum", ps.Mul: "prod", ps.Maximum: "max", ps.Minimum: "min", ps.AND: "all", ps.OR: "any"}
_ALIASES = (DeepCopyOp, TypeCastingOp, ScalarFromTensor, TensorFromScalar)
# Folded when their inputs are known; otherwise they need shapes fixed before run time.
_SHAPE_OPS = (Shape, Shape_i, MakeVector, CheckAndRaise)


class NeedsStaticShapes(NotImplementedError):
    """The graph computes with a size that is unknown until run time (a ``Shape_i`` of a ``None``
    dim, a ``Reshape`` to a computed shape, ...). ptl can run it once the input shapes are fixed:
    the PTL mode then compiles one program per set of input shapes."""


def _op_name(node) -> str:
    return str(node.op)


def _var_name(v) -> str:
    return v.name if v.name else f"<{v.type}>"


def _where(index: int, node, fgraph) -> str:
    ins = ", ".join(_var_name(i) for i in node.inputs)
    outs = []
    for o in node.outputs:
        if o in fgraph.outputs:
            outs.append(f"output {fgraph.outputs.index(o)}")
        elif o.name:
            outs.append(o.name)
    where = f"node {index} `{_op_name(node)}` (inputs: {ins}"
    if outs:
        where += f"; computes {', '.join(outs)}"
    return where + ")"


def _scalar_name(op, at: str) -> str:
    if isinstance(op, ps.RoundHalfAwayFromZero):
        return "round_half_away"
    name = _SCALAR_OPS.get(type(op)) or ("math" if type(op) in _MATH_OPS else None)
    if name is None:
        raise NotImplementedError(f"{at}: the scalar operation `{op}` ({type(op).__name__}) has no ptl equivalent")
    return name


def _constant_order(op, order, allowed, at: str) -> int:
    """The order of `op` (a Bessel function, `polygamma`) whose order operand is `order` (a
    known value, or None), which must be one constant of `allowed`."""
    values = None if order is None else np.unique(np.asarray(order))
    if values is None or len(values) != 1 or values[0] not in allowed:
        which = f"from {allowed[0]} to {allowed[-1]}" if len(allowed) > 2 else " or ".join(map(str, allowed))
        raise NotImplementedError(f"{at}: `{op}` of an order other than a constant {which} has no ptl equivalent")
    return int(values[0])


def _constant_value(v):
    """The value of `v` where it is a constant, or computed from constants only (a broadcast
    or cast of one, as PyTensor's gradients make); else None."""
    if isinstance(v, Constant):
        return v.data
    from pytensor.tensor.basic import NotScalarConstantError, get_underlying_scalar_constant_value

    try:
        return get_underlying_scalar_constant_value(v)
    except (NotScalarConstantError, TypeError, ValueError):
        return None


def _check_scalar_graph(op, at: str, inputs=None) -> None:
    """`inputs`: the node's (or inner node's) input variables, for the ops whose first operand
    must be a constant."""
    if isinstance(op, ps.Composite):
        for inner in op.fgraph.toposort():
            _check_scalar_graph(inner.op, at, inner.inputs)
    elif type(op) in _ORDER_OPS:
        _constant_order(op, _constant_value(inputs[0]) if inputs else None, _ORDERS, at)
    elif isinstance(op, psm.PolyGamma):
        pass  # any order: `polygamma(n, x)`
    else:
        _scalar_name(op, at)


def _reduce_kind(op, at: str) -> str:
    for cls, kind in _REDUCTIONS.items():
        if type(op) is cls:
            return kind
    if type(op) is CAReduce:
        kind = _REDUCE_SCALAR.get(type(op.scalar_op))
        if kind:
            return kind
    raise NotImplementedError(f"{at}: the reduction `{op}` has no ptl equivalent")


class Unsupported(NotImplementedError):
    """A node of the graph that ptl cannot express; ``node`` is that node (of the graph being
    converted: for a node inside a scan, the scan)."""

    def __init__(self, message: str, node=None):
        super().__init__(message)
        self.node = node


def check_supported(fgraph: FunctionGraph) -> None:
    """Raises :class:`Unsupported` for the first node or dtype ptl cannot express (shape
    questions aside: those can be settled by fixing the input shapes)."""
    for v in fgraph.inputs:
        dtype = getattr(v.type, "dtype", None)
        if dtype not in SUPPORTED_DTYPES:
            raise Unsupported(
                f"input `{_var_name(v)}` has dtype {dtype or v.type}, which ptl does not have "
                f"(ptl has {', '.join(SUPPORTED_DTYPES)})"
            )
    for node, message in _node_support(fgraph, first_only=True):
        raise Unsupported(message, node)


def unsupported_nodes(fgraph: FunctionGraph) -> dict:
    """Every node ptl cannot express, with the reason, as far as can be told without describing
    the graph (see :func:`check_supported`)."""
    return dict(_node_support(fgraph, first_only=False))


def _node_support(fgraph: FunctionGraph, first_only: bool, constants=None):
    # Values computed from shapes and constants only: folded before run time, whatever the op.
    # (`constants`: which of the graph's inputs an outer graph binds to constants.)
    static = {i for i, c in zip(fgraph.inputs, constants or []) if c}
    for index, node in enumerate(fgraph.toposort()):
        if isinstance(node.op, (Shape, Shape_i)) or (
            node.inputs and all(isinstance(i, Constant) or i in static for i in node.inputs)
        ):
            static.update(node.outputs)
            continue
        if _mask_only(node, fgraph):
            continue
        try:
            _check_node(node, _where(index, node, fgraph))
        except NotImplementedError as e:
            yield node, str(e)
            if first_only:
                return


def _check_node(node, at: str) -> None:
    op = node.op
    if isinstance(op, Elemwise):
        _check_scalar_graph(op.scalar_op, at, node.inputs)
    elif isinstance(op, CAReduce):
        _reduce_kind(op, at)
    elif isinstance(op, (Softmax, LogSoftmax)):
        pass  # over one axis, or several (through `logsumexp`)
    elif isinstance(op, _BLAS_REFUSED):
        raise NotImplementedError(f"{at}: `{op}` has no ptl equivalent")
    elif isinstance(op, (Join, Split)) or _take_axis(node) is not None or _is_scatter(node):
        pass
    elif _mask_set(node) is not None or _mask_read(node) is not None or _mask_scatter(node) is not None:
        pass
    elif isinstance(op, Nonzero) and node.inputs[0].type.ndim == 1:
        pass  # flatnonzero
    elif (multi := _multi_index(node)) is not None or (perm := _separated_index(node)) is not None:
        try:
            _multi_index_shapes(node, *(multi or (0, len(node.inputs) - 1)), at, None if multi else perm)
        except NeedsStaticShapes as e:
            # Sizes known only at run time are settled per input shape when they are the
            # graph's inputs' (fixed then); a computed array's stay unknown even so.
            inc = _ADVANCED_INC is not None and isinstance(op, _ADVANCED_INC)
            sized = node.inputs[:1] + (list(node.inputs[2:]) if inc else [])
            if any(v.owner is not None for v in sized):
                raise NotImplementedError(str(e)) from e
    elif _alloc_diag(node):
        pass
    elif isinstance(op, _BATCHED_DOT):
        if any(i.type.ndim != 3 for i in node.inputs):
            raise NotImplementedError(f"{at}: a batched product of operands not both of rank 3")
    elif isinstance(op, ARange):
        pass  # folded, or `arange` of an input's dim (refused when described otherwise)
    elif isinstance(op, _EYE):
        pass  # folded, or `eye` of an input's dim (refused when described otherwise)
    elif isinstance(op, Argmax):
        ndim = node.inputs[0].type.ndim
        if len(range(ndim) if op.axis is None else op.axis) != 1:
            raise NotImplementedError(f"{at}: argmax over {ndim if op.axis is None else len(op.axis)} axes")
    elif isinstance(op, IfElse):
        _check_ifelse(node, at)
    elif isinstance(op, Blockwise):
        # The core op on one batch element: unrolled over the batch when described (whose
        # sizes must then be known).
        core_inputs = [pt.tensor(dtype=i.type.dtype, shape=(None,) * len(sig)) for i, sig in zip(node.inputs, op.inputs_sig)]
        try:
            core = op.core_op.make_node(*core_inputs)
        except Exception as e:  # noqa: BLE001 - any refusal of the core op's own
            raise NotImplementedError(f"{at}: a batched `{op.core_op}` ({e})") from e
        _check_node(core, at)
    elif isinstance(op, (SortOp, ArgSortOp)):
        if not isinstance(getattr(op, "axis", None), int) or len(node.inputs) != 1:
            raise NotImplementedError(f"{at}: a sort whose axis is an input")
    elif isinstance(op, CumOp):
        if op.axis is None and node.inputs[0].type.ndim != 1:
            raise NotImplementedError(f"{at}: a cumulative op over the flattened array")
    elif isinstance(op, Cholesky):
        if node.inputs[0].type.ndim != 2:
            raise NotImplementedError(f"{at}: a batched Cholesky factorisation")
    elif isinstance(op, Solve) and not isinstance(op, SolveTriangular):
        if op.assume_a != "gen":
            raise NotImplementedError(f"{at}: a solve that assumes a `{op.assume_a}` matrix")
        if node.inputs[0].type.ndim != 2 or node.inputs[1].type.ndim not in (1, 2):
            raise NotImplementedError(f"{at}: a batched solve")
    elif isinstance(op, CholeskySolve):
        if node.inputs[0].type.ndim != 2 or node.inputs[1].type.ndim not in (1, 2):
            raise NotImplementedError(f"{at}: a batched solve with a Cholesky factor")
    elif isinstance(op, (Det, MatrixInverse, SLogDet, LUFactor)):
        if node.inputs[0].type.ndim != 2:
            raise NotImplementedError(f"{at}: a batched `{type(op).__name__}`")
    elif isinstance(op, Eigh):
        if len(node.inputs) != 1:
            raise NotImplementedError(f"{at}: a generalized eigenproblem (`eigh` of two matrices)")
        if node.inputs[0].type.ndim != 2:
            raise NotImplementedError(f"{at}: a batched `Eigh`")
    elif isinstance(op, PivotToPermutations):
        if node.inputs[0].type.ndim != 1:
            raise NotImplementedError(f"{at}: a batched `PivotToPermutations`")
    elif isinstance(op, SolveTriangular):
        if node.inputs[0].type.ndim != 2 or node.inputs[1].type.ndim not in (1, 2):
            raise NotImplementedError(f"{at}: a batched triangular solve")
    elif isinstance(op, ExtractDiag):
        if _batched_diagonal(node) is None and ((op.offset, op.axis1, op.axis2) != (0, 0, 1) or node.inputs[0].type.ndim != 2):
            raise NotImplementedError(f"{at}: a diagonal other than the main one of a matrix")
    elif isinstance(op, (DimShuffle, Dot, Alloc, Reshape, SpecifyShape, Subtensor) + _BLAS_DOT + _BLAS_GEMV + _BLAS_GEMM):
        pass
    elif isinstance(op, Scan):
        _check_scan(op, at)
    elif _LOGSUMEXP is not None and isinstance(op, _LOGSUMEXP):
        pass
    elif isinstance(op, OpFromGraph):
        # An inner input bound to an outer constant is folded like any constant (an `int8`
        # pad width, say): only the others need a ptl dtype.
        for outer, inner in zip(node.inputs, op.fgraph.inputs):
            dtype = getattr(inner.type, "dtype", None)
            if not isinstance(outer, Constant) and dtype not in SUPPORTED_DTYPES:
                raise NotImplementedError(f"{at}: an input of dtype {dtype or inner.type}, which ptl does not have")
        for _, message in _node_support(op.fgraph, first_only=True, constants=[isinstance(i, Constant) for i in node.inputs]):
            raise NotImplementedError(message)
    elif isinstance(op, (AllocEmpty, IncSubtensor)):
        pass  # only as the buffer of a scan's traced state (checked where it is described)
    elif isinstance(op, _ALIASES + _SHAPE_OPS):
        pass
    else:
        raise NotImplementedError(f"{at}: the operation `{op}` ({type(op).__name__}) has no ptl equivalent")
    for o in node.outputs:
        if isinstance(op, _SHAPE_OPS):
            continue
        dtype = getattr(o.type, "dtype", None)
        if dtype not in SUPPORTED_DTYPES:
            raise NotImplementedError(f"{at}: computes {dtype or o.type}, which ptl does not have")


def _check_ifelse(node, at: str) -> None:
    """An `IfElse` is imported as ptl's `if cond { then } else { otherwise }` per output, on
    the branches' values (computed before it, as PyTensor's non-lazy linkers do): the
    branches may differ in size, but not in rank."""
    n = node.op.n_outs
    for k in range(n):
        t, f = node.inputs[1 + k], node.inputs[1 + n + k]
        if getattr(t.type, "ndim", None) is None or t.type.ndim != getattr(f.type, "ndim", None):
            raise NotImplementedError(f"{at}: an if-else whose branches differ in rank ({t.type} and {f.type})")
    if node.inputs[0].type.ndim != 0:
        raise NotImplementedError(f"{at}: an if-else on a condition that is not a scalar")


def _check_scan(op, at: str) -> None:
    info = op.info
    if info.n_mit_mot or info.n_mit_sot:
        raise NotImplementedError(f"{at}: a scan whose step reads a state more than one step back (taps) has no ptl equivalent")
    check_supported(op.fgraph)


def _const_array(value) -> np.ndarray:
    a = np.asarray(value)
    dt = str(a.dtype)
    if dt in _CONST_DTYPES:
        a = a.astype(_CONST_DTYPES[dt])
    elif dt not in SUPPORTED_DTYPES:
        raise NotImplementedError(f"a constant has dtype {dt}, which ptl does not have")
    # (`np.ascontiguousarray` would make a 0-d array 1-d.)
    return np.array(a, order="C")


def _ptl_dtype(dtype: str, at: str) -> str:
    if dtype in SUPPORTED_DTYPES:
        return dtype
    if dtype in _CONST_DTYPES:  # only where exactness is kept: comparisons of small integers
        return _CONST_DTYPES[dtype]
    raise NotImplementedError(f"{at}: dtype {dtype} has no ptl equivalent")


def _equal_dims(fgraph) -> dict:
    """Which `None` dims of the inputs PyTensor requires to be equal at run time: per
    (input, axis), a representative (input, axis) of its class. Elementwise operands must
    agree on every axis that is not broadcastable (PyTensor does not broadcast at run time),
    and a product's inner dims must agree; other ops end what is known about a dim."""
    parent: dict = {}

    def find(a):
        while parent.get(a, a) != a:
            a = parent[a]
        return a

    def union(a, b):
        if a is not None and b is not None:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb, key=str)] = min(ra, rb, key=str)

    dims: dict = {}  # variable -> per axis, the (input, axis) it is known to equal, or None
    for k, v in enumerate(fgraph.inputs):
        shape = getattr(v.type, "shape", ())
        dims[v] = [(k, a) if d is None else None for a, d in enumerate(shape)]
    for node in fgraph.toposort():
        op = node.op
        ins = [dims.get(i) for i in node.inputs]
        out = None
        if isinstance(op, Elemwise) and all(d is not None for d in ins):
            nd = node.outputs[0].type.ndim
            out = [None] * nd
            for i, d in zip(node.inputs, ins):
                for a in range(min(nd, len(d))):
                    if not i.type.broadcastable[a]:
                        union(out[a], d[a]) if out[a] is not None else None
                        out[a] = out[a] if out[a] is not None else d[a]
                        union(out[a], d[a])
        elif isinstance(op, DimShuffle) and ins[0] is not None:
            out = [None if o == "x" else ins[0][int(o)] for o in op.new_order]
        elif isinstance(op, (Dot,) + _BLAS_DOT) and all(d is not None for d in ins) and len(ins) == 2:
            a, b = ins
            if a and b:
                union(a[-1], b[0] if len(b) == 1 else b[-2])
            out = (a[:-1] if a else []) + (b[:-2] + b[-1:] if len(b) >= 2 else [])
        elif isinstance(op, CAReduce) and ins[0] is not None:
            nd = len(ins[0])
            axes = range(nd) if op.axis is None else {int(x) % nd for x in op.axis}
            out = [d for a, d in enumerate(ins[0]) if a not in axes]
        elif isinstance(op, _ALIASES) and ins[0] is not None:
            out = ins[0]
        if out is not None and len(node.outputs) == 1 and len(out) == node.outputs[0].type.ndim:
            dims[node.outputs[0]] = out
    return {key: find(key) for key in list(parent) + [k for k in parent.values()]}


class _Describer:
    def __init__(self, fgraph: FunctionGraph, name_dims: bool = False):
        self.fgraph = fgraph
        self.name_dims = name_dims
        self.ids: dict = {}
        self.next_id = 0
        self.consts: list[np.ndarray] = []
        self.const_entries: list[dict] = []
        self.nodes: list[dict] = []
        self.known: dict = {}  # variable -> value known before run time
        self.empty: dict = {}  # AllocEmpty output -> its shape's variables
        self.heads: dict = {}  # scan buffer -> (its row 0, its row count)
        self.at_nodes: dict = {}  # the `at` text of each described node -> the node
        self.named_inputs: dict = {}  # graph input -> its id, where its `None` dims are named
        self.guards: list = []  # per guard code: PyTensor's (exception type, message)
        self.dim_ids: set = set()  # ids of `dim` nodes (an input's named dim as a value)
        self.outer: dict = {}  # an inlined graph's input -> (the outer describer, its value)

    def fresh(self) -> int:
        self.next_id += 1
        return self.next_id

    def const(self, value, name=None) -> int:
        i = self.fresh()
        entry = {"id": i, "index": len(self.consts)}
        if name:
            entry["name"] = name
        self.const_entries.append(entry)
        self.consts.append(_const_array(value))
        return i

    def const_value(self, i: int):
        """The value of the constant with id `i`, or None."""
        for entry in self.const_entries:
            if entry["id"] == i:
                return self.consts[entry["index"]]
        return None

    def id_of(self, v) -> int:
        if v in self.ids:
            return self.ids[v]
        if isinstance(v, Constant):
            i = self.const(v.data, v.name)
        elif v in self.known:
            i = self.const(self.known[v])
        else:
            raise NotImplementedError(f"`{_var_name(v)}` is used before it is computed")
        self.ids[v] = i
        return i

    def value_of(self, v):
        if isinstance(v, Constant):
            return v.data
        return self.known.get(v)

    def emit(self, op: str, inputs, output: int, dtype: str, at: str, **fields) -> None:
        """One node: `op` is the kind, `fields` its fields (see desc.rs for each kind's)."""
        ins = [int(i) for i in inputs]
        self.nodes.append({"op": op, **fields, "inputs": ins, "output": output, "dtype": dtype, "at": at})

    def fold(self, node) -> bool:
        """Computes `node` now when all its inputs are known."""
        values = [self.value_of(i) for i in node.inputs]
        if any(v is None for v in values):
            return False
        storage = [[None] for _ in node.outputs]
        node.op.perform(node, values, storage)
        for o, s in zip(node.outputs, storage):
            self.known[o] = np.asarray(s[0])
        return True

    # Elementwise operations, with fused scalar graphs expanded in place.
    def scalar_node(self, sop, in_ids, in_dtypes, out_dtypes, at) -> list[int]:
        if isinstance(sop, ps.Composite):
            env = {}
            for v, i in zip(sop.fgraph.inputs, in_ids):
                env[v] = i
            for inner in sop.fgraph.toposort():
                ids = []
                for v in inner.inputs:
                    if v not in env:
                        if isinstance(v, Constant):
                            env[v] = self.const(v.data)
                        else:
                            raise NotImplementedError(f"{at}: free variable in a fused graph")
                    ids.append(env[v])
                outs = self.scalar_node(
                    inner.op, ids, [v.type.dtype for v in inner.inputs], [o.type.dtype for o in inner.outputs], at
                )
                env.update(zip(inner.outputs, outs))
            result = []
            for o in sop.fgraph.outputs:
                if o not in env:
                    env[o] = self.const(o.data)
                result.append(env[o])
            return result
        if type(sop) in _ORDER_OPS:
            order = _constant_order(sop, self.const_value(in_ids[0]), _ORDERS, at)
            return [self.bessel(sop, order, in_ids[1], out_dtypes[0], at)]
        if isinstance(sop, psm.PolyGamma):
            # A constant order 0 or 1 is `digamma` or `trigamma`; any other, `polygamma(n, x)`.
            order = self.const_value(in_ids[0])
            values = None if order is None else np.unique(np.asarray(order))
            dtype = _ptl_dtype(out_dtypes[0], at)
            if values is not None and len(values) == 1 and values[0] in (0, 1):
                return [self.emit_new("math", in_ids[1:], dtype, at, name=_POLYGAMMA[int(values[0])])]
            return [self.emit_new("math", in_ids, dtype, at, name="polygamma")]
        name = _scalar_name(sop, at)
        if name == "round_half_away":
            return [self.round_half_away(in_ids[0], in_dtypes[0], out_dtypes[0], at)]
        if len(out_dtypes) != 1:
            raise NotImplementedError(f"{at}: the scalar operation `{sop}` has {len(out_dtypes)} outputs")
        out = self.fresh()
        fields = {}
        if name in _COMPARISONS:
            fields["compute"] = _ptl_dtype(ps.upcast(*in_dtypes), at)
        if name == "math":
            fields["name"] = _MATH_OPS[type(sop)]
        self.emit(name, in_ids, out, _ptl_dtype(out_dtypes[0], at), at, **fields)
        return [out]

    def emit_new(self, op: str, inputs, dtype: str, at: str, **fields) -> int:
        """A new node computing `op` of `inputs`; its output's id."""
        out = self.fresh()
        self.emit(op, inputs, out, dtype, at, **fields)
        return out

    def bessel(self, sop, order: int, x: int, out_dtype: str, at: str) -> int:
        """`ive(order, x)` or `jv(order, x)` from ptl's orders 0 and 1: `I_-n = I_n`,
        `J_-n = (-1)^n J_n`; order 2 by the recurrence `I_2 = I_0 - 2 I_1 / x` (`J_2 = 2 J_1 / x - J_0`)
        from |x| = 1 on, and below by its power series `sum_k (+-q)^k q / (k! (k + 2)!)`,
        `q = x^2 / 4` (the recurrence cancels there)."""
        dt = _ptl_dtype(out_dtype, at)
        scaled = isinstance(sop, psm.Ive)
        names = _ORDER_OPS[type(sop)]

        def node(op, ins, dtype=dt, **fields):
            return self.emit_new(op, ins, dtype, at, **fields)

        def const(v):
            return self.const(np.asarray(v, dtype=dt))

        if order < 0:
            r = self.bessel(sop, -order, x, out_dtype, at)
            return node("neg", [r]) if not scaled and order % 2 else r
        if order in (0, 1):
            return node("math", [x], name=names[order])
        y0 = node("math", [x], name=names[0])
        y1 = node("math", [x], name=names[1])
        y1_2_x = node("mul", [node("true_div", [const(2.0), x]), y1])
        far = node("sub", [y0, y1_2_x]) if scaled else node("sub", [y1_2_x, y0])
        q = node("mul", [node("mul", [x, x]), const(0.25)])
        sign = 1.0 if scaled else -1.0
        coeffs = [sign**k / (math.factorial(k) * math.factorial(k + 2)) for k in range(10)]
        acc = const(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = node("add", [node("mul", [acc, q]), const(c)])
        near = node("mul", [q, acc])
        if scaled:
            near = node("mul", [near, node("exp", [node("neg", [node("abs", [x])])])])
        small = node("lt", [node("abs", [x]), const(1.0)], dtype="bool", compute=dt)
        return node("switch", [small, near, far])

    def round_half_away(self, x: int, in_dtype: str, out_dtype: str, at: str) -> int:
        """`round(x, mode="half_away_from_zero")` as `where(|x - t| >= 0.5, t + sign(x), t)`,
        `t = trunc(x)`: exact (no `floor(x + 0.5)`, which rounds 0.49999999999999994 up)."""
        dt = _ptl_dtype(out_dtype, at)

        def node(op, ins, dtype=dt, **fields):
            return self.emit_new(op, ins, dtype, at, **fields)

        if not in_dtype.startswith("float"):
            return node("alias", [x])
        t = node("math", [x], name="trunc")
        frac = node("abs", [node("sub", [x, t])])
        half = self.const(np.asarray(0.5, dtype=in_dtype))
        away = node("ge", [frac, half], dtype="bool", compute=dt)
        return node("switch", [away, node("add", [t, node("math", [x], name="sign")]), t])

    def elemwise(self, node, at):
        in_ids = [self.id_of(i) for i in node.inputs]
        sop = node.op.scalar_op
        outs = self.scalar_node(
            sop, in_ids, [i.type.dtype for i in node.inputs], [o.type.dtype for o in node.outputs], at
        )
        # An output that does not depend on every input still has the broadcast shape of all.
        deps = self.dependencies(sop, len(node.inputs))
        for k, (o, out_id) in enumerate(zip(node.outputs, outs)):
            missing = [
                node.inputs[j]
                for j in range(len(node.inputs))
                if j not in deps[k] and not all(node.inputs[j].type.broadcastable)
            ]
            for m in missing:
                new = self.fresh()
                self.emit("second", [self.id_of(m), out_id], new, _ptl_dtype(o.type.dtype, at), at)
                out_id = new
            if out_id in in_ids or any(e["id"] == out_id for e in self.const_entries):
                # The output is an input or a constant as it is: give it its own name.
                new = self.fresh()
                self.emit("alias", [out_id], new, _ptl_dtype(o.type.dtype, at), at)
                out_id = new
            self.ids[o] = out_id

    @staticmethod
    def dependencies(sop, n_inputs) -> list[set]:
        if not isinstance(sop, ps.Composite):
            if isinstance(sop, ps.Second):
                return [{0, 1}]
            return [set(range(n_inputs))]
        deps = {v: {j} for j, v in enumerate(sop.fgraph.inputs)}
        for inner in sop.fgraph.toposort():
            d = set()
            for v in inner.inputs:
                d |= deps.get(v, set())
            for o in inner.outputs:
                deps[o] = d
        return [deps.get(o, set()) for o in sop.fgraph.outputs]

    def need_known(self, v, at, what):
        value = self.value_of(v)
        if value is None:
            raise NeedsStaticShapes(f"{at}: {what} is only known at run time")
        return value

    def node(self, index, node):
        fg = self.fgraph
        at = _where(index, node, fg)
        op = node.op
        if isinstance(op, _SHAPE_OPS):
            if isinstance(op, CheckAndRaise):
                conds = [self.value_of(c) for c in node.inputs[1:]]
                if any(c is not None and not np.all(c) for c in conds):
                    raise op.exc_type(f"{at}: {op.msg}")
                unknown = [c for c, v in zip(node.inputs[1:], conds) if v is None]
                if not unknown:
                    self.alias(node.inputs[0], node.outputs[0], at)
                    return
                # Checked when the program runs: a `guard` whose code maps back to this op's
                # exception and message (`Program` raises them).
                code = len(self.guards)
                self.guards.append((op.exc_type, op.msg))
                self.simple(node, "guard", [node.inputs[0]] + unknown, at, code=code)
                return
            if isinstance(op, Shape_i):
                d = self.static_size(node.inputs[0], op.i)
                if d is None:
                    self.ids[node.outputs[0]] = self.dim(node.inputs[0], op.i, at)
                    return
                self.known[node.outputs[0]] = np.asarray(d, dtype="int64")
                return
            if isinstance(op, Shape):
                x = node.inputs[0]
                shape = x.type.shape
                if any(d is None for d in shape):
                    dims = [self.const(np.int64(d)) if d is not None else self.dim(x, k, at) for k, d in enumerate(shape)]
                    out = self.fresh()
                    self.emit("make_vector", dims, out, "int64", at)
                    self.ids[node.outputs[0]] = out
                    return
                self.known[node.outputs[0]] = np.asarray(shape, dtype="int64")
                return
            if self.fold(node):
                return
            if isinstance(op, MakeVector):
                self.simple(node, "make_vector", node.inputs, at)
                return
            raise NeedsStaticShapes(f"{at}: its inputs are only known at run time")
        if isinstance(op, AllocEmpty):
            # Only a scan's buffer: its contents are never read before they are written.
            self.empty[node.outputs[0]] = list(node.inputs)
            return
        if isinstance(op, IncSubtensor):
            if not self.buffer_head(node, at):
                self.set_subtensor(node, at)
            return
        if all(self.value_of(i) is not None for i in node.inputs) and node.inputs and self.fold(node):
            return
        if isinstance(op, IfElse):
            n = op.n_outs
            cond = self.id_of(node.inputs[0])
            for k, o in enumerate(node.outputs):
                out = self.fresh()
                ids = [cond, self.id_of(node.inputs[1 + k]), self.id_of(node.inputs[1 + n + k])]
                self.emit("if_else", ids, out, _ptl_dtype(o.type.dtype, at), at)
                self.ids[o] = out
            return
        if isinstance(op, Scan):
            self.scan(node, at)
            return
        if isinstance(op, Subtensor):
            self.subtensor(node, at)
            return
        if isinstance(op, _ALIASES):
            self.alias(node.inputs[0], node.outputs[0], at)
        elif isinstance(op, Join):
            # PyTensor 3.3 keeps the axis on the op; 3.0 has it as the first input.
            if isinstance(getattr(op, "axis", None), (int, np.integer)):
                axis, parts = int(op.axis), node.inputs
            else:
                axis, parts = self.known_int(node.inputs[0], at, "the axis of a join"), node.inputs[1:]
            self.simple(node, "join", parts, at, axis=axis)
        elif _LOGSUMEXP is not None and isinstance(op, _LOGSUMEXP):
            ndim = node.inputs[0].type.ndim
            axes = sorted({int(a) % ndim for a in op.axis}) if ndim else []
            self.simple(node, "reduce", [node.inputs[0]], at, kind="logsumexp", axes=axes, in_ndim=ndim)
        elif _alloc_diag(node):
            # (An `OpFromGraph`: ptl has it as one builtin.)
            self.simple(node, "alloc_diag", node.inputs[:1], at)
        elif isinstance(op, Blockwise):
            self.blockwise(node, at)
        elif isinstance(op, OpFromGraph):
            self.inline(node, at)
        elif isinstance(op, Split):
            self.split(node, at)
        elif (mask := _mask_read(node)) is not None:
            self.simple(node, "mask_select", [node.inputs[0], mask], at)
        elif (mask := _mask_scatter(node)) is not None:
            self.simple(node, "mask_scatter", [node.inputs[0], node.inputs[1], mask], at, set=bool(op.set_instead_of_inc))
        elif _take_axis(node) is not None:
            self.simple(node, "take", node.inputs[:2], at, axis=_take_axis(node))
        elif (mask := _mask_set(node)) is not None:
            x, y = node.inputs[0], node.inputs[1]
            dtype = _ptl_dtype(node.outputs[0].type.dtype, at)
            value = self.id_of(y)
            if not op.set_instead_of_inc:
                value = self.fresh()
                self.emit("add", [self.id_of(x), self.id_of(y)], value, dtype, at)
            out = self.fresh()
            self.emit("switch", [self.id_of(mask), value, self.id_of(x)], out, dtype, at)
            self.ids[node.outputs[0]] = out
        elif _mask_only(node, self.fgraph):
            pass  # read by the masked reads and sets themselves
        elif isinstance(op, Nonzero) and node.inputs[0].type.ndim == 1:
            self.simple(node, "flatnonzero", node.inputs[:1], at)
        elif (multi := _multi_index(node)) is not None:
            s, k = multi
            sizes, shape, rank, values = _multi_index_shapes(node, s, k, at)
            if _ADVANCED_INC is not None and isinstance(op, _ADVANCED_INC):
                self.simple(node, "scatter_multi", node.inputs, at, sizes=sizes, shape=shape, values=values, set=bool(op.set_instead_of_inc), lead=s, index_rank=rank)
            else:
                self.simple(node, "gather", node.inputs, at, sizes=sizes, shape=shape, lead=s, index_rank=rank)
        elif (perm := _separated_index(node)) is not None:
            # The indexed axes moved first, then a gather on the leading axes.
            x = node.inputs[0]
            k = len(node.inputs) - 1
            sizes, shape, rank, _ = _multi_index_shapes(node, 0, k, at, perm)
            moved = self.fresh()
            self.emit("dimshuffle", [self.id_of(x)], moved, _ptl_dtype(x.type.dtype, at), at, order=perm, in_ndim=x.type.ndim)
            out = self.fresh()
            ids = [moved] + [self.id_of(i) for i in node.inputs[1:]]
            self.emit("gather", ids, out, _ptl_dtype(node.outputs[0].type.dtype, at), at, sizes=sizes, shape=shape, lead=0, index_rank=rank)
            self.ids[node.outputs[0]] = out
        elif _is_scatter(node):
            self.simple(node, "scatter", node.inputs[:3], at, set=bool(op.set_instead_of_inc))
        elif isinstance(op, Argmax):
            ndim = node.inputs[0].type.ndim
            axis = 0 if op.axis is None else int(op.axis[0]) % ndim
            self.simple(node, "arg", [node.inputs[0]], at, max=True, axis=axis)
        elif isinstance(op, (SortOp, ArgSortOp)):
            self.simple(node, "sort", [node.inputs[0]], at, arg=isinstance(op, ArgSortOp), axis=int(op.axis))
        elif isinstance(op, CumOp):
            axis = 0 if op.axis is None else int(op.axis)
            self.simple(node, "cumulative", [node.inputs[0]], at, prod=op.mode == "mul", axis=axis)
        elif isinstance(op, ExtractDiag) and node.inputs[0].type.ndim > 2:
            self.simple(node, "batched_diagonal", [node.inputs[0]], at, n=_batched_diagonal(node), rank=node.inputs[0].type.ndim)
        elif isinstance(op, ExtractDiag):
            self.simple(node, "diagonal", [node.inputs[0]], at)
        elif isinstance(op, Cholesky):
            self.simple(node, "cholesky", [node.inputs[0]], at, lower=bool(op.lower))
        elif isinstance(op, SolveTriangular):
            self.simple(node, "solve_triangular", node.inputs[:2], at, lower=bool(op.lower), unit=bool(op.unit_diagonal))
        elif isinstance(op, CholeskySolve):
            self.simple(node, "cholesky_solve", node.inputs[:2], at, lower=bool(op.lower))
        elif isinstance(op, Solve):
            self.simple(node, "solve", node.inputs[:2], at)
        elif isinstance(op, (LUFactor, SLogDet)):
            # Two outputs, of one ptl builtin of two values.
            outputs = []
            for o in node.outputs:
                self.ids[o] = self.fresh()
                outputs.append(self.ids[o])
            dtype = _ptl_dtype(node.outputs[0].type.dtype, at)
            kind = "lu_factor" if isinstance(op, LUFactor) else "slogdet"
            self.emit(kind, [self.id_of(node.inputs[0])], outputs[0], dtype, at, outputs=outputs)
        elif isinstance(op, Eigh):
            outputs = []
            for o in node.outputs:
                self.ids[o] = self.fresh()
                outputs.append(self.ids[o])
            dtype = _ptl_dtype(node.outputs[0].type.dtype, at)
            lower = bool(getattr(op, "lower", getattr(op, "UPLO", "L") == "L"))
            self.emit("eigh", [self.id_of(node.inputs[0])], outputs[0], dtype, at, outputs=outputs, lower=lower)
        elif isinstance(op, PivotToPermutations):
            self.simple(node, "pivot_permutation", node.inputs[:1], at, inverse=bool(op.inverse))
        elif isinstance(op, Det):
            self.simple(node, "det", node.inputs[:1], at)
        elif isinstance(op, MatrixInverse):
            self.simple(node, "inv", node.inputs[:1], at)
        elif isinstance(op, Elemwise):
            self.elemwise(node, at)
        elif isinstance(op, DimShuffle):
            order = [None if o == "x" else int(o) for o in op.new_order]
            self.simple(node, "dimshuffle", [node.inputs[0]], at, order=order, in_ndim=node.inputs[0].type.ndim)
        elif isinstance(op, ARange):
            start, stop, step = node.inputs
            if self.value_of(start) is None or self.value_of(step) is None or int(self.value_of(start)) != 0 or int(self.value_of(step)) != 1:
                raise NotImplementedError(f"{at}: `arange` with a start or step known only at run time")
            if self.id_of(stop) not in self.dim_ids:
                raise NeedsStaticShapes(f"{at}: the length of `arange` is only known at run time")
            self.simple(node, "arange_dim", [stop], at)
        elif isinstance(op, _EYE):
            n, m, k = node.inputs
            if self.value_of(k) is None or int(self.value_of(k)) != 0:
                raise NotImplementedError(f"{at}: `eye` with a diagonal other than the main one")
            if self.id_of(n) != self.id_of(m):
                raise NotImplementedError(f"{at}: `eye` of a matrix that is not square")
            if self.id_of(n) not in self.dim_ids:
                raise NeedsStaticShapes(f"{at}: the size of `eye` is only known at run time")
            self.simple(node, "eye_dim", [n], at)
        elif isinstance(op, (Dot,) + _BLAS_DOT + _BATCHED_DOT):
            self.simple(node, "dot", node.inputs, at)
        elif isinstance(op, _BLAS_GEMV):
            self.simple(node, "gemv", node.inputs, at)
        elif isinstance(op, _BLAS_GEMM):
            self.simple(node, "gemm", node.inputs, at)
        elif isinstance(op, CAReduce):
            kind = _reduce_kind(op, at)
            ndim = node.inputs[0].type.ndim
            axes = range(ndim) if op.axis is None else op.axis
            axes = sorted({int(a) % ndim for a in axes}) if ndim else []
            self.simple(node, "reduce", [node.inputs[0]], at, kind=kind, axes=axes, in_ndim=ndim)
        elif isinstance(op, (Softmax, LogSoftmax)):
            ndim = node.inputs[0].type.ndim
            axes = range(ndim) if op.axis is None else op.axis if isinstance(op.axis, (tuple, list)) else [op.axis]
            axes = sorted({int(a) % max(ndim, 1) for a in axes})
            if len(axes) <= 1:
                name = "softmax" if isinstance(op, Softmax) else "log_softmax"
                self.simple(node, name, [node.inputs[0]], at, axis=axes[0] if axes else 0)
            else:
                self.softmax_axes(node, axes, at)
        elif isinstance(op, Alloc):
            # Sizes known now, or named dims of the graph's inputs (`Shape_i` of one).
            shape = [self.named_dim(s) or int(self.need_known(s, at, "the allocated shape")) for s in node.inputs[1:]]
            if any(isinstance(n, int) and n < 0 for n in shape):
                raise ValueError(f"{at}: the allocated shape {tuple(shape)} has a negative size")
            if all(isinstance(n, int) for n in shape):
                self.simple(node, "broadcast", [node.inputs[0]], at, shape=shape)
            else:
                self.simple(node, "broadcast_dims", [node.inputs[0]], at, shape=shape)
        elif isinstance(op, Reshape):
            shape = [int(s) for s in np.ravel(self.need_known(node.inputs[1], at, "the new shape"))]
            if any(n < -1 for n in shape):
                raise ValueError(f"{at}: the new shape {tuple(shape)} has a negative size")
            # -1 is the size inferred from the others.
            self.simple(node, "reshape", [node.inputs[0]], at, shape=[None if n == -1 else n for n in shape])
        elif isinstance(op, SpecifyShape):
            x, out = node.inputs[0], node.outputs[0]
            if tuple(x.type.shape) == tuple(out.type.shape):
                self.alias(x, out, at)
            else:
                shape = [None if d is None else int(d) for d in out.type.shape]
                if shape.count(None) > 1:
                    raise NeedsStaticShapes(f"{at}: more than one dim stays unknown")
                self.simple(node, "reshape", [x], at, shape=shape)
        else:
            raise NotImplementedError(f"{at}: the operation `{op}` has no ptl equivalent")

    def dim(self, x, axis, at) -> int:
        """The id of the run-time size of axis `axis` of `x`: a named dim of the function when
        `x` is one of the graph's inputs."""
        input_id = self.named_input_id(x)
        if input_id is None:
            raise NeedsStaticShapes(f"{at}: dim {axis} of `{_var_name(x)}` is only known at run time")
        out = self.fresh()
        self.emit("dim", [], out, "int64", at, input=input_id, axis=axis)
        self.dim_ids.add(out)
        return out

    def known_int(self, v, at, what) -> int:
        value = self.value_of(v)
        if value is None:
            raise NotImplementedError(f"{at}: {what} known only at run time is not supported")
        return int(value)

    def bound(self, v, extra, before=1):
        """An index or slice bound: its value when known, else `{"input": k}` with the value
        appended to `extra`, the node's inputs after its first `before`."""
        if v is None:
            return None
        value = self.value_of(v)
        if value is not None:
            return int(value)
        if v.type.dtype not in ("int32", "int64"):
            raise NotImplementedError(f"an index of dtype {v.type.dtype} known only at run time")
        extra.append(v)
        return {"input": before + len(extra) - 1}

    def subtensor(self, node, at):
        items, extra = [], []
        for it in indices_from_subtensor(node.inputs[1:], node.op.idx_list):
            if isinstance(it, slice):
                items.append({"slice": [self.bound(p, extra) for p in (it.start, it.stop, it.step)]})
            else:
                items.append({"index": self.bound(it, extra)})
        self.simple(node, "subtensor", [node.inputs[0]] + extra, at, items=items)

    def set_subtensor(self, node, at):
        """`set_subtensor(x[item], y)` / `inc_subtensor(...)` with one item on the first axis."""
        op = node.op
        x, y = node.inputs[0], node.inputs[1]
        idx = indices_from_subtensor(node.inputs[2:], op.idx_list)
        if len(idx) > 1:
            self.set_subtensor_axes(node, idx, at)
            return
        extra = []
        it = idx[0]
        if isinstance(it, slice):
            item = {"slice": [self.bound(p, extra, 2) for p in (it.start, it.stop, it.step)]}
            if item["slice"][2] not in (None, 1):
                self.set_strided(node, it, at)
                return
        else:
            item = {"index": self.bound(it, extra, 2)}
        self.simple(node, "set_subtensor", [x, y] + extra, at, item=item, set=bool(op.set_instead_of_inc))

    def set_subtensor_axes(self, node, idx, at):
        """`x[i0, a1:b1, ...] = y` (or `+=`) on several leading axes: slices of step 1, and
        indices known before run time and not negative."""
        op = node.op
        x, y = node.inputs[0], node.inputs[1]
        items, extra = [], []
        for it in idx:
            if isinstance(it, slice):
                bounds = [self.bound(p, extra, 2) for p in (it.start, it.stop, it.step)]
                if bounds[2] not in (None, 1):
                    raise NotImplementedError(f"{at}: setting a slice with a step on one of several axes")
                items.append({"slice": bounds})
            else:
                i = self.value_of(it)
                if i is None or int(i) < 0:
                    raise NotImplementedError(f"{at}: setting at an index on one of several axes that is negative or known only at run time")
                items.append({"index": int(i)})
        self.simple(node, "set_subtensor_axes", [x, y] + extra, at, items=items, set=bool(op.set_instead_of_inc), rank=x.type.ndim, value_rank=y.type.ndim)

    def set_strided(self, node, it, at):
        """`x[a:b:step] = y` (or `+=`) on the first axis, the bounds and `x`'s length known
        before run time: a scatter at the slice's indices (none repeats)."""
        x, y = node.inputs[0], node.inputs[1]
        bounds = [None if p is None else self.value_of(p) for p in (it.start, it.stop, it.step)]
        n = x.type.shape[0] if x.type.ndim else None
        if n is None or any(p is not None and b is None for p, b in zip((it.start, it.stop, it.step), bounds)):
            raise NotImplementedError(f"{at}: setting or adding to a slice with a step, bounds or length known only at run time")
        idx = np.arange(n, dtype="int64")[slice(*[None if b is None else int(b) for b in bounds])]
        if tuple(y.type.shape) != (len(idx),) + tuple(x.type.shape[1:]):
            raise NotImplementedError(f"{at}: setting or adding to a slice with a step, from a value of another shape")
        out = self.fresh()
        ins = [self.id_of(x), self.id_of(y), self.const(idx)]
        self.emit("scatter", ins, out, _ptl_dtype(node.outputs[0].type.dtype, at), at, set=bool(node.op.set_instead_of_inc))
        self.ids[node.outputs[0]] = out

    def static_size(self, x, axis):
        """The static size of axis `axis` of `x`, or None; an inlined graph's input has its
        outer value's."""
        d = x.type.shape[axis]
        if d is None and x in self.outer:
            parent, v = self.outer[x]
            return parent.static_size(v, axis)
        return d

    def is_input(self, x):
        """Whether `x` is an input of the graph being converted (through inlined graphs'
        inputs), whose sizes are fixed when mode PTL makes a program per input shape."""
        if x in self.outer:
            parent, v = self.outer[x]
            return parent.is_input(v)
        return x.owner is None

    def named_dim(self, s):
        """`{"input": id, "axis": a}` where the scalar `s` is `Shape_i{a}` of a graph input whose
        dim `a` is named and not known now, else None."""
        owner = s.owner
        if owner is None or not isinstance(owner.op, Shape_i) or self.value_of(s) is not None:
            return None
        x, axis = owner.inputs[0], int(owner.op.i)
        input_id = self.named_input_id(x)
        if input_id is None or x.type.shape[axis] is not None:
            return None
        return {"input": input_id, "axis": axis}

    def named_input_id(self, x):
        """The id of the graph input `x` is (through inlined graphs' inputs) if its unknown
        dims are named, else None."""
        if x in self.named_inputs:
            return self.named_inputs[x]
        if x in self.outer:
            parent, v = self.outer[x]
            return parent.named_input_id(v)
        return None

    def softmax_axes(self, node, axes, at):
        """`Softmax` / `LogSoftmax` over several axes: `x - logsumexp(x, axes)` (its
        exponential for the softmax), the reduced axes put back as size 1."""
        x = node.inputs[0]
        ndim = x.type.ndim
        dtype = _ptl_dtype(node.outputs[0].type.dtype, at)
        total = self.fresh()
        self.emit("reduce", [self.id_of(x)], total, dtype, at, kind="logsumexp", axes=axes, in_ndim=ndim)
        order, kept = [], 0
        for a in range(ndim):
            if a in axes:
                order.append(None)
            else:
                order.append(kept)
                kept += 1
        back = self.fresh()
        self.emit("dimshuffle", [total], back, dtype, at, order=order, in_ndim=ndim - len(axes))
        out = self.fresh()
        self.emit("sub", [self.id_of(x), back], out, dtype, at)
        if isinstance(node.op, Softmax):
            log = out
            out = self.fresh()
            self.emit("exp", [log], out, dtype, at)
        self.ids[node.outputs[0]] = out

    def blockwise(self, node, at):
        """A `Blockwise` of a core op over batch axes of sizes known before run time: the core
        op once per batch element, on that element of each input (a size-1 batch axis
        stretches), the results stacked; the unrolled graph is inlined."""
        op = node.op
        core_ndims = [len(sig) for sig in op.inputs_sig]
        ins = node.inputs[: len(core_ndims)]
        batch_ndim = node.outputs[0].type.ndim - len(op.outputs_sig[0])
        batch = []
        for axis in range(batch_ndim):
            sizes = set()
            for x, cn in zip(ins, core_ndims):
                off = batch_ndim - (x.type.ndim - cn)
                if axis >= off:
                    s = self.static_size(x, axis - off)
                    if s is None:
                        message = f"{at}: a batched `{op.core_op}` whose batch size is known only at run time"
                        if self.is_input(x):
                            # Mode PTL then makes one program per input shape.
                            raise NeedsStaticShapes(message)
                        # A computed array's size stays unknown even then.
                        raise NotImplementedError(message)
                    if s != 1:
                        sizes.add(s)
            if len(sizes) > 1:
                raise NotImplementedError(f"{at}: a batched `{op.core_op}` whose batch sizes differ ({sorted(sizes)})")
            batch.append(sizes.pop() if sizes else 1)
        if int(np.prod(batch)) > _MAX_UNROLLED_BATCH:
            raise NotImplementedError(f"{at}: a batched `{op.core_op}` over {int(np.prod(batch))} elements (ptl unrolls at most {_MAX_UNROLLED_BATCH})")
        fresh = [pt.tensor(dtype=x.type.dtype, shape=tuple(self.static_size(x, a) for a in range(x.type.ndim))) for x in ins]
        per_output = [[] for _ in node.outputs]
        for idx in np.ndindex(*batch):
            args = []
            for x, cn in zip(fresh, core_ndims):
                off = batch_ndim - (x.type.ndim - cn)
                sel = tuple(0 if x.type.shape[j] == 1 else idx[j + off] for j in range(x.type.ndim - cn))
                args.append(x[sel] if sel else x)
            for k, o in enumerate(op.core_op.make_node(*args).outputs):
                per_output[k].append(o)
        outs = []
        for parts, o in zip(per_output, node.outputs):
            stacked = pt.stack(parts)
            if batch_ndim > 1:
                core_shape = parts[0].type.shape
                if any(d is None for d in core_shape):
                    raise NotImplementedError(f"{at}: a batched `{op.core_op}` over several axes with results of sizes known only at run time")
                stacked = stacked.reshape((*batch, *core_shape))
            outs.append(pt.cast(stacked, o.type.dtype))
        self.inline(node, at, FunctionGraph(fresh, outs, clone=False), ins)

    def inline(self, node, at, inner=None, inputs=None):
        """An `OpFromGraph`: its inner graph, node by node, in place (or `inner`, a graph of
        `inputs`, the node's outputs its outputs)."""
        inner = node.op.fgraph if inner is None else inner
        sub = _Describer(inner)
        sub.next_id, sub.consts, sub.const_entries, sub.nodes = self.next_id, self.consts, self.const_entries, self.nodes
        sub.guards = self.guards
        sub.dim_ids = self.dim_ids
        for v, outer in zip(inner.inputs, node.inputs if inputs is None else inputs):
            sub.outer[v] = (self, outer)
            value = self.value_of(outer)
            if value is not None:
                sub.known[v] = np.asarray(value)
            else:
                sub.ids[v] = self.id_of(outer)
        for index, n in enumerate(inner.toposort()):
            sub.node(index, n)
        for v, outer in zip(inner.outputs, node.outputs):
            value = sub.value_of(v)
            if v not in sub.ids and value is not None:
                self.known[outer] = np.asarray(value)
            else:
                self.ids[outer] = sub.id_of(v)
        self.next_id = sub.next_id

    def split(self, node, at):
        op = node.op
        axis = getattr(op, "axis", None)
        if axis is None or not isinstance(axis, (int, np.integer)):
            axis = self.known_int(node.inputs[1], at, "the axis of a split")
        sizes = np.ravel(self.value_of(node.inputs[-1]) if self.value_of(node.inputs[-1]) is not None else [None])
        if any(s is None for s in sizes):
            raise NotImplementedError(f"{at}: split sizes known only at run time are not supported")
        outputs = []
        for o in node.outputs:
            i = self.fresh()
            self.ids[o] = i
            outputs.append(i)
        dtype = _ptl_dtype(node.outputs[0].type.dtype, at)
        self.emit("split", [self.id_of(node.inputs[0])], outputs[0], dtype, at, axis=int(axis), sizes=[int(s) for s in sizes], outputs=outputs)

    def buffer_head(self, node, at):
        """`set_subtensor(empty[:1], y)`: a scan's buffer whose row 0 is the initial value."""
        op = node.op
        x, y = node.inputs[0], node.inputs[1]
        idx = indices_from_subtensor(node.inputs[2:], op.idx_list)
        is_head = (
            op.set_instead_of_inc
            and x in self.empty
            and len(idx) == 1
            and isinstance(idx[0], slice)
            and idx[0].start is None
            and idx[0].step is None
            and idx[0].stop is not None
            and self.value_of(idx[0].stop) is not None
            and int(self.value_of(idx[0].stop)) == 1
            and y.type.ndim == x.type.ndim
        )
        if not is_head:
            return False
        self.heads[node.outputs[0]] = (y, self.empty[x][0])
        return True

    def _is_plus_one(self, v, n) -> bool:
        """Whether `v` is `n + 1`, by value or as PyTensor's scan writes it."""
        a, b = self.value_of(v), self.value_of(n)
        if a is not None and b is not None:
            return int(a) == int(b) + 1
        o = v.owner
        return (
            o is not None
            and isinstance(o.op, Elemwise)
            and isinstance(o.op.scalar_op, ps.Add)
            and len(o.inputs) == 2
            and any(x is n for x in o.inputs)
            and any(self.value_of(x) is not None and int(self.value_of(x)) == 1 for x in o.inputs)
        )

    def _same_count(self, v, n) -> bool:
        a, b = self.value_of(v), self.value_of(n)
        return v is n or (a is not None and b is not None and int(a) == int(b))

    def scan(self, node, at):
        """One `scan` node (see python/src/importer/scan.rs for its fields)."""
        op = node.op
        _check_scan(op, at)
        ins = node.inputs
        n_steps = ins[0]
        inits = []
        for buf in op.outer_sitsot(ins):
            if buf not in self.heads:
                raise NotImplementedError(
                    f"{at}: the buffer of a traced state is not an empty buffer with the initial value in row 0"
                )
            y, rows = self.heads[buf]
            if not self._is_plus_one(rows, n_steps):
                raise NotImplementedError(f"{at}: a traced state's buffer that does not hold every step")
            if self.value_of(y) is not None:
                inits.append(self.const(np.asarray(self.value_of(y))[0]))
                continue
            head = self.fresh()
            self.emit("subtensor", [self.id_of(y)], head, _ptl_dtype(y.type.dtype, at), at, items=[{"index": 0}])
            inits.append(head)
        for size in op.outer_nitsot(ins):
            if not self._same_count(size, n_steps):
                raise NotImplementedError(f"{at}: a stacked output that does not keep every step")
        untraced = [self.id_of(v) for v in op.outer_untraced_sit_sot(ins)]
        seqs = [self.id_of(v) for v in op.outer_seqs(ins)]
        non_seqs = [self.id_of(v) for v in op.outer_non_seqs(ins)]

        inner_fg = op.fgraph
        sub = _Describer(inner_fg)
        sub.next_id, sub.consts, sub.const_entries = self.next_id, self.consts, self.const_entries
        sub.guards = self.guards
        inner_inputs = []
        for v in inner_fg.inputs:
            i = sub.fresh()
            sub.ids[v] = i
            inner_inputs.append({"id": i, "dtype": _ptl_dtype(v.type.dtype, at)})
        for index, n in enumerate(inner_fg.toposort()):
            sub.node(index, n)
        inner_outputs = [sub.id_of(o) for o in inner_fg.outputs]
        # A `while` scan's last inner output is its stopping condition: ptl's `until`.
        until = inner_outputs.pop() if op.info.as_while else None
        self.next_id = sub.next_id

        outer_outs = (
            list(op.outer_sitsot_outs(node.outputs))
            + list(op.outer_nitsot_outs(node.outputs))
            + list(op.outer_untraced_sit_sot_outs(node.outputs))
        )
        outputs = []
        for o in outer_outs:
            i = self.fresh()
            self.ids[o] = i
            outputs.append(i)
        info = op.info
        scan = {
            "n_seqs": info.n_seqs,
            "n_sit_sot": info.n_sit_sot,
            "n_nit_sot": info.n_nit_sot,
            "n_untraced": info.n_untraced_sit_sot,
            "n_non_seqs": info.n_non_seqs,
            "inner_inputs": inner_inputs,
            "nodes": sub.nodes,
            "inner_outputs": inner_outputs,
            "outputs": outputs,
            "until": until,
        }
        ids = [self.id_of(n_steps)] + seqs + inits + untraced + non_seqs
        self.emit("scan", ids, self.fresh(), _ptl_dtype(node.outputs[0].type.dtype, at), at, scan=scan)

    def simple(self, node, name, inputs, at, **fields):
        out = self.fresh()
        self.emit(name, [self.id_of(i) for i in inputs], out, _ptl_dtype(node.outputs[0].type.dtype, at), at, **fields)
        self.ids[node.outputs[0]] = out

    def alias(self, src, dst, at):
        value = self.value_of(src)
        if value is not None:
            self.known[dst] = np.asarray(value)
            return
        out = self.fresh()
        self.emit("alias", [self.id_of(src)], out, _ptl_dtype(dst.type.dtype, at), at)
        self.ids[dst] = out

    def describe(self, name: str) -> tuple[str, list[np.ndarray]]:
        fg = self.fgraph
        inputs = []
        used = set()
        sized = set()  # (input, axis) pairs whose size the graph reads
        for node in fg.toposort() if self.name_dims else []:
            x = node.inputs[0] if node.inputs else None
            if isinstance(node.op, Shape_i) and x in fg.inputs:
                sized.add((x, node.op.i))
            elif isinstance(node.op, Shape) and x in fg.inputs:
                sized.update((x, a) for a in range(x.type.ndim))
        # Dims PyTensor requires to be equal share one name (and the class's every member is
        # named once one is read); the name is that of the class's first input axis.
        # A class of several dims is named too, read or not: the call's argument check then
        # holds them equal, and the compiled program needs no run-time check of its own.
        classes = _equal_dims(fg) if self.name_dims else {}
        read_classes = {classes.get((fg.inputs.index(x), a), (fg.inputs.index(x), a)) for x, a in sized}
        members: dict = {}
        for key, rep in classes.items():
            members.setdefault(rep, set()).add(key)
        read_classes |= {rep for rep, keys in members.items() if len(keys) > 1}
        named = set(sized)
        for k, v in enumerate(fg.inputs):
            for a in range(getattr(v.type, "ndim", 0)):
                if classes.get((k, a), (k, a)) in read_classes:
                    named.add((v, a))
        param_names: dict = {}

        def dim_name(k, a, pname):
            rk, ra = classes.get((k, a), (k, a))
            base = param_names.get(rk, pname)
            return f"{base}_dim{ra}"
        for k, v in enumerate(fg.inputs):
            i = self.fresh()
            self.ids[v] = i
            base = v.name or f"x{k}"
            pname = base
            n = 1
            while pname in used:
                n += 1
                pname = f"{base}_{n}"
            used.add(pname)
            param_names[k] = pname
            # A `None` dim whose size the graph reads (`Shape_i`, `Shape`), or that PyTensor
            # requires equal to another, is named: the name is its size as a value, and one
            # program serves every size.
            read = {a for a in range(len(v.type.shape)) if (v, a) in named}
            shape = [dim_name(k, a, pname) if d is None and a in read else d for a, d in enumerate(v.type.shape)]
            if read:
                self.named_inputs[v] = i
            inputs.append({"id": i, "name": pname, "dtype": v.type.dtype, "shape": shape})
        for index, node in enumerate(fg.toposort()):
            try:
                self.node(index, node)
            except NeedsStaticShapes:
                raise
            except NotImplementedError as e:
                raise Unsupported(str(e), node) from e
            self.at_nodes[_where(index, node, fg)] = node
        outputs = []
        for k, o in enumerate(fg.outputs):
            if o.type.dtype not in SUPPORTED_DTYPES:
                raise NotImplementedError(f"output {k} has dtype {o.type.dtype}, which ptl does not have")
            if o not in self.ids and self.value_of(o) is not None:
                # A constant output: written out with its full shape and dtype.
                value = np.asarray(self.value_of(o)).astype(o.type.dtype)
                i = self.const(value)
                if value.size == 1 and value.ndim > 0:
                    # A one-element constant would be written in place; keep its shape.
                    out = self.fresh()
                    self.emit("broadcast", [i], out, o.type.dtype, "output", shape=[int(n) for n in value.shape])
                    i = out
                self.ids[o] = i
            try:
                outputs.append(self.id_of(o))
            except NotImplementedError as e:
                raise Unsupported(f"output {k}: {e}", o.owner) from e
        desc = {"name": name, "inputs": inputs, "consts": self.const_entries, "nodes": self.nodes, "outputs": outputs}
        return json.dumps(desc), self.consts


def specialize(fgraph: FunctionGraph, shapes) -> FunctionGraph:
    """A copy of `fgraph` whose inputs have the given static shapes; static shapes are inferred
    again through every node."""
    from pytensor.graph.replace import graph_replace
    from pytensor.tensor.type import TensorType

    new_inputs = []
    for v, shape in zip(fgraph.inputs, shapes):
        if isinstance(v.type, TensorType):
            nv = TensorType(v.type.dtype, shape=tuple(int(d) for d in shape))(name=v.name)
        else:
            nv = v.type(name=v.name)
        new_inputs.append(nv)
    outputs = graph_replace(list(fgraph.outputs), list(zip(fgraph.inputs, new_inputs)), strict=False)
    return FunctionGraph(new_inputs, outputs, clone=False)


def describe(fgraph: FunctionGraph, name: str = "graph", input_shapes=None) -> tuple[str, list[np.ndarray]]:
    """The plain description of `fgraph` handed to Rust: JSON text (its shape is fixed by
    ``python/src/importer/desc.rs``) and the constant arrays it refers to by index."""
    return _describe(fgraph, name, input_shapes)[1:]


def _describe(fgraph, name, input_shapes, name_dims=False):
    check_supported(fgraph)
    if input_shapes is not None:
        fgraph = specialize(fgraph, input_shapes)
    describer = _Describer(fgraph, name_dims)
    text, consts = describer.describe(name)
    return describer, text, consts


def from_fgraph(fgraph: FunctionGraph, name: str = "graph", input_shapes=None):
    """Converts `fgraph` to a ptl :class:`Program`.

    Static input dims become static ptl dims and ``None`` becomes ``?``, or a dimension name
    where the graph reads that size (``Shape_i``, ``Shape``), so one program serves every
    size; with `input_shapes` the inputs take those shapes instead. Raises
    :class:`Unsupported` (a ``NotImplementedError``) naming the node for anything ptl cannot
    express (``NeedsStaticShapes`` when only fixed input shapes are missing).
    """
    from . import Program

    prog, named = _build(fgraph, name, input_shapes, name_dims=input_shapes is None)
    if named:
        # Named dims are stricter than `?` (two names never broadcast together, a loop state
        # keeps its name): a program that does not check with them is made with `?` and per
        # input shape instead.
        try:
            prog.check()
        except ValueError:
            prog, _ = _build(fgraph, name, input_shapes, name_dims=False)
    return prog


def _build(fgraph, name, input_shapes, name_dims):
    from . import Program

    describer, text, consts = _describe(fgraph, name, input_shapes, name_dims)
    try:
        native = _ptl.build_program(text, consts)
    except NotImplementedError as e:
        # The Rust side names the node by its `at` text, which starts the message.
        message = str(e)
        node = next((n for at, n in describer.at_nodes.items() if message.startswith(at + ":")), None)
        raise Unsupported(message, node) from e
    prog = Program(native, fgraph)
    prog._guards = describer.guards
    return prog, bool(describer.named_inputs)
