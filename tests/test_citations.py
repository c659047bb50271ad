"""Citations in a post's words: each form links to the line named here by hand, an explicit one that names
nothing fails the strict build at its line, a bare name is never guessed, and the text a reader sees is the same."""

from __future__ import annotations

import re
from urllib.parse import urljoin

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from codeproof.common.usercache import repository_cache
from codeproof.engine import Engine
from codeproof.quotes import citations
from codeproof.quotes.citations import PinnedTree, Target
from codeproof.series.config import load_series
from codeproof.common import pagetree
from codeproof.site.citations import link_citations, read_words
from fixture_site import SCRIPT, SCRIPT_TEXT, make_site, report
from upstream import MODULE_V1

TWICE = "def helper(y):\n    return y\n\n\ndef only_here():\n    cache = {}\n    return cache\n"
FILES = {
    "pkg/mod.py": MODULE_V1,  # helper 4-5, Node 8, Node.__init__ 9-11, Node.scaled 13-14, register(math.cos) 18, primitive_vjps 20
    "pkg/__init__.py": "from .mod import helper as aid\n",
    "pkg/twice.py": TWICE,  # helper 1-2 (so `helper` names two), only_here 5-7, its local cache at 6
    "examples/demo.py": "def demo_rule(ans, x):\n    return ans\n",
}
SCRIPT_WITH_DEF = SCRIPT_TEXT + "\n\ndef shown_node():\n    return 3\n"  # shown_node at line 7

WORDS = """\
Paths: `pkg/mod.py` and `twice.py`.

| cite | what |
| --- | --- |
| `mod.py :: Node.scaled` | a method |
| `pkg :: aid` | a re-export |

Lines `pkg/mod.py:20` and `mod.py:20-21`; names `primitive_vjps`, `Node.__init__`, `primitive_vjps[fun]`, `cache`;
a call `mod.py :: register(math.cos, ...)`; an example `examples/demo.py :: demo_rule`; the script's `shown_node`.

Maths `x*g`, `cos(x)`, `g=1` and `lambda g: g`; two definitions: `helper`; kept text: `primitive_vjps`{.plain}.

```text
primitive_vjps[fun] -> helper(x)
```
"""
PAGE = "https://example.org/posts/p/"


@pytest.fixture(scope="module")
def cited(tmp_path_factory):
    """The fixture site with the words above in its post, locked and built."""
    site = make_site(tmp_path_factory.mktemp("citations"), versions=(FILES,))
    (site.root / SCRIPT).write_text(SCRIPT_WITH_DEF, encoding="utf-8")
    site.edit("Some prose about `Node`.", WORDS)
    assert site.check("lock")[0] == 0
    built, log = site.build()
    assert built, log
    return site, (built / "posts" / "p" / "index.html").read_text(encoding="utf-8")


def links(page: str) -> dict[str, tuple[str, str]]:
    """Each inline code's text -> (the text its citation link covers, where it leads), for the linked ones."""
    found = {}
    for code in LexborHTMLParser(page).css("code"):
        link = code.css_first("a.series-cite")
        if code.parent.tag == "pre":  # a fence's, not inline
            continue
        if link is not None:
            found[code.text()] = (link.text(), urljoin(PAGE, link.attributes["href"]))
    return found


def test_each_form_links_to_the_line_named_by_hand(cited):
    site, page = cited
    source = "https://example.org/source/"
    assert links(page) == {
        "pkg/mod.py": ("pkg/mod.py", source + "pkg/mod.py/"),
        "twice.py": ("twice.py", source + "pkg/twice.py/"),
        "mod.py :: Node.scaled": ("mod.py :: Node.scaled", source + "pkg/mod.py/#L13-L14"),
        "pkg :: aid": ("pkg :: aid", source + "pkg/mod.py/#L4-L5"),
        "pkg/mod.py:20": ("pkg/mod.py:20", source + "pkg/mod.py/#L20"),
        "mod.py:20-21": ("mod.py:20-21", source + "pkg/mod.py/#L20-L21"),
        "primitive_vjps": ("primitive_vjps", source + "pkg/mod.py/#L20"),
        "Node.__init__": ("Node.__init__", source + "pkg/mod.py/#L9"),
        "primitive_vjps[fun]": ("primitive_vjps", source + "pkg/mod.py/#L20"),
        "cache": ("cache", source + "pkg/twice.py/#L6"),
        "mod.py :: register(math.cos, ...)": ("mod.py :: register(math.cos, ...)", source + "pkg/mod.py/#L18"),
        "examples/demo.py :: demo_rule": ("examples/demo.py :: demo_rule", "https://github.com/fixture/upstream/blob/"
                                          f"{site.upstream.commits[0]}/examples/demo.py#L1-L2"),
        "shown_node": ("shown_node", "https://example.org/experiments/show/#L7"),
    }


def test_a_text_fence_links_whole_identifiers_that_name_one_definition_and_nothing_else(cited):
    _, page = cited
    fence = LexborHTMLParser(page).css_first("div.language-text")
    assert [a.text() for a in fence.css("a")] == ["primitive_vjps"]
    assert fence.text().strip() == "primitive_vjps[fun] -> helper(x)"


def test_the_words_read_the_same_with_their_citations_linked(cited, tmp_path):
    site, page = cited
    plain = make_site(tmp_path, versions=(FILES,))
    (plain.root / SCRIPT).write_text(SCRIPT_WITH_DEF, encoding="utf-8")
    plain.edit("Some prose about `Node`.", re.sub(r"`([^`\n]+)`(?!\{)", r"`\1`{.plain}", WORDS))
    assert plain.check("lock")[0] == 0
    built, log = plain.build()
    assert built, log
    other = (built / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    assert not links(other) and links(page)

    def words(html: str) -> str:  # the page's words: its cards (their stamps say when they ran) and commits aside
        page = LexborHTMLParser(html)
        for card in page.css("[class*=proof-card]"):
            card.decompose()
        return re.sub(r"[0-9a-f]{7,40}", "<commit>", page.body.text())

    assert words(page) == words(other)


def test_check_references_lists_every_span_with_its_verdict(cited, capsys):
    site, _ = cited
    from codeproof.__main__ import main

    assert main(["check", "--references", "--config", str(site.root / "mkdocs.yml")]) == 0
    out = capsys.readouterr().out
    assert "docs/posts/p.md:17: `helper` text: ambiguous: 2 definitions (pkg/mod.py:4, pkg/twice.py:1)" in out
    assert "docs/posts/p.md:14: `primitive_vjps[fun]` -> pkg/mod.py:20" in out
    assert "docs/posts/p.md:17: `x*g` text: not a citation" in out
    assert "docs/posts/p.md:17: `primitive_vjps` text: text by the author's choice ({.plain})" in out
    assert re.search(r"^docs/posts/p\.md: 19 code spans, 13 linked, 6 text$", out, re.M), out


@pytest.mark.parametrize("written, said, hint", [
    ("`mod.py :: Node.scaeld`", "pkg/mod.py defines no Node.scaeld", "did you mean Node.scaled?"),
    ("`pkg/mdo.py`", "pkg/mdo.py is no file at the pin", "did you mean pkg/mod.py?"),
    ("`mod.py:99`", "pkg/mod.py has 23 lines: there is no line 99", "cite lines between 1 and 23"),
    ("`mod.py :: register(math.co, ...)`", "pkg/mod.py defines no register(math.co, ...)",
     "did you mean register(math.cos, ...), register(math.sin, ...)?"),
    ("`helper.py`", "helper.py is no file at the pin", "check the path against the pin's files"),
    # Issue 52: without bounds, a RecursionError and a ValueError ended the build with a traceback.
    ("`mod.py :: register(" + "-" * 1500 + "1)`", "symbol 'register(" + "-" * 31 + "'… is 1511 characters long, more "
     "than a symbol is (300 at most)", "write `name`, `Class.method` or a call such as `defvjp(anp.add, ...)`"),
    ("`mod.py:" + "1" * 5000 + "`", "111111111111… (5000 digits) is no line of pkg/mod.py",
     "cite a line number the file has"),
], ids=["symbol", "path", "line", "call", "unknown-path", "deep-symbol", "long-line"])
def test_an_explicit_citation_that_names_nothing_fails_at_its_line_saying_what_the_pin_holds(
        tmp_path, written, said, hint):
    site = make_site(tmp_path, versions=(FILES,))
    site.edit("Some prose about `Node`.", f"First line.\n\nThe words cite {written} here.")
    built, log = site.build()
    assert built is None
    assert report(log) == (f"1 problem:\n\ndocs/posts/p.md:9: {written} cites nothing at the pin: {said}\n"
                           f"  hint: {hint}; or, if it is not a citation, write {written}{{.plain}}")


def test_a_cited_file_the_lock_does_not_record_fails_until_lock_records_it(tmp_path):
    site = make_site(tmp_path, versions=(FILES,))
    site.edit("Some prose about `Node`.", "The other file: `twice.py`.")
    built, log = site.build()
    assert built is None
    assert report(log) == ("1 problem:\n\ndocs/posts/p.md:7: `twice.py` cites pkg/twice.py, which sources.lock.json "
                           "does not record\n  hint: run `./dev.sh lock` to record it, and commit the lock: CI proves "
                           "every cited file against it")
    assert site.check("lock")[0] == 0
    assert "pkg/twice.py" in (site.root / "sources.lock.json").read_text()
    assert site.build()[0] is not None


def test_a_cited_file_unlike_its_lock_entry_fails_as_a_quoted_one_does(tmp_path):
    site = make_site(tmp_path, versions=(FILES,))
    site.edit("Some prose about `Node`.", "An example: `examples/demo.py`.")
    assert site.check("lock")[0] == 0
    lock = site.root / "sources.lock.json"
    blob = re.search(r'"examples/demo.py": "([0-9a-f]{40})"', lock.read_text()).group(1)
    lock.write_text(lock.read_text().replace(blob, "0" * 40))
    built, log = site.build()
    assert built is None
    assert report(log) == (f"1 problem:\n\ndocs/posts/p.md:7: `examples/demo.py` cites examples/demo.py: "
                           f"fixture/upstream@{site.commit}:examples/demo.py is blob {blob} (from git), but the lock "
                           f"says {'0' * 40}\n  hint: the lock entry is wrong: delete it from sources.lock.json and run "
                           "`./dev.sh lock`")


def test_the_kept_definitions_are_a_convenience_never_evidence(tmp_path):
    site = make_site(tmp_path, versions=(FILES,))
    engine = Engine(load_series(site.root / "mkdocs.yml"))
    package = {path: text.encode() for path, text in FILES.items() if path.startswith("pkg/")}
    assert engine.pinned_tree(package, {}).verdict("only_here").target == Target("pkg/twice.py", 5, 5)
    [kept] = (repository_cache(site.root) / "citations").glob("definitions-*.json")
    signature, _, data = kept.read_bytes().partition(b"\n")
    assert b'["pkg/twice.py", 5]' in data
    kept.write_bytes(signature + b"\n" + data.replace(b'["pkg/twice.py", 5]', b'["pkg/twice.py", 7]'))
    citations._DEFINED.clear()  # as a new process
    assert engine.pinned_tree(package, {}).verdict("only_here").target == Target("pkg/twice.py", 5, 5)


def test_serve_shows_a_failed_citation_in_place(tmp_path):
    site = make_site(tmp_path, versions=(FILES,))
    site.edit("Some prose about `Node`.", "Cites `mod.py :: nothing_here`.")
    site.build(command="serve")
    page = (site.root / "site" / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    assert "cites nothing at the pin: pkg/mod.py defines no nothing_here" in page


# --- the promise as a property: a link leads exactly to that name's definition, or there is none -------------

# What the fixture's files define, written by hand (not read by the code under test): a bare name -> its one
# definition's file and line, or None where it names several.
DEFINED = {"helper": None, "Node": ("pkg/mod.py", 8), "Node.__init__": ("pkg/mod.py", 9),
           "Node.scaled": ("pkg/mod.py", 13), "primitive_vjps": ("pkg/mod.py", 20), "box_types": ("pkg/mod.py", 21),
           "only_here": ("pkg/twice.py", 5), "cache": ("pkg/twice.py", 6), "aid": None}
IN_FILE = {"pkg/mod.py": {"helper": 4, "Node": 8, "Node.__init__": 9, "Node.scaled": 13, "primitive_vjps": 20,
                          "box_types": 21},
           "pkg/twice.py": {"helper": 1, "only_here": 5}}
FILE_NAMES = {"mod.py": "pkg/mod.py", "pkg/mod.py": "pkg/mod.py", "twice.py": "pkg/twice.py", "mdo.py": None,
              "pkg.twice": "pkg/twice.py", "pkg/nope.py": None}
MATHS = ["x*g", "cos(x)", "g=1", "lambda g: g", "dL/dx", "[1,2]", "a + b", "@primitive"]


def _near_miss(name: str, draw) -> str:
    at = draw(st.integers(0, len(name) - 1))
    return name[:at] + draw(st.sampled_from("xz_.")) + name[at + 1:]


@st.composite
def spans(draw):
    kind = draw(st.sampled_from(["name", "near", "maths", "explicit"]))
    if kind == "maths":
        return draw(st.sampled_from(MATHS))
    name = draw(st.sampled_from(sorted(DEFINED)))
    if kind == "near":
        name = _near_miss(name, draw)
    if kind == "explicit":
        return f"{draw(st.sampled_from(sorted(FILE_NAMES)))} :: {name}"
    return name + draw(st.sampled_from(["", "[fun]", "(g)"]))


def _tree() -> PinnedTree:
    package = {path: text for path, text in FILES.items() if path.startswith("pkg/")}

    def read(path):
        return FILES[path]

    return PinnedTree(FILES, read, package, {})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(spans(), min_size=1, max_size=6))
def test_a_citation_links_to_exactly_its_definition_or_nowhere_and_fails_only_when_explicit_and_unresolved(texts):
    tree = _tree()
    page = "<p>" + " ".join(f"<code>{t.replace('&', '&amp;').replace('<', '&lt;')}</code>" for t in texts) + "</p>"
    written = pagetree.read(page)
    codes, fences = read_words(written)
    assert [code.text for code in codes] == texts
    link_citations(codes, [tree.verdict(code.text) for code in codes], fences, tree.name_verdict,
                   lambda target: f"{target.path}#{target.first}", lambda target: "")
    linked = pagetree.written(written)
    shown = {code.text(): code.css_first("a") for code in LexborHTMLParser(linked).css("code")}
    for text in texts:
        verdict = tree.verdict(text)
        file, _, symbol = text.partition(" :: ")
        if symbol:  # explicit: resolves exactly where the hand table says, else fails
            path = FILE_NAMES[file]
            expected = IN_FILE.get(path, {}).get(symbol)
            assert verdict.failed == (expected is None), text
            assert (shown[text] is not None) == (expected is not None)
            if expected:
                assert shown[text].attributes["href"] == f"{path}#{expected}"
            continue
        assert not verdict.failed
        name = re.match(r"[\w.]*", text).group()
        expected = DEFINED.get(name) if text in (name, name + "[fun]", name + "(g)") else None
        link = shown[text]
        if expected is None:
            assert link is None, text
        else:
            assert link is not None and link.attributes["href"] == f"{expected[0]}#{expected[1]}", text
            assert link.text() == name
    assert LexborHTMLParser(linked).text() == LexborHTMLParser(page).text()  # the words are the same


@pytest.mark.slow
def test_the_strict_build_fails_exactly_on_an_explicit_citation_that_names_nothing_and_links_only_definitions(
        tmp_path):
    """The property above, through real builds of the fixture post: Hypothesis writes spans into its words. Both
    outcomes must occur (counted here)."""
    site = make_site(tmp_path, versions=(FILES,))
    site.edit("Some prose about `Node`.", "Cites `twice.py` and `pkg/__init__.py`.")
    assert site.check("lock")[0] == 0  # every file the fixture's citations may resolve in
    post = site.post.read_text(encoding="utf-8")
    outcomes = {"built": 0, "failed": 0}

    @settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(spans(), min_size=1, max_size=4))
    def run(texts):
        site.post.write_text(post.replace("Cites", " ".join(f"`{t}`" for t in texts) + ". Cites"), encoding="utf-8")
        built, log = site.build()
        explicit = [t for t in texts if " :: " in t]
        unresolved = [t for t in explicit if IN_FILE.get(FILE_NAMES[t.partition(" :: ")[0]], {}).get(
            t.partition(" :: ")[2]) is None]
        assert (built is None) == bool(unresolved), log
        outcomes["built" if built else "failed"] += 1
        if built is None:
            assert all(f"`{t}` cites nothing at the pin" in log for t in unresolved)
            return
        for text, (shown, href) in links((built / "posts" / "p" / "index.html").read_text(encoding="utf-8")).items():
            if text in ("twice.py", "pkg/__init__.py"):
                continue
            file, _, symbol = text.partition(" :: ")
            if symbol:
                path, line = FILE_NAMES[file], IN_FILE[FILE_NAMES[file]][symbol]
            else:
                path, line = DEFINED[shown]
            assert href.startswith(f"https://example.org/source/{path}/#L{line}"), (text, href)

    run()
    assert outcomes["built"] and outcomes["failed"], outcomes


@pytest.mark.parametrize("text, why", [
    ("array(1.)", "a value as NumPy prints it, not a citation (cite `file :: array` to link its definition)"),
    ("np.array([1., 2.])", "a value as NumPy prints it, not a citation (cite `file :: array` to link its definition)"),
    ("float64(2.0)", "a value as NumPy prints it, not a citation (cite `file :: float64` to link its definition)"),
    ("array(x)", "unknown: defined nowhere in the package or the post's experiments"),  # a call: cited, of nothing here
    ("Node(3.0)", None),  # a call of the package's own name, with a value: cited
])
def test_a_value_as_numpy_prints_it_is_no_citation_but_a_call_is(text, why):
    """Issue 53: `array(1.)`, NumPy's printout of a value, linked to numpy_wrapper.py:83 without a word."""
    verdict = _tree().verdict(text)
    assert verdict.why == why or (why is None and verdict.target.path == "pkg/mod.py" and verdict.target.first == 8)
