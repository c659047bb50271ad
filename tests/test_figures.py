"""[FIGURE] blocks: figures a script writes (collected, kept to drawing, shown as inert images, recorded by
digest), the graph autograd traces, the page guard's check of what a drawing card holds, and fixture sites that
publish them. Ordinary figures as an author draws them, in Chromium: tests/test_figure_pages.py."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from codeproof.common.markers import titles_a_card
from codeproof.common.kinds.registry import BlockKind
from codeproof.engine import Engine
from codeproof.experiments.figures import IMAGE_PREFIX, CleanFigure, clean_svg, collect_figures, shown_drawing_problems
from codeproof.experiments.runner import ExperimentRunner
from codeproof.experiments.tracing import read_graph
from codeproof.series.blocks import parse_post
from codeproof.series.config import series_from_extra
from codeproof.site import graphs
from fixture_site import make_site, report

POST = "docs/posts/x.md"
SCRIPT = "experiments/draw.py"
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="100pt" height="50pt" viewBox="0 0 100 50">'
       '<path d="M 0 0 L 10 10" style="stroke: #000000; fill: none"/><text x="1" y="9">t</text></svg>')
WRITE = "import os\nopen(os.path.join(os.environ['CODEPROOF_FIGURES'], 'f.svg'), 'w').write({svg!r})\n"


def shown(figure: CleanFigure) -> str:
    """The SVG an image of a page shows (its data: address decoded)."""
    assert figure.src.startswith(IMAGE_PREFIX), figure
    return base64.b64decode(figure.src.removeprefix(IMAGE_PREFIX)).decode("utf-8")

def figure_post(*lines: str) -> str:
    header = "\n".join(("[FIGURE]", f"File: {SCRIPT}", *lines))
    return f"# A post\n\nSome prose.\n\n{header}\n\nAfter.\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "resources"
    (root / "experiments").mkdir(parents=True)
    return root


@pytest.fixture
def engine(root: Path, tmp_path: Path):
    series = series_from_extra({"name": "Test series", "baseline": {
        "repo": "HIPS/autograd", "commit": "0" * 40, "version": metadata.version("autograd"),
        "sdist": "autograd==1.9.1", "sdist_sha256": "7818c5c69ddf9efb7da74097bd741a4c7920133f41966f68537223a15ef798bc"}},
        root / "mkdocs.yml")
    runner = ExperimentRunner(root, cache_dir=tmp_path / ".cache", timeout=60, output_cap=1 << 20,
                              key_file=tmp_path / "secret" / "cache.key")
    yield Engine(series, runner=runner)
    runner.finish()


def check(engine: Engine, root: Path, script: str, post: str):
    """Write the script, parse the post, start its experiments as a build does, and check its one block."""
    (root / SCRIPT).write_text(textwrap.dedent(script), encoding="utf-8")
    parsed = parse_post(POST, post)
    assert not parsed.problems, parsed.problems
    engine.start_experiments([parsed])
    (block,) = parsed.blocks
    return engine.check(block)


# --- the block --------------------------------------------------------------------------------------


def test_a_figure_is_a_header_alone_with_a_file_an_alt_and_what_it_draws():
    (block,) = parse_post(POST, figure_post("Figure: f.svg", "Alt: a line")).blocks
    assert (block.kind, block.fields, block.quote) == (BlockKind.FIGURE, {"File": SCRIPT, "Figure": "f.svg",
                                                                           "Alt": "a line"}, None)


def test_a_figure_whose_name_is_not_utf8_is_a_fault_and_never_a_traceback(tmp_path):
    """Review of round six: a figure named b"\\xff.svg" became a lone surrogate in the run's figures, and storing the
    run in the cache ended the build with a UnicodeEncodeError, CI's too."""
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "ok.svg").write_text("<svg/>")
    with open(os.fsencode(tmp_path / "figures") + b"/\xff.svg", "wb") as named:
        named.write(b"<svg/>")
    figures, faults = collect_figures(tmp_path)
    assert (figures, faults) == ({"ok.svg": "<svg/>"}, {"\\xff.svg": "its name is not UTF-8"})


@pytest.mark.parametrize("lines, line, message", [  # the header is at line 5, File at 6
    (("Figure: f.svg",), 5, "FIGURE: Alt is missing or empty"),
    (("Figure: f.svg", "Graph: f(1.0)", "Alt: a"), 5, "FIGURE: give one of Figure"),
    (("Alt: a",), 5, "FIGURE: give one of Figure"),
    (("Figure: ../f.svg", "Alt: a"), 7, "FIGURE: Figure '../f.svg' is not a file name ending in .svg"),
    (("Alt: a", "Graph: f(1.0, 2.0)"), 8, "FIGURE: Graph 'f(1.0, 2.0)' is not a call of a function of the script on one"),
    (("Graph: import os", "Alt: a"), 7, "FIGURE: Graph 'import os' is not a call"),
    (("Figure: f.svg", "Alt: a", "Digest: 123"), 9, "FIGURE: Digest '123' is not sha256: and 64 hex digits"),
    (("Figure: f.svg", "Alt: 输出已验证"), 8, "FIGURE: Alt shows '输出已验证', a card's own face"),
])
def test_a_figure_header_that_cannot_be_drawn_fails_at_its_line(lines, line, message):
    """A problem of one key's value at that key's line (the walkthrough of round four: a Graph of two arguments
    was said at the [FIGURE] line); a missing key and the rule over them all at the header's."""
    parsed = parse_post(POST, figure_post(*lines))
    assert not parsed.blocks
    assert any(p.line == line and p.message.startswith(message) for p in parsed.problems), parsed.problems


def test_a_fence_right_under_a_figure_header_is_refused():
    parsed = parse_post(POST, figure_post("Figure: f.svg", "Alt: a") .replace("\n\nAfter.", "\n```python\nx\n```"))
    assert [p.message for p in parsed.problems] == ["FIGURE: a figure takes no fenced block: the run draws it"]


def test_a_near_miss_of_the_figure_marker_is_refused():
    parsed = parse_post(POST, "# A post\n\n[Figure]\nFile: experiments/x.py\n")
    assert "looks like a [FIGURE] block but is not one" in parsed.problems[0].message


# --- figures a script writes ---------------------------------------------------------------------




def test_a_figure_the_script_writes_is_an_image_of_its_own_size_with_what_it_drew(engine, root):
    checked = check(engine, root, WRITE.format(svg=SVG), figure_post("Figure: f.svg", "Alt: 一条线"))
    assert checked.problem is None
    assert (checked.figure.width, checked.figure.height) == (133, 67)  # 100 by 50 pt, in CSS pixels
    assert shown(checked.figure) == ('<svg width="100pt" height="50pt" viewBox="0 0 100 50" '
                                     'xmlns="http://www.w3.org/2000/svg"><path d="M 0 0 L 10 10" style="stroke: '
                                     '#000000; fill: none" /><text x="1" y="9">t</text></svg>')
    assert checked.digest == "sha256:" + hashlib.sha256(SVG.encode()).hexdigest()

def test_a_figure_the_script_does_not_write_fails_naming_what_it_wrote(engine, root):
    checked = check(engine, root, WRITE.format(svg=SVG), figure_post("Figure: g.svg", "Alt: a"))
    assert checked.problem.line == 5
    assert checked.problem.message == ("FIGURE experiments/draw.py: it did not write g.svg (its figure folder "
                                       "holds f.svg)")
    assert "os.environ['CODEPROOF_FIGURES']" in checked.problem.hint


def test_a_figure_unlike_its_record_fails_with_the_digest_drawn(engine, root):
    drawn = "sha256:" + hashlib.sha256(SVG.encode()).hexdigest()
    checked = check(engine, root, WRITE.format(svg=SVG), figure_post("Figure: f.svg", "Alt: a", "Digest: sha256:" + "0" * 64))
    assert checked.problem.message == (f"FIGURE experiments/draw.py: the run drew another figure than the one "
                                       f"recorded: Digest sha256:{'0' * 64}, drawn {drawn}")
    assert checked.problem.hint == f"if the new figure is right, run `./dev.sh update` to record it (`Digest: {drawn}`)"


def test_a_figure_like_its_record_passes(engine, root):
    drawn = "sha256:" + hashlib.sha256(SVG.encode()).hexdigest()
    assert check(engine, root, WRITE.format(svg=SVG), figure_post("Figure: f.svg", "Alt: a", f"Digest: {drawn}")).problem is None


def test_a_script_that_writes_outside_its_figure_folder_publishes_nothing_and_changes_nothing(engine, root, tmp_path):
    script = f"""\
        import os
        for path in ("docs/f.svg", "../f.svg", "../../f.svg", {str(tmp_path / 'f.svg')!r},
                     os.path.join(os.environ['CODEPROOF_FIGURES'], '..', 'f.svg')):
            try:
                open(path, "w").write({SVG!r})
            except OSError:
                pass
        """
    checked = check(engine, root, script, figure_post("Figure: f.svg", "Alt: a"))
    assert checked.problem.message.startswith("FIGURE experiments/draw.py: it did not write f.svg")
    assert list(tmp_path.parent.rglob("f.svg")) == []


def test_a_figure_folder_replaced_by_a_link_to_a_host_folder_publishes_nothing_of_it(engine, root, tmp_path):
    """Integrity round four: the build read the figure folder after the run, outside the sandbox, through the link
    the script left in its place, and published a host file. Now the folder is opened without following links."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "f.svg").write_text(SVG)  # a drawing the run never made, where the link leads
    script = f"""\
        import os, shutil
        folder = os.environ['CODEPROOF_FIGURES']
        shutil.rmtree(folder)
        os.symlink({str(host)!r}, folder)
        """
    checked = check(engine, root, script, figure_post("Figure: f.svg", "Alt: a"))
    assert checked.problem.message == ("FIGURE experiments/draw.py: the run replaced its folder figures/ with a link "
                                       "or a file (its figure folder holds nothing)")
    assert checked.figure is None and checked.run.figures == {}



def test_a_figure_that_needs_more_than_drawing_fails_saying_what(engine, root):
    hostile = SVG.replace("<text", '<script>alert(1)</script><foreignObject/><text onclick="x()"')
    checked = check(engine, root, WRITE.format(svg=hostile), figure_post("Figure: f.svg", "Alt: a"))
    assert checked.problem.message == "FIGURE experiments/draw.py: f.svg cannot be shown as it is"
    assert checked.problem.detail == ("  it holds <script>, which a figure may not (only drawing elements)\n"
                                      "  it holds <foreignObject>, which a figure may not (only drawing elements)\n"
                                      "  <text> has the attribute 'onclick', which a figure may not\n")


def test_a_matplotlib_plot_is_drawn_on_white_with_glyphs_as_paths_and_the_same_bytes_on_every_run(engine, root):
    plot = """\
        import os
        import matplotlib.pyplot as plt
        figure, axes = plt.subplots(figsize=(4, 2.5))
        axes.plot([0, 1, 2], [0, 1, 4], label="平方")
        axes.legend()
        axes.grid(True)
        figure.savefig(os.path.join(os.environ["CODEPROOF_FIGURES"], "f.svg"))
        """
    first = check(engine, root, plot, figure_post("Figure: f.svg", "Alt: 平方的曲线"))
    assert first.problem is None, first.problem
    svg = shown(first.figure)
    assert "<text" not in svg and "<style" not in svg and "metadata" not in svg  # glyphs are paths
    assert "fill: #ffffff" in svg  # drawn on white
    again = ExperimentRunner(root, cache_dir=root / "other-cache", timeout=60, output_cap=1 << 20, use_cache=False)
    again.start(SCRIPT)
    assert again.result(SCRIPT).figures == first.run.figures
    again.finish()


# --- what an image of a page may hold ---------------------------------------------------------------


def test_ids_and_references_are_kept_as_written_an_image_shares_none_with_the_page():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 9 9">'
           '<defs><clipPath id="c"><rect width="9" height="9"/></clipPath><path id="m" d="M 0 0"/></defs>'
           '<use xlink:href="#m" clip-path="url(#c)"/></svg>')
    kept = shown(clean_svg(svg))
    assert '<clipPath id="c">' in kept and '<use href="#m" clip-path="url(#c)" />' in kept


@pytest.mark.parametrize("part, problem", [
    ('<use href="https://example.org/a.svg#x"/>', "<use> refers to 'https://example.org/a.svg#x'"),
    ('<image href="file:///etc/passwd"/>', "<image> refers to 'file:///etc/passwd'"),
    ('<image href="data:image/svg+xml;base64,PHN2Zy8+"/>', "<image> refers to 'data:image/svg+xml"),
    ('<path style="fill: url(https://example.org/x)"/>', "<path> refers to 'https://example.org/x'"),
    ('<a href="https://example.org"><text>x</text></a>', "it holds <a>"),
    ('<path style="behavior: url(x.htc)"/>', "<path> has the style 'behavior: url(x.htc);'"),
    ('<text style="font-family: x; src: url(https://example.org/f.woff)">x</text>', "<text> has the style 'src:"),
    ('<rect style="fill: red !important"/>', "<rect> has the style 'fill: red !important;'"),
    ('<path fill="@import url(x)"/>', "<path> has fill '@import url(x)'"),
    ('<font-face font-family="x"/>', "it holds <font-face>"),
    ('<foreignObject/>', "it holds <foreignObject>"),
])
def test_what_a_figure_may_not_hold_is_named(part, problem):
    clean = clean_svg(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9">{part}</svg>')
    assert clean.src == "" and any(p.startswith(problem) for p in clean.problems), clean.problems


def test_a_style_sheet_metadata_and_comments_are_dropped_and_pictures_kept():
    picture = "data:image/png;base64,iVBORw0KGgo="
    kept = shown(clean_svg('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><style>@import url(x);</style>'
                           f'<metadata>m</metadata><!-- c --><image href="{picture}" width="9" height="9"/></svg>'))
    assert kept == (f'<svg viewBox="0 0 9 9" xmlns="http://www.w3.org/2000/svg"><image href="{picture}" width="9" '
                    'height="9" /></svg>')


def test_words_of_a_cards_face_in_a_figure_are_an_images_not_the_pages():
    """Nothing a figure draws becomes page text: its words may say anything (the browser tests read innerText)."""
    clean = clean_svg('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 90 9"><text>✓ 输出已验证 [OUTPUT]</text></svg>')
    assert clean.problems == () and "✓ 输出已验证 [OUTPUT]" in shown(clean)


@pytest.mark.parametrize("svg, problem", [
    ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><path style=\'fill: url("#a); position: fixed; '
     'inset: 0")\'/></svg>', "<path> refers to '#a); position: fixed; inset: 0': a figure refers only to its own parts"),
    ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9">' + "<g>" * 3000 + "</g>" * 3000 + "</svg>",
     "its elements are nested deeper than 64"),
    ('<svg xmlns="http://www.w3.org/2000/svg" width="1..2pt" height="5pt"/>',
     "it has neither a width and height in pt or px nor a viewBox alone"),
    ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><use href="#content"/></svg>',
     "<use> refers to #content, which the figure does not hold"),
    ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><rect id="a"/><rect id="a"/></svg>',
     "the id 'a' is given twice"),
    ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 100000"/>',
     "its shape is 1 by 100000: a figure is at most 3 times as tall as it is wide"),
    ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 wide tall"/>', "its viewBox '0 0 wide tall' is not four"),
    ('<html xmlns="http://www.w3.org/1999/xhtml"/>', "its root element is html, not an svg of the SVG namespace"),
])
def test_a_figure_built_to_escape_the_cleaning_is_refused_without_a_traceback(svg, problem):
    clean = clean_svg(svg)
    assert clean.src == "" and any(p.startswith(problem) for p in clean.problems), clean.problems

def test_a_folder_named_as_the_figure_is_refused(engine, root):
    script = "import os\nos.mkdir(os.path.join(os.environ['CODEPROOF_FIGURES'], 'f.svg'))\n"
    checked = check(engine, root, script, figure_post("Figure: f.svg", "Alt: a"))
    assert checked.problem.message.startswith("FIGURE experiments/draw.py: f.svg it is not a regular file")


@pytest.mark.parametrize("record, why", [
    ('{"nodes": [{"name": "x", "parents": [], "makers": [], "names": []}, {"name": "sin\\u202e", "parents": [0], '
     '"makers": [], "names": []}], "output": 1}', "the trace's record names 'sin\\u202e', which is no primitive's name"),
    ('{"nodes": [{"name": "x", "parents": [], "makers": [], "names": []}, {"name": "sin", "parents": [0], '
     '"makers": [["../etc/passwd", 1, "f"]], "names": []}], "output": 1}', "the trace's record names '../etc/passwd'"),
    ('{"nodes": [' + ", ".join(['{"name": "x", "parents": [], "makers": [], "names": []}'] * 81) + '], "output": 0}',
     "the trace's record is not a graph of at most 80 nodes"),
])
def test_a_trace_record_the_script_could_have_forged_must_still_be_a_graph_of_names(record, why):
    assert read_graph(record).startswith(why)


def test_an_xml_bomb_is_refused_before_it_expands():
    bomb = '<?xml version="1.0"?><!DOCTYPE s [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg>&b;</svg>'
    assert clean_svg(bomb).problems[0].startswith("it is not well-formed XML without entities")


# --- the traced graph --------------------------------------------------------------------------------

GRAPH_SCRIPT = """\
    import autograd.numpy as np

    def g(x):
        return np.sin(x) * x + np.exp(x) / 2.0

    def const(x):
        return 1.0
    """


def test_the_traced_graph_of_a_small_function_has_exactly_its_primitives_and_edges(engine, root):
    checked = check(engine, root, GRAPH_SCRIPT, figure_post("Graph: g(1.5)", "Alt: a"))
    assert checked.problem is None, checked.problem
    graph = checked.figure.graph
    names = [node.name for node in graph.nodes]
    edges = {(names[p], node.name) for node in graph.nodes for p in node.parents}
    # Written by hand from the function, not from a trace: g(x) = sin(x) * x + exp(x) / 2.0.
    assert sorted(names) == sorted(["x", "sin", "multiply", "exp", "divide", "add"])
    assert edges == {("x", "sin"), ("sin", "multiply"), ("x", "multiply"), ("x", "exp"), ("exp", "divide"),
                     ("multiply", "add"), ("divide", "add")}
    assert names[graph.output] == "add"


def test_each_node_links_to_the_registration_that_took_effect(engine, root):
    checked = check(engine, root, GRAPH_SCRIPT, figure_post("Graph: g(1.5)", "Alt: a"))
    graph = checked.figure.graph
    package = Path(metadata.distribution("autograd").locate_file("autograd")).parent

    def read(path: str) -> str:
        return (package / path).read_text(encoding="utf-8")

    found = {node.name: graphs.registration(node, read) for node in graph.nodes[1:]}
    lines = {name: (r.path, r.first, r.last, r.line) for name, r in found.items()}
    # numpy_vjps.py at the pin registers divide twice (lines 89-93 and, as true_divide, 124-128): the later wins.
    assert lines == {
        "sin": ("autograd/numpy/numpy_vjps.py", 170, 170, "defvjp(anp.sin, …)"),
        "multiply": ("autograd/numpy/numpy_vjps.py", 79, 83, "defvjp(anp.multiply, …)"),
        "exp": ("autograd/numpy/numpy_vjps.py", 163, 163, "defvjp(anp.exp, …)"),
        "divide": ("autograd/numpy/numpy_vjps.py", 124, 128, "defvjp(anp.true_divide, …)"),
        "add": ("autograd/numpy/numpy_vjps.py", 76, 78, "defvjp(anp.add, …)"),
    }


def test_a_primitive_the_script_defines_links_to_its_own_defvjp(engine, root):
    script = """\
        from autograd.extend import primitive, defvjp

        @primitive
        def square(x):
            return x * x

        defvjp(square, lambda ans, x: lambda g: 2 * x * g)
        """
    checked = check(engine, root, script, figure_post("Graph: square(3.0)", "Alt: a"))
    (node,) = checked.figure.graph.nodes[1:]
    found = graphs.registration(node, lambda path: (root / path).read_text())
    assert (found.path, found.first, found.line) == (SCRIPT, 7, "defvjp(square, …)")


@pytest.mark.parametrize("graph, message", [
    ("h(1.0)", "cannot trace h(1.0): the script defines no h"),
    ("gg(1.0)", "cannot trace gg(1.0): the script defines no gg; did you mean g?"),
    ("cnst(1.0)", "cannot trace cnst(1.0): the script defines no cnst; did you mean const?"),
    ("g(undefined_name)", "cannot trace g(undefined_name): NameError: name 'undefined_name' is not defined"),
    ("const(1.0)", "cannot trace const(1.0): the output does not depend on the input: autograd traced no operation"),
])
def test_a_graph_that_cannot_be_traced_fails_at_its_graph_line(engine, root, graph, message):
    checked = check(engine, root, GRAPH_SCRIPT, figure_post(f"Graph: {graph}", "Alt: a"))
    assert checked.problem.line == 7 and checked.problem.message == f"FIGURE experiments/draw.py: {message}"


def test_a_graph_whose_layout_passes_its_deadline_fails_at_its_graph_line_naming_the_budget(engine, root, monkeypatch):
    def too_long(graph, call, deadline):
        raise graphs.PastDeadline

    monkeypatch.setattr(graphs, "lay_out", too_long)
    checked = check(engine, root, GRAPH_SCRIPT, figure_post("Graph: g(1.0)", "Alt: a"))
    assert (checked.problem.line, checked.problem.message) == (7, (
        "FIGURE experiments/draw.py: laying out the graph of g(1.0) took longer than the budget draw_seconds (10 s; "
        "extra.series.experiments.budgets.draw_seconds in mkdocs.yml)"))


def test_the_drawn_graph_is_the_same_bytes_in_every_process(engine, root):
    """Drawn again from the run's record in processes with other hash seeds (set and dict orders, ids)."""
    checked = check(engine, root, GRAPH_SCRIPT, figure_post("Graph: g(1.5)", "Alt: a"))
    drawing = ("import sys; from codeproof.experiments.tracing import read_graph; from codeproof.site import graphs; "
               "graph = read_graph(sys.stdin.read()); "
               "print(graphs.draw(graphs.LaidOut(graph, graphs.lay_out(graph, 'g(1.5)')), 'a', 'p-', "
               "lambda r: f'#{r.first}', lambda path: None))")
    drawn = {subprocess.run([sys.executable, "-c", drawing], input=checked.run.traces["g(1.5)"], text=True,
                            capture_output=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
             for seed in ("1", "2", "3")}
    here = graphs.draw(checked.figure, "a", "p-", lambda r: f"#{r.first}", lambda path: None)
    assert drawn == {here + "\n"} and here.count("<rect") == 6 and "<a " not in here


# --- the guard's own check ------------------------------------------------------------------------

def test_the_guard_names_what_a_drawing_card_on_a_page_may_not_hold():
    assert shown_drawing_problems([IMAGE_PREFIX + "PHN2Zy8+"], [], "") == []
    assert shown_drawing_problems([], [("svg", {"viewBox": "0 0 1 1"}), ("a", {"href": "../../source/x/#L1"}),
                                       ("path", {"style": "fill: url(#p-c)"})], "sin") == []
    assert shown_drawing_problems(["https://example.org/x.svg", "data:image/png;base64,AA"], [], "") == [
        "a figure's image is 'https://example.org/x.svg', not an SVG image the build made",
        "a figure's image is 'data:image/png;base64,AA', not an SVG image the build made"]
    assert shown_drawing_problems([], [("a", {"href": "java\nscript:alert(1)"})], "") == [
        "a figure's <a> refers to 'java\\nscript:alert(1)'"]
    assert shown_drawing_problems([], [("svg", {"transform": "scale(9)"}), ("foreignObject", {}),
                                       ("a", {"href": "javascript:x"}), ("path", {"onload": "x"}),
                                       ("g", {"style": "fill: url(http://x)"}), ("use", {"href": "//x/a.svg#b"}),
                                       ("g", {"class": "md-nav"}), ("g", {"style": "fill: none; position: fixed"})],
                                  "✓ 输出 已验证") == [
        "its text '✓ 输出 已验证' would read as a card's face, a block marker or reordered text",
        "a figure's <svg> has a transform or a style",
        "a figure holds <foreignObject>", "a figure's <a> refers to 'javascript:x'",
        "a figure's <path> has the attribute 'onload'", "a figure's <g> has style='fill: url(http://x)'",
        "a figure's <use> refers to '//x/a.svg#b'", "a figure's <g> has the class 'md-nav'",
        "a figure's <g> has style='fill: none; position: fixed'"]


# --- a built site ---------------------------------------------------------------------------------

FIXTURE_FIGURE = f"[FIGURE]\nFile: {SCRIPT}\nFigure: f.svg\nAlt: 一条线与字母 t\n\nThe end."


@pytest.mark.slow
def test_a_built_post_shows_the_figure_as_an_image_in_a_verified_card_with_the_outputs_stamp(tmp_path):
    site = make_site(tmp_path, material=True)
    (site.root / SCRIPT).write_text(WRITE.format(svg=SVG), encoding="utf-8")
    site.edit("The end.", FIXTURE_FIGURE)
    out, log = site.build()
    assert out, log
    html = (out / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    card = html[html.index('<div class="proof-card proof-card--figure">'):]
    card = card[:card.index("</div>\n<p>The end.")]
    src = IMAGE_PREFIX + base64.b64encode(shown(clean_svg(SVG)).encode()).decode()
    assert (f'<img class="proof-figure__image" src="{src}" alt="一条线与字母 t" width="133" height="67" '
            'decoding="async">') in card
    assert '<a href="../../experiments/draw/"><code>experiments/draw.py</code></a>' in card
    assert "✓ 输出已验证 · Python " in card and "data-codeproof" not in html
    assert list(out.rglob("*.svg")) == [out / "assets" / "favicon.svg"]  # no figure is a file of the site

def test_a_figure_the_script_does_not_write_fails_the_build_at_its_line(tmp_path):
    site = make_site(tmp_path)
    (site.root / SCRIPT).write_text("print('no figure')\n", encoding="utf-8")
    site.edit("The end.", FIXTURE_FIGURE)
    line = site.post.read_text(encoding="utf-8").split("\n").index("[FIGURE]") + 1
    out, log = site.build()
    assert out is None
    assert f"docs/posts/p.md:{line}: FIGURE experiments/draw.py: it did not write f.svg (its figure folder holds " \
           "nothing)" in report(log)

def test_a_primitive_whose_name_reads_as_a_cards_face_is_not_drawn(engine, root):
    # The name is made at run time: a script that shows the face in its text is refused before it runs.
    script = """\
        from autograd.extend import primitive, defvjp

        def square(x):
            return x * x

        square.__name__ = square.__qualname__ = "\\u8f93\\u51fa\\u5df2\\u9a8c\\u8bc1"
        square = primitive(square)
        defvjp(square, lambda ans, x: lambda g: 2 * x * g)

        def g(x):
            return square(x)
        """
    checked = check(engine, root, script, figure_post("Graph: g(3.0)", "Alt: a"))
    assert checked.problem.message == ("FIGURE experiments/draw.py: cannot trace g(3.0): a primitive is named "
                                       "'输出已验证', which would read as a card's face or a block marker")


def test_the_names_a_script_left_in_its_figure_folder_are_shown_escaped(engine, root):
    script = "import os\nopen(os.path.join(os.environ['CODEPROOF_FIGURES'], 'x\\x1b[31m.svg'), 'w').write('x')\n"
    checked = check(engine, root, script, figure_post("Figure: f.svg", "Alt: a"))
    assert checked.problem.message == ("FIGURE experiments/draw.py: it did not write f.svg (its figure folder holds "
                                       "x<U+001B>[31m.svg)")


def test_update_records_the_digest_of_the_figure_drawn_and_nothing_else(tmp_path):
    site = make_site(tmp_path)
    (site.root / SCRIPT).write_text(WRITE.format(svg=SVG), encoding="utf-8")
    site.edit("The end.", FIXTURE_FIGURE.replace("\n\nThe end.", f"\nDigest: sha256:{'0' * 64}\n\nThe end."))
    before = site.post.read_text(encoding="utf-8")
    assert site.check()[0] == 1
    assert site.check("update")[0] == 0
    drawn = hashlib.sha256(SVG.encode()).hexdigest()
    assert site.post.read_text(encoding="utf-8") == before.replace("0" * 64, drawn)
    assert site.check()[0] == 0


HEADER = f"[FIGURE]\nFile: {SCRIPT}\nFigure: f.svg\n"


@pytest.mark.parametrize("script, header, below, message", [  # below: lines under [FIGURE] the problem is said at
    (WRITE.format(svg=SVG), HEADER + f"Alt: a\nDigest: sha256:{'0' * 64}", 0,
     "FIGURE experiments/draw.py: the run drew another figure"),
    (WRITE.format(svg=SVG), HEADER + "Alt: ", 3, "FIGURE: Alt is missing or empty"),
    ("import os\nos.makedirs('docs/posts', exist_ok=True)\nopen('docs/posts/f.svg', 'w').write('<svg/>')\n",
     HEADER + "Alt: a", 0, "FIGURE experiments/draw.py: it did not write f.svg"),
])
def test_a_fixture_post_whose_figure_differs_has_no_alt_or_was_written_elsewhere_fails_the_build(
        tmp_path, script, header, below, message):
    site = make_site(tmp_path)
    (site.root / SCRIPT).write_text(script, encoding="utf-8")
    site.edit("The end.", header + "\n\nThe end.")
    line = site.post.read_text(encoding="utf-8").split("\n").index("[FIGURE]") + 1 + below
    out, log = site.build()
    assert out is None and f"docs/posts/p.md:{line}: {message}" in report(log)
    assert not (site.root / "docs" / "posts" / "f.svg").exists()



def test_a_drawing_the_cleaning_let_through_is_refused_by_the_page_guard_at_the_figures_line(tmp_path, monkeypatch):
    """Defence in depth: with a cleaning that gives an image of another kind, the strict build fails on the page."""
    from codeproof import engine as engine_module

    monkeypatch.setattr(engine_module, "clean_svg", lambda text, budgets: CleanFigure(
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", 9, 9, ()))
    site = make_site(tmp_path)
    (site.root / SCRIPT).write_text(WRITE.format(svg=SVG), encoding="utf-8")
    site.edit("The end.", FIXTURE_FIGURE)
    line = site.post.read_text(encoding="utf-8").split("\n").index("[FIGURE]") + 1
    out, log = site.build()
    assert out is None
    assert report(log) == (f"1 problem:\n\ndocs/posts/p.md:{line}: the page holds a figure's image is "
                           "'data:text/html;base64,PHNjcmlwdD5hbGVydC', not an SVG image the build made\n  hint: the "
                           "figure's script drew it: draw with drawing elements only")


def test_a_caption_that_starts_with_the_figure_label_and_names_lines_is_no_cards_head():
    """A figure's card shows no code, so "图 2：L1 与 L2" over a code block is a caption; a code card's head is not."""
    assert not titles_a_card("图 2：L1 与 L2 正则") and titles_a_card("源码 · autograd/core.py L88–L96")



# --- what protects a reader's browser, however the figure is shown --------------------------------------------


def test_patterns_copying_patterns_fail_at_the_blocks_line_naming_the_budget(engine, root):
    patterns = '<pattern id="p0" width="1" height="1"><rect width="1" height="1"/></pattern>' + "".join(
        f'<pattern id="p{n}" width="10" height="10">' + f'<rect width="1" height="1" fill="url(#p{n - 1})"/>' * 10
        + "</pattern>" for n in range(1, 9))
    bomb = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><defs>{patterns}</defs>'
            '<rect width="100" height="50" fill="url(#p8)"/></svg>')
    checked = check(engine, root, WRITE.format(svg=bomb), figure_post("Figure: f.svg", "Alt: a"))
    assert (checked.problem.line, checked.problem.message) == (5, "FIGURE experiments/draw.py: f.svg cannot be shown "
                                                                  "as it is")
    assert checked.problem.detail == ("  its references reach through more than 2 levels (<pattern> is one), past "
                                      "the budget svg_reference_depth (2; extra.series.experiments.budgets."
                                      "svg_reference_depth in mkdocs.yml)\n")


def test_a_figure_past_its_size_budget_fails_at_the_blocks_line_naming_the_budget(engine, root):
    big = SVG.replace("</svg>", f"<!-- {'x' * (2048 * 1024)} --></svg>")
    checked = check(engine, root, WRITE.format(svg=big), figure_post("Figure: f.svg", "Alt: a"))
    assert (checked.problem.line, checked.problem.message) == (5, (
        "FIGURE experiments/draw.py: f.svg it is larger than 2048 KiB, past the budget figure_kib (2048 KiB; "
        "extra.series.experiments.budgets.figure_kib in mkdocs.yml) (its figure folder holds f.svg)"))
