"""[FIGURE]: a figure an experiment draws (an SVG it writes) or the graph autograd traces in it; its header stands
alone, since what it shows is drawn by a run, never written in the post."""

from __future__ import annotations

import ast
import re

from codeproof.common.kinds.base import Format, Key, Kind
from codeproof.common.kinds.proofs import Page, Proofs, then
from codeproof.common.structure import Block, Checked

FIGURE_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,80}\.svg$")  # a file name in the run's figure folder
DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")


def graph_call(text: str) -> tuple[str, str] | None:
    """A Graph line's function name and its argument's source (`f(x + 1)` -> ("f", "x + 1")), or None when the
    line is not a call of a name on one positional argument."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and len(tree.args) == 1
            and not tree.keywords and not isinstance(tree.args[0], ast.Starred)):
        return None
    return tree.func.id, ast.get_source_segment(text.strip(), tree.args[0])


def _figure_name(value: str) -> tuple[str, str] | None:
    if FIGURE_NAME_RE.match(value):
        return None
    return (f"Figure {value!r} is not a file name ending in .svg",
            "name the file the script writes into its figure folder, e.g. `Figure: sine.svg` (letters, digits, - and _)")


def _graph(value: str) -> tuple[str, str] | None:
    if graph_call(value) is not None:
        return None
    return (f"Graph {value!r} is not a call of a function of the script on one argument",
            "write the function's name and the input it is traced at, e.g. `Graph: f(onp.array([0.5, 1.5]))`; to "
            "trace a function of two inputs, define one of one input in the script (`def f_of_x(x): return f(x, Y)`) "
            "and write `Graph: f_of_x(X)`")


def _digest(value: str) -> tuple[str, str] | None:
    if DIGEST_RE.match(value):
        return None
    return f"Digest {value!r} is not sha256: and 64 hex digits", "copy the digest the build reports, or remove the line"


class Figure(Kind):
    name, member, css, label, lang = "FIGURE", "FIGURE", "figure", "图", None
    # Figure: an SVG the script writes; Graph: the graph autograd traces; Digest: the record of the figure, if the
    # author keeps one.
    keys = (Key("File", True, Format.SCRIPT), Key("Alt", True), Key("Figure", format=_figure_name),
            Key("Graph", format=_graph, any_text=True), Key("Digest", format=_digest))
    script, runs, draws, record_key = True, True, True, "Digest"
    example = {"File": "experiments/sine.py", "Alt": "正弦曲线", "Figure": "sine.svg"}

    def header_rule(self, fields: dict[str, str]) -> tuple[str, str] | None:
        if ("Figure" in fields) == ("Graph" in fields):
            return ("give one of Figure (an SVG the script writes) and Graph (a call whose graph autograd traces)",
                    "write `Figure: name.svg` or `Graph: f(x)`")
        return None

    def check(self, block: Block, proofs: Proofs) -> Checked:
        return then(proofs.run(block), lambda run: proofs.draw_figure(block, run))

    def render(self, checked: Checked, page: Page) -> str:
        block = checked.block
        return page.cards.figure_card(block.fields["File"], page.script_page(block.fields["File"]),
                                      page.figure(checked), page.stamp(block, checked.run), page.record(checked.run),
                                      page.seal,
                                      traced_call(block.fields) if "Graph" in block.fields else None)


def traced_call(fields: dict[str, str]) -> str:
    """A [FIGURE]'s Graph line as the run traces it: `f( x )` -> `f(x)`."""
    name, argument = graph_call(fields["Graph"])
    return f"{name}({argument})"
