"""The site's search, under either host: what its index gets beyond the pages' text (the package's files and
definitions, so a reader finds `elementwise_grad` at its line), in Material's format and in Zensical's; and the
lunr files of Material's a reader's browser never fetches."""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path
from urllib.parse import quote

from selectolax.lexbor import LexborHTMLParser

from codeproof.common.filesystem import write_atomically
from codeproof.site import addresses
from codeproof.site.sourcepages import SourceSite

INDEX = "search/search_index.json"  # where Material's search plugin writes its index, in the site folder
ZENSICAL_INDEX = "search.json"  # where Zensical writes its own, in the site folder


def unfetched_theme_files(src_uris: list[str], search_languages: list[str]) -> list[str]:
    """Of the theme's files, those no reader's browser fetches, so the site leaves them out: source maps (for
    the theme's developers) and the search's language support for languages the search is not set up for
    (Material's search worker loads lunr.stemmer.support and one lunr.<lang> per language, lunr.multi for more
    than one, tinyseg for Japanese and wordcut for Hindi and Thai)."""
    wanted = {"lunr.stemmer.support.min.js"} | {f"lunr.{lang}.min.js" for lang in search_languages if lang != "en"}
    if len(search_languages) > 1:
        wanted.add("lunr.multi.min.js")
    if "ja" in search_languages:
        wanted.add("tinyseg.js")
    if {"hi", "th"} & set(search_languages):
        wanted.add("wordcut.js")
    lunr = "assets/javascripts/lunr/"
    return [uri for uri in src_uris if uri.endswith(".map")
            or (uri.startswith(lunr) and uri.rsplit("/", 1)[-1] not in wanted)]


def page_entries(index_file: Path, site_dir: Path) -> list[tuple[str, str]]:
    """What each entry of the index the search plugin wrote shows (its location, and each run of its title's and
    text's words as HTML), less what its page shows where the guard lets a face or a marker stand: its verified
    cards, its code (inline code, fences, `markdown` examples). Search keeps those words but not their elements or
    classes (Material some tags, MkDocs' own plain text), so they are matched by their words, and the entry is read
    in the runs between them, never joined across one. Lexbor reads both the page and the entry."""
    if not index_file.is_file():
        return []
    return entry_runs(json.loads(index_file.read_text(encoding="utf-8")).get("docs", []), site_dir)


def entry_runs(entries: list[dict], site_dir: Path) -> list[tuple[str, str]]:
    """Each search entry's (`location`, `title`, `text`) runs of words outside what its page shows in its cards
    and code, as page_entries says; any host's search index whose entries are so made (Material's, Zensical's)."""
    exempt: dict[str, re.Pattern | None] = {}  # a page -> a pattern of its cards' and code's words
    runs = []
    for entry in entries:
        location = str(entry.get("location", ""))
        page = location.split("#", 1)[0]
        if page not in exempt:
            exempt[page] = _exempt_words(site_dir / page / "index.html")
        for part in (entry.get("title", ""), entry.get("text", "")):
            words = _plain(LexborHTMLParser(f"<p>{part}</p>").text())
            runs += [(location, escape(run)) for run in (exempt[page].split(words) if exempt[page] else [words])
                     if run]
    return runs


def _exempt_words(page: Path) -> re.Pattern | None:
    """A pattern of the words a built page shows in its verified cards and its code, longest first."""
    if not page.is_file():
        return None
    tree = LexborHTMLParser(page.read_text(encoding="utf-8"))
    words = {_plain(node.text()) for node in tree.css(".proof-card, .proof-card *, code, pre")} - {""}
    return re.compile("|".join(map(re.escape, sorted(words, key=len, reverse=True)))) if words else None


def _plain(text: str) -> str:
    """Words as compared here: without white space and the word breaks search inserts (U+200B)."""
    return "".join(text.replace("\u200b", "").split())


def complete_search_index(index_file: Path, sources: SourceSite | None) -> None:
    """Add the package's files and definitions (`sources`, the source pages' index, None without them) to the index
    Material's search wrote, whose page text leaves the source pages out."""
    if sources is None or not index_file.is_file():
        return
    index = json.loads(index_file.read_text(encoding="utf-8"))
    index["docs"] += [entry for _, entry in search_entries(sources)]
    write_atomically(index_file, json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def complete_zensical_index(index_file: Path, sources: SourceSite | None) -> None:
    """complete_search_index for the index Zensical wrote: the same entries in its format, where each has a level
    (1 a page, 2 a section of it) and the titles of the pages it lies in, as Zensical gives a page of no section
    (its own: here the file's path)."""
    if sources is None or not index_file.is_file():
        return
    index = json.loads(index_file.read_text(encoding="utf-8"))
    index["items"] += [{**entry, "level": 2 if "#" in entry["location"] else 1, "path": [escape(path, quote=False)],
                        "tags": []} for path, entry in search_entries(sources)]
    write_atomically(index_file, json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def search_entries(site: SourceSite) -> list[tuple[str, dict]]:
    """What the site's search holds of the package, each entry with the file it lies in, in Material's index format
    (its text is HTML, so escaped): each file's page by its path, and as its sections each top-level definition by
    its name, leading to its line, with its file and the line that defines it. Not the code itself, which would
    drown the posts."""
    entries = []
    for path in sorted(p for p in site.files if p.endswith(".py")):
        # percent-encoded: an upstream file's name may hold #, ? or % (the site's other links to it are as well)
        url, lines = quote(addresses.source_page_url(path)), site.files[path].decode("utf-8", "replace").split("\n")
        entries.append((path, {"location": url, "title": escape(path, quote=False), "text": ""}))  # sections come under their page
        entries += [(path, {"location": f"{url}#L{d.first}", "title": escape(d.name, quote=False),
                            "text": escape(f"{path}:{d.first} " + (lines[d.first - 1].strip() if d.first <= len(lines)
                                                                   else ""), quote=False)})
                    for d in site.index.definitions.get(path, [])]
    return entries
