"""What an author may quote and how its card shows it: a module-level assignment is a symbol, and a card
shows a quote without the indentation its lines share, numbered and linked with the file's real lines.
Each test changes the fixture site's post and builds or checks it in this process."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from codeproof.site import render
from codeproof.common.structure import Excerpt, FileRef
from fixture_site import SCRIPT, make_site, report

NODE_INIT = """\
    def __init__(self, value):
        self.value = value
        self.parents = []
"""


@pytest.fixture
def site(tmp_path):
    return make_site(tmp_path)


def card(site, kind: str = "source") -> tuple[str, list[str], str]:
    """The built post's card of this kind: its code as shown, its line numbers, its first link."""
    html = (site.root / "site" / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    node = LexborHTMLParser(html).css_first(f".proof-card--{kind}")
    numbers = [span.attributes["data-linenos"].strip() for span in node.css(".linenos")]
    return node.css_first("pre code").text(), numbers, node.css_first("a").attributes["href"]


def quote_box_types(site, symbol: str, quote: str) -> None:
    site.edit(f"Symbol: Node.__init__\n\n```python\n{NODE_INIT}```", f"Symbol: {symbol}\n\n```python\n{quote}```")


def test_a_quote_of_a_module_level_assignment_builds_with_its_real_lines(site):
    quote_box_types(site, "box_types", '    "array": Node,\n')
    built, log = site.build()
    assert built is not None, log
    code, numbers, href = card(site)
    assert (code, numbers) == ('"array": Node,\n', ["22"])
    assert href == "../../source/pkg/mod.py/#L22-L22"  # the file's page on the site, at the real lines


def test_a_quote_outside_the_named_assignment_fails(site):
    quote_box_types(site, "primitive_vjps", 'box_types = {\n    "array": Node,\n}\n')
    code, err = site.check()
    assert code == 1
    assert report(err) == f"""\
1 problem:

docs/posts/p.md:9: REAL SOURCE pkg/mod.py (Symbol primitive_vjps) at {site.commit}: quote is lines 21-23, outside the symbol (lines 20-20)
  hint: name the symbol these lines belong to, or quote lines inside the named symbol
"""


def test_a_card_shows_the_quote_without_its_shared_indentation_numbered_and_linked_as_in_the_file(site):
    built, log = site.build()
    assert built is not None, log
    code, numbers, href = card(site)
    assert code == "def __init__(self, value):\n    self.value = value\n    self.parents = []\n"
    assert numbers == ["9", "10", "11"]
    assert href == "../../source/pkg/mod.py/#L9-L11"


def test_dedent_no_shows_the_quote_with_the_file_s_indentation(site):
    site.edit("Symbol: Node.__init__\n", "Symbol: Node.__init__\nDedent: no\n")
    built, log = site.build()
    assert built is not None, log
    assert card(site)[:2] == (NODE_INIT, ["9", "10", "11"])


def test_a_dedent_that_is_neither_yes_nor_no_fails_at_its_line(site):
    site.edit("Symbol: Node.__init__\n", "Symbol: Node.__init__\nDedent: off\n")
    code, err = site.check()
    assert code == 1
    assert report(err) == """\
1 problem:

docs/posts/p.md:12: REAL SOURCE: Dedent 'off' is neither yes nor no
  hint: write `Dedent: no` to show the quote with the file's indentation; yes (the default) removes the indentation its lines share
"""


def test_a_partial_experiment_quote_is_shown_dedented_with_the_script_s_line_numbers(site):
    (site.root / "experiments" / "loop.py").write_text("for i in range(2):\n    if i:\n        print(i)\n")
    site.edit("[EXPERIMENT]\nFile: " + SCRIPT + "\nPurpose: print a node.\n\n```python\nprint(\"node value 3\")\n"
              "print(\"parents []\")\n```",
              "[EXPERIMENT]\nFile: experiments/loop.py\nPurpose: the loop's body.\n\n```python\n    if i:\n"
              "        print(i)\n```")
    built, log = site.build()
    assert built is not None, log
    code, numbers, href = card(site, "experiment")
    assert (code, numbers) == ("if i:\n    print(i)\n", ["2", "3"])
    assert href.endswith("#L2-L3")


def test_a_hand_written_copy_of_a_dedented_card_is_refused(site):
    built, log = site.build()
    assert built is not None, log
    html = (built / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    copy = LexborHTMLParser(html).css_first(".proof-card--source").html
    site.edit("The end.\n", f"The end.\n\n{copy}\n")
    built, log = site.build()
    assert built is None
    assert "the page holds a hand-written proof-card proof-card--source element: only the build renders verified " \
           "cards" in report(log)


def test_a_line_of_spaces_alone_does_not_keep_the_indentation():
    excerpt = Excerpt(5, 7, "        a = 1\n  \n        b = 2")
    ref = FileRef("o/r", "0" * 40, "m.py")
    assert "```python linenums=\"5\"\na = 1\n\nb = 2\n```" in render.source_card(ref, "f", excerpt, "seal")
