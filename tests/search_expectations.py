"""What a reader's search must find of each post, derived from the post itself (issue 53: a post is only its own
files): its title without the series' name and each of its headings must list it; a phrase only it holds must
bring it first. Read from the built site as a browser reads it (Lexbor), never with the search index's own
segmentation, which would make the tests circular. An author may add queries in the post's front matter
(`search_expects`: `lists`, `first`)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from selectolax.lexbor import LexborHTMLParser

CLAUSE_END = re.compile(r"[，。；：！？、,.;:!?（）()“”\"'《》「」\[\]]")
HAN = re.compile(r"[\u4e00-\u9fff]")
PHRASES_PER_POST = 3


def front_matter(post: Path) -> dict:
    return next(yaml.safe_load_all(post.read_text(encoding="utf-8"))) or {}


def article(built: Path, url: str):
    return LexborHTMLParser((built / url / "index.html").read_text(encoding="utf-8")).css_first("article")


def title_words(post: Path, series: str) -> str:
    """The post's title without the series' name and number: `Autograd 源码学习（六）：NumPy Primitive 与 VJP` ->
    `NumPy Primitive 与 VJP`."""
    title = front_matter(post)["title"]
    return title.split("：", 1)[1].strip() if title.startswith(series) and "：" in title else title


def headings(built: Path, url: str) -> list[str]:
    return [" ".join(h.text().replace("¶", " ").split()) for h in article(built, url).css("h2, h3")]


def listing_queries(post: Path, built: Path, url: str, series: str) -> list[str]:
    """Queries whose results must list the post: its title's words, its headings, and its author's."""
    added = (front_matter(post).get("search_expects") or {}).get("lists") or []
    return list(dict.fromkeys([title_words(post, series), *headings(built, url), *added]))


def own_phrases(built: Path, url: str, count: int = PHRASES_PER_POST) -> list[str]:
    """Phrases of the post's prose (a clause of 6 to 16 characters, with Chinese in it) that no other page of the
    site holds, as a browser shows the pages' text: `count` of them, spread over the post."""
    others = [" ".join(LexborHTMLParser(page.read_text(encoding="utf-8")).body.text().split()).lower()
              for page in sorted(built.rglob("*.html")) if page != built / url / "index.html"]
    found = []
    for paragraph in article(built, url).css("p"):
        if any(parent.attributes.get("class", "") and "proof-" in parent.attributes.get("class", "")
               for parent in _ancestors(paragraph)):
            continue  # a card's text is the build's, not the post's prose
        for clause in CLAUSE_END.split(" ".join(paragraph.text().split())):
            clause = clause.strip()
            if 6 <= len(clause) <= 16 and HAN.search(clause) and not any(clause.lower() in text for text in others):
                found.append(clause)
    found = list(dict.fromkeys(found))
    return [found[n * len(found) // count] for n in range(min(count, len(found)))]


def first_queries(post: Path, built: Path, url: str) -> list[tuple[str, bool]]:
    """Queries whose first result must be the post: (query, whether only this post holds it). The author's hold
    when no post holds them as typed (when one does, the first result is such a post)."""
    added = (front_matter(post).get("search_expects") or {}).get("first") or []
    return [(phrase, True) for phrase in own_phrases(built, url)] + [(query, False) for query in added]


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


SEARCH_WAIT = 45_000  # ms: Material loads its index and lunr in a worker


def search_results(page, base_url: str, query: str) -> list[str]:
    """The pages a search for `query` lists, in order, once the site's script has ordered them: typed into the
    search box of a page of the site (opened once: its index loads once), as a reader searches again."""
    if not page.url.startswith(base_url):
        page.goto(base_url, wait_until="load")
        page.keyboard.press("/")  # Material's shortcut opens the search box
    page.fill("input.md-search__input", query)
    page.keyboard.press("End")  # Material searches on a key's release (fill alone types no key)
    page.wait_for_selector(f'.md-search-result__list[data-phrase-first="{query.lower()}"]', timeout=SEARCH_WAIT)
    links = page.locator(".md-search-result__item > a").evaluate_all("els => els.map(e => e.href)")
    return [re.sub(r"[?#].*$", "", link.removeprefix(base_url)) for link in links]


# Zensical's search: a dialog in a shadow root, which Playwright's CSS locators enter. Its results name no query
# (each link's `?h=` is the input's words when it is drawn), so the box is emptied between two queries, and the
# listing read once it is empty and then filled again.
ZENSICAL_RESULTS = """want => {
  const list = [...document.querySelectorAll('body *')].map(e => e.shadowRoot?.querySelector('ol[role=listbox]'))
    .find(Boolean);
  const links = list ? [...list.querySelectorAll('li a')].map(a => a.href) : [];
  return want === 'none' ? links.length === 0 : links.length ? links : null;
}"""


def zensical_search_results(page, base_url: str, query: str) -> list[str]:
    """The results a search for `query` lists in the Zensical site's search (opened once, by its shortcut), in
    order: each as the page and section it leads to (`source/pkg/mod.py/#L9`)."""
    if not page.url.startswith(base_url):
        page.goto(base_url, wait_until="load")
        page.keyboard.press("/")
    box = page.locator("dialog input[role=combobox]")
    box.fill("")
    page.wait_for_function(ZENSICAL_RESULTS, arg="none", timeout=SEARCH_WAIT)
    box.fill(query)
    links = page.wait_for_function(ZENSICAL_RESULTS, arg="some", timeout=SEARCH_WAIT).json_value()
    return [re.sub(r"\?[^#]*", "", link.removeprefix(base_url)) for link in links]
