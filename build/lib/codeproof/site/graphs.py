"""A traced graph (experiments.tracing) drawn as the figure a post shows: each node a primitive, linked to the
registration of its VJP that took effect in the run, edges from parents to children, the output last.

Where a node's rule lives is read, not guessed: the run names the code of the makers that `primitive_vjps` held
for the primitive, and the source (the pinned file, or the script) is read with `ast` for the top-level statement
that registers them: the one that holds a maker's lambda, or that names a named maker and the primitive. So
`divide`, registered twice in numpy_vjps.py, links to the later `defvjp(anp.true_divide, ...)`, whose lambdas
the run found. The layout is grandalf's layered (Sugiyama) layout; the SVG comes from a Jinja2 template.
"""

from __future__ import annotations

import ast
import functools
import time
from dataclasses import dataclass, field
from typing import Callable

from codeproof.common.templates import TEMPLATES
from codeproof.experiments.tracing import TracedGraph, TracedNode

REGISTRARS = {"defvjp", "defvjp_argnum", "defvjp_argnums"}  # what registers a VJP in autograd.core and extend
CHARACTER, PADDING, HEIGHT, GAP = 7.8, 20, 30, 28  # px: a label's monospace character, its box's sides, rows


@dataclass(frozen=True)
class Registration:
    path: str  # autograd/numpy/numpy_vjps.py, or experiments/x.py
    first: int
    last: int
    line: str  # its first line, as a tip shows it


def registration(node: TracedNode, read: Callable[[str], str | None]) -> Registration | None:
    """The top-level statement that registered the node's VJP makers (the last, if several did), or None.
    `read(path)` is the text of a file of the package at the pin, or of a script."""
    found = []
    for path, line, name in node.makers:
        text = read(path)
        statements = _statements(text) if text is not None else ()
        for statement in statements:
            inside = statement.lineno <= line <= statement.end_lineno
            if name == "<lambda>" and inside and _registers(statement, None, node.names) \
                    or name != "<lambda>" and _registers(statement, name, node.names):
                found.append(Registration(path, statement.lineno, statement.end_lineno, _shown(statement, text)))
    return max(found, key=lambda r: (r.path, r.first)) if found else None


@functools.lru_cache(maxsize=64)
def _statements(text: str) -> tuple[ast.stmt, ...]:
    try:
        return tuple(ast.parse(text).body)
    except SyntaxError:
        return ()


def _shown(statement: ast.stmt, text: str) -> str:
    """A registration as a tip shows it on one line: `defvjp(anp.true_divide, …)`; another statement, its first line."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if isinstance(call, ast.Call) and call.args:
        return f"{ast.unparse(call.func)}({ast.unparse(call.args[0])}, …)"
    return text.split("\n")[statement.lineno - 1].strip()


def _registers(statement: ast.stmt, maker: str | None, names: tuple[str, ...]) -> bool:
    """Whether a statement is a registrar's call for one of the primitive's names that passes the named maker
    (None: a lambda, which the caller found inside it)."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call) or _last_name(call.func) not in REGISTRARS or not call.args:
        return False
    return _last_name(call.args[0]) in names and (maker is None or any(_last_name(a) == maker for a in call.args[1:]))


def _last_name(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


class PastDeadline(Exception):
    """Laying a graph out took longer than its budget (Budgets.draw_seconds)."""


@dataclass(frozen=True)
class Layout:
    """Where a graph's drawing puts each node's box (its centre, size and label) and each edge's route."""

    width: float
    height: float
    boxes: tuple[tuple[float, float, float, float, str], ...]  # each node's x, y (its centre), w, h and label
    paths: tuple[str, ...]  # each edge's points, as an SVG polyline takes them


@dataclass(frozen=True)
class LaidOut:
    """A traced graph (what a run's verdict compares) with where its drawing puts it."""

    graph: TracedGraph
    layout: Layout = field(compare=False)


def lay_out(graph: TracedGraph, call: str, deadline: float | None = None) -> Layout:
    """The graph laid out in layers (grandalf's Sugiyama layout), the input on top; PastDeadline once
    time.monotonic() passes `deadline` between two of the layout's steps."""
    # Imported here: grandalf imports numpy (50 ms), which a build that draws no graph need not pay.
    from grandalf.graphs import Edge, Graph, Vertex
    from grandalf.layouts import SugiyamaLayout

    def in_time() -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise PastDeadline

    vertices = [Vertex(n) for n in range(len(graph.nodes))]
    labels = [_label(node, n, call) for n, node in enumerate(graph.nodes)]
    for vertex, label in zip(vertices, labels):
        vertex.view = _Box(len(label) * CHARACTER + PADDING, HEIGHT)
    pairs = dict.fromkeys((parent, n) for n, node in enumerate(graph.nodes) for parent in node.parents)
    edges = [Edge(vertices[a], vertices[b]) for a, b in pairs]  # a value used twice (x * x) is one edge
    for edge in edges:
        edge.view = _Route()
    layout = SugiyamaLayout(Graph(vertices, edges).C[0])
    layout.xspace, layout.yspace = 12, GAP
    in_time()
    layout.init_all(roots=[vertices[0]])
    for oneway in (False, True):  # as layout.draw() orders the layers: down and up, then down once more
        for _ in layout.ordering_step(oneway=oneway):
            in_time()
    layout.setxy()
    in_time()
    layout.draw_edges()
    left = min(v.view.xy[0] - v.view.w / 2 for v in vertices)
    top = min(v.view.xy[1] - v.view.h / 2 for v in vertices)
    width = max(v.view.xy[0] + v.view.w / 2 for v in vertices) - left
    height = max(v.view.xy[1] + v.view.h / 2 for v in vertices) - top

    def at(point):
        return f"{point[0] - left + 1:.1f},{point[1] - top + 1:.1f}"

    return Layout(width + 2, height + 2,
                  tuple((v.view.xy[0] - left + 1, v.view.xy[1] - top + 1, v.view.w, v.view.h, label)
                        for v, label in zip(vertices, labels)),
                  tuple(" ".join(at(point) for point in _ends(edge)) for edge in edges))


def draw(laid: LaidOut, alt: str, prefix: str, link: Callable[[Registration], str | None],
         read: Callable[[str], str | None]) -> str:
    """The laid-out graph as inline SVG named `alt`, its ids starting with `prefix`: `link(registration)` is a
    node's address on the site (None: no link)."""
    graph, nodes = laid.graph, []
    for n, ((x, y, w, h, label), node) in enumerate(zip(laid.layout.boxes, graph.nodes)):
        found = registration(node, read) if node.makers else None
        nodes.append({"x": x, "y": y, "w": w, "h": h, "label": label,
                      "kind": "input" if n == 0 else "output" if n == graph.output else "primitive",
                      "href": link(found) if found else None,
                      "tip": f"{found.path}:{found.first}  {found.line}" if found else None})
    return TEMPLATES.get_template("graph.svg").render(
        alt=alt, prefix=prefix, width=laid.layout.width, height=laid.layout.height, nodes=nodes,
        paths=laid.layout.paths).strip().replace("\n", "")


def _label(node: TracedNode, n: int, call: str) -> str:
    """A node's label: the input's is the argument as the post writes it (when short), a primitive's its name."""
    if n == 0:
        return call.split("(", 1)[1][:-1] if len(call) < 40 else "x"
    return node.name


def _ends(edge) -> list[tuple[float, float]]:
    """The edge's route from the bottom of its parent's box to the top of its child's."""
    points = list(edge.view.points)
    (x0, y0), (x1, y1) = points[0], points[-1]
    points[0] = (x0, y0 + edge.v[0].view.h / 2)
    points[-1] = (x1, y1 - edge.v[1].view.h / 2 - 4)  # room for the arrow head
    return points


class _Route:
    """Where grandalf puts an edge: the points it passes, from its parent's centre to its child's."""

    def setpath(self, points: list[tuple[float, float]]) -> None:
        self.points = points


class _Box:
    """What grandalf lays out for a node: its size, and the centre it is given."""

    def __init__(self, w: float, h: float):
        self.w, self.h, self.xy = w, h, (0.0, 0.0)
