"""Render verified blocks as Markdown for MkDocs: a card head in HTML, the code as a fence.

The code goes through pymdownx.highlight (Pygments) with the file's real first
line number; every text taken from a post's header is HTML-escaped here.
"""

from __future__ import annotations

import posixpath
import re
import secrets
from html import escape

from .structure import BlockKind, Excerpt, FileRef, Problem


def relative_url(url: str, page_url: str) -> str:
    """A site URL (relative to the site root; '' is the home page) as a link from the page at page_url."""
    rel = posixpath.relpath(url or ".", posixpath.dirname(page_url) or ".")
    return rel + "/" if (not url or url.endswith("/")) and not rel.endswith("/") else rel


SEAL_ATTRIBUTE = "data-codeproof"


def new_seal() -> str:
    """A secret made anew for each build: what the engine renders carries it, what an author writes cannot
    (see guard)."""
    return secrets.token_hex(16)


def seal_attribute(seal: str) -> str:
    return f'{SEAL_ATTRIBUTE}="{seal}"'


def fence_for(text: str, mark: str = "`") -> str:
    """A fence of `mark` (` or ~) that no run of it in `text` can close: one more than the longest, at least 3."""
    return mark * (max((len(run) for run in re.findall(re.escape(mark) + "{3,}", text)), default=2) + 1)


def _fence(text: str, lang: str, attrs: str = "") -> str:
    ticks = fence_for(text)
    return f"{ticks}{lang}{' ' + attrs if attrs else ''}\n{text}\n{ticks}"


def _card(kind: BlockKind, css: str, rows: list[tuple[str, str]], body: str, seal: str) -> str:
    items = "".join(f"<dt>{escape(name)}</dt><dd>{value}</dd>" for name, value in rows)
    head = f'<div class="proof-card__head"><span class="proof-card__label">{kind}</span><dl>{items}</dl></div>'
    return f'\n<div class="proof-card {css}" {seal_attribute(seal)} markdown="1">\n{head}\n\n{body}\n\n</div>\n'


def source_card(ref: FileRef, symbol: str, excerpt: Excerpt, seal: str) -> str:
    base = f"https://github.com/{ref.repo}"
    permalink = f"{base}/blob/{ref.commit}/{ref.path}#L{excerpt.first}-L{excerpt.last}"
    rows = [
        ("File", f'<a href="{escape(permalink)}">{escape(ref.path)}</a> '
                 f'<span class="proof-card__lines">L{excerpt.first}–L{excerpt.last}</span>'),
        ("Symbol", f"<code>{escape(symbol)}</code>"),
        ("Commit", f'<a href="{escape(base)}/commit/{ref.commit}"><code>{escape(ref.repo)}@{ref.commit[:7]}</code></a>'),
    ]
    code = _fence(excerpt.text, "python", f'linenums="{excerpt.first}"')
    return _card(BlockKind.SOURCE, "proof-card--source", rows, code, seal)


def experiment_card(path: str, page_url: str, purpose: str, excerpt: Excerpt, seal: str) -> str:
    rows = [
        ("File", f'<a href="{escape(page_url)}">{escape(path)}</a> '
                 f'<span class="proof-card__lines">L{excerpt.first}–L{excerpt.last}</span>'),
        ("Purpose", escape(purpose)),
    ]
    code = _fence(excerpt.text, "python", f'linenums="{excerpt.first}"')
    return _card(BlockKind.EXPERIMENT, "proof-card--experiment", rows, code, seal)


def output_console(path: str, output: str, stamp: str, seal: str) -> str:
    rows = [("Command", f"<code>$ python -B {escape(path)}</code>")]
    body = _fence(output, "text") + f'\n\n<p class="proof-card__stamp">{escape(stamp)}</p>'
    return _card(BlockKind.OUTPUT, "proof-card--output", rows, body, seal)


def problem_box(problem: Problem, seal: str) -> str:
    """What `mkdocs serve` shows in place of a block that failed, so the author sees it while typing."""
    text = str(problem)
    return (
        f'\n<div class="proof-error" {seal_attribute(seal)} markdown="1">\n'
        '<p class="proof-error__title">BUILD ERROR: this block is not verified and would fail mkdocs build</p>\n\n'
        f"{_fence(text, 'text')}\n\n</div>\n"
    )
