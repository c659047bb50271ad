"""The contract every block kind keeps, whichever it is: one test over the registry (codeproof.common.kinds), so
that a new kind is its module, a line in the registry, its card's template, and these tests run on it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import markdown
import pytest

from codeproof.common.kinds.registry import BlockKind
from codeproof.common.markers import marker_kind
from codeproof.common.structure import Checked, Excerpt, FileRef, RunResult
from codeproof.series.blocks import parse_post
from codeproof.site import render
from codeproof.site.guard import check_page

ENGINE = Path(__file__).resolve().parents[1] / "hooks" / "codeproof"
POST = "docs/posts/x.md"
SEAL = "5eal" * 8
# The extensions that put a card's fence inside its head's <div> (md_in_html) and highlight it, as the site's.
EXTENSIONS = ["md_in_html", "pymdownx.highlight", "pymdownx.superfences"]
DRAWING = '<svg viewBox="0 0 10 10"><path d="M0 0L10 10"/></svg>'
FULL_WIDTH = {ord(ch): ord(ch) + 0xFEE0 for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ[]"}
RUN = RunResult("experiments/x.py", 0, "1\n", "", 0.5, "2026-01-01", {"python": "3.11", "numpy": "2", "autograd": "1.9.1"})


EVERY_KIND = pytest.mark.parametrize("kind", list(BlockKind), ids=lambda kind: kind.member)


def header(kind, fields: dict[str, str]) -> str:
    """A block of the kind as its author writes it: the header, and the fenced quote if the kind takes one."""
    lines = [kind.header, *(f"{key}: {value}" for key, value in fields.items())]
    return "\n".join(lines + (["", f"```{kind.lang}", "x = 1", "```"] if kind.lang else []))


class _Page:
    """A page to render a verified block into (codeproof.common.kinds.proofs.Page), with the site's renderer."""

    seal, cards = SEAL, render

    @staticmethod
    def ref_of(block):
        return FileRef("HIPS/autograd", "a" * 40, block.fields["File"])

    @staticmethod
    def onsite(ref, excerpt):
        return None

    @staticmethod
    def script_page(script):
        return f"../{script}/"

    @staticmethod
    def stamp(run, tolerance):
        return "stamp"

    @staticmethod
    def record(run):
        return "../experiments/x/#run-0123456789ab"

    @staticmethod
    def figure(checked):
        return DRAWING


@EVERY_KIND
@pytest.mark.parametrize("written", [
    lambda name: f"[{name}]", lambda name: f"[{name.lower()}]", lambda name: f"[ {name.title()} ]",
    lambda name: f"【{name}】", lambda name: f"[{name}]".translate(FULL_WIDTH), lambda name: f"> [{name}]",
    lambda name: f"[{name}]\u200b", lambda name: f"[{name.replace('O', '0').replace('I', '1')}]",
])
def test_a_kinds_marker_is_recognised_however_it_is_written(kind, written):
    assert marker_kind(written(kind.name)) is kind


@EVERY_KIND
def test_a_kinds_header_round_trips_through_the_parser(kind):
    parsed = parse_post(POST, header(kind, kind.example))
    assert parsed.problems == []
    [block] = parsed.blocks
    assert (block.kind, block.fields, block.line) == (kind, kind.example, 1)


@EVERY_KIND
def test_a_header_without_a_required_key_or_with_an_unknown_one_is_refused(kind):
    for key in kind.required:
        fields = {k: v for k, v in kind.example.items() if k != key}
        [problem] = parse_post(POST, header(kind, fields)).problems
        assert problem.message == f"{kind}: {key} is missing or empty"
    [problem] = parse_post(POST, header(kind, {**kind.example, "Colour": "red"})).problems
    assert problem.message == f"{kind}: unknown key 'Colour'"


@EVERY_KIND
@pytest.mark.parametrize("written", [lambda name: f"  [{name}]", lambda name: f"[{name.lower()}]",
                                     lambda name: f"- [{name}]", lambda name: f"【{name}】"])
def test_a_near_miss_of_a_kinds_header_is_refused(kind, written):
    line = written(kind.name)
    [problem] = parse_post(POST, header(kind, kind.example).replace(kind.header, line, 1)).problems
    assert problem.message.startswith(f"{line!r} looks like a [{kind}] block but is not one")


@EVERY_KIND
def test_a_kinds_card_is_sealed_and_the_guard_accepts_it_while_its_marker_outside_is_refused(kind):
    block = parse_post(POST, header(kind, kind.example)).blocks[0]
    card = kind.render(Checked(block, excerpt=Excerpt(1, 1, "x = 1"), run=RUN), _Page())
    html = markdown.markdown(f"Intro.\n\n{card}\n", extensions=EXTENSIONS)
    assert f'class="proof-card proof-card--{kind.css}" data-codeproof="{SEAL}"' in html
    assert check_page(html, POST, ["Intro.", "", kind.header], 1, 1, SEAL, {3}) == []
    [problem] = check_page(html + f"<p>{kind.header}</p>", POST, ["Intro."], 1, 1, SEAL, set())
    assert problem.message.startswith(f"the rendered page shows {kind.header} outside a verified card")


@pytest.mark.parametrize("kind", [kind for kind in BlockKind if kind.draws], ids=lambda kind: kind.member)
def test_a_drawing_that_cannot_be_shown_is_blamed_on_its_blocks_header_even_with_blanks_after_it(kind):
    card = render.figure_card("experiments/x.py", "x/", '<svg><foreignObject>x</foreignObject></svg>', "stamp",
                              "x/#run-0123456789ab", SEAL)
    html = markdown.markdown(card, extensions=EXTENSIONS)
    found = check_page(html, POST, ["Intro.", "", f"{kind.header} \t", "File: x"], 5, 1, SEAL, {7})
    assert found and {problem.line for problem in found} == {7}


TOY_KIND = '''"""[NOTE]: a toy kind, made in a test only: a note the author writes, checked to be non-empty."""

from __future__ import annotations

from codeproof.common.fences import fence
from codeproof.common.kinds.base import Key, Kind
from codeproof.common.structure import Checked, Excerpt, Problem


class Note(Kind):
    name, member, css, label, lang = "NOTE", "NOTE", "note", "注", "text"
    keys = (Key("Title", True),)
    script, runs = False, False
    example = {"Title": "a remark"}

    def check(self, block, proofs):
        if not block.quote:
            return Checked(block, problem=Problem(block.post, block.line, "NOTE: the note is empty"))
        return Checked(block, excerpt=Excerpt(1, block.quote.count("\\n") + 1, block.quote))

    def render(self, checked, page):
        return page.cards.sealed("note_card.html", page.seal, self, title=checked.block.fields["Title"],
                                 fence=fence(checked.excerpt.text, self.lang))
'''
TOY_TEMPLATE = '''{% extends "card.html" %}
{% block label %}{{ label }} <span class="proof-card__kind">{{ kind }}</span>{% endblock %}
{% block rows %}<dt>题</dt><dd>{{ title }}</dd>{% endblock %}
'''


@pytest.fixture(scope="module")
def toy_engine(tmp_path_factory) -> tuple[Path, set[str]]:
    """A copy of the engine with a fifth kind, [NOTE], added as a new kind is: and the files that adding it touched."""
    engine = tmp_path_factory.mktemp("toy") / "codeproof"
    shutil.copytree(ENGINE, engine, ignore=shutil.ignore_patterns("__pycache__"))
    (engine / "common" / "kinds" / "note.py").write_text(TOY_KIND, encoding="utf-8")
    (engine / "templates" / "note_card.html").write_text(TOY_TEMPLATE, encoding="utf-8")
    registry = engine / "common" / "kinds" / "registry.py"
    text = registry.read_text(encoding="utf-8")
    text = text.replace("from codeproof.common.kinds.output import Output\n",
                        "from codeproof.common.kinds.note import Note\nfrom codeproof.common.kinds.output import Output\n")
    registry.write_text(text.replace("Figure())", "Figure(), Note())"), encoding="utf-8")
    touched = {path.relative_to(engine).as_posix() for path in engine.rglob("*") if path.is_file()
               if not (ENGINE / path.relative_to(engine)).is_file()
               or (ENGINE / path.relative_to(engine)).read_bytes() != path.read_bytes()}
    return engine, touched


def test_a_fifth_kind_touches_its_module_a_line_of_the_registry_and_its_template(toy_engine):
    _, touched = toy_engine
    assert touched == {"common/kinds/note.py", "common/kinds/registry.py", "templates/note_card.html"}


def test_a_fifth_kind_keeps_the_contract_of_every_kind(toy_engine, tmp_path):
    """This module's contract, run on [NOTE] in the engine it was added to."""
    engine, _ = toy_engine
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(engine.parent), str(Path(__file__).parent),
                                                         sysconfig.get_paths()["purelib"]])}
    # -S: site-packages only as a plain path, so no .pth file installs the editable engine's finder.
    done = subprocess.run([sys.executable, "-S", "-c", CONTRACT_ON_NOTE], env=env, cwd=tmp_path,
                          capture_output=True, text=True)
    contract = [name for name, test in globals().items() if name.startswith("test_") and any(
        mark.name == "parametrize" and mark.args[0] == "kind" and list(mark.args[1]) == list(BlockKind)
        for mark in getattr(test, "pytestmark", []))]  # the tests of every kind, which NOTE must pass too
    assert len(contract) >= 5
    assert (done.returncode, done.stderr, done.stdout) == (
        0, "", f"{engine / '__init__.py'}\ncontract kept by NOTE in {len(contract)} tests\n")


# Every test above that is parametrised over the kinds, called with [NOTE] where its kinds hold it, and with each
# of its other parameters.
CONTRACT_ON_NOTE = """
import codeproof, test_kinds
from codeproof.common.kinds.registry import BlockKind
print(codeproof.__file__)
called = set()
for test in vars(test_kinds).values():
    marks = {mark.args[0]: mark.args[1] for mark in getattr(test, "pytestmark", []) if mark.name == "parametrize"}
    if BlockKind.NOTE in marks.get("kind", ()):
        for written in marks.get("written", [None]):
            test(BlockKind.NOTE, written) if written else test(BlockKind.NOTE)
        called.add(test.__name__)
print(f"contract kept by NOTE in {len(called)} tests")
"""
