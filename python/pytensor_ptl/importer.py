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

import numpy as np
import pytensor.scalar as ps
import pytensor.scalar.math as psm
from pytensor.compile.ops import DeepCopyOp, TypeCastingOp
from pytensor.graph.basic import Constant
from pytensor.graph.fg import FunctionGraph
from pytensor.raise_op import CheckAndRaise
from pytensor.tensor import blas
from pytensor.scan.op import Scan
from pytensor.tensor.basic import Alloc, AllocEmpty, MakeVector, ScalarFromTensor, TensorFromScalar
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.math import All, Any, Dot, Max, Min, Sum
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from pytensor.tensor.special import LogSoftmax, Softmax
from pytensor.tensor.subtensor import IncSubtensor, Subtensor, indices_from_subtensor

from . import _ptl

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
    psm.Erfinv: "erfinv",
    psm.GammaLn: "gammaln",
    psm.Psi: "digamma",
    psm.Log1mexp: "log1mexp",
}
_COMPARISONS = {"gt", "ge", "lt", "le", "eq", "neq"}
_REDUCTIONS = {Sum: "sum", Max: "max", Min: "min", All: "all", Any: "any"}
_REDUCE_SCALAR = {ps.Add: "sum", ps.Maximum: "max", ps.Minimum: "min", ps.AND: "all", ps.OR: "any"}
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
    name = _SCALAR_OPS.get(type(op)) or ("math" if type(op) in _MATH_OPS else None)
    if name is None:
        raise NotImplementedError(f"{at}: the scalar operation `{op}` ({type(op).__name__}) has no ptl equivalent")
    return name


def _check_scalar_graph(op, at: str) -> None:
    if isinstance(op, ps.Composite):
        for inner in op.fgraph.toposort():
            _check_scalar_graph(inner.op, at)
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


def check_supported(fgraph: FunctionGraph) -> None:
    """Raises ``NotImplementedError`` for the first node or dtype ptl cannot express (shape
    questions aside: those can be settled by fixing the input shapes)."""
    for v in fgraph.inputs:
        if v.type.dtype not in SUPPORTED_DTYPES:
            raise NotImplementedError(
                f"input `{_var_name(v)}` has dtype {v.type.dtype}, which ptl does not have "
                f"(ptl has {', '.join(SUPPORTED_DTYPES)})"
            )
    # Values computed from shapes and constants only: folded before run time, whatever the op.
    static = set()
    for index, node in enumerate(fgraph.toposort()):
        at = _where(index, node, fgraph)
        op = node.op
        if isinstance(op, (Shape, Shape_i)) or (
            node.inputs and all(isinstance(i, Constant) or i in static for i in node.inputs)
        ):
            static.update(node.outputs)
            continue
        if isinstance(op, Elemwise):
            _check_scalar_graph(op.scalar_op, at)
        elif isinstance(op, CAReduce):
            _reduce_kind(op, at)
        elif isinstance(op, (Softmax, LogSoftmax)):
            if (op.axis is None and node.inputs[0].type.ndim != 1) or (
                isinstance(op.axis, (tuple, list)) and len(op.axis) != 1
            ):
                raise NotImplementedError(f"{at}: softmax over all axes of a rank-{node.inputs[0].type.ndim} tensor")
        elif isinstance(op, (blas.Dot22Scalar, blas.Ger)):
            raise NotImplementedError(f"{at}: `{op}` has no ptl equivalent")
        elif isinstance(op, (DimShuffle, Dot, blas.Dot22, blas.Gemv, blas.Gemm, Alloc, Reshape, SpecifyShape, Subtensor)):
            pass
        elif isinstance(op, Scan):
            _check_scan(op, at)
        elif isinstance(op, (AllocEmpty, IncSubtensor)):
            pass  # only as the buffer of a scan's traced state (checked where it is described)
        elif isinstance(op, _ALIASES + _SHAPE_OPS):
            pass
        else:
            raise NotImplementedError(f"{at}: the operation `{op}` ({type(op).__name__}) has no ptl equivalent")
        for o in node.outputs:
            if isinstance(op, _SHAPE_OPS):
                continue
            if o.type.dtype not in SUPPORTED_DTYPES:
                raise NotImplementedError(f"{at}: computes dtype {o.type.dtype}, which ptl does not have")


def _check_scan(op, at: str) -> None:
    info = op.info
    if info.as_while:
        raise NotImplementedError(f"{at}: a scan with a stopping condition (`until`) has no ptl equivalent")
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
    return np.ascontiguousarray(a)


def _ptl_dtype(dtype: str, at: str) -> str:
    if dtype in SUPPORTED_DTYPES:
        return dtype
    if dtype in _CONST_DTYPES:  # only where exactness is kept: comparisons of small integers
        return _CONST_DTYPES[dtype]
    raise NotImplementedError(f"{at}: dtype {dtype} has no ptl equivalent")


class _Describer:
    def __init__(self, fgraph: FunctionGraph):
        self.fgraph = fgraph
        self.ids: dict = {}
        self.next_id = 0
        self.consts: list[np.ndarray] = []
        self.const_entries: list[dict] = []
        self.nodes: list[dict] = []
        self.known: dict = {}  # variable -> value known before run time
        self.empty: dict = {}  # AllocEmpty output -> its shape's variables
        self.heads: dict = {}  # scan buffer -> (its row 0, its row count)

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
        name = _scalar_name(sop, at)
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
                if any(c is None for c in conds):
                    raise NeedsStaticShapes(f"{at}: the condition is only known at run time")
                if not all(np.all(c) for c in conds):
                    raise op.exc_type(f"{at}: {op.msg}")
                self.alias(node.inputs[0], node.outputs[0], at)
                return
            if isinstance(op, Shape_i):
                d = node.inputs[0].type.shape[op.i]
                if d is None:
                    raise NeedsStaticShapes(f"{at}: dim {op.i} of `{_var_name(node.inputs[0])}` is only known at run time")
                self.known[node.outputs[0]] = np.asarray(d, dtype="int64")
                return
            if isinstance(op, Shape):
                shape = node.inputs[0].type.shape
                if any(d is None for d in shape):
                    raise NeedsStaticShapes(f"{at}: the shape of `{_var_name(node.inputs[0])}` is only known at run time")
                self.known[node.outputs[0]] = np.asarray(shape, dtype="int64")
                return
            if self.fold(node):
                return
            raise NeedsStaticShapes(f"{at}: its inputs are only known at run time")
        if isinstance(op, AllocEmpty):
            # Only a scan's buffer: its contents are never read before they are written.
            self.empty[node.outputs[0]] = list(node.inputs)
            return
        if isinstance(op, IncSubtensor):
            self.buffer_head(node, at)
            return
        if all(self.value_of(i) is not None for i in node.inputs) and node.inputs and self.fold(node):
            return
        if isinstance(op, Scan):
            self.scan(node, at)
            return
        if isinstance(op, Subtensor):
            self.subtensor(node, at)
            return
        if isinstance(op, _ALIASES):
            self.alias(node.inputs[0], node.outputs[0], at)
        elif isinstance(op, Elemwise):
            self.elemwise(node, at)
        elif isinstance(op, DimShuffle):
            order = [None if o == "x" else int(o) for o in op.new_order]
            self.simple(node, "dimshuffle", [node.inputs[0]], at, order=order, in_ndim=node.inputs[0].type.ndim)
        elif isinstance(op, (Dot, blas.Dot22)):
            self.simple(node, "dot", node.inputs, at)
        elif isinstance(op, blas.Gemv):
            self.simple(node, "gemv", node.inputs, at)
        elif isinstance(op, blas.Gemm):
            self.simple(node, "gemm", node.inputs, at)
        elif isinstance(op, CAReduce):
            kind = _reduce_kind(op, at)
            ndim = node.inputs[0].type.ndim
            axes = range(ndim) if op.axis is None else op.axis
            axes = sorted({int(a) % ndim for a in axes}) if ndim else []
            self.simple(node, "reduce", [node.inputs[0]], at, kind=kind, axes=axes, in_ndim=ndim)
        elif isinstance(op, (Softmax, LogSoftmax)):
            axis = op.axis
            if isinstance(axis, (tuple, list)):
                if len(axis) != 1:
                    raise NotImplementedError(f"{at}: softmax over the axes {tuple(axis)}")
                axis = axis[0]
            ndim = node.inputs[0].type.ndim
            axis = 0 if axis is None else int(axis) % max(ndim, 1)
            name = "softmax" if isinstance(op, Softmax) else "log_softmax"
            self.simple(node, name, [node.inputs[0]], at, axis=axis)
        elif isinstance(op, Alloc):
            shape = [int(self.need_known(s, at, "the allocated shape")) for s in node.inputs[1:]]
            if any(n < 0 for n in shape):
                raise ValueError(f"{at}: the allocated shape {tuple(shape)} has a negative size")
            self.simple(node, "broadcast", [node.inputs[0]], at, shape=shape)
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

    def known_int(self, v, at, what) -> int:
        value = self.value_of(v)
        if value is None:
            raise NotImplementedError(f"{at}: {what} known only at run time is not supported")
        return int(value)

    def subtensor(self, node, at):
        items = []
        for it in indices_from_subtensor(node.inputs[1:], node.op.idx_list):
            if isinstance(it, slice):
                parts = [None if p is None else self.known_int(p, at, "a slice bound") for p in (it.start, it.stop, it.step)]
                items.append({"slice": parts})
            else:
                items.append({"index": self.known_int(it, at, "an index")})
        self.simple(node, "subtensor", [node.inputs[0]], at, items=items)

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
            raise NotImplementedError(f"{at}: the operation `{op}` has no ptl equivalent")
        self.heads[node.outputs[0]] = (y, self.empty[x][0])

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
        inner_inputs = []
        for v in inner_fg.inputs:
            i = sub.fresh()
            sub.ids[v] = i
            inner_inputs.append({"id": i, "dtype": _ptl_dtype(v.type.dtype, at)})
        for index, n in enumerate(inner_fg.toposort()):
            sub.node(index, n)
        inner_outputs = [sub.id_of(o) for o in inner_fg.outputs]
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
            inputs.append({"id": i, "name": pname, "dtype": v.type.dtype, "shape": list(v.type.shape)})
        for index, node in enumerate(fg.toposort()):
            self.node(index, node)
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
            outputs.append(self.id_of(o))
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
    check_supported(fgraph)
    if input_shapes is not None:
        fgraph = specialize(fgraph, input_shapes)
    return _Describer(fgraph).describe(name)


def from_fgraph(fgraph: FunctionGraph, name: str = "graph", input_shapes=None):
    """Converts `fgraph` to a ptl :class:`Program`.

    Static input dims become static ptl dims and ``None`` becomes ``?``; with `input_shapes`
    the inputs take those shapes instead. Raises ``NotImplementedError`` naming the node for
    anything ptl cannot express (``NeedsStaticShapes`` when only fixed input shapes are missing).
    """
    from . import Program

    text, consts = describe(fgraph, name, input_shapes)
    return Program(_ptl.build_program(text, consts), fgraph)
