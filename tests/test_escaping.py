"""Values from a post's front matter and prose reach HTML escaped, in text and in attributes."""

from __future__ import annotations

import re

from conftest import mkdocs

POST = "docs/posts/custom-primitive.md"
HOSTILE = '"><img src=x onerror=alert(1)>'


def test_title_categories_and_description_are_escaped_everywhere_they_reach_html(site):
    path = site / POST
    text = path.read_text(encoding="utf-8")
    head, body = text.split("\n---\n", 1)
    head = re.sub(r"^title: .*$", f"title: 'T {HOSTILE}'", head, flags=re.M)
    head = re.sub(r"^categories: .*$", f"categories: ['C {HOSTILE}']", head, flags=re.M)
    body = '\n第一段有 "引号" 与 `"><b>`。\n' + body
    path.write_text(head + "\n---\n" + body, encoding="utf-8")
    done = mkdocs(site, "build", "--strict", "--site-dir", "built")
    assert done.returncode == 0, done.stderr
    html = (site / "built" / "posts" / "custom-primitive" / "index.html").read_text(encoding="utf-8")
    assert "<img src=x" not in html
    description = re.search(r'<meta name="description" content="([^"]*)">', html).group(1)
    assert description.startswith("第一段有 &#34;引号&#34; 与 &#34;&gt;&lt;b&gt;。")
    assert "<title>T &#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert "C &#34;&gt;&lt;img src=x onerror=alert(1)&gt;</span>" in html
