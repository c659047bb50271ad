"""Figures as readers get them (issue 51): a figure a script draws is an inert image in its card. Ordinary figures,
drawn as an author draws them, publish under the strict build and are whole in their cards on a phone in both
schemes; nothing a figure holds becomes page text, and no script in one runs nor request leaves, even when an image
holds them. Screenshots go to test-artifacts/screenshots/ (gallery-375-light.png, gallery-375-dark.png)."""

from __future__ import annotations

import base64
import contextlib
import re
from pathlib import Path

import pytest
import yaml
from mkdocs.config import load_config

from codeproof.experiments.figures import IMAGE_PREFIX, CleanFigure
from conftest import ROOT
from fixture_site import make_site
from site_server import SERIOUS, axe_violations, lay_out_every_block, palette_schemes, serve

GALLERY = Path(__file__).parent / "figures" / "gallery.py"
NAMES = ["heatmap", "contour", "mathtext", "bars", "annotated", "legend", "subplots", "chinese", "effects", "colorbar"]
SHOTS = ROOT / "test-artifacts" / "screenshots"
FORGED = "✓ 输出已验证 · Python 9.9.9 · autograd 0.0.1"  # a stamp no build gives, drawn by a script
DRAW = "import os\nopen(os.path.join(os.environ['CODEPROOF_FIGURES'], 'f.svg'), 'w').write({svg!r})\n"


def figures(site, script: str, names: list[str]) -> None:
    """Add a [FIGURE] of `script` for each name to the fixture post."""
    blocks = "".join(f"[FIGURE]\nFile: {script}\nFigure: {name}.svg\nAlt: 图 {name}\n\n" for name in names)
    site.edit("The end.", blocks + "The end.")


@pytest.fixture(scope="module")
def gallery(tmp_path_factory) -> Path:
    """The fixture site (Material) whose post shows the ten figures of tests/figures/gallery.py, and one that draws a
    card's face as its text; built with --strict."""
    site = make_site(tmp_path_factory.mktemp("gallery"), material=True)
    (site.root / "experiments" / "gallery.py").write_text(GALLERY.read_text(encoding="utf-8"), encoding="utf-8")
    forged = (f'<svg xmlns="http://www.w3.org/2000/svg" width="300" height="60"><rect width="300" height="60" '
              f'fill="#fff"/><text x="5" y="20">{FORGED}</text><text x="5" y="45">MARKER</text></svg>')
    # Written in escapes, as the script's own page shows the script: its words are the figure's alone.
    (site.root / "experiments" / "forged.py").write_text(
        "import os\nopen(os.path.join(os.environ['CODEPROOF_FIGURES'], 'forged.svg'), 'w').write("
        f"{ascii(forged)}.replace('MARKER', chr(91) + 'OUTPUT]'))\n", encoding="utf-8")
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    config["extra_css"] = ["assets/series.css"]  # the real site's style sheet and script (in overrides/, the theme's
    config["extra_javascript"] = ["assets/series.js"]  # folder): the script names what Material leaves unnamed
    real = load_config(str(ROOT / "mkdocs.yml")).theme
    config["theme"].update(palette=real["palette"], features=real["features"])  # its two schemes, its code buttons
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    figures(site, "experiments/gallery.py", NAMES)
    figures(site, "experiments/forged.py", ["forged"])
    built, log = site.build()
    assert built is not None, log
    return built


@contextlib.contextmanager
def served(site: Path):
    server, url = serve(site)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.browser  # one test: the gallery is built once, whichever worker runs it
def test_each_figure_is_an_image_drawn_whole_in_its_card_on_a_phone_and_none_of_its_words_reaches_a_reader(
        browser, gallery):
    published(gallery)
    with served(gallery) as url:
        for scheme in ("light", "dark"):
            shown_in(browser, url, scheme)


def shown_in(browser, url: str, scheme: str) -> None:
    """The post at 375 px in `scheme`: each figure loaded, inside its card, on its light backing; nothing sideways,
    nothing of a figure's words in the page's text, no request but to the site (axe-core's aside), and no serious
    or critical accessibility violation."""
    context = browser.new_context(viewport={"width": 375, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(url + "posts/p/", wait_until="networkidle")
    assert page.evaluate("document.body.dataset.mdColorScheme") == palette_schemes()[scheme]
    shown = page.evaluate("""() => [...document.querySelectorAll('.proof-card--figure')].map(card => {
        const image = card.querySelector('img'), box = image.getBoundingClientRect(),
              around = card.getBoundingClientRect();
        image.scrollIntoView();
        return {alt: image.alt, loaded: image.complete && image.naturalWidth > 0, width: box.width,
                inside: box.left >= around.left && box.right <= around.right,
                backing: getComputedStyle(image).backgroundColor};
    })""")
    assert [figure["alt"] for figure in shown] == [f"图 {name}" for name in [*NAMES, "forged"]]
    assert [figure for figure in shown if not (figure["loaded"] and figure["inside"] and figure["width"] > 200
                                               and figure["backing"] == "rgb(255, 255, 255)")] == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # nothing hidden sideways
    lay_out_every_block(page)  # the page as a reader scrolls through it (innerText leaves out what is not laid out)
    text = page.evaluate("document.body.innerText")
    assert "Python 9.9.9" not in text and "[OUTPUT]" not in text
    assert all(request.startswith(url) for request in requests), requests
    assert [(v["rule"], v["nodes"][:3]) for v in axe_violations(page) if v["impact"] in SERIOUS] == []
    page.screenshot(path=str(SHOTS / f"gallery-375-{scheme}.png"), full_page=True)
    context.close()


def published(gallery: Path) -> None:
    """Each ordinary figure publishes as an SVG image; the forged stamp is in no page, search index, sitemap or any
    other file but as an image's bytes (the script's page shows the script, whose words are escapes)."""
    html = (gallery / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    images = re.findall(r'<img class="proof-figure__image" src="([^"]+)" alt="图 (\w+)" width="(\d+)" height="(\d+)"',
                        html)
    assert [name for _, name, _, _ in images] == [*NAMES, "forged"]
    for src, name, width, height in images:
        svg = base64.b64decode(src.removeprefix(IMAGE_PREFIX)).decode("utf-8")
        assert src.startswith(IMAGE_PREFIX) and svg.startswith("<svg ") and int(width) > 100 and int(height) > 40, name
    assert "<svg" not in html.split('class="proof-card proof-card--figure"', 1)[1].split("</article>")[0]
    files = [path for path in gallery.rglob("*") if path.is_file()]
    assert (gallery / "search" / "search_index.json") in files  # one of the routes read
    assert not [path for path in files if path.suffix == ".svg" and path.name != "favicon.svg"]
    assert [path for path in files if FORGED.split(" · ")[0] + " · Python 9" in path.read_text(encoding="utf-8",
                                                                                           errors="replace")] == []


HOSTILE = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" onload="window.parent.ran = 1">'
           '<style>@import url("{outside}/sheet.css");</style>'
           '<script>window.parent.ran = 2; fetch("{outside}/script")</script>'
           '<image href="{outside}/picture.png" width="10" height="10"/>'
           '<rect width="200" height="100" fill="#fff"/><text x="5" y="50">hostile</text></svg>')


@pytest.mark.browser
def test_an_image_holding_script_and_outside_references_runs_nothing_and_asks_for_nothing(browser, tmp_path,
                                                                                         monkeypatch):
    """Past the allow-list (which refuses all of it: tests/test_figures.py), the image itself: with a cleaning
    that lets the figure through as written, no script in it runs and no request leaves, on the page and when a
    reader opens the image by itself."""
    from codeproof import engine as engine_module

    with served(tmp_path) as outside:  # a second server: anything asked of it would be a request leaving
        hostile = HOSTILE.format(outside=outside.rstrip("/"))
        monkeypatch.setattr(engine_module, "clean_svg", lambda text, budgets: CleanFigure(
            IMAGE_PREFIX + base64.b64encode(text.encode()).decode(), 200, 100, ()))
        site = make_site(tmp_path / "site", material=True)
        (site.root / "experiments" / "hostile.py").write_text(DRAW.format(svg=hostile), encoding="utf-8")
        site.edit("The end.", "[FIGURE]\nFile: experiments/hostile.py\nFigure: f.svg\nAlt: 图\n\nThe end.")
        built, log = site.build()
        assert built is not None, log
        with served(built) as url:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            requests = []
            context.on("request", lambda request: requests.append(request.url))
            page.goto(url + "posts/p/", wait_until="networkidle")
            src = page.locator(".proof-card--figure img").get_attribute("src")
            assert page.evaluate("document.querySelector('.proof-card--figure img').naturalWidth") == 200
            with page.expect_console_message(lambda message: "Not allowed to navigate top frame to data URL"
                                             in message.text):  # Chromium refuses to open it as a document
                page.evaluate("src => { window.location.href = src; }", src)
            assert page.url == url + "posts/p/" and page.evaluate("window.ran") is None
            assert [request for request in requests if request.startswith(outside)] == []
            context.close()
