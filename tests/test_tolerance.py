"""Tolerance in [OUTPUT] blocks: the header's forms, comparing numbers, what a mismatch names, what
`update` keeps, and what the page shows (the recorded output, with a stamp that says to what tolerance)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from codeproof.series.blocks import parse_post, parse_tolerance
from codeproof.experiments.compare import NumberApart, Reconciled, output_diff, outputs_match, reconcile
from codeproof.common.structure import Tolerance, number_text
from fixture_site import SCRIPT, SCRIPT_TEXT, make_site, report

pytestmark = pytest.mark.kills("tolerance")  # tests/mutations.py

REL = Tolerance(rel=1e-7)

# --- the Tolerance line --------------------------------------------------------------------


@pytest.mark.parametrize("text, tolerance", [
    ("1e-7", Tolerance(rel=1e-7)),
    ("rel=1e-7", Tolerance(rel=1e-7)),
    ("abs=1e-12", Tolerance(abs=1e-12)),
    ("rel=1e-7, abs=1e-12", Tolerance(rel=1e-7, abs=1e-12)),
    ("abs = 1e-12,rel = 1e-7", Tolerance(rel=1e-7, abs=1e-12)),
    ("rel=1e-7, abs=0", Tolerance(rel=1e-7)),
])
def test_a_tolerance_is_one_relative_number_or_rel_and_abs_keys(text, tolerance):
    assert parse_tolerance(text) == tolerance


def test_a_block_carries_its_tolerance_parsed_once():
    header = "[OUTPUT]\nFile: experiments/a.py\n"
    (plain,) = parse_post("docs/posts/x.md", header).blocks
    (tolerant,) = parse_post("docs/posts/x.md", header + "Tolerance: rel=1e-7, abs=1e-12\n").blocks
    assert plain.tolerance is None
    assert tolerant.tolerance == Tolerance(rel=1e-7, abs=1e-12)


def test_a_tolerance_reads_as_the_author_writes_it():
    assert str(Tolerance(rel=1e-7, abs=1e-12)) == "rel=1e-7, abs=1e-12"
    assert str(Tolerance(rel=0.001)) == "rel=0.001"


BOTH_FORMS = ("write `Tolerance: 1e-7` (a relative tolerance), or `Tolerance: rel=1e-7, abs=1e-12` "
              "(abs for values near zero; either key may stand alone)")


@pytest.mark.parametrize("value, wrong", [
    ("lots", "'lots' is not a number"),
    ("", "'' is not a number"),
    ("0", "rel must be a number above 0 and at most 0.01, not 0"),
    ("1", "rel must be a number above 0 and at most 0.01, not 1"),
    ("inf", "rel must be a number above 0 and at most 0.01, not inf"),
    ("nan", "rel must be a number above 0 and at most 0.01, not nan"),
    ("rel=-1e-7", "rel must be a number above 0 and at most 0.01, not -1e-7"),
    ("abs=-1e-12", "abs must be a number from 0 to 0.001, not -1e-12"),
    ("rel=1e-7, abs=inf", "abs must be a number from 0 to 0.001, not inf"),
    ("abs=0", "abs=0 alone allows no difference at all"),
    ("0.999", "rel must be a number above 0 and at most 0.01, not 0.999"),  # 900.0 for a printed 1.0
    ("abs=1e300", "abs must be a number from 0 to 0.001, not 1e300"),  # any number at all
    ("rel=1e-7; abs=1e-12", "'1e-7; abs=1e-12' is not a number"),
    ("rel=1e-7, 1e-12", "'1e-12' is not key=value"),
    ("rel=1e-7,", "'' is not key=value"),
    ("relative=1e-7", "unknown key 'relative': the keys are rel and abs"),
    ("rel=1e-7, rel=1e-6", "rel is given twice"),
])
def test_a_malformed_tolerance_fails_at_its_line_with_both_forms_in_the_hint(value, wrong):
    parsed = parse_post("docs/posts/x.md", f"Intro.\n\n[OUTPUT]\nFile: experiments/a.py\nTolerance: {value}\n")
    assert parsed.blocks == []
    assert [str(p) for p in parsed.problems] == [
        f"docs/posts/x.md:5: OUTPUT: Tolerance {value!r}: {wrong}\n  hint: {BOTH_FORMS}"]


# --- comparing -----------------------------------------------------------------------------


def test_a_number_within_tolerance_takes_the_recorded_text():
    reconciled = reconcile("x = 2.5322186\ny = 3.5", "x = 2.53221860000001\ny = 4.5", REL)
    assert reconciled.lines == ["x = 2.5322186", "y = 4.5"]
    assert reconciled.out == [NumberApart(1, "3.5", "4.5")]


@pytest.mark.parametrize("recorded, printed", [
    ("seed 20260101", "seed 20260102"),  # an integer is text: a seed, a count, an index
    ("y = 3", "y = 4"),
    ("dtype=float64", "dtype=float32"),  # digits inside a word
    ("version 1.9.1", "version 1.9.2"),
    ("x = 1-0.0001", "x = 1+0.0001"),  # an operator, not the number's sign
])
def test_a_tolerance_applies_to_floating_point_numbers_only(recorded, printed):
    generous = Tolerance(rel=0.5, abs=1.0)
    assert not outputs_match(recorded, printed, generous)
    assert reconcile(recorded, printed, generous) == Reconciled([printed])  # shown as printed, no number excused


def test_a_changed_sign_counts_as_far_as_the_number_allows():
    assert outputs_match("g = -1e-13", "g = 2e-13", Tolerance(abs=1e-12))
    assert not outputs_match("g = -0.5", "g = 0.5", Tolerance(rel=1e-7))


def test_an_absolute_tolerance_accepts_values_near_zero():
    assert outputs_match("err = 0.0", "err = 3e-13", Tolerance(rel=1e-7, abs=1e-12))
    assert outputs_match("err = 0.0", "err = 3e-13", Tolerance(abs=1e-12))
    assert not outputs_match("err = 0.0", "err = 3e-13", REL)


def test_the_numbers_of_a_line_are_kept_or_replaced_one_by_one():
    reconciled = reconcile("a=1.0 b=2.0 c=3.0", "a=1.00000000001 b=2.5 c=2.99999999999", REL)
    assert reconciled.lines == ["a=1.0 b=2.5 c=3.0"]
    assert reconciled.out == [NumberApart(0, "2.0", "2.5")]


def test_a_line_printed_more_leaves_the_other_lines_paired_with_their_own():
    reconciled = reconcile("x = 1.0\ny = 2.0", "a new line 5\nx = 1.00000000001\ny = 2.00000000001", REL)
    assert reconciled.lines == ["a new line 5", "x = 1.0", "y = 2.0"]
    assert reconciled.out == []


def test_the_diff_marks_only_the_lines_out_of_tolerance():
    recorded = "x = 2.5322186\ny = 3\nz = 1.5"
    reconciled = reconcile(recorded, "x = 2.53221860000001\ny = 4\nz = 1.50000000001", REL)
    assert output_diff(recorded, reconciled, "experiments/a.py", REL) == """\
--- recorded in the post
+++ printed by python -B experiments/a.py, numbers within tolerance as recorded
@@ -1,3 +1,3 @@
 x = 2.5322186
-y = 3
+y = 4
 z = 1.5
"""


finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)
perturbed = st.tuples(finite, st.floats(min_value=-1e-5, max_value=1e-5), st.floats(min_value=-1e-11, max_value=1e-11))
tolerances = st.builds(Tolerance, rel=st.sampled_from([1e-9, 1e-7, 1e-6]), abs=st.sampled_from([0.0, 1e-12]))


def exactly_close(recorded: str, printed: str, tolerance: Tolerance) -> bool:
    """math.isclose's rule in exact rational arithmetic, on the numbers as written."""
    x, y = Fraction(recorded), Fraction(printed)
    return abs(x - y) <= max(Fraction(tolerance.rel) * max(abs(x), abs(y)), Fraction(tolerance.abs))


@given(st.lists(perturbed, min_size=1, max_size=4), tolerances)
def test_a_number_is_accepted_and_unmarked_exactly_when_it_is_within_tolerance(numbers, tolerance):
    """Each line records x and prints x scaled and shifted a little: a line is kept as recorded, and left
    out of the diff, if and only if its number is within tolerance, as math.isclose's rule measures it exactly."""
    pairs = [(x, x * (1 + scale) + shift) for x, scale, shift in numbers]
    recorded = "\n".join(f"v{k} = {x!r}" for k, (x, _) in enumerate(pairs))
    printed = "\n".join(f"v{k} = {y!r}" for k, (_, y) in enumerate(pairs))
    close = [exactly_close(repr(x), repr(y), tolerance) for x, y in pairs]
    reconciled = reconcile(recorded, printed, tolerance)
    assert outputs_match(recorded, printed, tolerance) == all(close)
    assert reconciled.lines == [f"v{k} = {x if ok else y!r}" for k, ((x, y), ok) in enumerate(zip(pairs, close))]
    marked = {line[1:] for line in output_diff(recorded, reconciled, "a.py", tolerance).splitlines()
              if line.startswith("-v")}
    assert marked == {f"v{k} = {x!r}" for k, ((x, _), ok) in enumerate(zip(pairs, close)) if not ok}


written = st.builds("{}.{}e{}".format, st.integers(-99, 99), st.integers(0, 10 ** 17), st.integers(-999, 999))


@given(written, written, st.integers(-3, 3), tolerances)
def test_numbers_past_a_doubles_range_are_compared_as_written(a, b, nudge, tolerance):
    """As floats, 1e400 and 2e400 are both inf, 1e-400 and 2e-400 both 0.0, and each pair compared equal. Two
    numbers, any exponent, the second also the first moved in its last digit: accepted exactly when they are close."""
    mantissa, exponent = a.split("e")
    for printed in (b, f"{mantissa}{abs(nudge)}e{exponent}"):
        assert outputs_match(f"x = {a}", f"x = {printed}", tolerance) == exactly_close(a, printed, tolerance)


def test_a_difference_past_a_doubles_range_is_named_as_written():
    number = NumberApart(0, "1e400", "2e400")
    assert (number_text(number.relative, 2), number_text(number.absolute, 2)) == ("0.5", "1e400")
    assert not outputs_match("x = 1e-400", "x = 2e-400", REL)
    assert outputs_match("x = 1e-400", "x = 2e-400", Tolerance(rel=1e-7, abs=1e-300))


# --- on the fixture site -------------------------------------------------------------------

PRINTED = "x = 2.53221860000001\ny = 0.5 err = 3e-13"


@pytest.fixture
def site(tmp_path):
    """The fixture site whose experiment also prints two lines of numbers."""
    site = make_site(tmp_path)
    (site.root / SCRIPT).write_text(SCRIPT_TEXT + "".join(f"print({line!r})\n" for line in PRINTED.split("\n")),
                                    encoding="utf-8")
    return site


def record(site, tolerance: str | None, numbers: str) -> None:
    """Give the post's [OUTPUT] block this Tolerance line and these recorded number lines."""
    header = f"File: {SCRIPT}\n" + (f"Tolerance: {tolerance}\n" if tolerance else "")
    site.edit(f"File: {SCRIPT}\n\n```text\nnode value 3\nparents []\n",
              f"{header}\n```text\nnode value 3\nparents []\n{numbers}\n")


def stamp(built) -> str:
    page = LexborHTMLParser((built / "posts" / "p" / "index.html").read_text(encoding="utf-8"))
    return page.css_first(".proof-card--output .proof-card__stamp").text()


def shown_output(built) -> str:
    page = LexborHTMLParser((built / "posts" / "p" / "index.html").read_text(encoding="utf-8"))
    return page.css_first(".proof-card--output pre code").text()


def test_a_number_out_of_tolerance_is_named_at_its_post_line_with_both_numbers_and_the_difference(site):
    record(site, "1e-7", "x = 2.5323\ny = 0.5 err = 3e-13")
    built, log = site.build()
    assert built is None
    assert report(log) == f"""\
1 problem:

docs/posts/p.md:32: OUTPUT {SCRIPT}: output differs from the recorded output (first difference at docs/posts/p.md:39); \
1 number is out of tolerance
docs/posts/p.md:39: recorded 2.5323, printed 2.53221860000001: relative difference 3.2e-5, tolerance rel=1e-7
--- recorded in the post
+++ printed by python -B {SCRIPT}, numbers within tolerance as recorded
@@ -1,4 +1,4 @@
 node value 3
 parents []
-x = 2.5323
+x = 2.53221860000001
 y = 0.5 err = 3e-13
  hint: run `./dev.sh update` to record the new output (numbers within tolerance keep their recorded text), or fix the experiment"""


def test_under_an_absolute_tolerance_the_message_gives_the_absolute_difference_too(site):
    record(site, "rel=1e-7, abs=1e-14", "x = 2.5322186\ny = 0.5 err = 0.0")
    _, log = site.build()
    assert report(log).split("\n")[2:4] == [
        f"docs/posts/p.md:32: OUTPUT {SCRIPT}: output differs from the recorded output (first difference at "
        "docs/posts/p.md:40); 1 number is out of tolerance",
        "docs/posts/p.md:40: recorded 0.0, printed 3e-13: relative difference 1, absolute difference 3e-13, "
        "tolerance rel=1e-7, abs=1e-14",
    ]


def test_update_rewrites_only_the_numbers_out_of_tolerance(site):
    record(site, "rel=1e-7, abs=1e-14", "x = 2.5322186\ny = 0.50000000001 err = 0.0\nnot printed")
    assert site.check("update")[0] == 0
    assert "```text\nnode value 3\nparents []\nx = 2.5322186\ny = 0.50000000001 err = 3e-13\n```" \
        in site.post.read_text(encoding="utf-8")
    assert site.check()[0] == 0


@pytest.mark.parametrize("tolerance, recorded, agreement", [
    ("1e-7", "x = 2.5322186\ny = 0.5 err = 3.00000001e-13", "与运行结果在 1e-7 相对误差内一致"),
    ("rel=1e-7, abs=1e-12", "x = 2.5322186\ny = 0.5 err = 0.0", "与运行结果在相对误差 1e-7、绝对误差 1e-12 内一致"),
    ("abs=1e-12", "x = 2.5322186\ny = 0.5 err = 0.0", "与运行结果在 1e-12 绝对误差内一致"),
])
def test_under_a_tolerance_the_page_shows_the_recorded_output_and_the_stamp_says_so(site, tolerance, recorded, agreement):
    record(site, tolerance, recorded)
    built, log = site.build()
    assert built is not None, log
    assert shown_output(built) == f"node value 3\nparents []\n{recorded}\n"
    assert stamp(built).startswith(f"✓ 输出已验证 · {agreement} · Python ")


def test_the_script_page_shows_what_the_script_printed(site):
    record(site, "1e-7", "x = 2.5322186\ny = 0.5 err = 3.00000001e-13")
    built, log = site.build()
    assert built is not None, log
    page = LexborHTMLParser((built / "experiments" / "show" / "index.html").read_text(encoding="utf-8"))
    assert page.css_first(".series-script__output").text() == f"node value 3\nparents []\n{PRINTED}"


def test_without_a_tolerance_the_stamp_is_unchanged(site):
    record(site, None, PRINTED)
    built, log = site.build()
    assert built is not None, log
    assert stamp(built).startswith("✓ 输出已验证 · Python ")
