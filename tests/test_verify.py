"""Verifying quotes against a file: runs of whole lines, inside the named symbols; drift has a diff."""

from __future__ import annotations

import difflib


import pytest

from codeproof.series.blocks import parse_post
from codeproof.common.structure import FileRef
from codeproof.quotes.verify import verify_script_quote, verify_source_quote
from upstream import MODULE_V1

REF = FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")


def check(symbol, quote=None, source=MODULE_V1):
    fence = f"\n```python\n{quote}\n```\n" if quote is not None else ""  # the first quoted line is line 6
    text = f"[REAL SOURCE]\nFile: pkg/mod.py\nSymbol: {symbol}\n{fence}"
    (block,) = parse_post("docs/posts/x.md", text).blocks
    return verify_source_quote(block, REF, source)


def drift_of_line_10(quoted_line):
    """The problem of a one-line quote of Node.__init__ that should read `        self.value = value` (line 10)."""
    return str(check("Node.__init__", quoted_line).problem)


def line_10_drift(shown):
    """The whole report of a one-line quote (line 6 of the post) of line 10, shown in its diff as `shown`."""
    return f"""\
docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at aaaaaaa: quote differs from source (first difference at docs/posts/x.md:6, line 10 of the file)
--- docs/posts/x.md (quote)
+++ pkg/mod.py@aaaaaaa lines 10-10
@@ -1 +1 @@
-{shown}
+        self.value = value
  hint: run `./dev.sh update` to take lines 10-10 from the pinned file, or fix the quote by hand"""


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
    assert str(checked.problem) == line_10_drift("        self.value = valve")
    assert checked.repair == "        self.value = value"


def test_the_message_names_the_post_line_and_the_file_line_of_the_first_difference():
    quote = "    def __init__(self, value):\n        self.value = valve\n        self.parents = []"
    checked = check("Node.__init__", quote)
    # line 1: the block's header; line 7: the quote's second line (the fence is line 5)
    assert str(checked.problem) == """\
docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at aaaaaaa: quote differs from source (first difference at docs/posts/x.md:7, line 10 of the file)
--- docs/posts/x.md (quote)
+++ pkg/mod.py@aaaaaaa lines 9-11
@@ -1,3 +1,3 @@
     def __init__(self, value):
-        self.value = valve
+        self.value = value
         self.parents = []
  hint: run `./dev.sh update` to take lines 9-11 from the pinned file, or fix the quote by hand"""


def test_a_trailing_space_shows_as_a_middle_dot():
    assert drift_of_line_10("        self.value = value  ") == line_10_drift("        self.value = value··")


def test_a_tab_shows_as_an_arrow():
    assert drift_of_line_10("\tself.value = value") == line_10_drift("→self.value = value")


def test_a_zero_width_space_shows_as_its_code_point():
    assert drift_of_line_10("        self.value\u200b = value") == line_10_drift("        self.value<U+200B> = value")


def test_a_cyrillic_look_alike_shows_as_its_code_point():
    assert drift_of_line_10("        self.v\u0430lue = value") == line_10_drift("        self.v<U+0430>lue = value")


def test_context_lines_and_wide_characters_are_shown_as_written():
    text = '[EXPERIMENT]\nFile: experiments/a.py\nPurpose: p\n\n```python\nx = 1\t# 一\nprint("第二")\n```\n'
    (block,) = parse_post("docs/posts/x.md", text).blocks
    problem = verify_script_quote(block, 'x = 1\t# 一\nprint("第一")\n').problem
    assert str(problem) == """\
docs/posts/x.md:1: EXPERIMENT experiments/a.py: quote differs from source (first difference at docs/posts/x.md:7, line 2 of the file)
--- docs/posts/x.md (quote)
+++ experiments/a.py lines 1-2
@@ -1,2 +1,2 @@
 x = 1\t# 一
-print("第二")
+print("第一")
  hint: run `./dev.sh update` to take lines 1-2 from experiments/a.py into the post, or fix the quote (or the script) by hand"""


def test_a_ten_thousand_line_quote_with_one_changed_character_is_reported_comparing_lines_only_where_they_differ(
        monkeypatch):
    """What the time is made of: the unequal lines are told by their hashes, and difflib compares characters only
    for the changed line (0.1 s on a 2-core machine; a comparison of every line with every other took minutes)."""
    methods = [[f"    def f_{i}(self, x):", f"        total = x * {i}", f"        if total > {i % 7}:",
                "            total -= 1", "        return total", ""] for i in range(1667)]
    lines = ["class Big:", *(line for method in methods for line in method)][:-1]  # 10,002 lines
    quote = list(lines)
    quote[5003] = "        return totel"  # was "        return total"
    compared = []
    matcher = difflib.SequenceMatcher.set_seq1
    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", lambda self, a: compared.append(a) or matcher(self, a))
    checked = check("Big", "\n".join(quote), "\n".join(lines) + "\n")
    assert len(compared) <= 4
    # The quote is the whole file, from line 6 of the post: its line 5004 is the post's line 5009.
    assert str(checked.problem) == (
        "docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol Big) at aaaaaaa: quote differs from source (first difference "
        "at docs/posts/x.md:5009, line 5004 of the file)\n"
        "--- docs/posts/x.md (quote)\n"
        "+++ pkg/mod.py@aaaaaaa lines 1-10002\n"
        "@@ -5002,5 +5002,5 @@\n"
        "         if total > 0:\n"
        "             total -= 1\n"
        "-        return totel\n"
        "+        return total\n"
        " \n"  # the blank line between two methods
        "     def f_834(self, x):\n"
        "  hint: run `./dev.sh update` to take lines 1-10002 from the pinned file, or fix the quote by hand"
    )
    assert checked.repair == "\n".join(lines)


def test_the_similarity_of_a_one_character_drift_is_high_and_of_an_unrelated_quote_low():
    assert check("Node.__init__", "        self.value = valve").similarity > 0.9
    assert check("Node.__init__", "print('hello')\nx = 42").similarity < 0.4


def test_changed_indentation_is_drift():
    checked = check("Node.__init__", "    self.value = value")
    assert str(checked.problem) == line_10_drift("    self.value = value")


def test_a_dropped_line_is_drift_and_the_repair_restores_it():
    checked = check("Node.__init__", "    def __init__(self, value):\n        self.parents = []")
    assert str(checked.problem) == """\
docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at aaaaaaa: quote differs from source (first difference at docs/posts/x.md:7, line 10 of the file)
--- docs/posts/x.md (quote)
+++ pkg/mod.py@aaaaaaa lines 9-11
@@ -1,2 +1,3 @@
     def __init__(self, value):
+        self.value = value
         self.parents = []
  hint: run `./dev.sh update` to take lines 9-11 from the pinned file, or fix the quote by hand"""
    assert checked.repair == "    def __init__(self, value):\n        self.value = value\n        self.parents = []"


def test_a_quote_outside_its_symbol_is_refused():
    checked = check("helper", "        self.value = value")
    assert str(checked.problem) == (
        "docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol helper) at aaaaaaa: quote is lines 10-10, outside the symbol "
        "(lines 4-5)\n  hint: name the symbol these lines belong to, or quote lines inside the named symbol"
    )


def test_an_unknown_symbol_suggests_close_names_at_the_symbol_line():
    checked = check("Nod.__init__", "        self.value = value")
    assert str(checked.problem) == (
        "docs/posts/x.md:3: REAL SOURCE pkg/mod.py (Symbol Nod.__init__) at aaaaaaa: symbol 'Nod.__init__' is not in "
        "the file\n  hint: did you mean Node.__init__?"
    )


def test_an_experiment_quote_must_be_a_run_of_the_script():
    text = "[EXPERIMENT]\nFile: experiments/a.py\nPurpose: p\n\n```python\nb = 2\n```\n"
    (block,) = parse_post("docs/posts/x.md", text).blocks
    assert verify_script_quote(block, "a = 1\nb = 2\n").excerpt.first == 2
    assert str(verify_script_quote(block, "a = 1\nb = 3\n").problem) == """\
docs/posts/x.md:1: EXPERIMENT experiments/a.py: quote differs from source (first difference at docs/posts/x.md:6, line 2 of the file)
--- docs/posts/x.md (quote)
+++ experiments/a.py lines 2-2
@@ -1 +1 @@
-b = 2
+b = 3
  hint: run `./dev.sh update` to take lines 2-2 from experiments/a.py into the post, or fix the quote (or the script) by hand"""


TWICE = "count = 0\n\n\ndef bump():\n    pass\n\n\ncount += 1\n"  # `count` stands on lines 1 and 8


def test_a_quote_of_a_name_assigned_twice_lies_within_one_of_its_statements():
    assert check("count", "count += 1", TWICE).excerpt.first == 8


def test_a_quote_across_both_statements_of_a_name_assigned_twice_is_refused_naming_both():
    quote = "count = 0\n\n\ndef bump():\n    pass\n\n\ncount += 1"
    assert str(check("count", quote, TWICE).problem) == (
        "docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol count) at aaaaaaa: quote is lines 1-8, outside the symbol "
        "(lines 1-1, 8-8 of 'count', one of which must hold it)\n"
        "  hint: name the symbol these lines belong to, or quote lines inside the named symbol"
    )


def test_a_header_alone_of_a_name_assigned_twice_is_refused():
    assert str(check("count", source=TWICE).problem) == (
        "docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol count) at aaaaaaa: symbol 'count' stands in 2 places "
        "(lines 1-1, 8-8), so a header alone cannot say which to insert\n"
        "  hint: quote the lines you mean in a fenced block"
    )


def test_a_file_with_a_lone_carriage_return_is_refused_for_its_lines_are_not_pythons():
    # Python breaks a line at the lone CR, so f spans lines 1-3 to it; split at LF, `c = 3` is line 3.
    source = "def f():\n    a = 1\r    b = 2\nc = 3\n"
    assert str(check("f", "c = 3", source=source).problem) == (
        "docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol f) at aaaaaaa: the file holds a carriage return not "
        "followed by a line feed (line 2), where Python breaks a line and the file's lines do not, so no symbol "
        "can be matched to its lines\n"
        "  hint: quote a file whose lines end in LF or CRLF")


def test_a_quote_dedented_by_hand_is_told_to_keep_the_files_indentation():
    checked = check("Node.__init__", "def __init__(self, value):\n    self.value = value\n    self.parents = []")
    assert str(checked.problem) == (
        "docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at aaaaaaa: the quote is lines 9-11 of "
        "pkg/mod.py@aaaaaaa without their indentation\n"
        "  hint: keep each line's indentation as in the file (copy the lines as they are): the card removes the "
        "indentation the lines share, or shows it with `Dedent: no`")
    assert checked.repair == "    def __init__(self, value):\n        self.value = value\n        self.parents = []"


@pytest.mark.parametrize("source, module", [("from .tracer import trace, Box\n", "pkg/tracer"),
                                            ("from ..util import trace\n", "util"),
                                            ("from pkg.tracer import trace as trace\n", "pkg/tracer")])
def test_a_symbol_the_file_only_imports_points_to_the_file_that_defines_it(source, module):
    """`trace` in core.py, which imports it: the hint said only "check the Symbol line against the file"."""
    checked = verify_source_quote(parse_post("docs/posts/x.md", "[REAL SOURCE]\nFile: pkg/core.py\nSymbol: trace\n"
                                             ).blocks[0], FileRef("a/b", "a" * 40, "pkg/core.py"), source + "x = 1\n")
    assert checked.problem.hint == (
        f"pkg/core.py only imports trace (line 1: `{source.strip()}`), from {module}.py (or {module}/__init__.py): "
        "quote the file that defines it, that one or the one it imports it from")


def test_a_misspelt_call_is_matched_against_the_files_calls_not_its_imports():
    """The new author's `defvjp(anp.ad, ...)` in a file that imports defvjp got "defined in autograd/extend.py":
    false twice (extend.py re-imports it, and the author meant the file's own call `defvjp(anp.add, ...)`)."""
    source = "from autograd.extend import defvjp\nimport numpy as anp\n\ndefvjp(anp.add, lambda g: g)\n"
    checked = verify_source_quote(parse_post("docs/posts/x.md", "[REAL SOURCE]\nFile: pkg/core.py\n"
                                             "Symbol: defvjp(anp.ad, ...)\n").blocks[0],
                                  FileRef("a/b", "a" * 40, "pkg/core.py"), source)
    assert checked.problem.message.endswith("symbol 'defvjp(anp.ad, ...)' is not in the file")
    assert checked.problem.hint == "did you mean defvjp(anp.add, ...)?"


def test_a_quote_that_overruns_its_symbol_by_a_line_says_which_and_update_trims_it():
    """The new author's quote took the line after the method: "outside the symbol" did not say to drop it."""
    checked = check("Node.__init__", "        self.value = value\n        self.parents = []\n")
    assert str(checked.problem) == (
        "docs/posts/x.md:1: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at aaaaaaa: quote is lines 10-12, of which "
        "line 12 is outside the symbol (lines 9-11)\n"
        "  hint: drop line 12 from the quote (`./dev.sh update` keeps lines 10-11), or name the symbol they belong to as "
        "well (`Symbol: a and b`)")
    assert checked.repair == "        self.value = value\n        self.parents = []"
