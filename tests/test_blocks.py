"""Parsing a post into blocks: fields, quote, post line; malformed blocks are problems."""

from __future__ import annotations

import re

import pytest

from codeproof.series.blocks import parse_post, read_post
from codeproof.series.frontmatter import split_front_matter
from codeproof.common.kinds.registry import BlockKind

GOOD = """\
Intro.

[REAL SOURCE]
File: autograd/core.py
Symbol: VJPNode.__init__

```python
    def __init__(self):
        pass
```
"""


def parse(text, first_line=1):
    return parse_post("docs/posts/x.md", text, first_line)


def test_a_block_has_kind_fields_quote_and_line():
    (block,) = parse(GOOD).blocks
    assert block.kind is BlockKind.SOURCE
    assert block.fields == {"File": "autograd/core.py", "Symbol": "VJPNode.__init__"}
    assert block.quote == "    def __init__(self):\n        pass"
    assert block.where() == "docs/posts/x.md:3"


def test_lines_count_the_front_matter():
    raw = "---\ntitle: t\nseries: 1\n---\n" + GOOD
    first_line, body = split_front_matter(raw)
    (block,) = parse(body, first_line).blocks
    assert raw.splitlines()[block.line - 1] == "[REAL SOURCE]"


def test_a_header_without_a_fence_has_no_quote():
    (block,) = parse("[EXPERIMENT]\nFile: experiments/a.py\nPurpose: p\n\nProse.\n").blocks
    assert block.quote is None


def test_blocks_shown_inside_code_fences_are_not_blocks():
    text = "````markdown\n" + GOOD + "````\n"
    parsed = parse(text)
    assert parsed.blocks == [] and parsed.problems == []


NOT_A_PATH = "must be a relative POSIX path without '..' or invisible characters\n  hint: write it as in the repository, e.g. autograd/core.py"
NOT_YES_OR_NO = ("is neither yes nor no\n  hint: write `Dedent: no` to show the quote with the file's indentation; yes (the "
                 "default) removes the indentation its lines share")


@pytest.mark.parametrize(
    "header, problem",
    [
        ("[REAL SOURCE]\nSymbol: f", "REAL SOURCE: File is missing or empty\n  hint: add a `File: …` line to the header"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol:", "REAL SOURCE: Symbol is missing or empty\n  hint: add a `Symbol: …` line to the header"),
        ("[REAL SOURCE]\nfile: a.py\nSymbol: f",
         "REAL SOURCE: unknown key 'file': did you mean File? (keys are case-sensitive)\n  hint: write `File: a.py`"),
        ("[REAL SOURCE]\nFille: a.py\nSymbol: f",
         "REAL SOURCE: unknown key 'Fille': did you mean File? (keys are case-sensitive)\n  hint: write `File: a.py`"),
        ("[REAL SOURCE]\nFiel: a.py\nSymbol: f",  # letters swapped: said alone, not also "File is missing"
         "REAL SOURCE: unknown key 'Fiel': did you mean File? (keys are case-sensitive)\n  hint: write `File: a.py`"),
        ("[EXPERIMENT]\nFile: experiments/a.py\npurpose: p",
         "EXPERIMENT: unknown key 'purpose': did you mean Purpose? (keys are case-sensitive)\n  hint: write `Purpose: p`"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f\nColour: red",
         "REAL SOURCE: unknown key 'Colour'\n  hint: REAL SOURCE takes File, Symbol, Commit, Repo, Dedent"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f\nDedent: No", f"REAL SOURCE: Dedent 'No' {NOT_YES_OR_NO}"),
        ("[EXPERIMENT]\nFile: experiments/a.py\nPurpose: p\nDedent: false", f"EXPERIMENT: Dedent 'false' {NOT_YES_OR_NO}"),
        ("[OUTPUT]\nFile: experiments/a.py\nDedent: off",
         "OUTPUT: unknown key 'Dedent'\n  hint: OUTPUT takes File, Tolerance"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f\nCommit: 90dbeb8",
         "REAL SOURCE: Commit '90dbeb8' is not a full 40-hex SHA\n  hint: write the full commit, or omit it for the baseline"),
        ("[REAL SOURCE]\nFile: /etc/passwd\nSymbol: f", f"REAL SOURCE: File '/etc/passwd' {NOT_A_PATH}"),
        ("[REAL SOURCE]\nFile: ../x.py\nSymbol: f", f"REAL SOURCE: File '../x.py' {NOT_A_PATH}"),
        ("[EXPERIMENT]\nFile: scripts/a.py\nPurpose: p",
         "EXPERIMENT: File 'scripts/a.py' is not under experiments/\n  hint: experiments live in experiments/"),
        ("[REAL SOURCE]\nFile: autograd//core.py\nSymbol: f",
         "REAL SOURCE: File 'autograd//core.py' is not written in normal form\n  hint: write File: autograd/core.py"),
        ("[REAL SOURCE]\nFile: autograd/./core.py\nSymbol: f",
         "REAL SOURCE: File 'autograd/./core.py' is not written in normal form\n  hint: write File: autograd/core.py"),
        ("[REAL SOURCE]\nFile: autograd/core.py\u200b\nSymbol: f", f"REAL SOURCE: File 'autograd/core.py\\u200b' {NOT_A_PATH}"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f\nRepo: ../..",
         "REAL SOURCE: Repo '../..' is not owner/name\n  hint: e.g. HIPS/autograd, or omit it for the baseline"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f\nRepo: HIPS/..",
         "REAL SOURCE: Repo 'HIPS/..' is not owner/name\n  hint: e.g. HIPS/autograd, or omit it for the baseline"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f(" + "-" * 600 + "1)",
         "REAL SOURCE: Symbol is longer than 500 characters\n  hint: a header value is a path, a symbol or a sentence"),
        ("[EXPERIMENT]\nFile: experiments/a.py\nPurpose: shows \u3010OUTPUT\u3011 42",
         "EXPERIMENT: Purpose names a block marker\n  hint: write it without the brackets"),
        ("[EXPERIMENT]\nFile: experiments/a.py\nPurpose: prints \u202egnol si ti",
         "EXPERIMENT: Purpose holds U+202E, which would make the card read other than it is (bidirectional or "
         "invisible controls)\n  hint: delete it: retype the line if you cannot see it"),
        ("[EXPERIMENT]\nFile: experiments/a.py\nPurpose: ✓ 输出已验证 · 源码 REAL SOURCE",
         "EXPERIMENT: Purpose shows '输出已验证', a card's own face, which would make the card claim what nothing "
         "proved\n  hint: say it in other words"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f (源碼 REAL SOURCE)",
         "REAL SOURCE: Symbol shows '源码 REAL SOURCE', a card's own face, which would make the card claim what "
         "nothing proved\n  hint: say it in other words"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f (the \u2066real\u2069 one\u200b)",
         "REAL SOURCE: Symbol holds U+200B, U+2066, U+2069, which would make the card read other than it is "
         "(bidirectional or invisible controls)\n  hint: delete it: retype the line if you cannot see it"),
    ],
)
def test_malformed_headers_are_problems_at_the_line_of_their_key(header, problem):
    parsed = parse("Intro.\n\n" + header + "\n")
    assert parsed.blocks == []
    assert [str(p) for p in parsed.problems] == [f"docs/posts/x.md:{key_line(header, problem)}: {problem}"]


def key_line(header: str, problem: str) -> int:
    """The post line a header's problem is said at (the header starts at line 3): the line of the key it is about,
    where the header has that key (the walkthrough of round four: a wrong Graph was said at [FIGURE]), else the
    header's own."""
    named = re.match(r"unknown key '([^']+)'|(\w+) ", problem.split(": ", 1)[1])
    key = named and (named[1] or named[2])
    return 3 + next((n for n, line in enumerate(header.split("\n")) if n and key and line.startswith(key + ":")), 0)


def test_an_unreadable_header_line_is_named_by_its_own_line():
    parsed = parse("Intro.\n\n[REAL SOURCE]\nFile: a.py\nthis is not a field\n")
    assert [str(p) for p in parsed.problems] == [
        "docs/posts/x.md:5: REAL SOURCE: cannot read header line 'this is not a field'\n"
        "  hint: write `Key: value`, one per line",
        # the header, at its own line, has no Symbol either
        "docs/posts/x.md:3: REAL SOURCE: Symbol is missing or empty\n  hint: add a `Symbol: …` line to the header",
    ]


def test_a_fence_of_another_kind_is_a_problem():
    parsed = parse(GOOD.replace("```python", "```text"))
    assert parsed.blocks == []
    assert [str(p) for p in parsed.problems] == [
        "docs/posts/x.md:7: REAL SOURCE: the fenced block is `text`, expected `python`\n"
        "  hint: open the fence with ```python and nothing else"
    ]


def test_an_unclosed_fence_is_a_problem():
    parsed = parse(GOOD.rsplit("```", 1)[0])
    assert [str(p) for p in parsed.problems] == [
        "docs/posts/x.md:7: REAL SOURCE: the fenced block never closes\n  hint: close it with ```"
    ]


# --- near-misses: every line that announces a block is parsed or is a problem ----------------


INEXACT = "it is not written exactly so"
CONTAINED = "it is indented or inside a list, quote or admonition"
INVISIBLE = "it holds invisible characters"
FULL_WIDTH = "it holds full-width or compatibility characters"

# (the line, as the message shows it, the kind it looks like, why it is not one)
NEAR_MISSES = [
    ("[Real Source]", "'[Real Source]'", "REAL SOURCE", INEXACT),
    ("[output]", "'[output]'", "OUTPUT", INEXACT),
    ("[REAL  SOURCE]", "'[REAL  SOURCE]'", "REAL SOURCE", INEXACT),
    ("[ OUTPUT ]", "'[ OUTPUT ]'", "OUTPUT", INEXACT),
    ("[REAL_SOURCE]", "'[REAL_SOURCE]'", "REAL SOURCE", INEXACT),
    ("[REAL SOURCE]:", "'[REAL SOURCE]:'", "REAL SOURCE", INEXACT),
    ("\uff3bREAL SOURCE\uff3d", "'\uff3bREAL SOURCE\uff3d'", "REAL SOURCE", FULL_WIDTH),
    ("\u200b[REAL SOURCE]", "'<U+200B>[REAL SOURCE]'", "REAL SOURCE", INVISIBLE),
    ("\ufeff[OUTPUT]", "'<U+FEFF>[OUTPUT]'", "OUTPUT", INVISIBLE),
    (" [REAL SOURCE]", "' [REAL SOURCE]'", "REAL SOURCE", CONTAINED),
    ("    [EXPERIMENT]", "'    [EXPERIMENT]'", "EXPERIMENT", CONTAINED),
    ("- [OUTPUT]", "'- [OUTPUT]'", "OUTPUT", CONTAINED),
    ("> [REAL SOURCE]", "'> [REAL SOURCE]'", "REAL SOURCE", CONTAINED),
    ("1. [REAL SOURCE]", "'1. [REAL SOURCE]'", "REAL SOURCE", CONTAINED),
    ("## [REAL SOURCE]", "'## [REAL SOURCE]'", "REAL SOURCE", CONTAINED),
    ("**[REAL SOURCE]**", "'**[REAL SOURCE]**'", "REAL SOURCE", CONTAINED),
    ("[REAL SOURCE] \u2713", "'[REAL SOURCE] \u2713'", "REAL SOURCE", INEXACT),
    ("[REAL SOURCE]<span hidden>x</span>", "'[REAL SOURCE]<span hidden>x</span>'", "REAL SOURCE", INEXACT),
    # These four invisible characters count as printable, so the message shows them as they are.
    ("[REAL SOURCE]\u034f", "'[REAL SOURCE]<U+034F>'", "REAL SOURCE", INVISIBLE),
    ("[REAL SOURCE]\ufe0f", "'[REAL SOURCE]<U+FE0F>'", "REAL SOURCE", INVISIBLE),
    ("[REAL SOURCE]\u3164", "'[REAL SOURCE]<U+3164>'", "REAL SOURCE", f"{INVISIBLE}; {FULL_WIDTH}"),
    ("[REAL\u2800SOURCE]", "'[REAL<U+2800>SOURCE]'", "REAL SOURCE", INVISIBLE),
    ("[R\u0415AL S\u041eURCE]", "'[R\u0415AL S\u041eURCE]'", "REAL SOURCE", "it holds characters that only look like Latin letters"),
]


@pytest.mark.parametrize("marker, shown, kind, reason", NEAR_MISSES)
def test_a_near_miss_marker_is_a_problem_naming_its_line_and_why(marker, shown, kind, reason):
    parsed = parse(GOOD.replace("[REAL SOURCE]", marker))
    assert parsed.blocks == []
    (problem,) = parsed.problems
    assert str(problem) == (
        f"docs/posts/x.md:3: {shown} looks like a [{kind}] block but is not one ({reason}), so it would not be verified\n"
        f"  hint: write the line exactly `[{kind}]` at the start of a line, at the top level of the post"
    )


def test_a_near_miss_in_an_admonition_is_a_problem():
    quoted = "\n".join("    " + line for line in GOOD.splitlines())
    parsed = parse("!!! note\n\n" + quoted + "\n")
    assert parsed.blocks == []
    assert [str(p) for p in parsed.problems] == [
        f"docs/posts/x.md:5: '    [REAL SOURCE]' looks like a [REAL SOURCE] block but is not one ({CONTAINED}), so it "
        "would not be verified\n  hint: write the line exactly `[REAL SOURCE]` at the start of a line, at the top level of the post"
    ]


def test_a_marker_after_a_heading_or_prose_without_a_blank_line_is_still_a_block():
    for before in ("## 小结", "Some prose."):
        (block,) = parse(before + "\n" + GOOD.split("\n", 2)[2]).blocks
        assert block.line == 2


def test_prose_and_links_that_mention_a_marker_are_prose():
    text = "[Output](https://example.org) of the run.\n\n[experiment]: https://example.org\n\n[OUTPUT] 块记录输出。\n"
    parsed = parse(text)
    assert parsed.problems == [] and parsed.blocks == []


def test_a_stray_fence_that_never_closes_is_a_problem_at_its_line():
    parsed = parse("Intro.\n\n````\n\n" + GOOD)
    assert parsed.blocks == []
    (problem,) = parsed.problems
    assert str(problem) == (
        "docs/posts/x.md:3: the fenced block opened here with ```` never closes\n"
        "  hint: close it with a line of ````, or remove the stray fence: everything after it would show as code"
    )


def test_a_marker_swallowed_by_a_code_block_is_a_problem():
    parsed = parse("```\nstray\n" + GOOD.split("```python")[0] + "```\n")
    (problem,) = parsed.problems
    assert str(problem) == (
        "docs/posts/x.md:5: block marker '[REAL SOURCE]' inside the code block opened at line 1: it would be shown as "
        "code, unverified\n  hint: close the code block before the block, or fence an example of the format with ```markdown"
    )


def test_an_indented_quote_fence_is_a_problem():
    parsed = parse(GOOD.replace("```", " ```"))
    assert parsed.blocks == []
    assert [str(p) for p in parsed.problems] == [
        "docs/posts/x.md:7: REAL SOURCE: the fence of the quote is indented\n  hint: start the fence at the beginning of the line"
    ]


def test_an_indented_code_block_after_a_header_is_a_problem():
    parsed = parse("[OUTPUT]\nFile: experiments/a.py\n\n    all checks passed\n")
    assert parsed.blocks == []
    (problem,) = parsed.problems
    assert str(problem) == (
        "docs/posts/x.md:4: OUTPUT: an indented code block follows the header: it would be shown unverified\n"
        "  hint: quote with a fence at the start of the line: ```text"
    )


def test_a_fence_glued_to_the_header_says_a_blank_line_is_expected():
    parsed = parse(GOOD.replace("VJPNode.__init__\n\n", "VJPNode.__init__\n"))
    assert [str(p) for p in parsed.problems] == [
        "docs/posts/x.md:6: REAL SOURCE: the fenced block must be separated from the header by a blank line\n"
        "  hint: put an empty line between the last `Key: value` line and the fence"
    ]


def test_a_post_with_a_byte_order_mark_is_parsed_as_mkdocs_reads_it(tmp_path):
    path = tmp_path / "x.md"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    parsed, _ = read_post(path, "docs/posts/x.md")
    assert len(parsed.blocks) == 1 and parsed.problems == []


def test_a_post_that_is_not_utf8_is_a_problem_with_its_line(tmp_path):
    path = tmp_path / "x.md"
    path.write_bytes(GOOD.encode() + b"\nbad \xff byte\n")
    parsed, _ = read_post(path, "docs/posts/x.md")
    (problem,) = parsed.problems
    assert str(problem) == f"docs/posts/x.md:12: byte {len(GOOD) + 5} (0xff) is not UTF-8\n  hint: save the post as UTF-8"


def test_markers_inside_an_indented_markdown_fence_are_problems():
    """Markdown may read an indented fence as an indented code block and the block after it as Markdown."""
    text = "<div markdown=\"1\">\n\n    ```markdown\n" + GOOD + "    ```\n</div>\n"
    parsed = parse(text)
    assert [str(p) for p in parsed.problems] == [
        "docs/posts/x.md:6: block marker '[REAL SOURCE]' inside the code block opened at line 3: it would be shown as "
        "code, unverified\n  hint: close the code block before the block, or fence an example of the format with ```markdown",
        # The indented fence closes at GOOD's last fence, so the one meant to close it opens another.
        "docs/posts/x.md:14: the fenced block opened here with ``` never closes\n"
        "  hint: close it with a line of ```, or remove the stray fence: everything after it would show as code",
    ]


def test_a_table_of_contents_label_is_a_problem():
    (problem,) = parse('## 小结 {: data-toc-label="[OUTPUT] 42" }\n').problems
    assert str(problem) == (
        "docs/posts/x.md:1: a data-toc-label gives the table of contents text the page does not show\n"
        "  hint: remove it: the table of contents shows the heading itself"
    )
