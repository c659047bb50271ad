"""Render verified blocks as Markdown for MkDocs: a card head in HTML, the code as a fence.

The code goes through pymdownx.highlight (Pygments) with the file's real first
line number; every text taken from a post's header is HTML-escaped here.
"""

from __future__ import annotations

import posixpath
import re
from html import escape

from .problems import Problem
from .sources import FileRef
from .verify import Excerpt


def relative_url(url: str, page_url: str) -> str:
    """A site URL (relative to the site root; '' is the home page) as a link from the page at page_url."""
    rel = posixpath.relpath(url or ".", posixpath.dirname(page_url) or ".")
    return rel + "/" if (not url or url.endswith("/")) and not rel.endswith("/") else rel


def fence_for(text: str) -> str:
    """Backticks that no run of backticks in `text` can close: one more than the longest, at least 3."""
    return "`" * (max((len(run) for run in re.findall(r"`{3,}", text)), default=2) + 1)


def _fence(text: str, lang: str, attrs: str = "") -> str:
    ticks = fence_for(text)
    return f"{ticks}{lang}{' ' + attrs if attrs else ''}\n{text}\n{ticks}"


def _card(kind: str, css: str, rows: list[tuple[str, str]], body: str) -> str:
    items = "".join(f"<dt>{escape(name)}</dt><dd>{value}</dd>" for name, value in rows)
    head = f'<div class="proof-card__head"><span class="proof-card__label">{kind}</span><dl>{items}</dl></div>'
    return f'\n<div class="proof-card {css}" markdown="1">\n{head}\n\n{body}\n\n</div>\n'


def source_card(ref: FileRef, symbol: str, excerpt: Excerpt) -> str:
    base = f"https://github.com/{ref.repo}"
    permalink = f"{base}/blob/{ref.commit}/{ref.path}#L{excerpt.first}-L{excerpt.last}"
    rows = [
        ("File", f'<a href="{escape(permalink)}">{escape(ref.path)}</a> '
                 f'<span class="proof-card__lines">L{excerpt.first}–L{excerpt.last}</span>'),
        ("Symbol", f"<code>{escape(symbol)}</code>"),
        ("Commit", f'<a href="{escape(base)}/commit/{ref.commit}"><code>{ref.commit[:7]}</code></a>'),
    ]
    code = _fence(excerpt.text, "python", f'linenums="{excerpt.first}"')
    return _card("REAL SOURCE", "proof-card--source", rows, code)


def experiment_card(path: str, page_url: str, purpose: str, excerpt: Excerpt) -> str:
    rows = [
        ("File", f'<a href="{escape(page_url)}">{escape(path)}</a> '
                 f'<span class="proof-card__lines">L{excerpt.first}–L{excerpt.last}</span>'),
        ("Purpose", escape(purpose)),
    ]
    code = _fence(excerpt.text, "python", f'linenums="{excerpt.first}"')
    return _card("EXPERIMENT", "proof-card--experiment", rows, code)


def output_console(path: str, output: str, stamp: str) -> str:
    rows = [("Command", f"<code>$ python -B {escape(path)}</code>")]
    body = _fence(output, "text") + f'\n\n<p class="proof-card__stamp">{escape(stamp)}</p>'
    return _card("OUTPUT", "proof-card--output", rows, body)


def problem_box(problem: Problem) -> str:
    """What `mkdocs serve` shows in place of a block that failed, so the author sees it while typing."""
    text = str(problem)
    return (
        '\n<div class="proof-error" markdown="1">\n'
        '<p class="proof-error__title">BUILD ERROR: this block is not verified and would fail mkdocs build</p>\n\n'
        f"{_fence(text, 'text')}\n\n</div>\n"
    )
