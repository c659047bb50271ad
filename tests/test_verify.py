"""Verifying quotes against a file: runs of whole lines, inside the named symbols; drift has a diff."""

from __future__ import annotations

import time

from codeproof.blocks import parse_post
from codeproof.structure import FileRef
from codeproof.verify import verify_script_quote, verify_source_quote
from upstream import MODULE_V1

REF = FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")


def check(symbol, quote=None, source=MODULE_V1):
    fence = f"\n```python\n{quote}\n```\n" if quote is not None else ""  # the first quoted line is line 6
    text = f"[REAL SOURCE]\nFile: pkg/mod.py\nSymbol: {symbol}\n{fence}"
    (block,) = parse_post("docs/posts/x.md", text).blocks
    return verify_source_quote(block, REF, source)


def drift_of_line_10(quoted_line):
    """The diff of a one-line quote of Node.__init__ that should read `        self.value = value` (line 10)."""
    return check("Node.__init__", quoted_line).problem.detail.split("@@ -1 +1 @@\n")[1]


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


def test_the_message_names_the_post_line_and_the_file_line_of_the_first_difference():
    quote = "    def __init__(self, value):\n        self.value = valve\n        self.parents = []"
    checked = check("Node.__init__", quote)
    assert checked.problem.line == 1  # the block's header
    assert checked.problem.message == (
        "REAL SOURCE pkg/mod.py (Symbol Node.__init__) at aaaaaaa: quote differs from source "
        "(first difference at docs/posts/x.md:7, line 10 of the file)"
    )


def test_a_trailing_space_shows_as_a_middle_dot():
    assert drift_of_line_10("        self.value = value  ") == (
        "-        self.value = value··\n+        self.value = value\n"
    )


def test_a_tab_shows_as_an_arrow():
    assert drift_of_line_10("\tself.value = value") == "-→self.value = value\n+        self.value = value\n"


def test_a_zero_width_space_shows_as_its_code_point():
    assert drift_of_line_10("        self.value\u200b = value") == (
        "-        self.value<U+200B> = value\n+        self.value = value\n"
    )


def test_a_cyrillic_look_alike_shows_as_its_code_point():
    assert drift_of_line_10("        self.v\u0430lue = value") == (
        "-        self.v<U+0430>lue = value\n+        self.value = value\n"
    )


def test_context_lines_and_wide_characters_are_shown_as_written():
    text = '[EXPERIMENT]\nFile: experiments/a.py\nPurpose: p\n\n```python\nx = 1\t# 一\nprint("第二")\n```\n'
    (block,) = parse_post("docs/posts/x.md", text).blocks
    detail = verify_script_quote(block, 'x = 1\t# 一\nprint("第一")\n').problem.detail
    assert detail.split("@@ -1,2 +1,2 @@\n")[1] == ' x = 1\t# 一\n-print("第二")\n+print("第一")\n'


def test_a_ten_thousand_line_quote_with_one_changed_character_is_reported_within_two_seconds():
    methods = [[f"    def f_{i}(self, x):", f"        total = x * {i}", f"        if total > {i % 7}:",
                "            total -= 1", "        return total", ""] for i in range(1667)]
    lines = ["class Big:", *(line for method in methods for line in method)][:-1]  # 10,002 lines
    quote = list(lines)
    quote[5003] = "        return totel"  # was "        return total"
    started = time.perf_counter()
    checked = check("Big", "\n".join(quote), "\n".join(lines) + "\n")
    assert time.perf_counter() - started < 2  # 0.1 s on the 2-core machine it was written on
    assert "(first difference at docs/posts/x.md:5009, line 5004 of the file)" in checked.problem.message
    assert "@@ -5002,5 +5002,5 @@\n" in checked.problem.detail
    assert "-        return totel\n+        return total\n" in checked.problem.detail
    assert checked.repair == "\n".join(lines)


def test_the_similarity_of_a_one_character_drift_is_high_and_of_an_unrelated_quote_low():
    assert check("Node.__init__", "        self.value = valve").similarity > 0.9
    assert check("Node.__init__", "print('hello')\nx = 42").similarity < 0.4


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
