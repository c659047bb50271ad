"""Parsing a post into blocks: fields, quote, post line; malformed blocks are problems."""

from __future__ import annotations

import pytest

from codeproof.blocks import parse_post, read_post
from codeproof.frontmatter import split_front_matter
from codeproof.structure import BlockKind

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


@pytest.mark.parametrize(
    "header, message",
    [
        ("[REAL SOURCE]\nSymbol: f", "File is missing"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol:", "Symbol is missing or empty"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f\nColour: red", "unknown key 'Colour'"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f\nCommit: 90dbeb8", "is not a full 40-hex SHA"),
        ("[REAL SOURCE]\nFile: /etc/passwd\nSymbol: f", "must be a relative POSIX path"),
        ("[REAL SOURCE]\nFile: ../x.py\nSymbol: f", "must be a relative POSIX path"),
        ("[EXPERIMENT]\nFile: scripts/a.py\nPurpose: p", "is not under experiments/"),
        ("[OUTPUT]\nFile: experiments/a.py\nTolerance: lots", "is not a finite number between 0 and 1"),
        ("[OUTPUT]\nFile: experiments/a.py\nTolerance: 0", "is not a finite number between 0 and 1"),
        ("[OUTPUT]\nFile: experiments/a.py\nTolerance: 1", "is not a finite number between 0 and 1"),
        ("[OUTPUT]\nFile: experiments/a.py\nTolerance: inf", "is not a finite number between 0 and 1"),
        ("[OUTPUT]\nFile: experiments/a.py\nTolerance: nan", "is not a finite number between 0 and 1"),
        ("[REAL SOURCE]\nFile: autograd//core.py\nSymbol: f", "File 'autograd//core.py' is not written in normal form"),
        ("[REAL SOURCE]\nFile: autograd/./core.py\nSymbol: f", "File 'autograd/./core.py' is not written in normal form"),
        ("[REAL SOURCE]\nFile: autograd/core.py\u200b\nSymbol: f", "must be a relative POSIX path"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f\nRepo: ../..", "Repo '../..' is not owner/name"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f\nRepo: HIPS/..", "Repo 'HIPS/..' is not owner/name"),
        ("[REAL SOURCE]\nFile: a.py\nSymbol: f(" + "-" * 600 + "1)", "Symbol is longer than 500 characters"),
        ("[EXPERIMENT]\nFile: experiments/a.py\nPurpose: shows \u3010OUTPUT\u3011 42", "Purpose names a block marker"),
    ],
)
def test_malformed_headers_are_problems_with_the_post_line(header, message):
    parsed = parse("Intro.\n\n" + header + "\n")
    assert parsed.blocks == []
    (problem,) = [p for p in parsed.problems if message in p.message]
    assert str(problem).startswith("docs/posts/x.md:3: ")
    assert problem.hint


def test_an_unreadable_header_line_is_named_by_its_own_line():
    parsed = parse("Intro.\n\n[REAL SOURCE]\nFile: a.py\nthis is not a field\n")
    (problem,) = [p for p in parsed.problems if "cannot read" in p.message]
    assert str(problem).startswith("docs/posts/x.md:5: REAL SOURCE: cannot read header line 'this is not a field'")
    assert problem.hint


def test_a_fence_of_another_kind_is_a_problem():
    parsed = parse(GOOD.replace("```python", "```text"))
    assert parsed.blocks == []
    assert "the fenced block is `text`, expected `python`" in parsed.problems[0].message


def test_an_unclosed_fence_is_a_problem():
    parsed = parse(GOOD.rsplit("```", 1)[0])
    assert any("never closes" in p.message for p in parsed.problems)


# --- near-misses: every line that announces a block is parsed or is a problem ----------------


NEAR_MISSES = [
    ("[Real Source]", "it is not written exactly so"),
    ("[output]", "it is not written exactly so"),
    ("[REAL  SOURCE]", "it is not written exactly so"),
    ("[ OUTPUT ]", "it is not written exactly so"),
    ("[REAL_SOURCE]", "it is not written exactly so"),
    ("[REAL SOURCE]:", "it is not written exactly so"),
    ("\uff3bREAL SOURCE\uff3d", "it holds full-width or compatibility characters"),
    ("\u200b[REAL SOURCE]", "it holds invisible characters"),
    ("\ufeff[OUTPUT]", "it holds invisible characters"),
    (" [REAL SOURCE]", "it is indented or inside a list, quote or admonition"),
    ("    [EXPERIMENT]", "it is indented or inside a list, quote or admonition"),
    ("- [OUTPUT]", "it is indented or inside a list, quote or admonition"),
    ("> [REAL SOURCE]", "it is indented or inside a list, quote or admonition"),
    ("1. [REAL SOURCE]", "it is indented or inside a list, quote or admonition"),
    ("## [REAL SOURCE]", "it is indented or inside a list, quote or admonition"),
    ("**[REAL SOURCE]**", "it is indented or inside a list, quote or admonition"),
    ("[REAL SOURCE] \u2713", "it is not written exactly so"),
    ("[REAL SOURCE]<span hidden>x</span>", "it is not written exactly so"),
    ("[REAL SOURCE]\u034f", "it holds invisible characters"),
    ("[REAL SOURCE]\ufe0f", "it holds invisible characters"),
    ("[REAL SOURCE]\u3164", "it holds invisible characters; it holds full-width or compatibility characters"),
    ("[REAL\u2800SOURCE]", "it holds invisible characters"),
    ("[R\u0415AL S\u041eURCE]", "it holds characters that only look like Latin letters"),
]


@pytest.mark.parametrize("marker, reason", NEAR_MISSES)
def test_a_near_miss_marker_is_a_problem_naming_its_line_and_why(marker, reason):
    parsed = parse(GOOD.replace("[REAL SOURCE]", marker))
    assert parsed.blocks == []
    (problem,) = parsed.problems
    assert problem.line == 3
    assert problem.message.endswith(f"block but is not one ({reason}), so it would not be verified")
    assert problem.hint.startswith("write the line exactly `[")


def test_a_near_miss_in_an_admonition_is_a_problem():
    quoted = "\n".join("    " + line for line in GOOD.splitlines())
    parsed = parse("!!! note\n\n" + quoted + "\n")
    assert parsed.blocks == []
    assert [p.line for p in parsed.problems] == [5]


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
    assert (problem.line, problem.message) == (3, "the fenced block opened here with ```` never closes")


def test_a_marker_swallowed_by_a_code_block_is_a_problem():
    parsed = parse("```\nstray\n" + GOOD.split("```python")[0] + "```\n")
    (problem,) = parsed.problems
    assert problem.line == 5
    assert problem.message == "block marker '[REAL SOURCE]' inside the code block opened at line 1: it would be shown as code, unverified"


def test_an_indented_quote_fence_is_a_problem():
    parsed = parse(GOOD.replace("```", " ```"))
    assert parsed.blocks == []
    assert "REAL SOURCE: the fence of the quote is indented" in [p.message for p in parsed.problems]


def test_an_indented_code_block_after_a_header_is_a_problem():
    parsed = parse("[OUTPUT]\nFile: experiments/a.py\n\n    all checks passed\n")
    assert parsed.blocks == []
    (problem,) = parsed.problems
    assert (problem.line, problem.message) == (4, "OUTPUT: an indented code block follows the header: it would be shown unverified")


def test_a_fence_glued_to_the_header_says_a_blank_line_is_expected():
    parsed = parse(GOOD.replace("VJPNode.__init__\n\n", "VJPNode.__init__\n"))
    assert [p.message for p in parsed.problems] == [
        "REAL SOURCE: the fenced block must be separated from the header by a blank line"
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
    assert str(problem).startswith(f"docs/posts/x.md:12: byte {len(GOOD) + 5} (0xff) is not UTF-8")


def test_markers_inside_an_indented_markdown_fence_are_problems():
    """Markdown may read an indented fence as an indented code block and the block after it as Markdown."""
    text = "<div markdown=\"1\">\n\n    ```markdown\n" + GOOD + "    ```\n</div>\n"
    parsed = parse(text)
    assert "block marker '[REAL SOURCE]' inside the code block opened at line 3" in parsed.problems[0].message


def test_a_table_of_contents_label_is_a_problem():
    (problem,) = parse('## 小结 {: data-toc-label="[OUTPUT] 42" }\n').problems
    assert (problem.line, problem.message) == (1, "a data-toc-label gives the table of contents text the page does not show")
