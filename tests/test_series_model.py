"""The series model: posts and announcements in number order; 上一篇 | 系列总览 | 下一篇 follow it."""

from __future__ import annotations

import pytest

from codeproof.series_model import duplicate_numbers, series_bar, series_entry, series_model
from codeproof.structure import Entry, Problem, chinese_number


def post(number: int, title: str, slug: str) -> Entry:
    return Entry(number, title, f"posts/{slug}/", f"posts/{slug}.md", f"docs/posts/{slug}.md", "2026-01-01")


@pytest.mark.parametrize("n, text", [
    (1, "一"), (6, "六"), (10, "十"), (13, "十三"), (20, "二十"), (47, "四十七"),
    (100, "一百"), (105, "一百零五"), (110, "一百一十"), (2024, "二千零二十四"),
])
def test_series_numbers_read_in_chinese(n, text):
    assert chinese_number(n) == text


def test_neighbours_include_announced_posts_without_links():
    six, thirteen = post(6, "NumPy Primitive 与 VJP", "six"), post(13, "自定义 Primitive", "thirteen")
    model = series_model([thirteen, six], {5: None, 7: "Broadcasting 的反向传播", 12: None, 14: "Mini Autograd"})
    assert [entry.number for entry in model.entries] == [5, 6, 7, 12, 13, 14]
    previous, following = model.neighbours(six)
    assert (previous.label, previous.url) == ("第五篇", None)
    assert (following.label, following.url) == ("第七篇：Broadcasting 的反向传播", None)


def test_a_published_neighbour_is_linked_and_the_ends_have_none():
    a, b = post(1, "A", "a"), post(2, "B", "b")
    model = series_model([a, b], {})
    assert model.neighbours(a) == (None, b)
    assert model.neighbours(b) == (a, None)


def test_a_published_post_takes_the_place_of_its_announcement():
    five = post(5, "五", "five")
    model = series_model([five], {5: "预告的标题", 7: None})
    assert model.entries == (five, Entry(7, None))
    assert model.posts == (five,) and model.post_at("posts/five.md") is five


def test_front_matter_without_series_is_no_post_and_a_bad_number_is_a_problem():
    assert series_entry({"title": "写作指南"}, "authoring.md", "authoring/", "docs/authoring.md") == (None, None)
    entry, problem = series_entry({"series": "五"}, "posts/x.md", "posts/x/", "docs/posts/x.md")
    assert entry is None
    assert problem == Problem("docs/posts/x.md", 1, "front matter: series '五' is not a whole number from 1 to 9999",
                              hint="write the post's number in the series, e.g. `series: 6`")


def test_two_posts_with_one_number_are_each_a_problem_naming_the_other():
    a, b = post(6, "A", "a"), post(6, "B", "b")
    assert [str(p) for p in duplicate_numbers([a, b])] == [
        "docs/posts/a.md:1: front matter: series 6 is also the number of docs/posts/b.md\n"
        "  hint: give each post its own number in the series",
        "docs/posts/b.md:1: front matter: series 6 is also the number of docs/posts/a.md\n"
        "  hint: give each post its own number in the series",
    ]


def test_the_series_bar_links_published_neighbours_and_names_the_announced_number_beside():
    six, thirteen = post(6, "六", "six"), post(13, "十三", "thirteen")
    model = series_model([six, thirteen], {5: None, 7: "七", 12: None})
    assert series_bar(model, six) == {"previous": None, "next": thirteen, "before": Entry(5, None), "after": Entry(7, "七")}
    assert series_bar(model, thirteen) == {"previous": six, "next": None, "before": Entry(12, None), "after": None}
    assert model.published_neighbours(thirteen) == (six, None)


def test_categories_come_in_the_order_the_series_first_reaches_them_each_with_its_posts():
    one = Entry(1, "A", "posts/a/", "posts/a.md", categories=("数学", "源码"))
    two = Entry(2, "B", "posts/b/", "posts/b.md", categories=("源码", "实验"))
    model = series_model([two, one], {3: "C"})
    assert model.categories() == {"数学": (one,), "源码": (one, two), "实验": (two,)}


def test_a_post_takes_its_categories_from_front_matter_once_each():
    entry, _ = series_entry({"series": 2, "categories": ["源码", "数学", "源码"]}, "posts/x.md", "posts/x/", "docs/posts/x.md")
    assert entry.categories == ("源码", "数学")
