"""The cards come from a Python-Markdown extension any host loads by name (`codeproof.cards`), with its
configuration only: with no MkDocs in the process, it proves the page, guards what it rendered and fails closed."""

from __future__ import annotations

import pytest
from markdown import Markdown

from codeproof import cards
from codeproof.cards import CardsError, relative_url
from codeproof.series.config import load_site
from codeproof.series.frontmatter import split_front_matter
from codeproof.site.render import SEAL_ATTRIBUTE
from conftest import ROOT
from fixture_site import OUTPUT, SCRIPT, make_site
from host_cases import REFUSED, change_output, tamper_quote


@pytest.fixture
def site(tmp_path):
    return make_site(tmp_path)


def render(site, **options) -> tuple[str, cards.CardsExtension]:
    """The fixture post rendered by plain Python-Markdown with the site's extensions and `codeproof.cards`, loaded
    by name as a host loads it: its HTML and the extension (with what it proved)."""
    setup = load_site(site.root / "mkdocs.yml").markdown  # MkDocs' own (toc, tables, fenced_code) and the site's
    names, configs = list(setup.extensions), dict(setup.configs)
    configs["codeproof.cards"] = {"config_file": str(site.root / "mkdocs.yml"), "post": "docs/posts/p.md",
                                  "url": "posts/p/", **options}
    md = Markdown(extensions=["codeproof.cards", *names], extension_configs=configs)
    _, body = split_front_matter(site.post.read_text(encoding="utf-8"))  # what a host passes (as MkDocs does)
    html = md.convert(body)
    return html, md.preprocessors["codeproof_cards"].cards


def test_plain_python_markdown_renders_every_block_as_a_card_and_no_seal(site):
    html, extension = render(site)
    assert (extension.proved.cards, extension.proved.problems) == (3, [])
    assert html.count('<div class="proof-card ') == 3 and OUTPUT.split("\n")[0] in html
    assert SEAL_ATTRIBUTE not in html and extension.build.engine.seal not in html


@pytest.mark.parametrize("change, said", [case[1:] for case in REFUSED], ids=[case[0] for case in REFUSED])
def test_what_a_host_must_refuse_fails_the_render_at_its_line(site, change, said):
    change(site)
    with pytest.raises(CardsError) as failed:
        render(site)
    assert said in str(failed.value)


def test_a_face_in_the_table_of_contents_alone_fails_the_render_at_its_heading(site):
    site.edit("The end.", '## Results {data-toc-label="✓ 输出已验证"}\n\nThe end.')
    with pytest.raises(CardsError) as failed:
        render(site)
    assert ("\n\ndocs/posts/p.md:40: the table of contents shows '输出已验证', a card's face: a heading's title there, "
            "which the theme shows beside the page, outside any verified card\n  hint: say it in other words (a "
            "heading's data-toc-label too)") in str(failed.value)


def test_a_changed_output_fails_the_next_render_in_the_same_process(site):
    """Never stale: the engine a render uses is the one for what its proofs read now."""
    render(site)
    change_output(site)
    with pytest.raises(CardsError) as failed:
        render(site)
    assert f"OUTPUT {SCRIPT}: output differs from the recorded output" in str(failed.value)


def test_a_page_that_asks_for_a_graph_no_run_traces_yet_gets_a_build_whose_runs_trace_it(site):
    """Under a preview server a page is edited while the build's runs go on: a `Graph:` they do not trace makes a
    new build (the engine began the runs with the calls every page asked for then)."""
    script = site.root / SCRIPT
    script.write_text(script.read_text() + "\nimport autograd.numpy as np\n\n\ndef g(x):\n    return np.sin(x) * x\n")
    render(site)  # the build for these inputs, with no graph traced
    site.edit("The end.", f"[FIGURE]\nFile: {SCRIPT}\nGraph: g(1.5)\nAlt: the graph of g\n\nThe end.")
    html, extension = render(site)
    assert (extension.proved.cards, extension.proved.problems) == (4, [])
    assert html.count('<div class="proof-card proof-card--figure') == 1


def test_a_host_that_does_not_say_which_page_it_renders_is_refused(site):
    with pytest.raises(CardsError) as failed:
        Markdown(extensions=["codeproof.cards"], extension_configs={
            "codeproof.cards": {"config_file": str(site.root / "mkdocs.yml")}}).convert("text")
    assert failed.value.shown() == ("error: codeproof.cards: the host did not say which page it renders\n  hint: give "
                                    "the extension `post:` (the page's file, `url:` and `first_line:`), or render "
                                    "with a host that tells its extensions the page (Zensical)")


def test_with_problems_shown_a_preview_gets_each_in_place_and_no_card_for_it(site, monkeypatch):
    monkeypatch.setenv(cards.SHOW_PROBLEMS_ENV, "1")
    tamper_quote(site)
    html, extension = render(site)
    assert (html.count('<div class="proof-card '), html.count('<div class="proof-error"')) == (2, 1)
    assert SEAL_ATTRIBUTE not in html


@pytest.mark.parametrize("url, page, link", [("source/a.py/", "posts/x/", "../../source/a.py/"),
                                             ("source/a.py/", "", "source/a.py/"),
                                             ("experiments/s%.py", "posts/x.html", "../experiments/s%25.py"),
                                             ("posts/y/", "posts/x/", "../y/")])
def test_links_are_relative_to_the_page_and_percent_encoded(url, page, link):
    assert relative_url(url, page) == link


POSTS = sorted((ROOT / "docs" / "posts").glob("*.md"))


@pytest.mark.real_site
@pytest.mark.parametrize("post", POSTS, ids=[p.stem for p in POSTS])
def test_every_real_post_renders_every_block_as_a_card_under_plain_markdown(post):
    """The site's own Markdown set-up (read by the core, without MkDocs) and the extension by name: every block of
    the post a card, a traced graph's too (the engine started the experiments with their `Graph:` calls)."""
    setup = load_site(ROOT / "mkdocs.yml").markdown
    configs = {**dict(setup.configs), "codeproof.cards": {"config_file": str(ROOT / "mkdocs.yml"),
                                                          "post": post.relative_to(ROOT).as_posix(),
                                                          "url": f"posts/{post.stem}/"}}
    md = Markdown(extensions=["codeproof.cards", *setup.extensions], extension_configs=configs)
    _, body = split_front_matter(post.read_text(encoding="utf-8"))
    html = md.convert(body)
    extension = md.preprocessors["codeproof_cards"].cards
    blocks = len(extension.parsed.blocks)
    assert blocks and (extension.proved.cards, extension.proved.problems) == (blocks, [])
    assert html.count('<div class="proof-card ') == blocks and SEAL_ATTRIBUTE not in html


def test_a_setting_the_extension_does_not_have_is_refused_by_name(site):
    with pytest.raises(CardsError) as failed:
        Markdown(extensions=["codeproof.cards"], extension_configs={
            "codeproof.cards": {"config_file": str(site.root / "mkdocs.yml"), "bogus": 1}})
    assert failed.value.shown() == ("error: codeproof.cards: no setting 'bogus'\n  hint: its settings are "
                                    "config_file, post, url, first_line")
