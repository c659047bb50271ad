"""Benchmark: the worst case the build spends under each budget's default (extra.series.experiments.budgets), and
what the attacks cost now: the forged trace record, the dense graph, the nested patterns, the long mismatch.

Run from the repository root:  .venv/bin/python bench/budgets.py
"""

from __future__ import annotations

import json
import time

from codeproof.common.structure import Budgets, Tolerance
from codeproof.experiments.compare import output_diff, reconcile
from codeproof.experiments.figures import clean_svg
from codeproof.experiments.tracing import MAX_NODES, read_graph
from codeproof.site import graphs

BUDGETS = Budgets()


def timed(what: str, work) -> object:
    start = time.perf_counter()
    result = work()
    print(f"{what}: {time.perf_counter() - start:.3f} s")
    return result


def record(nodes: list[dict]) -> str:
    return json.dumps({"nodes": nodes, "output": len(nodes) - 1})


def node(parents=(), makers=(), names=()) -> dict:
    return {"name": "add", "parents": list(parents), "makers": [list(m) for m in makers], "names": list(names)}


def main() -> None:
    forged = record([node(), node([0], [("autograd/core.py", 1, "f")] * 9000, ["n"] * 55000)])
    timed("forged record (9,000 makers, 55,000 names): refused", lambda: read_graph(forged, Budgets(trace_kib=1024)))
    dense = record([node()] + [node(range(n)) for n in range(1, MAX_NODES)])
    timed("80 nodes, 3,160 edges: refused", lambda: read_graph(dense))
    # The largest graph the budgets let through: MAX_NODES nodes and graph_edges edges, each node taking the ones
    # before it until the edges are spent.
    nodes, edges = [node()], 0
    for n in range(1, MAX_NODES):
        parents = list(range(max(0, n - 1 - (BUDGETS.graph_edges - edges - (MAX_NODES - n))), n))[-8:]
        nodes.append(node(parents))
        edges += len(parents)
    graph = read_graph(record(nodes))
    assert not isinstance(graph, str), graph
    timed(f"drawing the largest graph within the budgets ({MAX_NODES} nodes, {edges} edges)",
          lambda: graphs.draw(graphs.LaidOut(graph, graphs.lay_out(graph, "f(x)")), "a", "p-", lambda r: None,
                              lambda path: None))

    patterns = '<pattern id="p0" width="1" height="1"><rect width="1" height="1"/></pattern>' + "".join(
        f'<pattern id="p{n}" width="10" height="10">' + f'<rect width="1" height="1" fill="url(#p{n - 1})"/>' * 10
        + "</pattern>" for n in range(1, 9))
    nested = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><defs>{patterns}</defs>'
              '<rect width="100" height="50" fill="url(#p8)"/></svg>')
    timed("nine levels of patterns (10^9 copies): refused", lambda: clean_svg(nested))
    group = '<g id="g">' + '<rect width="1" height="1"/>' * 130 + "</g>"
    widest = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><defs>' + group + "</defs>"
              + '<use href="#g"/>' * 150 + "</svg>")
    clean = timed("a figure at the element budget (150 copies of 130 shapes)", lambda: clean_svg(widest))
    assert not clean.problems, clean.problems

    recorded = "\n".join(f"value {n} 1.0" for n in range(8000))
    printed = "\n".join(f"value {n} 2.0" for n in range(8000))
    reconciled = timed("pairing an 8,000-line mismatch under a tolerance", lambda: reconcile(
        recorded, printed, Tolerance(rel=1e-3)))
    diff = timed("its diff", lambda: output_diff(recorded, reconciled, "x.py", Tolerance(rel=1e-3)))
    print(f"  the diff: {diff.count(chr(10))} lines; the log shows {BUDGETS.diff_lines} and names the file")


if __name__ == "__main__":
    main()
