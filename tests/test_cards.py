"""The cards come from a Python-Markdown extension: any generator that renders Python-Markdown hosts them, with no
MkDocs in the process."""

from __future__ import annotations

import pytest
import yaml
from markdown import Markdown

from codeproof.cards import CardsExtension
from codeproof.engine import Engine
from codeproof.series.config import load_series
from codeproof.series.frontmatter import split_front_matter
from codeproof.site import guard
from fixture_site import OUTPUT, make_site


@pytest.fixture
def site(tmp_path):
    return make_site(tmp_path)


def render(site) -> tuple[str, CardsExtension, list[str], int]:
    """The fixture post rendered by plain Python-Markdown with the site's extensions and the cards': its HTML, the
    extension (with what it proved), the text's lines and the file line of the first."""
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    first_line, body = split_front_matter(site.post.read_text(encoding="utf-8"))
    cards = CardsExtension(Engine(load_series(site.root / "mkdocs.yml")), "docs/posts/p.md", first_line)
    extensions = [next(iter(item)) if isinstance(item, dict) else item for item in config["markdown_extensions"]]
    configs = {name: settings for item in config["markdown_extensions"] if isinstance(item, dict)
               for name, settings in item.items()}
    html = Markdown(extensions=[cards, *extensions], extension_configs=configs).convert(body)
    cards.engine.runner.finish()
    return html, cards, body.split("\n"), first_line


def test_plain_python_markdown_renders_every_block_as_a_sealed_card_the_page_guard_accepts(site):
    html, cards, lines, first_line = render(site)
    assert (cards.proved.cards, cards.proved.problems) == (3, [])
    assert html.count('<div class="proof-card ') == 3 and OUTPUT.split("\n")[0] in html
    assert guard.check_page(html, "docs/posts/p.md", lines, first_line, cards.proved.cards, cards.engine.seal,
                            cards.proved.accounted) == []


def test_a_tampered_quote_is_a_problem_at_its_line_shown_in_place_of_its_card(site):
    site.edit("        self.value = value", "        self.value = value + 1")
    html, cards, lines, first_line = render(site)
    [problem] = cards.proved.problems
    assert (problem.post, problem.line, problem.message.split(" ")[:2]) == ("docs/posts/p.md", 9, ["REAL", "SOURCE"])
    assert (cards.proved.cards, html.count('<div class="proof-card '), html.count('<div class="proof-error"')) == (2, 2, 1)
    assert guard.check_page(html, "docs/posts/p.md", lines, first_line, cards.proved.cards, cards.engine.seal,
                            cards.proved.accounted) == []
