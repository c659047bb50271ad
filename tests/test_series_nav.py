"""上一篇 | 系列总览 | 下一篇: neighbours by series number; announced posts named, not linked."""

from __future__ import annotations

import pytest

from codeproof.series_nav import chinese_number, neighbours


@pytest.mark.parametrize("n, text", [
    (1, "一"), (6, "六"), (10, "十"), (13, "十三"), (20, "二十"), (47, "四十七"),
    (100, "一百"), (105, "一百零五"), (110, "一百一十"), (2024, "二千零二十四"),
])
def test_series_numbers_read_in_chinese(n, text):
    assert chinese_number(n) == text


def test_neighbours_include_announced_posts_without_links():
    published = {6: ("NumPy Primitive 与 VJP", "posts/six/"), 13: ("自定义 Primitive", "posts/thirteen/")}
    announced = {5: None, 7: "Broadcasting 的反向传播", 12: None, 14: "Mini Autograd"}
    previous, following = neighbours(6, published, announced)
    assert (previous.label, previous.url) == ("第五篇", None)
    assert (following.label, following.url) == ("第七篇：Broadcasting 的反向传播", None)


def test_a_published_neighbour_is_linked_and_the_ends_have_none():
    published = {1: ("A", "posts/a/"), 2: ("B", "posts/b/")}
    first_previous, first_next = neighbours(1, published, {})
    assert first_previous is None and first_next.url == "posts/b/"
    assert neighbours(2, published, {})[1] is None
