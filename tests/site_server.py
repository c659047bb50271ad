"""The built site served as GitHub Pages serves it, and axe-core run on its pages: for the browser tests and
bench/readers.py."""

from __future__ import annotations

import functools
import http.server
import os
import unicodedata
import threading
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.config import load_config

from codeproof.common.kinds.registry import CARD_LABELS
from codeproof.common.usercache import repository_cache

ROOT = Path(__file__).resolve().parent.parent
# axe-core, pinned in package.json: `./dev.sh test` installs it into the repository's state in the user's cache
# (tests/conftest.py names it before the tests get a user cache of their own).
AXE = Path(os.environ.get("CODEPROOF_AXE") or repository_cache(ROOT) / "node" / "node_modules" / "axe-core" / "axe.min.js")
SERIOUS = ("serious", "critical")
# Each code block and table of the article, with the share of its width that is out of view (scrolled), from
# the element that scrolls it: [[its first words, share], ...].
HIDDEN = """() => [...document.querySelectorAll('article pre > code, article table')].map(el => {
  for (let e = el; e && e !== document.body; e = e.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1)
      return [el.textContent.slice(0, 40), (e.scrollWidth - e.clientWidth) / e.scrollWidth];
  }
  return [el.textContent.slice(0, 40), 0];
})"""


# Where the server gives axe-core to the pages it serves: loaded by address, Chromium compiles it once and reuses
# the compiled code on the next pages (inline, each page compiled it anew: half a CPU-second a page).
AXE_ADDRESS = "/.axe-core/axe.min.js"


class _Site(http.server.SimpleHTTPRequestHandler):
    """Files of the built site under the path of its site_url (e.g. /autograd-series/): the 404 page's links
    start there. And axe-core at AXE_ADDRESS, for the tests to inject. Anything else is not found."""

    prefix = "/"

    def translate_path(self, path: str) -> str:
        if path == AXE_ADDRESS:
            return str(AXE)
        return super().translate_path("/" + path[len(self.prefix):] if path.startswith(self.prefix) else "/.missing")

    def log_message(self, *args) -> None:
        pass


def site_prefix() -> str:
    """The path of the real site's site_url."""
    return urlsplit(load_config(str(ROOT / "mkdocs.yml")).site_url or "/").path or "/"


def serve(site: Path, prefix: str = "/") -> tuple[http.server.ThreadingHTTPServer, str]:
    """A server of `site` on a free port, in a thread, and the site's address on it."""
    handler = functools.partial(type("Site", (_Site,), {"prefix": prefix}), directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}{prefix}"


def pages(site: Path) -> list[str]:
    """Every HTML page of the built site, as a path from the site's address."""
    found = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    return [p[: -len("index.html")] if p.endswith("index.html") else p for p in found]


def show_every_code_block(page) -> None:
    """Scroll each code block of a loaded page into view, so Material adds its buttons (content.lazy), then
    wait until every block has them (a block that never gets them fails here, by timeout)."""
    page.evaluate("""async () => {
      for (const block of document.querySelectorAll('div.highlight:not(.no-copy)')) {
        block.scrollIntoView();
        await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
      }
      scrollTo(0, 0);
    }""")
    page.wait_for_function("""() => [...document.querySelectorAll('div.highlight:not(.no-copy)')]
      .every(block => block.querySelector('nav.md-code__nav .series-wrap'))""", timeout=10_000)


def inject_axe(page) -> None:
    """axe-core into a loaded page of a site that `serve` serves."""
    page.add_script_tag(url=AXE_ADDRESS)


def axe_violations(page) -> list[dict]:
    """axe-core's violations on a loaded Playwright page, every code block's buttons included: rule, impact,
    and each node's target and summary. The first call on a page shows the blocks and injects axe-core."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        # Material's transitions end at once (the header's title fades when a page scrolls, as the code blocks are
        # shown; colours fade when the scheme switches): axe reads each colour where it ends, never half-way.
        page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
        show_every_code_block(page)
        inject_axe(page)
    # An animation settles first (a transition ends at once, above).
    page.wait_for_function("""() => document.getAnimations().every(a => a.playState !== 'running'
      || a.effect.getComputedTiming().endTime === Infinity)""", timeout=10_000)
    # target-size (WCAG 2.2: 24 px for a control or a link outside running text) is asked for by name.
    return page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations'],
                                                              rules: {'target-size': {enabled: true}}})).violations.map(v =>
        ({rule: v.id, impact: v.impact, nodes: v.nodes.map(n => [n.target.join(' '), n.failureSummary])}))""")


@functools.cache
def palette_schemes() -> dict[str, str]:
    """Material's colour scheme for each `prefers-color-scheme` of the real site: {"light": "default", ...}."""
    palette = load_config(str(ROOT / "mkdocs.yml")).theme["palette"]
    return {entry["media"].split(":")[1].strip(" )"): entry["scheme"] for entry in palette}


def lay_out_every_block(page) -> None:
    """Lay out every block of a loaded page, as each is once a reader scrolls to it: a source page's chunks of
    lines are laid out only when near the screen (content-visibility: auto, series.css), so a screenshot of the
    whole page or a reading of what lies off screen (innerText) would meet chunks not yet drawn."""
    # Once a page: each style sheet added would style the whole page again.
    if not page.evaluate("!!document.getElementById('every-block-laid-out')"):
        style = page.add_style_tag(content=".md-content * { content-visibility: visible !important; }")
        style.evaluate("element => element.id = 'every-block-laid-out'")


def switch_scheme(page, scheme: str) -> None:
    """Switch a loaded page to `scheme` ("light" or "dark") as a reader does, with the header's palette toggle
    (the choice is kept for the next page). Waits until the new scheme is set."""
    want = palette_schemes()[scheme]
    # axe reads blocks off screen too, and would read a block laid out before the switch in its old colours.
    lay_out_every_block(page)
    if page.evaluate("document.body.dataset.mdColorScheme") != want:
        page.locator("form[data-series-palette] label:not([hidden])").click()
    page.wait_for_function("""want => document.body.dataset.mdColorScheme === want
      && !document.body.hasAttribute('data-md-color-switching')""", arg=want, timeout=10_000)


# An init script: each write of the body's colour attributes (the scheme, and Material's switching mark), with
# whether the page's <main> was parsed by then. A write after it styles the whole page anew.
SCHEME_WRITES = """window.seriesSchemeWrites = [];
new MutationObserver(changes => { for (const change of changes) {
  if (change.target === document.body) seriesSchemeWrites.push([change.attributeName, !!document.querySelector('main')]);
} }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-md-color-scheme', 'data-md-color-primary',
  'data-md-color-accent', 'data-md-color-media', 'data-md-color-switching']});"""


# --- what a reader reads ---------------------------------------------------------------------------------------

# A card's faces as a reader reads them (see `shown`): the stamp's words, each block's marker, each label and kind.
FACES = ["输出已验证", *(f"[{kind.name}]".replace(" ", "") for kind in CARD_LABELS),
         *(f"{label}{kind.name}".replace(" ", "") for kind, label in CARD_LABELS.items())]


def shown(text: str) -> str:
    """What a reader reads of innerText: no white space, no invisible format character, upper case."""
    return "".join(c for c in text if not c.isspace() and unicodedata.category(c) != "Cf").upper()


def reads_as_a_face(text: str) -> bool:
    return any(face.upper() in shown(text) for face in FACES)


# On a built page: the verified cards, inline code and Markdown examples (the guide's) are what a reader reads as
# verified or as names; the rest is what the guard must have read as a reader does.
OUTSIDE_CARDS = ('[class*="proof-"], :not(pre) > code, .headerlink, .language-markdown, .language-md '
                 '{ display: none !important; }')


def shown_faces(page) -> list[str]:
    """The faces a loaded page of the site shows outside its verified cards (innerText, as a reader reads it,
    scrolling through the whole page: innerText leaves out a chunk not yet laid out)."""
    lay_out_every_block(page)
    style = page.add_style_tag(content=OUTSIDE_CARDS)
    text = shown(page.evaluate("document.body.innerText"))
    style.evaluate("element => element.remove()")
    return [face for face in FACES if face.upper() in text]


SWEEP_PARTS = 8  # a site's pages in this many tests of a sweep, so the test workers share them evenly


def sweep_part(site: Path, part: int) -> list[str]:
    """One part of a site's pages: each page, largest first, to the part that has least so far (axe's time grows
    with a page's size), so the parts take about as long and no single test holds up the end of the run."""
    def size(path: str) -> int:
        return (site / path / "index.html" if path.endswith("/") or not path else site / path).stat().st_size

    parts, totals = [[] for _ in range(SWEEP_PARTS)], [0] * SWEEP_PARTS
    for path in sorted(pages(site), key=lambda path: (-size(path), path)):
        least = totals.index(min(totals))
        parts[least].append(path)
        totals[least] += size(path)
    return parts[part]


def accessibility_sweep(browser, base_url: str, paths: list[str]) -> tuple[dict, dict, dict]:
    """Each page at `paths` read as the axe tests read a site: at 1280 px in the light colour scheme and the dark
    one, switched as a reader's system switches it, then at 375 px (the window narrowed, as a reader turns a tablet
    or narrows a window: the layout is CSS's, made anew) in both again; one load a page for all four, one tab going
    from page to page, as a reader's does (a new tab for each page took twice the CPU to load it), every folded
    block opened. Returns axe's serious and critical violations by (width, scheme, path); by path, each code block
    or table that hides more than a tenth of its width on the phone's width, and the page itself if it is wider
    than the phone's screen; and the card faces the page shows outside its cards."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    page = context.new_page()
    found, hidden, faces = {}, {}, {}
    for path in paths:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(base_url + path, wait_until="load")
        # Every folded block open, as a reader opens it (a source page's outline of its definitions): read too.
        page.evaluate("document.querySelectorAll('details').forEach(details => details.open = true)")
        faces[path] = shown_faces(page)
        for width, schemes in ((1280, ("light", "dark")), (375, ("dark", "light"))):
            if width != page.viewport_size["width"]:
                page.set_viewport_size({"width": width, "height": 900})
                hidden[path] = [(text, round(share, 2)) for text, share in page.evaluate(HIDDEN) if share > 0.10]
                wide = page.evaluate("document.documentElement.scrollWidth")
                if wide > width:  # the page itself scrolls sideways: some line of it runs off the phone's screen
                    hidden[path].append(("the page", round((wide - width) / wide, 2)))
            for scheme in schemes:
                switch_scheme(page, scheme)
                found[width, scheme, path] = [(v["rule"], v["impact"], v["nodes"][:3]) for v in axe_violations(page)
                                              if v["impact"] in SERIOUS]
    context.close()
    return found, hidden, faces
