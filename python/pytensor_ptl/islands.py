"""Fallback islands: a graph ptl can express only in part.

The nodes ptl can express are grouped into islands, each compiled as one ptl program; the nodes
it cannot express run with PyTensor's own implementation between them. An island is every
supported node with the same number of unsupported nodes on its longest path from the graph's
inputs, so no path leaves an island and comes back into it: the islands and the unsupported
nodes run in that number's order (island 0, the unsupported nodes at depth 1, island 1, ...).

A node the importer refuses only when it describes the island (a run-time index, say, or a
node the Rust side does not know) joins the unsupported nodes, and the islands are formed
again; each round moves at least one node, so this ends.
"""

from __future__ import annotations

import warnings

from pytensor.graph.basic import Constant
from pytensor.graph.fg import FunctionGraph
from pytensor.tensor.basic import AllocEmpty
from pytensor.tensor.subtensor import IncSubtensor
from pytensor.tensor.type import TensorType

from .importer import SUPPORTED_DTYPES, NeedsStaticShapes, Unsupported, from_fgraph, unsupported_nodes


class PTLFallbackWarning(UserWarning):
    """Some operations of a graph run with PyTensor's own implementation in mode PTL."""


# Op type names already warned about in this process: each is named once.
_warned: set[str] = set()


def _warn(reasons: dict) -> None:
    new = {}
    for node, reason in reasons.items():
        if reason == _BOUNDARY:
            continue
        name = type(node.op).__name__
        if name not in _warned and name not in new:
            new[name] = reason
    if not new:
        return
    _warned.update(new)
    lines = "\n".join(f"  {name}: {reason}" for name, reason in new.items())
    warnings.warn(
        f"mode PTL runs these operations with PyTensor's own implementation, between compiled "
        f"ptl programs (mode PTL_STRICT refuses them instead):\n{lines}",
        PTLFallbackWarning,
        stacklevel=2,
    )


# Why a node ptl can express runs with PyTensor: it sits on an island's boundary. Not warned.
_BOUNDARY = "takes or gives a value that is not a tensor of one of ptl's dtypes, or an empty buffer"


def _buffer_head(node) -> bool:
    x = node.inputs[0] if node.inputs else None
    return isinstance(node.op, IncSubtensor) and x is not None and x.owner is not None and isinstance(x.owner.op, AllocEmpty)


def _ptl_value_type(v) -> bool:
    """Whether `v` can cross an island's boundary: a tensor of one of ptl's dtypes."""
    return isinstance(v.type, TensorType) and v.type.dtype in SUPPORTED_DTYPES


class Island:
    """Supported nodes compiled as one ptl program."""

    def __init__(self, nodes, inputs, outputs, program):
        self.nodes = nodes
        self.inputs = inputs
        self.outputs = outputs
        self.program = program

    def run(self, storage):
        results = self.program(*(storage[v][0] for v in self.inputs))
        for v, r in zip(self.outputs, results):
            storage[v][0] = v.type.filter(r)


class Fallback:
    """One node run by PyTensor's own thunk."""

    def __init__(self, node, thunk):
        self.node = node
        self.thunk = thunk

    def run(self, storage):
        self.thunk()


class IslandGraph:
    """The callable mode PTL runs for a graph with fallback nodes: ``steps`` in order, each an
    :class:`Island` or a :class:`Fallback`."""

    def __init__(self, fgraph, steps, storage):
        self.fgraph = fgraph
        self.steps = steps
        self.storage = storage
        self._inputs = [storage[v] for v in fgraph.inputs]
        self._outputs = [storage[v] for v in fgraph.outputs]
        self._scratch = [cell for v, cell in storage.items() if v.owner is not None]

    @property
    def islands(self) -> list[Island]:
        return [s for s in self.steps if isinstance(s, Island)]

    @property
    def fallback_ops(self) -> list[str]:
        return [type(s.node.op).__name__ for s in self.steps if isinstance(s, Fallback)]

    def __call__(self, *args):
        for cell, a in zip(self._inputs, args):
            cell[0] = a
        try:
            for step in self.steps:
                step.run(self.storage)
            return [cell[0] for cell in self._outputs]
        finally:
            # Nothing is kept between calls: results belong to the caller, and a node's thunk
            # never writes into an array handed out before.
            for cell in self._scratch:
                cell[0] = None
            for cell in self._inputs:
                cell[0] = None


def _depths(order, unsupported) -> dict:
    """Per node: the number of unsupported nodes on its longest path from the inputs,
    itself included."""
    depth_of_var = {}
    depths = {}
    for node in order:
        d = max((depth_of_var.get(i, 0) for i in node.inputs), default=0)
        if node in unsupported:
            d += 1
        depths[node] = d
        for o in node.outputs:
            depth_of_var[o] = d
    return depths


def _boundary(fgraph, order, unsupported) -> bool:
    """Marks supported nodes unsupported where a value that is not a ptl tensor would cross an
    island's boundary. Returns whether it marked any."""
    depths = _depths(order, unsupported)
    marked = False
    for node in order:
        if node in unsupported:
            continue
        outside_in = [
            i
            for i in node.inputs
            if not isinstance(i, Constant)
            and (i.owner is None or i.owner in unsupported or depths[i.owner] != depths[node])
        ]
        used_outside = [
            o
            for o in node.outputs
            if o in fgraph.outputs
            or any(
                c == "output" or c in unsupported or depths[c] != depths[node]
                for c, _ in fgraph.clients.get(o, [])
            )
        ]
        if any(not _ptl_value_type(v) for v in outside_in + used_outside):
            unsupported[node] = _BOUNDARY
            marked = True
        elif used_outside and (isinstance(node.op, AllocEmpty) or _buffer_head(node)):
            # A scan's buffer (and its row 0) is part of the scan inside an island: an array of
            # its own outside one.
            unsupported[node] = _BOUNDARY
            marked = True
    return marked


def _island_graph(nodes, fgraph, node_set):
    """A FunctionGraph of copies of `nodes`, with the values they take from outside as its inputs
    and the values used outside as its outputs; and each copied node's original."""
    inputs, seen = [], set()
    for n in nodes:
        for i in n.inputs:
            if not isinstance(i, Constant) and (i.owner is None or i.owner not in node_set) and i not in seen:
                seen.add(i)
                inputs.append(i)
    outputs = []
    for n in nodes:
        for o in n.outputs:
            clients = fgraph.clients.get(o, [])
            if o in fgraph.outputs or any(c == "output" or c not in node_set for c, _ in clients):
                outputs.append(o)
    memo, origin = {}, {}
    new_inputs = []
    for v in inputs:
        nv = v.type()
        nv.name = v.name
        memo[v] = nv
        new_inputs.append(nv)
    for n in nodes:
        new = n.clone_with_new_inputs([memo.get(i, i) for i in n.inputs])
        origin[new] = n
        memo.update(zip(n.outputs, new.outputs))
    fg = FunctionGraph(new_inputs, [memo[o] for o in outputs], clone=False)
    return fg, inputs, outputs, origin


def convert(fgraph, device: str, compile_program, per_shape):
    """The callable for `fgraph`: a ptl program when ptl expresses all of it, else an
    :class:`IslandGraph`. `compile_program(program)` readies a program for `device`;
    `per_shape(fgraph)` gives the per-input-shape callable for an island that needs fixed
    shapes."""
    order = fgraph.toposort()
    unsupported = unsupported_nodes(fgraph)
    while _boundary(fgraph, order, unsupported):
        pass
    if not unsupported:
        try:
            prog = from_fgraph(fgraph)
            compile_program(prog)
            return prog
        except NeedsStaticShapes:
            return per_shape(fgraph)
        except Unsupported as e:
            _mark(unsupported, e, order)
    while True:
        while _boundary(fgraph, order, unsupported):
            pass
        depths = _depths(order, unsupported)
        groups: dict[int, list] = {}
        for node in order:
            if node not in unsupported:
                groups.setdefault(depths[node], []).append(node)
        islands, failed = {}, False
        for d, nodes in sorted(groups.items()):
            node_set = set(nodes)
            fg, ins, outs, origin = _island_graph(nodes, fgraph, node_set)
            if not outs:
                islands[d] = None
                continue
            try:
                prog = from_fgraph(fg, name=f"island{d}")
                compile_program(prog)
            except NeedsStaticShapes:
                prog = per_shape(fg)
            except Unsupported as e:
                node = origin.get(e.node)
                _mark(unsupported, e, nodes if node is None else [node])
                failed = True
                break
            except ValueError as e:
                # A program ptl built but that does not type-check: run its nodes in PyTensor.
                # (A device's refusal, a RuntimeError, is the user's to see: no silent move.)
                for n in nodes:
                    unsupported[n] = f"its island did not compile: {str(e).splitlines()[0]}"
                failed = True
                break
            islands[d] = Island(nodes, ins, outs, prog)
        if not failed:
            break
    _warn(unsupported)
    return _schedule(fgraph, order, unsupported, depths, islands)


def _mark(unsupported, error, candidates):
    reason = str(error).splitlines()[0] if str(error) else type(error).__name__
    node = getattr(error, "node", None)
    if node is not None and node in candidates:
        unsupported[node] = reason
    else:
        for n in candidates:
            unsupported[n] = reason


def _schedule(fgraph, order, unsupported, depths, islands):
    storage = {}
    for v in list(fgraph.inputs) + [o for n in order for o in n.outputs]:
        storage[v] = [None]
    for n in order:
        for i in n.inputs:
            if isinstance(i, Constant):
                storage[i] = [i.data]
    # Every step runs in order, its inputs computed before it: a lazy thunk (`IfElse`) reads
    # its inputs as computed and picks one instead of asking for them.
    compute = {v: [True] for v in storage}
    steps = []
    top = max(depths.values(), default=0)
    for d in range(top + 1):
        for node in order:
            if node in unsupported and depths[node] == d:
                thunk = node.op.make_thunk(node, storage, compute, [])
                steps.append(Fallback(node, thunk))
        if islands.get(d) is not None:
            steps.append(islands[d])
    for o in fgraph.outputs:
        if isinstance(o, Constant):
            storage[o] = [o.data]
    return IslandGraph(fgraph, steps, storage)


__all__ = ["IslandGraph", "Island", "Fallback", "PTLFallbackWarning", "convert"]
