"""Parsing a post into blocks: fields, quote, post line; malformed blocks are problems."""

from __future__ import annotations

import pytest

from codeproof.blocks import parse_post, split_front_matter

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
    assert block.kind == "REAL SOURCE"
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
        ("[OUTPUT]\nFile: experiments/a.py\nTolerance: lots", "is not a positive number"),
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
