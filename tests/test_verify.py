"""Verifying quotes against a file: runs of whole lines, inside the named symbols; drift has a diff."""

from __future__ import annotations

from codeproof.blocks import parse_post
from codeproof.sources import FileRef
from codeproof.verify import verify_script_quote, verify_source_quote
from upstream import MODULE_V1

REF = FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")


def check(symbol, quote=None):
    fence = f"\n```python\n{quote}\n```\n" if quote is not None else ""
    text = f"[REAL SOURCE]\nFile: pkg/mod.py\nSymbol: {symbol}\n{fence}"
    (block,) = parse_post("docs/posts/x.md", text).blocks
    return verify_source_quote(block, REF, MODULE_V1)


def test_a_verbatim_run_inside_the_symbol_gets_its_real_line_numbers():
    checked = check("Node.__init__", "        self.value = value\n        self.parents = []")
    assert checked.problem is None
    assert (checked.excerpt.first, checked.excerpt.last) == (10, 11)


def test_a_call_statement_symbol_matches_callee_and_leading_arguments():
    checked = check("register(math.cos, ...)", "register(math.cos, lambda g: -g)")
    assert (checked.excerpt.first, checked.excerpt.last) == (18, 18)


def test_free_words_after_a_comma_are_a_description():
    assert check("Node, constructor part", "        self.value = value").problem is None


def test_several_symbols_joined_by_and_may_share_one_quote():
    quote = "register(math.sin, lambda g: g)\nregister(math.cos, lambda g: -g)"
    assert check("register(math.sin, ...) and register(math.cos, ...)", quote).problem is None


def test_a_header_alone_inserts_the_whole_symbol_decorators_included():
    checked = check("helper")
    assert checked.excerpt.text == "def helper(x):\n    return x + 1"
    assert checked.excerpt.first == 4


def test_one_changed_character_is_drift_with_a_diff_and_a_repair():
    checked = check("Node.__init__", "        self.value = valve")
    assert str(checked.problem).startswith(
        "docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at aaaaaaa: quote differs from source"
    )
    assert "-        self.value = valve" in checked.problem.detail
    assert "+        self.value = value" in checked.problem.detail
    assert checked.repair == "        self.value = value"


def test_changed_indentation_is_drift():
    checked = check("Node.__init__", "    self.value = value")
    assert "quote differs from source" in checked.problem.message


def test_a_dropped_line_is_drift_and_the_repair_restores_it():
    checked = check("Node.__init__", "    def __init__(self, value):\n        self.parents = []")
    assert "quote differs from source" in checked.problem.message
    assert checked.repair == "    def __init__(self, value):\n        self.value = value\n        self.parents = []"


def test_a_quote_outside_its_symbol_is_refused():
    checked = check("helper", "        self.value = value")
    assert "outside the symbol" in checked.problem.message
    assert "lines 10-10" in checked.problem.message


def test_an_unknown_symbol_suggests_close_names():
    checked = check("Nod.__init__", "        self.value = value")
    assert "symbol 'Nod.__init__' is not in the file" in checked.problem.message
    assert "Node" in checked.problem.hint


def test_an_experiment_quote_must_be_a_run_of_the_script():
    text = "[EXPERIMENT]\nFile: experiments/a.py\nPurpose: p\n\n```python\nb = 2\n```\n"
    (block,) = parse_post("docs/posts/x.md", text).blocks
    assert verify_script_quote(block, "a = 1\nb = 2\n").excerpt.first == 2
    assert "quote differs" in verify_script_quote(block, "a = 1\nb = 3\n").problem.message
