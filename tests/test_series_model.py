"""The series model: posts and announcements in number order; 上一篇 | 系列总览 | 下一篇 follow it."""

from __future__ import annotations

import pytest

from codeproof.series.blocks import parse_post
from codeproof.series.frontmatter import front_matter, split_front_matter
from codeproof.series.model import category_anchors, read_series, series_bar, series_model
from codeproof.series.model import Entry, chinese_number


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


def page(front_matter_text: str, src_uri: str = "posts/x.md"):
    """What the build reads of a page: (front matter, parsed post, src_uri, url)."""
    raw = f"---\n{front_matter_text}---\n\nProse.\n"
    post = f"docs/{src_uri}"
    first_line, body = split_front_matter(raw)
    return front_matter(raw, post), parse_post(post, body, first_line), src_uri, src_uri.replace(".md", "/")


def problems_of(*pages) -> list[str]:
    return [str(problem) for problem in read_series(pages, {})[1]]


def test_a_page_outside_posts_without_series_is_no_post():
    model, problems, _ = read_series([page("title: 写作指南\n", "authoring.md")], {})
    assert model.entries == () and problems == []


@pytest.mark.parametrize("front, expected", [
    ("title: x\ndate: 2026-01-01\n",
     "docs/posts/x.md:1: front matter: every page in posts/ is a post of the series, and this one has no series number\n"
     "  hint: add its number, e.g. `series: 6` (or move the page out of posts/)"),
    ("title: x\nseries: 五\ndate: 2026-01-01\n",
     "docs/posts/x.md:3: front matter: series '五' is not a whole number from 1 to 9999\n"
     "  hint: write the post's number in the series, e.g. `series: 6`"),
    ("title: x\nseries: 0\ndate: 2026-01-01\n",
     "docs/posts/x.md:3: front matter: series 0 is not a whole number from 1 to 9999\n"
     "  hint: write the post's number in the series, e.g. `series: 6`"),
    ("series: 5\ndate: 2026-01-01\n",
     "docs/posts/x.md:1: front matter: a post of the series needs a title\n"
     '  hint: add it, e.g. title: "Autograd 源码学习（五）：标题"'),
    ("title: x\nseries: 5\n",
     "docs/posts/x.md:1: front matter: a post of the series needs a date\n  hint: add it, e.g. date: 2026-09-05"),
    ("title: x\nseries: 5\ndate: 2026-02-30\n",
     "docs/posts/x.md:4: front matter: date 2026-02-30 is written as a date, but the calendar has no such day (day "
     "is out of range for month)\n  hint: write a day 2026-02 has"),
    ("title: x\nseries: 5\ndate: 05.09.2026\n",
     "docs/posts/x.md:4: front matter: date '05.09.2026' is not a date\n  hint: write it as 2026-09-05"),
    ("title: x\nseries: 5\ndate: 2026-01-01\nsearch_expects: {lists: [a], frist: [b]}\n",
     "docs/posts/x.md:5: front matter: search_expects takes lists and first, not 'frist'\n  hint: did you mean first?"),
    # Issue 52: each word passes alone; the post's header shows them side by side.
    ("title: x\nseries: 5\ndate: 2026-01-01\ncategories: ['✓ 输出', '已验证 · Python 3.11.7']\n",
     "docs/posts/x.md:5: front matter: categories ['✓ 输出', '已验证 · Python 3.11.7'] read together show '输出已验证', "
     "a card's own face or marker: the post's header shows them side by side, outside a verified card\n"
     "  hint: say them in other words"),
    ("title: x\nseries: 5\ndate: 2026-01-01\ntags: [源码, REAL SOURCE]\n",
     "docs/posts/x.md:5: front matter: tags ['源码', 'REAL SOURCE'] read together show '源码 REAL SOURCE', a card's own "
     "face or marker: the post's header shows them side by side, outside a verified card\n  hint: say them in other words"),
    ("title: [x\nseries: 5\n",
     "docs/posts/x.md:3: front matter is not YAML: did not find expected ',' or ']'\n"
     "  hint: write each setting as `key: value`; quote values with : or # in them"),
    ("title: 系列（七）：题\nseries: 5\ndate: 2026-01-01\n",
     "docs/posts/x.md:2: front matter: the title says （七） but the series number is 5 （五）\n"
     "  hint: make the title and `series:` agree"),
    ('title: "一\\n\\n## 伪造章节"\nseries: 5\ndate: 2026-01-01\n',
     "docs/posts/x.md:2: front matter: title '一\\n\\n## 伪造章节' holds a line break or another control character\n"
     "  hint: write it on one line"),
    ("title: [x, y]\nseries: 5\ndate: 2026-01-01\n",
     "docs/posts/x.md:2: front matter: title must be text, not list ['x', 'y']\n  hint: write it in quotes, e.g. title: \"…\""),
    ("title: yes\nseries: 5\ndate: 2026-01-01\n",
     "docs/posts/x.md:2: front matter: title must be text, not bool True\n  hint: write it in quotes, e.g. title: \"…\""),
    ("title: x\nseries: 5\ndate: 2026-01-01\n1: y\n",
     "docs/posts/x.md:5: front matter: '1' is not a key this site uses: the theme would publish it unchecked\n"
     "  hint: remove it; the keys are title, description, series, date, categories, tags, hide, search_expects (case-sensitive)"),
    ("title: &a [x]\nseries: 5\ndate: 2026-01-01\ntags: *a\n",
     "docs/posts/x.md:2: front matter repeats a value with a YAML alias (*name)\n  hint: write the value out where it is used"),
    ("title: x\nseries: 5\ndate: 2026-01-01\ntags: autograd\n",
     "docs/posts/x.md:5: front matter: tags must be a list of words, not 'autograd'\n  hint: e.g. tags: [a, b]"),
])
def test_each_front_matter_mistake_of_a_post_is_a_problem_at_its_line(front, expected):
    assert problems_of(page(front)) == [expected]


def test_two_posts_with_one_number_are_each_a_problem_naming_the_other():
    a = page("title: A\ndate: 2026-01-01\nseries: 6\n", "posts/a.md")
    b = page("series: 6\ntitle: B\ndate: 2026-01-01\n", "posts/b.md")
    assert problems_of(a, b) == [
        "docs/posts/a.md:4: front matter: series 6 is also the number of docs/posts/b.md\n"
        "  hint: give each post its own number in the series (no post has 1, 2, 3, ...)",
        "docs/posts/b.md:2: front matter: series 6 is also the number of docs/posts/a.md\n"
        "  hint: give each post its own number in the series (no post has 1, 2, 3, ...)",
    ]


def test_a_number_taken_by_another_post_is_said_with_the_posts_other_mistakes():
    """Post 十三 given `series: 6`: the title mismatch hid that 6 is post 六's number."""
    six = page("title: Autograd 源码学习（六）：A\nseries: 6\ndate: 2026-01-01\n", "posts/six.md")
    thirteen = page("title: Autograd 源码学习（十三）：B\nseries: 6\ndate: 2026-01-01\n", "posts/thirteen.md")
    assert problems_of(six, thirteen) == [
        "docs/posts/thirteen.md:2: front matter: the title says （十三） but the series number is 6 （六）\n"
        "  hint: make the title and `series:` agree",
        "docs/posts/six.md:3: front matter: series 6 is also the number of docs/posts/thirteen.md\n"
        "  hint: give each post its own number in the series (no post has 1, 2, 3, ...)",
        "docs/posts/thirteen.md:3: front matter: series 6 is also the number of docs/posts/six.md\n"
        "  hint: give each post its own number in the series (no post has 1, 2, 3, ...)",
    ]


def test_a_published_post_supersedes_its_announcement_with_a_note():
    model, problems, notes = read_series([page("title: A\nseries: 5\ndate: 2026-01-01\n", "posts/a.md")], {5: "预告", 7: None})
    assert problems == [] and [entry.number for entry in model.entries] == [5, 7]
    assert notes == ["第五篇 is published (docs/posts/a.md): its announcement in extra.series.announced is superseded; "
                     "remove it from mkdocs.yml (`./dev.sh new` does)"]


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
    model, _, _ = read_series([page("title: x\nseries: 2\ndate: 2026-01-01\ncategories: [源码, 数学, 源码]\n")], {})
    assert model.posts[0].categories == ("源码", "数学")


def test_each_category_has_its_own_anchor_even_when_slugs_collide_or_are_empty():
    one = Entry(1, "A", "posts/a/", "posts/a.md", categories=("C++", "C", "c", "!!", "??"))
    assert category_anchors(series_model([one], {})) == {
        "C++": "category-c", "C": "category-c-", "c": "category-c--", "!!": "category-4", "??": "category-5"}


@pytest.mark.parametrize("paragraph", ["`✓ 输出已验证 · Python 3.11.7`", "✓ 输出\n已验证 · Python 3.11.7"])
def test_a_card_face_in_the_first_paragraph_is_refused_at_the_posts_line(paragraph):
    """It becomes the post's description (meta, feeds, overview): it was blamed on docs/index.md (N5)."""
    raw = f"---\ntitle: A\nseries: 2\ndate: 2026-01-01\n---\n\n{paragraph}\n"
    first_line, body = split_front_matter(raw)
    front = front_matter(raw, "docs/posts/x.md"), parse_post("docs/posts/x.md", body, first_line), "posts/x.md", "posts/x/"
    assert problems_of(front) == [
        "docs/posts/x.md:7: the first paragraph shows '输出已验证', a card's own face; it is the post's description in "
        "its <meta>, feeds and the overview, where it would pass for a verified card\n"
        "  hint: say it in other words, or begin the post with another paragraph"]
