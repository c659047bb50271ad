"""A post's first paragraph (its description and overview excerpt) and its reading time."""

from __future__ import annotations

import pytest

from codeproof.series.prose import first_paragraph, reading_minutes


@pytest.mark.parametrize("markdown, expected", [
    ("`x * w + b` 怎样反向传播？看 [autograd](https://x) 的 **源码**。\n\n## 本文目标\n\n1. 一\n",
     "x * w + b 怎样反向传播？看 autograd 的 源码。"),
    ("## 标题\n\n- 列表\n\n> 引用\n\n| a |\n| - |\n| 1 |\n\n```\n代码\n```\n\n正文 <b>x</b> & y。\n", "正文 x y。"),
    ("[REAL SOURCE]\nFile: a.py\nSymbol: f\n\n```python\nx = 1\n```\n\n后面的段落。\n", "后面的段落。"),
    ("## 只有标题\n", ""),
])
def test_the_first_paragraph_is_the_first_top_level_prose_as_plain_text(markdown, expected):
    assert first_paragraph(markdown) == expected


def test_the_reading_time_counts_chinese_characters_and_other_words_and_is_at_least_a_minute():
    assert reading_minutes("短") == 1
    assert reading_minutes("字" * 800) == 2  # 400 characters a minute
    assert reading_minutes("word " * 600) == 3  # 200 words a minute
    assert reading_minutes("字" * 400 + " word" * 200) == 2
