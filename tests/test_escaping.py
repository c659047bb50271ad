"""Values from a post's front matter and prose reach HTML escaped, in text and in attributes; values that
templates outside the project would publish as markup are refused."""

from __future__ import annotations

import re

import pytest

from codeproof.overview import first_paragraph
from conftest import mkdocs

POST = "docs/posts/custom-primitive.md"


def set_front_matter(site, **values):
    path = site / POST
    text = path.read_text(encoding="utf-8")
    for key, value in values.items():
        text = re.sub(rf"^{key}: .*$", f"{key}: {value}", text, count=1, flags=re.M)
    path.write_text(text, encoding="utf-8")


def test_quotes_and_bars_in_title_categories_and_description_are_escaped_where_they_reach_html(site):
    set_front_matter(site, title="'Autograd 源码学习（十三）：自定义 \"Primitive\" | 第二部分'",
                     categories="['C \"x\" | y']")
    path = site / POST
    head, body = path.read_text(encoding="utf-8").split("\n---\n", 1)
    path.write_text(head + "\n---\n" + '\n第一段有 "引号" 与 `"><b>`。\n' + body, encoding="utf-8")
    done = mkdocs(site, "build", "--strict", "--site-dir", "built")
    assert done.returncode == 0, done.stderr
    html = (site / "built" / "posts" / "custom-primitive" / "index.html").read_text(encoding="utf-8")
    description = re.search(r'<meta name="description" content="([^"]*)">', html).group(1)
    assert description.startswith("第一段有 &#34;引号&#34; 与 &#34;b。")  # quotes escaped; no markup for the feed
    assert "<title>Autograd 源码学习（十三）：自定义 &#34;Primitive&#34; | 第二部分" in html
    assert 'C &#34;x&#34; | y</span>' in html
    overview = (site / "built" / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr>(.*?)</tr>", overview, flags=re.S)
    row = next(r for r in rows if "已发布" in r and "第十三篇" in r)
    assert row.count("<td") == 3  # the bar did not add a cell
    assert "自定义 &quot;Primitive&quot; &#124; 第二部分</a>" in row


@pytest.mark.parametrize("key, value", [
    ("title", "'自定义 <img src=x onerror=alert(1)>'"),
    ("tags", "[autograd, '<img src=x onerror=alert(2)>']"),
    ("categories", "['<script>alert(4)</script>']"),
    ("title", "'A & B'"),
])
def test_front_matter_that_others_would_publish_as_markup_fails_with_its_line(site, key, value):
    set_front_matter(site, **{key: value})
    done = mkdocs(site, "build", "--strict", "--site-dir", "built")
    assert done.returncode != 0
    line = next(n for n, text in enumerate((site / POST).read_text().splitlines(), 1) if text.startswith(f"{key}:"))
    assert f"{POST}:{line}: front matter: {key} " in done.stderr
    assert "which the navigation, tags and feed would publish as markup" in done.stderr
    assert "hint: write it without <, > and &" in done.stderr


def test_the_description_feeds_publish_holds_no_markup_and_no_marker():
    assert first_paragraph('说明 `<div><b>[OUTPUT]</b><pre>grad = 42.0</pre></div>` 结束。') == ""
    assert first_paragraph("说明 `<b>x</b>` & 结束。") == "说明 bx/b 结束。"
    assert first_paragraph("~~~\n[OUTPUT]\n~~~\n\n    indented\n\n正文。") == "正文。"
