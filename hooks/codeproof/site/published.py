"""The check of an output folder once a host has built it, the same for every host (MkDocs' adapter runs it after
its build, Zensical's after Zensical's): what the page guard could not see, because a theme's template, the
site's settings or a page's meta put it there after the page's content was guarded. Every HTML file of the folder
holds exactly the cards the build verified for it, each showing the words it verified, and none elsewhere; and,
less its cards, shows no card's face and no block marker, its meta's content included."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from html import escape
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from codeproof.common import pagetree
from codeproof.common.structure import Problem
from codeproof.site import guard


@dataclass(frozen=True)
class Rendered:
    """A page the build rendered and passed: its post, its URL in the site, and each card's words
    (pagetree.card_words), in order: what the published page must show."""

    post: str
    url: str
    cards: tuple[str, ...]


def output_file(site_dir: Path, url: str) -> Path:
    """The file a host writes for a page's URL (`posts/p/`, or `` for the home page)."""
    return site_dir / url / "index.html" if url.endswith("/") or not url else site_dir / url


def output_problems(site_dir: Path, rendered: list[Rendered], alike: tuple[str, ...] = ()) -> list[Problem]:
    """What the output folder's HTML files show that no guard saw (see the module's docstring), each at the post
    the page came from, or at the file for a page of no post's. `alike` are the URLs of pages one template of the
    build's draws from the engine's values alone (the package's source pages: three dozen, the largest pages of
    the site): what a template adds shows on every one of them, so one of them, the smallest, is read for faces
    (a whole page's reading takes the guard a tenth of a second on the largest); each one's cards are counted."""
    pages = {output_file(site_dir, page.url): page for page in rendered}
    files = [output_file(site_dir, url) for url in alike]
    smallest = sorted((f for f in files if f.is_file()), key=lambda f: f.stat().st_size)[:1]
    counted_only = set(files) - set(smallest)  # their cards counted, their words read in the smallest alone
    problems = [Problem(page.post, 1, f"the host wrote no page {page.url or '/'} for it",
                        hint="report it: the build rendered a page that is not in the site")
                for file, page in pages.items() if not file.is_file()]
    for file in sorted(f for f in site_dir.rglob("*.html") if f.is_file() and not f.is_symlink()):
        page = pages.get(file)
        where = page.post if page else file.relative_to(site_dir.parent).as_posix()
        shown, showing = _reading(file.read_text(encoding="utf-8", errors="replace"), file not in counted_only)
        verified = page.cards if page else ()
        if len(shown) != len(verified):
            problems.append(Problem(where, 1, f"the published page holds {len(shown)} cards, but the build "
                                              f"verified {len(verified)}",
                                    hint="the theme's template adds or drops cards: render only page.content"))
        else:
            problems += [Problem(where, 1, f"the published page's card {n} shows other words than the build "
                                           f"verified: {was[:80]!r} became {now[:80]!r}",
                                 hint="the theme's template changes a card: render page.content as it is")
                         for n, (was, now) in enumerate(zip(verified, shown), 1) if was != now]
        problems += [Problem(where, 1, f"the published page {what}, outside any verified card",
                             hint="the theme, the site's settings or the page's meta shows it: name it in other words")
                     for what in showing]
    return problems


@functools.lru_cache(maxsize=256)
def _reading(text: str, whole: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(each card's words, what the page less its cards and its meta's content show that a page may not: none
    unless `whole`), a function of the file's text alone: remembered, because serve's every rebuild writes the same
    pages again, and an edit changes a few."""
    tree = LexborHTMLParser(text)
    held = pagetree.cards(tree)
    shown = tuple(pagetree.card_words(node) for node in held)
    if not whole:
        return shown, ()
    for node in held:
        node.decompose()
    meta = [escape(str(node.attributes.get("content") or "")) for node in tree.css("meta[content]")]
    return shown, tuple(what for fragment in [tree.html or "", *meta] for _, what in guard.route_problems(fragment))
