"""What readers get, in headless Chromium (Debian's /usr/bin/chromium driven by Playwright).

Screenshots of each page at desktop and phone width go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import io
import re
from urllib.parse import quote, urljoin

import pytest
from PIL import Image
from playwright import sync_api as playwright
from selectolax.lexbor import LexborHTMLParser

from codeproof.common.kinds.registry import BlockKind
from codeproof.series.blocks import read_post
from codeproof.series.config import load_series
from conftest import ROOT
from search_expectations import first_queries, listing_queries, search_results, title_words
from site_server import (AXE, SCHEME_WRITES, SERIOUS, SWEEP_PARTS, accessibility_sweep, axe_violations, inject_axe,
                         lay_out_every_block, pages, palette_schemes, serve, show_every_code_block, site_prefix, sweep_part,
                         switch_scheme)

pytestmark = pytest.mark.browser

SHOTS = ROOT / "test-artifacts" / "screenshots"
POSTS = sorted(f"posts/{post.stem}/" for post in (ROOT / "docs" / "posts").glob("*.md"))  # every post, by its file
assert POSTS, "no post in docs/posts/"
PAGES = {"overview": "", **{f"post-{url.split('/')[1]}": url for url in POSTS}}
LINKED_NAME = ".proof-card--source pre a.series-xref"  # a name in a card, linked to its definition
CITATION = "p code a.series-cite[href*='/source/'], td code a.series-cite[href*='/source/']"  # the words' citation
LINKED = [LINKED_NAME, CITATION]
# Results wait on Material's search worker, which builds the index when search opens (about 1 s here, quiet). A
# ceiling, not a wait: a machine busy with two suites and builds beside them once took over 15 s.
SEARCH_WAIT = 45_000
SERIES = load_series(ROOT / "mkdocs.yml").name


@pytest.fixture(scope="module")
def base_url(built):
    server, url = serve(built, site_prefix())  # as GitHub Pages serves it, under the site_url's path
    yield url
    server.shutdown()


class Visit:
    """A page load that records every request, failed request and console error."""

    def __init__(self, context, url):
        self.page = context.new_page()
        self.requests, self.failed, self.errors = [], [], []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("requestfailed", lambda r: self.failed.append(r.url))
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.status} {r.url}"))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.goto(url, wait_until="networkidle")


@pytest.fixture(scope="module")
def contexts(browser, base_url):
    """contexts(**options): a browser context with those options, shared by the module's tests and handed out
    as a new one would be: no page, cookie, permission or stored value of an earlier test. A new context costs
    a page of the site about a core-second more (its HTTP and code caches start cold), which is what the
    sharing saves; the stored values (Material's scheme, series.js' wrapping) are cleared from a page kept
    open on the site's host for that."""
    made = {}

    def fresh(**options):
        key = repr(sorted(options.items()))
        if key not in made:
            context = browser.new_context(**options)
            keeper = context.new_page()
            keeper.goto(urljoin(base_url, "/codeproof-tests-blank"))  # the server's plain "not found": same host
            made[key] = (context, keeper)
        context, keeper = made[key]  # the last test's pages are closed (pages_closed_after_each_test)
        context.clear_cookies()
        context.clear_permissions()
        keeper.evaluate("localStorage.clear(); sessionStorage.clear()")
        assert keeper.evaluate("localStorage.length") == 0
        return context

    fresh.made = made
    yield fresh
    for context, _ in made.values():
        context.close()


@pytest.fixture(autouse=True)
def pages_closed_after_each_test(request):
    """The pages a test opened in the shared contexts are closed when it ends, so none runs on beside the next."""
    yield
    if "contexts" in request.fixturenames:
        for context, keeper in request.getfixturevalue("contexts").made.values():
            for page in context.pages:
                if page is not keeper:
                    page.close()


@pytest.fixture
def visit(browser, contexts):
    """visit(url, **options): the page loaded in a context with those options (shared, see contexts); with
    `fresh=True` in a context of its own, whose caches are empty, for a test of what a first visit requests."""
    opened = []

    def open_page(url, fresh=False, **options):
        context = browser.new_context(**options) if fresh else contexts(**options)
        if fresh:
            opened.append(context)
        return Visit(context, url)

    yield open_page
    for context in opened:  # a shared context's pages are closed with the test (pages_closed_after_each_test)
        context.close()


@pytest.mark.parametrize("name, path", PAGES.items())
def test_page_loads_cleanly_and_requests_only_its_own_host(visit, base_url, name, path):
    v = visit(base_url + path, fresh=True)
    assert v.errors == [] and v.failed == []
    assert v.requests and all(url.startswith("http://127.0.0.1:") for url in v.requests), v.requests
    SHOTS.mkdir(parents=True, exist_ok=True)
    lay_out_every_block(v.page)  # the whole page, as a reader scrolling through it sees it
    v.page.screenshot(path=str(SHOTS / f"{name}-desktop.png"), full_page=True)
    phone = visit(base_url + path, viewport={"width": 375, "height": 812})
    lay_out_every_block(phone.page)
    phone.page.screenshot(path=str(SHOTS / f"{name}-phone.png"), full_page=True)


def test_the_search_index_is_fetched_when_search_opens_and_the_sitemap_once(visit, base_url):
    v = visit(base_url + POSTS[0], fresh=True)
    # Material asks for the sitemap once the page is idle: on a busy machine, after the load's own network idle.
    if not any(url.endswith("/sitemap.xml") for url in v.requests):
        v.page.wait_for_response(lambda response: response.url.endswith("/sitemap.xml"), timeout=SEARCH_WAIT)
    v.page.wait_for_load_state("networkidle")
    index = [url for url in v.requests if url.endswith("/search/search_index.json")]
    assert index == [] and [url for url in v.requests if url.endswith("/sitemap.xml")] == [base_url + "sitemap.xml"]
    with v.page.expect_response(lambda r: r.url.endswith("/search/search_index.json")):
        v.page.keyboard.press("/")  # Material's shortcut opens the search box
    v.page.keyboard.type("defvjp")
    v.page.wait_for_selector(".md-search-result__item", timeout=SEARCH_WAIT)


def a_post_with(built, *selectors: str) -> str:
    """The first post (by file name) whose page has an element matching each selector, whichever posts there are."""
    for url in POSTS:
        html = LexborHTMLParser((built / url / "index.html").read_text(encoding="utf-8"))
        if all(html.css_first(selector) for selector in selectors):
            return url
    pytest.fail(f"no post has {', '.join(selectors)}")


@pytest.mark.parametrize("path", POSTS)
def test_real_source_cards_show_real_line_numbers_and_permalinks(visit, base_url, path):
    page = visit(base_url + path).page
    baseline = load_series(ROOT / "mkdocs.yml").baseline
    cards = page.locator(".proof-card--source")
    source = ROOT / "docs" / f"{path.rstrip('/')}.md"
    parsed, _ = read_post(source, str(source))
    assert cards.count() == sum(block.kind is BlockKind.SOURCE for block in parsed.blocks)  # every one, if any
    for i in range(cards.count()):
        card = cards.nth(i)
        onsite = card.locator("dt:text('文件') + dd a").first.get_attribute("href")
        match = re.fullmatch(r"\.\./\.\./source/([\w/]+\.py)/#L(\d+)-L(\d+)", onsite)
        assert match, onsite
        github = card.locator("a.proof-card__github").get_attribute("href")
        assert github == (f"https://github.com/{baseline.repo}/blob/{baseline.commit}/"
                          f"{match.group(1)}#L{match.group(2)}-L{match.group(3)}")
        numbers = card.locator(".linenos").evaluate_all("els => els.map(e => e.dataset.linenos.trim())")
        assert numbers[0] == match.group(2) and numbers[-1] == match.group(3)
    stamps = page.locator(".proof-card--output .proof-card__stamp")
    assert stamps.count() == sum(block.kind is BlockKind.OUTPUT for block in parsed.blocks)
    for i in range(stamps.count()):
        stamp = stamps.nth(i).inner_text()
        assert "输出已验证" in stamp and f"autograd {baseline.version}" in stamp


def test_the_series_bar_leads_from_a_post_to_the_overview_and_from_it_to_each_post(visit, base_url):
    page = visit(base_url + POSTS[0]).page
    page.locator("nav.series-nav a.series-nav__index").first.click()
    page.wait_for_load_state()
    assert page.url == base_url
    for url in POSTS:
        page.goto(base_url)
        page.locator(f"article a[href='{url}']").first.click()
        page.wait_for_load_state()
        assert page.url == base_url + url


@pytest.mark.parametrize("url", POSTS)
def test_typing_a_posts_title_lists_it(visit, base_url, url):
    """The title without the series' name, typed as a reader types it (Chinese arrives without key events)."""
    query = title_words(ROOT / "docs" / f"{url.removesuffix('/')}.md", SERIES)
    v = visit(base_url)
    page = v.page
    page.keyboard.press("/")  # Material's shortcut opens the search box
    page.keyboard.type(query)
    page.keyboard.press("End")  # an IME commits its text with a key, as here
    page.wait_for_selector(f'.md-search-result__list[data-phrase-first="{query.lower()}"]', timeout=SEARCH_WAIT)
    links = page.locator(".md-search-result__item > a").evaluate_all("els => els.map(e => e.href)")
    assert url in {re.sub(r"[?#].*$", "", link.removeprefix(base_url)) for link in links}
    assert v.errors == []


def test_search_lists_each_post_by_each_of_its_headings_and_its_authors_words(visit, base_url, built):
    """Each query once (most headings are every post's: 本文目标, 小结…), with every post that expects it."""
    expected: dict[str, set[str]] = {}
    for url in POSTS:
        for query in listing_queries(ROOT / "docs" / f"{url.removesuffix('/')}.md", built, url, SERIES):
            expected.setdefault(query, set()).add(url)
    v = visit(base_url)
    missing = {query: posts - set(search_results(v.page, base_url, query)) for query, posts in expected.items()}
    assert len(expected) > len(POSTS) and {query: posts for query, posts in missing.items() if posts} == {}
    assert v.errors == []


@pytest.mark.parametrize("path", PAGES.values())
def test_a_phone_wide_page_does_not_scroll_sideways(visit, base_url, path):
    page = visit(base_url + path, viewport={"width": 375, "height": 812}).page
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


CONTRAST = """els => els.map(el => {
  const rgb = s => s.match(/[\\d.]+/g).map(Number);
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  let bg = el;
  while (bg && (getComputedStyle(bg).backgroundColor === 'rgba(0, 0, 0, 0)')) bg = bg.parentElement;
  const fg = lum(rgb(getComputedStyle(el).color)), back = lum(rgb(getComputedStyle(bg).backgroundColor));
  return [el.textContent.slice(0, 30), (Math.max(fg, back) + 0.05) / (Math.min(fg, back) + 0.05)];
})"""


PALETTE_LABEL = "form[data-series-palette] label:not([hidden])"  # the toggle a reader sees


def header_colours(page) -> list[str]:
    """The browser's bar colour and its controls' scheme, as the page's metas give them, beside the header's."""
    return page.evaluate("""() => { const header = getComputedStyle(document.querySelector('.md-header'));
      const meta = name => document.head.querySelector(`meta[name="${name}"]`)?.content;
      return [meta('theme-color'), meta('color-scheme'), header.backgroundColor, header.colorScheme]; }""")


def hex_of(rgb: str) -> str:
    return "#" + "".join(f"{int(c):02x}" for c in re.findall(r"\d+", rgb)[:3])


def test_the_palette_toggle_switches_the_scheme_by_tap_and_by_enter_and_the_next_page_keeps_it(contexts, base_url):
    page = contexts(viewport={"width": 375, "height": 812}, color_scheme="light").new_page()
    page.goto(base_url, wait_until="load")
    scheme = lambda: page.evaluate("document.body.dataset.mdColorScheme")  # noqa: E731
    assert scheme() == palette_schemes()["light"]
    page.locator(PALETTE_LABEL).click()
    assert scheme() == palette_schemes()["dark"]
    theme, controls, header, header_scheme = header_colours(page)
    assert (theme, controls) == (hex_of(header), header_scheme) and controls == "dark"
    page.goto(base_url + POSTS[0], wait_until="load")
    assert scheme() == palette_schemes()["dark"]  # kept for the next page
    for _ in range(20):  # the keyboard reaches the toggle: the option before the label shown, which it outlines
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('form[data-series-palette] input')"):
            break
    assert page.evaluate("document.activeElement.nextElementSibling.matches('label:not([hidden])')")
    shown = page.locator(PALETTE_LABEL).get_attribute("for")
    page.keyboard.press("Enter")
    assert scheme() == palette_schemes()["light"]
    assert page.evaluate("document.activeElement.id") == shown
    assert page.evaluate("document.activeElement.nextElementSibling.matches('label:not([hidden])')")


def test_a_reader_who_never_chose_a_scheme_follows_their_systems_until_they_choose(contexts, base_url):
    page = contexts(viewport={"width": 375, "height": 812}, color_scheme="dark").new_page()
    page.goto(base_url + POSTS[0], wait_until="load")
    scheme = lambda: page.evaluate("document.body.dataset.mdColorScheme")  # noqa: E731
    assert scheme() == palette_schemes()["dark"]
    page.emulate_media(color_scheme="light")
    page.wait_for_function("want => document.body.dataset.mdColorScheme === want", arg=palette_schemes()["light"])
    page.locator(PALETTE_LABEL).click()  # the reader chooses dark
    assert scheme() == palette_schemes()["dark"]
    page.emulate_media(color_scheme="dark")
    page.emulate_media(color_scheme="light")
    # A change of preference is delivered as a frame is made, before its callbacks: two frames, and it was.
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert scheme() == palette_schemes()["dark"]  # the reader's choice, not the system's


def test_a_kept_scheme_that_is_not_json_is_no_choice(contexts, base_url):
    page = contexts(viewport={"width": 375, "height": 812}, color_scheme="dark").new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(base_url, wait_until="load")
    page.evaluate("localStorage.setItem(__md_scope.pathname + '.__palette', '{not json')")
    page.reload(wait_until="load")
    assert page.evaluate("document.body.dataset.mdColorScheme") == palette_schemes()["dark"]
    assert page.locator(PALETTE_LABEL).count() == 1 and errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_pages_scheme_is_set_while_its_header_is_parsed_and_never_again_as_it_loads(contexts, base_url, scheme):
    """Material's palette set the scheme again once the page was parsed: each write of the body's colours (and
    its mark for the switch, set and taken off) styled the whole page anew, half of a long post's styling on a
    phone's load. The scheme is now written once, while the page is only its head and header."""
    page = contexts(viewport={"width": 375, "height": 812}, color_scheme=scheme).new_page()
    page.add_init_script(SCHEME_WRITES)
    for url in [""] + POSTS:
        page.goto(base_url + url, wait_until="load")
        page.evaluate("() => new Promise(requestAnimationFrame)")
        writes = page.evaluate("seriesSchemeWrites")
        assert writes and not [write for write in writes if write[1]], (url, writes)
        assert page.evaluate("document.body.dataset.mdColorScheme") == palette_schemes()[scheme]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_code_in_cards_is_readable_in_light_and_dark_mode(visit, base_url, built, scheme):
    page = visit(base_url + a_post_with(built, ".proof-card--source")).page
    if scheme == "dark":
        page.locator("form[data-series-palette] label:visible").first.click()
        page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    tokens = page.locator(".proof-card code, .proof-card code span:not(.linenos)").evaluate_all(CONTRAST)
    low = [(text, round(ratio, 2)) for text, ratio in tokens if text.strip() and ratio < 4.5]
    assert tokens and low == [], low
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".proof-card--source").first.screenshot(path=str(SHOTS / f"card-{scheme}.png"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_lines_a_card_leads_to_stay_readable_where_they_are_marked(contexts, base_url, built, scheme):
    """The marked range on a source page and on a script page: axe's contrast rule, which blends the tint."""
    context = contexts(viewport={"width": 375, "height": 812}, color_scheme=scheme)
    post = context.new_page()
    post.goto(base_url + a_post_with(built, ".proof-card--source", ".proof-card--experiment"), wait_until="load")
    ranges = [post.locator(f".proof-card--{kind} dt:text('文件') + dd a").first.get_attribute("href")
              for kind in ("source", "experiment")]
    found = {}
    for href in ranges:
        page = context.new_page()
        page.goto(urljoin(post.url, href), wait_until="load")
        assert page.locator(".series-src__marked").count() > 0  # the range is marked
        found[href] = [(v["rule"], v["nodes"][:3]) for v in axe_violations(page) if v["rule"] == "color-contrast"]
    assert {href: v for href, v in found.items() if v} == {}


@pytest.mark.heavy
@pytest.mark.parametrize("part", range(SWEEP_PARTS))
def test_no_page_has_a_serious_or_critical_accessibility_violation_nor_on_a_phone_hides_code_sideways(
        browser, built, base_url, part):
    """axe-core (pinned in package.json) on every page of the site (a part of them in each test), at both widths in
    both schemes (site_server.accessibility_sweep). On the phone's width, no code block or table hides more than a
    tenth of its width (they scroll sideways: a reader would miss the end of a line). And what the page shows a
    reader outside its verified cards (Chromium's innerText, inline code and Markdown examples hidden, as names)
    holds no card's face and no block marker: the table of contents, the nav and every title included."""
    assert AXE.is_file(), f"{AXE} is missing: run ./dev.sh test, which installs axe-core there"
    assert len(pages(built)) >= SWEEP_PARTS
    found, hidden, faces = accessibility_sweep(browser, base_url, sweep_part(built, part))
    assert len(found) == 4 * len(hidden) == 4 * len(faces) > 0
    assert {path: shown for path, shown in faces.items() if shown} == {}
    assert {key: v for key, v in found.items() if v} == {}
    assert {path: blocks for path, blocks in hidden.items() if blocks} == {}


# The colour of a 3 px strip at the left edge of a line (where the bar of a marked line is), from a screenshot.
def left_edge_colour(page, line) -> tuple[int, ...]:
    box = line.bounding_box()
    shot = page.screenshot(clip={"x": box["x"] + 1, "y": box["y"] + 2, "width": 3, "height": 6})
    data = Image.open(io.BytesIO(shot)).convert("RGB").tobytes()
    return tuple(round(sum(data[channel::3]) / (len(data) // 3)) for channel in range(3))


def near(colour: tuple[int, ...], hex_colour: str) -> bool:
    """Whether a colour read from pixels is a CSS #rrggbb colour, within what anti-aliasing changes."""
    want = bytes.fromhex(hex_colour.strip().lstrip("#"))
    return all(abs(a - b) <= 40 for a, b in zip(colour, want))


# A line taller than its text and its own controls, each a row of its own under the code (the control that copies
# a marked range's address, a note): a wrap mark drawn down it, or a control beside its code.
TALLER_THAN_ITS_TEXT = """lines => lines.filter(line => {
  const controls = [...line.querySelectorAll(".series-permalink, .series-src__note")].map(c => c.getBoundingClientRect());
  const rows = controls.reduce((sum, box) => sum + box.height, 0);  // their margins are the text's rows' slack
  const inControl = r => controls.some(box => r.top >= box.top - 1 && r.bottom <= box.bottom + 1);
  const range = document.createRange(); range.selectNodeContents(line);
  const height = parseFloat(getComputedStyle(line).lineHeight), top = line.getBoundingClientRect().top;
  const text = new Set([...range.getClientRects()].filter(r => !inControl(r)).map(r => Math.floor((r.top - top) / height)));
  return line.getBoundingClientRect().height > text.size * height + rows + 12;
}).map(line => line.id)"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_experiment_card_opens_its_script_at_the_quoted_lines_visibly_marked_at_the_top(
        contexts, base_url, scheme):
    """On a phone, in either scheme: the card's range is marked (a bar a reader sees, read from the pixels, which
    an unmarked line has not), its first line is in the top quarter under the header, and no line of the script
    is taller than its text (a wrap mark ↪ beside the copy-address control, as there was)."""
    context = contexts(viewport={"width": 375, "height": 812}, color_scheme=scheme)
    page = context.new_page()
    cards = 0
    for url in POSTS:
        page.goto(base_url + url, wait_until="load")
        for href in page.locator(".proof-card--experiment dd a").evaluate_all("els => els.map(e => e.href)"):
            first, last = map(int, re.fullmatch(r".*/experiments/[\w/]+/#L(\d+)-L(\d+)", href).groups())
            page.goto(href, wait_until="load")
            page.wait_for_function("() => document.querySelector('.series-permalink')")
            marked = page.locator(".series-src__marked").evaluate_all("els => els.map(e => Number(e.dataset.n))")
            assert marked == list(range(first, last + 1)), href
            lines = page.locator(".series-src__chunk > span")
            bar = page.evaluate("getComputedStyle(document.body).getPropertyValue('--md-code-hl-color')")  # #rrggbb
            shown = left_edge_colour(page, page.locator(".series-src__marked").first)
            unmarked = left_edge_colour(page, lines.nth(last))  # the line after the range
            assert near(shown, bar) and not near(unmarked, bar), (href, shown, unmarked, bar)
            header = page.locator(".md-header").bounding_box()
            top = page.locator(".series-src__marked").first.bounding_box()["y"]
            assert header["y"] + header["height"] <= top <= 812 / 4, (href, top)
            assert lines.evaluate_all(TALLER_THAN_ITS_TEXT) == [], href
            cards += 1
    assert cards > 0


@pytest.mark.parametrize("phrase", ["真实行号", "逐字节", "文中标为", "上游源码", "连续行", "中文", "实验脚本"])
def test_a_chinese_phrase_finds_first_a_page_that_holds_it_with_clean_teasers(visit, base_url, built, phrase):
    """The first result holds the phrase as typed (series.js puts such pages first; search/terms.txt keeps words
    jieba would split wrongly whole); teasers carry no zero-width spaces, and no link asks to highlight nothing."""
    v = visit(base_url)
    v.page.keyboard.press("/")
    v.page.keyboard.type(phrase)
    v.page.keyboard.press("End")  # an IME commits Chinese text with a key, as here
    v.page.wait_for_selector(".md-search-result__item", timeout=SEARCH_WAIT)
    v.page.wait_for_selector(f'.md-search-result__list[data-phrase-first="{phrase}"]', timeout=SEARCH_WAIT)
    links = v.page.locator(".md-search-result__item > a").evaluate_all("els => els.map(e => e.href)")
    first = re.sub(r"[?#].*$", "", links[0].removeprefix(base_url))
    text = LexborHTMLParser((built / first / "index.html").read_text(encoding="utf-8")).css_first("article").text()
    assert phrase in "".join(text.split()), first
    teasers = v.page.locator(".md-search-result__list").inner_text()
    assert "\u200b" not in teasers
    assert not [link for link in links if re.search(r"[?&]h=(&|#|$)", link)]


def test_a_script_page_links_the_posts_that_use_it_and_shows_its_verified_output(visit, base_url, built):
    scripts = sorted(p.parent.name for p in (built / "experiments").glob("*/index.html"))
    assert scripts
    for name in scripts:
        page = visit(base_url + f"experiments/{name}/").page
        for href in page.locator(".series-script__posts a").evaluate_all("els => els.map(e => e.href)"):
            post = LexborHTMLParser((built / href.removeprefix(base_url) / "index.html").read_text(encoding="utf-8"))
            assert any(f"experiments/{name}.py" in card.text() for card in post.css(".proof-card--experiment, .proof-card--output"))
        shown = page.locator(".series-script__output code")
        posts = [LexborHTMLParser(p.read_text(encoding="utf-8")) for p in (built / "posts").glob("*/index.html")]
        outputs = [card.css_first("pre code").text() for post in posts for card in post.css(".proof-card--output")
                   if f"experiments/{name}.py" in card.css_first("dd").text()]
        # What it printed shows where a post records its output (the same text as that OUTPUT card), else nothing.
        assert shown.count() == (1 if outputs else 0), name
        if outputs:
            assert shown.inner_text().strip() in [text.strip() for text in outputs]


def test_a_reader_follows_a_stamp_by_keyboard_on_a_phone_to_the_record_of_its_run(visit, base_url, built):
    """Issue 56: the stamp under an output is a link, reached with Tab and followed with Enter; the record of the
    run opens on the script's page, in view, named by the link's fragment, and lists the post that links to it."""
    post = sorted(p.parent.name for p in (built / "posts").glob("*/index.html"))[0]
    page = visit(base_url + f"posts/{post}/", viewport={"width": 375, "height": 812}).page
    # Into the first card with a stamp, as a reader tabs into it, then on with Tab to its stamp.
    page.evaluate("""() => { const card = document.querySelector('.proof-card__stamp a').closest('.proof-card');
                             card.tabIndex = -1; card.focus(); }""")
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement?.closest('.proof-card__stamp') !== null"):
            break
    else:
        raise AssertionError("Tab never reached the card's stamp")
    href = page.evaluate("() => document.activeElement.getAttribute('href')")
    assert "#run-" in href
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/experiments/[^/]+/#run-[0-9a-f]{12}$"))
    record = page.locator(f"section.series-run#{page.url.split('#')[1]}")
    assert record.count() == 1 and record.is_visible()
    box, height = record.bounding_box(), page.viewport_size["height"]
    assert box["y"] < height and box["y"] + box["height"] > 0  # in view
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375  # nothing sideways on the phone
    assert any(f"posts/{post}/" in href for href in record.locator(".series-run__stamps a").evaluate_all(
        "links => links.map(a => a.href)"))


def test_a_reader_may_switch_wrapping_off_and_the_choice_is_kept(visit, base_url, built):
    post = sorted(p.parent.name for p in (built / "posts").glob("*/index.html"))[0]
    page = visit(base_url + f"posts/{post}/", viewport={"width": 375, "height": 812}).page
    widest = "() => Math.max(...[...document.querySelectorAll('article pre > code')].map(c => c.scrollWidth - c.clientWidth))"
    assert page.evaluate(widest) <= 1  # wrapped: nothing to scroll
    show_every_code_block(page)
    switch = page.locator(".series-wrap").first
    assert switch.get_attribute("aria-pressed") == "true"
    switch.click()
    assert page.evaluate(widest) > 1 and switch.get_attribute("aria-pressed") == "false"
    page.reload(wait_until="networkidle")
    assert page.evaluate(widest) > 1  # kept
    show_every_code_block(page)
    assert page.locator(".series-wrap").first.get_attribute("aria-pressed") == "false"
    page.locator(".series-wrap").first.click()
    assert page.evaluate(widest) <= 1


@pytest.mark.parametrize("url", POSTS)
def test_the_skip_link_of_a_post_goes_to_its_title(visit, base_url, url):
    page = visit(base_url + url).page
    # The page's scripts have run (series.js names the drawer's toggle once Material has put the page together),
    # and each key's effect is waited for: a key pressed before the page is ready is lost.
    playwright.expect(page.locator("#__drawer")).to_have_attribute("aria-label", "导航")
    page.keyboard.press("Tab")  # the skip link is the first stop
    playwright.expect(page.locator(".md-skip")).to_be_focused()
    page.keyboard.press("Enter")
    playwright.expect(page.locator("h1#series-title")).to_be_focused()


def test_a_line_range_past_the_script_marks_its_lines_and_no_more(visit, base_url, built):
    name = sorted(p.parent.name for p in (built / "experiments").glob("*/index.html"))[0]
    page = visit(base_url + f"experiments/{name}/#L2-L99999999999999").page  # returns: the range is cut at the end
    lines = page.locator(".series-src__chunk > span").count()
    assert page.locator(".series-src__marked").count() == lines - 1


@pytest.mark.parametrize("url", POSTS)
def test_a_code_block_gets_its_named_buttons_when_it_scrolls_into_view(visit, base_url, url):
    page = visit(base_url + url, viewport={"width": 375, "height": 812}).page
    last = page.locator("div.highlight").last
    last.scroll_into_view_if_needed()
    buttons = last.locator("nav.md-code__nav")
    count = page.locator("div.highlight").count()
    assert buttons.get_attribute("aria-label") == f"代码块 {count} 的操作"
    assert buttons.locator("button.md-code__button").count() == 1  # Material's copy button
    assert buttons.locator("button.series-wrap[aria-pressed=true]").count() == 1


# Whether an element is drawn whole where it is: each corner of its box is it (no box clips it, nothing covers it).
DRAWN_WHOLE = """el => { const b = el.getBoundingClientRect();
  return [[b.left + 2, b.top + 2], [b.right - 2, b.top + 2], [b.left + 2, b.bottom - 2], [b.right - 2, b.bottom - 2]]
    .every(([x, y]) => el.contains(document.elementFromPoint(x, y))); }"""


# Whether the tip lies just under the name (4 px), where series.js places it.
TIP_UNDER = "([name, tip]) => Math.abs(tip.getBoundingClientRect().top - name.getBoundingClientRect().bottom - 4) < 1"


@pytest.mark.parametrize("linked", LINKED, ids=["card", "words"])
def test_a_name_in_a_card_or_a_citation_shows_its_definition_whole_under_it_on_hover_and_focus(visit, base_url, built, linked):
    """The page's last such name, where its card or paragraph ends: the tip is drawn whole under it (one element of
    the page's body, which no box around the name clips), follows it as the page scrolls, and describes the name
    it shows; the keyboard's name gets its tip back once a mouse's tip over another name ends."""
    page = visit(base_url + a_post_with(built, linked)).page
    names, tip = page.locator(linked), page.locator("#series-tip")
    name = names.last
    playwright.expect(tip).to_be_hidden()
    name.hover()
    playwright.expect(tip).to_have_text(name.get_attribute("data-tip"))
    assert page.evaluate(TIP_UNDER, [name.element_handle(), tip.element_handle()]) and tip.evaluate(DRAWN_WHOLE)
    page.mouse.move(0, 0)
    playwright.expect(tip).to_be_hidden()
    name.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # focused from the keyboard
    playwright.expect(tip).to_have_text(name.get_attribute("data-tip"))
    page.mouse.wheel(0, 120)
    page.wait_for_function(TIP_UNDER, arg=[name.element_handle(), tip.element_handle()])  # it follows the name
    other = names.first
    other.hover()
    playwright.expect(tip).to_have_text(other.get_attribute("data-tip"))
    playwright.expect(other).to_have_accessible_description(other.get_attribute("data-tip"))
    page.mouse.move(0, 0)
    playwright.expect(tip).to_have_text(name.get_attribute("data-tip"))  # the keyboard's name has it back
    playwright.expect(name).to_have_accessible_description(name.get_attribute("data-tip"))
    page.keyboard.press("Escape")
    playwright.expect(tip).to_be_hidden()


@pytest.mark.parametrize("linked", LINKED, ids=["card", "words"])
def test_a_tap_on_a_name_shows_its_tip_with_the_way_to_its_definition_and_a_second_tap_follows_it(visit, base_url, built, linked):
    page = visit(base_url + a_post_with(built, linked), viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True).page
    assert not page.evaluate("matchMedia('(hover: hover)').matches")  # no hover tip on a touch screen
    name = page.locator(linked).first
    target = name.get_attribute("href")
    name.scroll_into_view_if_needed()
    name.tap()
    tip = page.locator("#series-tip")
    assert tip.is_visible() and tip.inner_text().startswith(name.get_attribute("data-tip"))
    go = tip.locator("a")
    assert go.get_attribute("href") == name.evaluate("e => e.href") and go.bounding_box()["height"] >= 24
    box = tip.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375  # on the screen
    with page.expect_navigation(timeout=5000):
        name.tap()  # a second tap on the name follows it
    lines = re.search(r"#(L\d+(-L\d+)?)?$", target).group()
    assert "/source/autograd/" in page.url and page.url.endswith(lines)


@pytest.mark.parametrize("linked", LINKED, ids=["card", "words"])
def test_a_screen_reader_hears_a_names_tip_as_its_description(visit, base_url, built, linked):
    page = visit(base_url + a_post_with(built, linked)).page
    name = page.locator(linked).first
    name.focus()
    playwright.expect(name).to_have_accessible_description(name.get_attribute("data-tip"))


def test_a_reader_follows_a_card_to_its_lines_a_name_to_its_definition_and_back_to_the_post(visit, base_url, built):
    page = visit(base_url + a_post_with(built, LINKED_NAME), viewport={"width": 375, "height": 812}).page
    post = page.url
    page.locator(".proof-card--source").first.locator("dt:text('文件') + dd a").first.click()
    page.wait_for_load_state()
    first, last = map(int, re.search(r"#L(\d+)-L(\d+)$", page.url).groups())
    marked = page.locator(".series-src__marked").evaluate_all("els => els.map(e => e.id)")
    assert marked == [f"L{n}" for n in range(first, last + 1)]  # the quoted range, marked
    assert page.locator(f"#L{first}").evaluate("e => { const r = e.getBoundingClientRect(); "
                                                 "return r.top >= 0 && r.bottom <= innerHeight; }")  # and in view
    name = page.locator(f"#L{first} a.series-xref, " + ", ".join(f"#L{n} a.series-xref" for n in range(first + 1, last + 1))).first
    target = name.get_attribute("href")
    name.focus()
    assert page.evaluate("getComputedStyle(document.activeElement, '::after').content").strip('"')  # the tip shows
    name.click()
    page.wait_for_load_state()
    line = re.search(r"#(L\d+)$", target).group(1)
    assert page.url.endswith(target.split("/")[-1]) and page.locator(f"[id='{line}']").evaluate("e => e.matches(':target')")
    page.go_back()
    page.wait_for_load_state()
    page.locator(f"#L{first} a.series-src__note").first.click()  # the post that quotes these lines
    page.wait_for_load_state()
    assert page.url.split("#")[0] == post


def test_the_longest_source_page_stays_light_and_reaches_its_last_line(contexts, base_url, built):
    """What a slow phone's time on the page is made of: few elements per line, and the chunks of lines laid out
    near the screen only (content-visibility); an address of a late line still lands on it. (Its longest task
    at 4x CPU slowdown, a time, is bench/readers.py's.)"""
    largest = max((built / "source").rglob("index.html"), key=lambda p: p.stat().st_size)
    lines = LexborHTMLParser(largest.read_text(encoding="utf-8")).css(".series-src__chunk > span")
    assert len(lines) > 500, largest
    context = contexts(viewport={"width": 375, "height": 812})
    page = context.new_page()
    page.goto(f"{base_url}{largest.parent.relative_to(built).as_posix()}/#L{len(lines) - 2}", wait_until="load")
    assert page.evaluate("document.getElementsByTagName('*').length") < 8 * len(lines)
    chunks = page.locator(".series-src__chunk").evaluate_all("els => els.map(e => getComputedStyle(e).contentVisibility)")
    assert len(chunks) > 1 and set(chunks) == {"auto"}, chunks
    late = page.locator(f"[id='L{len(lines) - 2}']")
    assert late.evaluate("e => e.matches(':target') && e.getBoundingClientRect().top >= 0 "
                         "&& e.getBoundingClientRect().bottom <= innerHeight")
    assert late.evaluate("e => getComputedStyle(e.parentElement).contentVisibility") == "auto"


def source_page(built, base_url, with_notes: bool = False) -> tuple[str, str]:
    """(address, path) of the first source page (by path) with a definition quoted elsewhere, if asked."""
    for html in sorted((built / "source").rglob("index.html")):
        if html.parent.name.endswith(".py") and (not with_notes or "series-src__note" in html.read_text(encoding="utf-8")):
            path = html.parent.relative_to(built / "source").as_posix()
            return f"{base_url}source/{path}/", path
    pytest.fail("no source page")


def test_a_click_on_a_line_number_links_the_line_a_shift_click_a_range_and_the_control_copies_the_address(contexts, base_url, built):
    url, _ = source_page(built, base_url)
    context = contexts(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(url, wait_until="load")

    def click_number(n: int) -> None:
        box = page.locator(f"[id='L{n}']").bounding_box()
        page.mouse.click(box["x"] + 8, box["y"] + 8)

    click_number(3)
    assert page.evaluate("location.hash") == "#L3"
    page.keyboard.down("Shift")
    click_number(6)
    page.keyboard.up("Shift")
    assert page.evaluate("location.hash") == "#L3-L6"
    assert page.locator(".series-src__marked").evaluate_all("els => els.map(e => e.id)") == ["L3", "L4", "L5", "L6"]
    control = page.locator("[id='L6'] .series-permalink")  # under the marked lines
    assert control.get_attribute("aria-label") == "复制第 3–6 行的链接" and control.bounding_box()["height"] >= 24
    control.click()
    assert page.evaluate("navigator.clipboard.readText()") == url + "#L3-L6"


def test_an_address_past_the_last_line_marks_nothing(visit, base_url, built):
    url, _ = source_page(built, base_url)
    page = visit(url + "#L99999").page
    assert page.locator(".series-src__marked").count() == 0 and page.evaluate("location.hash") == "#L99999"


@pytest.mark.parametrize("address, marked", [("#l4", (4, 4)), ("#L6-L4", (4, 6)), ("#L4-6", (4, 6)), ("#l4-l6", (4, 6))])
def test_a_line_address_is_read_tolerantly_and_written_back_plainly(visit, base_url, built, address, marked):
    url, _ = source_page(built, base_url)
    page = visit(url + address).page
    first, last = marked
    assert page.locator(".series-src__marked").evaluate_all("els => els.map(e => e.id)") == \
        [f"L{n}" for n in range(first, last + 1)]
    assert page.evaluate("location.hash") == (f"#L{first}" if first == last else f"#L{first}-L{last}")
    assert page.locator(f"[id='L{first}']").evaluate("e => e.getBoundingClientRect().top >= 0 "
                                                      "&& e.getBoundingClientRect().bottom <= innerHeight")


COPY_LINES = """([first, last]) => {
  const range = document.createRange();
  range.setStartBefore(document.getElementById('L' + first).firstChild);
  range.setEndAfter(document.getElementById('L' + last).lastChild);
  getSelection().removeAllRanges();
  getSelection().addRange(range);
}"""


def test_copying_lines_of_a_source_page_copies_the_files_lines_and_nothing_else(contexts, base_url, built):
    url, path = source_page(built, base_url, with_notes=True)
    raw = (built / "source" / "raw" / path).read_text(encoding="utf-8").split("\n")
    html = LexborHTMLParser((built / "source" / path / "index.html").read_text(encoding="utf-8"))
    noted = int(html.css_first(".series-src__note").parent.attributes["data-n"])
    first, last = max(1, noted - 2), min(len(raw) - 1, noted + 3)  # across a line with a note
    context = contexts(viewport={"width": 375, "height": 812})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{url}#L{first}-L{last}", wait_until="load")  # marked, with the copy-address control among them
    page.evaluate(COPY_LINES, [first, last])
    page.keyboard.press("Control+c")
    assert page.evaluate("navigator.clipboard.readText()").rstrip("\n") == "\n".join(raw[first - 1:last])


def test_a_cards_copy_button_copies_the_quoted_lines_as_they_are_in_the_file(contexts, base_url, built):
    context = contexts(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    copied = 0
    for url in POSTS:
        page = context.new_page()
        page.goto(base_url + url, wait_until="load")
        for card in page.locator(".proof-card--source, .proof-card--experiment").all():
            link = card.locator("dt:text('文件') + dd a").first
            if link.get_attribute("href").startswith("https://"):
                continue  # a quote of another commit than the pin's: its file is on GitHub, not on the site
            first, last = map(int, re.search(r"L(\d+)–L(\d+)", card.locator(".proof-card__lines").inner_text()).groups())
            path = link.inner_text()
            raw = built / ("source/raw/" + path if card.evaluate("e => e.matches('.proof-card--source')") else path)
            card.scroll_into_view_if_needed()
            card.hover()
            card.locator("nav.md-code__nav button[data-md-type=copy], button.md-clipboard").first.click()
            lines = raw.read_text(encoding="utf-8").split("\n")[first - 1:last]
            assert page.evaluate("navigator.clipboard.readText()") == "\n".join(lines).rstrip(), (url, path, first)
            copied += 1
        page.close()
    assert copied > 0


def test_every_page_has_a_skip_link_to_its_title_or_first_section(built):
    for html_file in sorted(built.rglob("*.html")):
        html = LexborHTMLParser(html_file.read_text(encoding="utf-8"))
        skip = html.css_first("a.md-skip")
        assert skip is not None, html_file
        target = skip.attributes["href"].split("#", 1)[1]
        assert html.css_first(f"[id='{target}']") is not None, html_file


# Query -> where the first result leads when no post holds the query as typed (a page, or a definition's line on
# its source page); when a post holds it, the first result is such a post (the rule, whichever posts there are).
FIRST_RESULTS = [
    ("真实行号", {"authoring/", ""}), ("实验脚本", {"authoring/", ""}),
    ("defvjp", {"source/autograd/core.py/#L67"}), ("NotImplementedError", {"experiments/custom_primitive/"}),
    ("VJPNode", {"source/autograd/core.py/#L35"}), ("make_vjp", {"source/autograd/core.py/#L10"}),
    ("hessian", {"source/autograd/differential_operators.py/#L89"}),
    ("elementwise_grad", {"source/autograd/differential_operators.py/#L40"}),
    ("holomorphic_grad", {"source/autograd/differential_operators.py/#L75"}),
    ("value_and_grad", {"source/autograd/differential_operators.py/#L164"}),
    ("defjvp", {"source/autograd/core.py/#L155"}), ("vspace", {"source/autograd/core.py/#L288"}),
    ("check_grads", {"source/autograd/test_util.py/#L63"}),
    ("unbroadcast_f", {"source/autograd/numpy/numpy_vjps.py/#L895"}),
]


# The changes to the result list while the page has nothing else to do: counted from the page's first idle moment
# (what was under way then has run) over two more (whatever that queued has run too).
CHANGES_ONCE_IDLE = """() => new Promise(done => requestIdleCallback(() => {
  let changes = 0;
  const watch = new MutationObserver(records => { changes += records.length; });
  watch.observe(document.querySelector('.md-search-result__list'),
                {childList: true, subtree: true, attributes: true, characterData: true});
  requestIdleCallback(() => requestIdleCallback(() => { watch.disconnect(); done(changes); }));
}))"""


def test_a_query_across_a_definitions_name_and_its_file_settles(visit, base_url):
    """A section series.js adds to a result is settled once: it never adds another (found looping)."""
    query = "grad autograd/differential_operators.py"
    v = visit(f"{base_url}?q={quote(query)}")
    v.page.wait_for_selector(f'.md-search-result__list[data-phrase-first="{query}"]', timeout=SEARCH_WAIT)
    assert v.page.evaluate(CHANGES_ONCE_IDLE) == 0  # answers at all: no busy loop
    assert v.errors == []


# Queries Material's own index lists results for on a site of this series (words every post has). lunr fails some
# queries with some indexes (a wildcard expanded to a term its token set holds and its index does not: lunr.js
# issues 279 and 314), depending on all the site's words: the test takes the first that Material can run.
PLAIN_QUERIES = ("autograd", "grad", "vjp", "numpy", "primitive")


def test_results_listed_before_the_sites_script_runs_are_settled_too(browser, base_url):
    """On a busy machine Material may list ?q='s results before series.js has run (found in CI): they are ordered
    all the same. The script is held back here until Material has listed the results."""
    tried = []
    for query in PLAIN_QUERIES:
        context = browser.new_context()
        page = context.new_page()
        held, failed = [], []
        page.on("console", lambda message: failed.append(message.text)  # (this context's, closed below)
                if message.text.startswith("Invalid query") else None)
        page.route("**/assets/series.js*", lambda route: held.append(route))  # (this context's)
        page.goto(f"{base_url}?q={quote(query)}", wait_until="commit")
        listed = page.locator(".md-search-result__item").first
        try:
            listed.wait_for(timeout=SEARCH_WAIT // len(PLAIN_QUERIES))
        except playwright.TimeoutError:
            tried.append((query, failed[:1]))
            context.close()
            continue
        assert len(held) == 1 and page.locator(".md-search-result__list[data-phrase-first]").count() == 0
        held[0].continue_()
        page.wait_for_selector(f'.md-search-result__list[data-phrase-first="{query}"]', timeout=SEARCH_WAIT)
        context.close()
        return
    pytest.fail(f"Material's search listed nothing for any of {PLAIN_QUERIES}: {tried}")


def test_a_query_materials_index_cannot_run_still_lists_the_pages_that_hold_it(visit, base_url, built):
    """lunr may read `file:` as a field and fail the query, as Material's index failed `grad autograd/…py` in one
    CI build (it depends on the index's words): Material then lists nothing and changes no result. The pages that
    hold the query as typed are listed all the same, first, whatever Material found besides."""
    query = "file: autograd/core.py"
    v = visit(f"{base_url}?q={quote(query)}")
    v.page.wait_for_selector(f'.md-search-result__list[data-phrase-first="{query}"]', timeout=SEARCH_WAIT)
    pages = [re.sub(r"[?#].*$", "", href.removeprefix(base_url)) for href in v.page.locator(
        ".md-search-result__item > .md-search-result__link").evaluate_all("els => els.map(e => e.href)")]
    assert pages and holds(built, pages[0], query), pages


def first_result_problem(page, base_url: str, query: str, expected: set[str], holders: set[str]):
    """What is wrong with the first search result for `query` (None if nothing): a post that holds it first,
    its teaser showing the match; else the expected page or line; never a card's head in a teaser."""
    first = page.locator(".md-search-result__item").first
    links = first.locator("a.md-search-result__link")
    lead = re.sub(r"\?[^#]*", "", links.first.get_attribute("href").removeprefix(base_url))
    teaser = " ".join(" ".join(links.nth(n).inner_text().split()) for n in range(min(2, links.count())))
    if "SOURCE文件" in "".join(page.locator(".md-search-result__list").inner_text().split()):
        return "a card's head in a teaser"
    if holders and not (lead.split("#")[0] in holders and query.lower() in teaser.lower()):
        return lead, holders, teaser[:120]
    if not holders and lead not in expected and lead.split("#")[0] not in expected:
        return lead, expected
    return None


# The number of changes to the result list since it was called (a function that tells it).
COUNT_CHANGES = """() => {
  let changes = 0;
  new MutationObserver(records => { changes += records.length; }).observe(
    document.querySelector('.md-search-result__list'), {childList: true, subtree: true, attributes: true, characterData: true});
  return () => changes;
}"""


def changed_since(page, changes, seen: int) -> bool:
    """Whether the result list changes past `seen` changes: False once it has stayed as it is for as long as a
    search may take (so a wrong list is a verdict, never a wait)."""
    try:
        page.wait_for_function("([count, seen]) => count() > seen", arg=[changes, seen], timeout=SEARCH_WAIT)
    except playwright.TimeoutError:
        return False
    return True


def holds(built, url: str, query: str) -> bool:
    article = LexborHTMLParser((built / url / "index.html").read_text(encoding="utf-8")).css_first("article")
    return query.lower() in " ".join(article.text().split()).lower()


def test_search_puts_posts_that_hold_a_query_first_and_finds_definitions_by_name(visit, base_url, built):
    """Each query of FIRST_RESULTS and each post's own: the first by a search address (?q=, as a shared search link
    opens it), the others typed into the search it opened (its index loaded once, as a reader's)."""
    v = visit(base_url)
    wrong = {}
    # And each post's: phrases only it holds (derived from it), and its author's queries (search_expects.first).
    derived = [(query, {url}) for url in POSTS
               for query, _ in first_queries(ROOT / "docs" / f"{url.removesuffix('/')}.md", built, url)]
    assert all(any(query for query, expected in derived if expected == {url}) for url in POSTS)
    for number, (query, expected) in enumerate(FIRST_RESULTS + derived):
        if number == 0:  # the first by its address; then typed into the open search, as a reader searches again
            v.page.goto(f"{base_url}?q={quote(query)}", wait_until="load")
        else:
            v.page.fill("input.md-search__input", query)
            v.page.keyboard.press("End")  # Material searches on a key's release (fill alone types no key)
        v.page.wait_for_selector(f'.md-search-result__list[data-phrase-first="{query.lower()}"]', timeout=SEARCH_WAIT)
        holders = {url for url in POSTS if holds(built, url, query)}
        # The list as it settles (Material renders, series.js orders): after each wrong look, the next change.
        changes = v.page.evaluate_handle(COUNT_CHANGES)
        while True:
            seen = changes.evaluate("count => count()")
            wrong[query] = first_result_problem(v.page, base_url, query, expected, holders)
            if wrong[query] is None or not changed_since(v.page, changes, seen):
                break
    wrong = {query: problem for query, problem in wrong.items() if problem}
    assert wrong == {}
    assert len(FIRST_RESULTS + derived) >= 20 and v.errors == []


@pytest.mark.parametrize("width", [1280, 375])
def test_the_open_search_with_results_is_accessible_and_hides_nothing_sideways(contexts, base_url, width):
    context = contexts(viewport={"width": width, "height": 900}, color_scheme="light")
    found = {}
    for scheme in ("light", "dark"):
        page = context.new_page()
        page.goto(base_url, wait_until="load")
        switch_scheme(page, scheme)
        page.keyboard.press("/")
        page.keyboard.insert_text("defvjp")
        page.wait_for_selector('.md-search-result__list[data-phrase-first="defvjp"]', timeout=SEARCH_WAIT)
        inject_axe(page)  # the page's own code blocks are another test's (behind the open search)
        found[scheme] = [(v["rule"], v["impact"], v["nodes"][:3]) for v in axe_violations(page) if v["impact"] in SERIOUS]
        hidden = page.evaluate("""() => [...document.querySelectorAll('.md-search-result :is(pre, code, article)')]
          .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.slice(0, 40))""")
        assert hidden == [], (scheme, hidden)
        page.close()
    assert {scheme: v for scheme, v in found.items() if v} == {}


def test_a_traced_graph_is_whole_in_both_schemes_and_each_node_leads_to_its_registration(contexts, base_url, built):
    """The figure's accessibility is the axe test's, which reads every page in both schemes at both widths."""
    post = a_post_with(built, ".proof-card--figure .proof-graph a")
    context = contexts(viewport={"width": 375, "height": 900})
    page = context.new_page()
    page.goto(base_url + post, wait_until="networkidle")
    card = page.locator(".proof-card--figure").first
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        for scheme in ("light", "dark"):
            switch_scheme(page, scheme)
            card.scroll_into_view_if_needed()
            figure, around = card.locator("svg").bounding_box(), card.bounding_box()
            assert figure["width"] > 200 and figure["height"] > 200, figure
            assert around["x"] <= figure["x"] and figure["x"] + figure["width"] <= min(around["x"] + around["width"], width)
            # Strokes and labels follow the page: arrows in its text colour, linked nodes in its link colour.
            colours = page.evaluate("""() => { const svg = document.querySelector('.proof-card--figure svg');
              const link = svg.querySelector('a text'), arrow = svg.querySelector('polyline');
              const probe = document.createElement('a'); document.querySelector('article').append(probe);
              const said = [getComputedStyle(arrow).stroke, getComputedStyle(svg).color,
                            getComputedStyle(link).fill, getComputedStyle(probe).color];
              probe.remove(); return said; }""")
            assert colours[0] == colours[1] and colours[2] == colours[3], colours
            card.screenshot(path=str(SHOTS / f"figure-{width}-{scheme}.png"))
    nodes = card.locator("svg a").evaluate_all("els => els.map(e => [e.textContent, e.getAttribute('href')])")
    assert nodes
    for label, href in nodes:
        first, last = map(int, re.fullmatch(r".*/#L(\d+)(?:-L(\d+))?", href).groups(default="0"))
        page.goto(urljoin(base_url + post, href), wait_until="networkidle")
        marked = page.locator(".series-src__marked")
        assert marked.evaluate_all("els => els.map(e => e.id)") == [f"L{n}" for n in range(first, max(first, last) + 1)]
        assert re.match(r"\s*defvjp\w*\(", marked.first.text_content()), (label, href)
        assert marked.first.evaluate("e => e.getBoundingClientRect().top >= 0"), href


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 375])
def test_a_citation_in_the_words_is_visible_and_marked_apart_from_links_and_from_names_in_cards(
        visit, base_url, built, scheme, width):
    url = a_post_with(built, CITATION, LINKED_NAME, "article p a:not(.series-xref):not(.headerlink)")
    page = visit(base_url + url, viewport={"width": width, "height": 900}).page
    switch_scheme(page, scheme)
    cited, name = page.locator(CITATION).first, page.locator(LINKED_NAME).first
    link = page.locator("article p a:not(.series-xref):not(.headerlink)").first
    cited.scroll_into_view_if_needed()
    box = cited.bounding_box()
    assert box and box["width"] > 0 and 0 <= box["x"] and box["x"] + box["width"] <= width
    style = "(el, what) => getComputedStyle(el)[what]"
    assert cited.evaluate(style, "textDecorationStyle") == "dotted"
    assert cited.evaluate(style, "textDecorationColor") == link.evaluate(style, "color")  # marked as a link
    assert cited.evaluate(style, "color") != link.evaluate(style, "color")  # in the code's colour, not a link's
    assert cited.evaluate(style, "textDecorationColor") != name.evaluate(style, "textDecorationColor")
    page.screenshot(path=SHOTS / f"citation-{scheme}-{width}.png", clip={
        "x": 0, "y": max(0, box["y"] - 60), "width": width, "height": 160})
