"""The graph autograd records for a [FIGURE]'s `Graph: f(x)`: traced in the experiment's own run, by autograd.

TRACE is run by the run's supervisor (supervisor.experiment) in the experiment's process, after the script has
run to its end, with the script's globals: for each call it evaluates the argument there and traces the function
with autograd's own machinery (`tracer.trace`, `core.VJPNode`, the boxes), as `grad` would. A VJPNode keeps
only its parents, so the node class records the primitive as well. Every node reachable from the output goes
into the record, in the order the trace made them, with what tells where its rule was registered: the code of the
VJP makers in `primitive_vjps` (a lambda's line lies inside its `defvjp(...)` call; a named maker is named there)
and the names the primitive has in autograd's modules and the script (`divide` is also `true_divide`).

What reaches the build is plain JSON (see `read_graph`): nothing in a drawn graph is typed by hand. It is as
trustworthy as the script, which runs in the same process (and could patch autograd, or write a record of its
own): the build checks that the record is a graph of names it can show, and finds each rule in the pinned source
itself (site.graphs), but the script is reviewed like every line it prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from codeproof.common.markers import card_face, names_marker
from codeproof.common.structure import Budgets
from codeproof.series.config import normal_path

MAX_NODES = 80  # a graph past this many nodes is no figure a phone can show
MAX_NAME = 40  # characters of a node's label
MAX_MAKERS = 16  # VJP makers of one primitive (one per argument: autograd's have a few)
MAX_NAMES = 64  # names of one primitive in autograd's modules and the script

# Run with `exec(TRACE, {"namespace": <the script's globals>, "calls": [(name, argument source), ...],
# "inside": <the run's resource folder>, "emit": <write one (call index, JSON text)>})`.
TRACE = f"MAX_NODES = {MAX_NODES}\n" + r'''
import difflib
import json
import os
import sys

import autograd
from autograd.core import VJPNode, primitive_vjps
from autograd.tracer import trace

package = os.path.dirname(os.path.dirname(os.path.abspath(autograd.__file__))) + os.sep
core_file = os.path.abspath(sys.modules["autograd.core"].__file__)


def where(code):
    """A code object's file as the build names it (autograd/..., experiments/...), or None."""
    path = os.path.abspath(code.co_filename)
    for root in (package, inside + os.sep):
        if path.startswith(root):
            return path[len(root):].replace(os.sep, "/")
    return None


def makers(fun):
    """The VJP makers registered for a primitive: the functions defvjp keeps, found in the closure of what
    primitive_vjps holds (core.py's own wrappers are looked through, the primitive itself is left out)."""
    found, pending, seen = [], [primitive_vjps.get(fun)], set()
    while pending:
        value = pending.pop()
        if id(value) in seen or getattr(value, "_is_autograd_primitive", False):
            continue
        seen.add(id(value))
        if isinstance(value, dict):
            pending += list(value.values())
        elif hasattr(value, "__code__"):
            if os.path.abspath(value.__code__.co_filename) == core_file:
                pending += [cell.cell_contents for cell in value.__closure__ or ()]
            elif where(value.__code__):
                found.append([where(value.__code__), value.__code__.co_firstlineno, value.__name__])
    return sorted(found)


def names(fun):
    """Every name the primitive has in autograd's modules and the script's globals."""
    found = {name for name, value in namespace.items() if value is fun}
    for module_name, module in list(sys.modules.items()):
        if module_name.split(".")[0] == "autograd":
            found |= {name for name, value in vars(module).items() if value is fun}
    return sorted(found)


def traced(name, argument):
    made = []

    class Recorded(VJPNode):
        __slots__ = ["fun", "index"]

        def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
            super().__init__(value, fun, args, kwargs, parent_argnums, parents)
            self.fun, self.index = fun, len(made)
            made.append(self)

        def initialize_root(self):
            super().initialize_root()
            self.fun, self.index = None, len(made)
            made.append(self)

    if name not in namespace:
        functions = sorted(key for key, value in namespace.items() if callable(value) and not key.startswith("_"))
        close = difflib.get_close_matches(name, functions, n=3)
        return {"error": f"the script defines no {name}" + (f"; did you mean {', '.join(close)}?" if close else "")}
    function = namespace[name]
    value = eval(argument, namespace)
    end_value, end = trace(Recorded.new_root(), function, value)
    if end is None:
        return {"error": "the output does not depend on the input: autograd traced no operation"}
    reachable, pending = set(), [end]
    while pending:
        node = pending.pop()
        if node.index not in reachable:
            reachable.add(node.index)
            pending += node.parents
    if len(reachable) > MAX_NODES:
        return {"error": f"autograd traced {len(reachable)} operations; a figure shows at most {MAX_NODES}"}
    order = sorted(reachable)
    nodes = []
    for index in order:
        node = made[index]
        fun = node.fun
        nodes.append({"name": "x" if fun is None else getattr(fun, "__name__", repr(fun)),
                      "parents": [order.index(parent.index) for parent in node.parents],
                      "makers": [] if fun is None else makers(fun), "names": [] if fun is None else names(fun)})
    return {"nodes": nodes, "output": order.index(end.index)}


for number, (name, argument) in enumerate(calls):
    try:
        graph = traced(name, argument)
    except Exception as error:  # the author's call failed: said at the block's line, like a failed run
        graph = {"error": f"{type(error).__name__}: {error}"}
    emit(number, json.dumps(graph, sort_keys=True))
'''


@dataclass(frozen=True)
class TracedNode:
    name: str  # the primitive's __name__ ("x" for the input)
    parents: tuple[int, ...]  # indexes of the nodes whose values it took, in argument order
    makers: tuple[tuple[str, int, str], ...]  # (file, first line, name) of each VJP maker registered for it
    names: tuple[str, ...]  # what the primitive is called in autograd's modules and the script


@dataclass(frozen=True)
class TracedGraph:
    nodes: tuple[TracedNode, ...]  # in the order the trace made them: parents first; the input is node 0
    output: int


def read_graph(text: str, budgets: Budgets = Budgets()) -> TracedGraph | str:
    """A recorded trace as a graph, or why it is none (the run's error, a record that is not one, or one past a
    budget: the script could write any record, and drawing takes time with its nodes, edges and makers)."""
    size = len(text.encode("utf-8", "surrogateescape"))
    if size > budgets.trace_kib * 1024:
        return f"the trace's record is {size // 1024} KiB, past {budgets.phrase('trace_kib')}"
    try:
        data = json.loads(text)
        if "error" in data:
            return str(data["error"])
        nodes = tuple(TracedNode(str(node["name"]), tuple(int(p) for p in node["parents"]),
                                 tuple((str(f), int(line), str(name)) for f, line, name in node["makers"]),
                                 tuple(str(name) for name in node["names"])) for node in data["nodes"])
        output = int(data["output"])
    except (ValueError, KeyError, TypeError) as error:
        return f"the trace's record cannot be read ({error})"
    if not nodes or len(nodes) > MAX_NODES or not 0 <= output < len(nodes) \
            or any(not 0 <= p < n for n, node in enumerate(nodes) for p in node.parents):
        return f"the trace's record is not a graph of at most {MAX_NODES} nodes whose parents come first"
    crowded = [node.name for node in nodes if len(node.makers) > MAX_MAKERS or len(node.names) > MAX_NAMES]
    if crowded:
        return (f"the trace's record gives {crowded[0][:MAX_NAME]!r} more than {MAX_MAKERS} VJP makers or "
                f"{MAX_NAMES} names, which no primitive of autograd has")
    edges = len({(parent, n) for n, node in enumerate(nodes) for parent in node.parents})
    if edges > budgets.graph_edges:
        return f"the traced graph has {edges} edges, past {budgets.phrase('graph_edges')}"
    odd = [node.name for node in nodes if not node.name.isidentifier() or len(node.name) > MAX_NAME] + \
        [path for node in nodes for path, _, _ in node.makers if normal_path(path) != path]
    if odd:
        return f"the trace's record names {odd[0][:MAX_NAME]!r}, which is no primitive's name or file"
    # A primitive may be named by any identifier, 输出已验证 too: in a card, it must not read as the card's face.
    faces = [node.name for node in nodes if names_marker(node.name) or card_face(node.name)]
    if faces:
        return f"a primitive is named {faces[0]!r}, which would read as a card's face or a block marker"
    return TracedGraph(nodes, output)
