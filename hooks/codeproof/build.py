"""One build of the site, as the MkDocs hook drives it, in plain values: the posts read once, the series model,
the pages and files the build adds, each post proved and its rendered page guarded, what the generated pages and
the post headers show, and every problem found on the way. The hook passes MkDocs' events in as paths, URLs,
text, dicts and callables (`href(url)`: a site URL as a link from the page at hand), and MkDocs' objects never
reach here: a test drives a build without MkDocs."""

from __future__ import annotations

import time
from dataclasses import replace
from urllib.parse import quote

from html import escape
from pathlib import Path
from typing import Callable

from markupsafe import Markup

from codeproof.common.filesystem import shown_path
from codeproof.common import pagetree
from codeproof.common.kinds.registry import BlockKind
from codeproof.common.markers import passes_for_a_card
from codeproof.common.structure import Checked, Problem, report
from codeproof.common.templates import TEMPLATES
from codeproof.engine import Engine, own_scripts
from codeproof.matrix import DIFFERS, FAILS, SAME, WITHIN, Verdict, held, run_matrix
from codeproof.site import addresses
from codeproof.series import frontmatter
from codeproof.series.blocks import parse_post, read_post
from codeproof.series.model import SeriesModel, posts_using, read_series
from codeproof.series.prose import first_paragraph
from codeproof.site import citations, generated, guard, overview, published, records, render, sourcepages
from codeproof.site.xref import PROGRESS_EVERY

# A matrix verdict as a script page shows it.
READER_SAYS = {SAME: "一致", WITHIN: "容差内一致", DIFFERS: "不同", FAILS: "运行失败"}
VERDICT_ORDER = (SAME, WITHIN, DIFFERS, FAILS)  # from best to worst
GENERATED_TEMPLATE = "series-page.html"  # the theme template of the pages the build adds (the MkDocs adapter's)
SOURCE_TEMPLATE = "source_page.html"  # the engine's templates of what those pages show
SCRIPT_TEMPLATES = ("script_head.html", "script_tail.html")
POST_TEMPLATES = ("post_head.html", "post_tail.html")  # a post's header and series navigation, around its words


class SiteBuild:
    def __init__(self, engine: Engine, matrix: str | None = None):
        self.engine = engine
        # The configuration file's name when this build runs the experiments in the series' matrix too (the host
        # asks for it); None when it does not, and the pages say so.
        self.matrix = matrix
        self.verdicts: list[Verdict] = []  # the matrix's, when it ran
        # What the matrix gave the proving phase, when it ran: each [OUTPUT] and [FIGURE] as the build's own run
        # checked it (by the block's id; proved as it is, not checked again), and where else it held (its stamp).
        self.checked: dict[int, Checked] = {}
        self.elsewhere: dict[tuple[str, int], tuple[str, ...]] = {}
        self.tree = None  # PinnedTree: what the citations in the posts' words resolve in (add_files makes it)
        self.mentioned: list[sourcepages.MentionedAt] = []  # each linked citation in a post's words, at its line
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.series = SeriesModel(())  # from the posts' front matter
        self.parsed = {}  # src_uri -> ParsedPost, parsed once
        self.site = generated.GeneratedSite()  # the pages and files the build adds
        self.outputs: dict[str, str] = {}  # script -> its output, verified by a post's [OUTPUT] block (for its page)
        self.runs: dict[str, records.ScriptRuns] = {}  # script -> the records its blocks' stamps link to
        self.quoted = []  # QuotedRange of every verified REAL SOURCE card at the baseline, with its post's section
        self.tried = []  # QuotedRange of every verified EXPERIMENT card's lines of its script, with its post's section
        self.rendered: list[published.Rendered] = []  # each post's page as written: what its published page must show
        self.category_index: str | None = None  # the overview's URL, when it lists the categories
        self.urls: dict[str, str] = {}  # src_uri -> the page's URL
        self.front: dict[str, dict] = {}  # src_uri -> its front matter, as read (a host without MkDocs' pages reads it here)
        # src_uri -> (ParsedPost, ProvedPage): every post proved in one phase before any page renders (prove_posts);
        # a post whose text another plugin changed is proved again as it renders. The page guard reads these.
        self.proved: dict = {}
        self.log: Callable[[str], None] = lambda message: None  # the build's log (add_files gives it)
        self._rendering = (0, time.monotonic())  # source pages rendered, and when the log last said so

    def read_posts(self, pages: list[tuple[Path, str, str]]) -> tuple[list[str], list[Problem]]:
        """Read each Markdown page (its file, src_uri and URL) once and model the series from them: the notes
        to log, and the problems that stop the build at once (a page that cannot even be read)."""
        found = []
        for path, src_uri, url in pages:
            parsed, front = read_post(path, shown_path(path, self.engine.series.root))
            self.parsed[src_uri] = parsed
            self.urls[src_uri] = url
            self.front[src_uri] = front.meta
            found.append((front, parsed, src_uri, url))
        self.series, problems, notes = read_series(found, self.engine.series.announced)
        self.problems += problems
        return notes, [p for parsed in self.parsed.values() if parsed.unreadable for p in parsed.problems]

    def add_files(self, config_name: str, authors: Callable[[str], Path | None], log, site_url: str | None = None
                  ) -> list[str]:
        """Start the experiments (they run, in parallel, while the build plans its pages), and plan the pages and files the build adds
        (self.site). `authors(src_uri)` is the author's file at a path, if any; returns the src_uris of those
        a generated file replaces (each a problem)."""
        self.log = log
        self.engine.start_experiments(self.parsed.values())
        published, problems = self.engine.runner.published()  # experiments/, read once per build
        self.problems += problems
        self.site = generated.generated_site(self.engine, self.series, self.parsed, published, config_name, log,
                                             site_url)
        taken = {file.src_uri: authors(file.src_uri) for file in self.site.files}
        root = self.engine.series.root
        replaced = generated.taken(self.site, {src: shown_path(path, root) for src, path in taken.items() if path})
        self.problems += self.site.problems
        sources = self.site.sources
        self.tree = self.engine.pinned_tree(sources.files if sources is not None else {}, self.site.scripts)
        return replaced

    def prove_posts(self, relative: Callable[[str, str], str]) -> None:
        """The proving phase, once the pages are planned and before any renders: every readable page of the
        author's proved (waiting for the runs its blocks need; `relative(url, page_url)` is a site URL as a link
        from a page). Each page's problems are reported as it renders (page_markdown), from the proof it renders.
        Then the runs' records are written (records.RECORDS_URL), from the proofs."""
        if self.matrix is not None and self.engine.series.matrix.environments:
            self.run_matrix()
        for src_uri, parsed in self.parsed.items():
            if parsed.unreadable or self.site.page_title(src_uri) is not None:
                continue
            page_url = self.urls[src_uri]
            self.proved[src_uri] = (parsed, self._prove(src_uri, parsed,
                                                        lambda url, page_url=page_url: relative(url, page_url)))
        self.site.files = [replace(file, content=records.records_json(self.runs))
                           if file.src_uri == records.RECORDS_URL else file for file in self.site.files]

    def run_matrix(self) -> None:
        """Every [OUTPUT] and [FIGURE] again in each environment of the matrix, before the posts are proved, so
        their stamps can say where else they hold. An environment that cannot be had is a problem; a difference
        is one under `strict`, else a line of the log (a warning would fail every strict build, strict or not)."""
        posts = [parsed for src_uri, parsed in self.parsed.items()
                 if not parsed.unreadable and self.site.page_title(src_uri) is None]
        self.checked = {id(block): self.engine.check(block) for post in posts for block in post.blocks
                        if block.kind.runs}
        self.verdicts, problems = run_matrix(self.engine, posts, self.checked, self.matrix)
        self.problems += problems
        differences = [verdict.problem for verdict in self.verdicts if verdict.problem]
        if self.engine.series.matrix.strict:
            self.problems += differences
        elif differences:
            self.log("the matrix differs (extra.series.experiments.matrix.strict: true makes this fail):\n"
                     + report(differences))
        self.elsewhere = held(self.verdicts)

    def _prove(self, src_uri: str, parsed, href):
        proved = self.engine.prove_page(parsed, href, self.site.sources.files if self.site.sources is not None else {},
                                        self.checked, self.elsewhere)
        self.outputs.update(proved.outputs)
        entry = self.series.post_at(src_uri)
        for record, kind, line, within in proved.stamped:
            self.runs.setdefault(record.script, records.ScriptRuns()).add(record, records.Stamped(
                kind, parsed.post, self.urls[src_uri], entry.label if entry else parsed.post, line, within))
        return proved

    def page_markdown(self, src_uri: str, markdown: str, meta: dict, page_url: str, homepage: bool, href) -> str:
        """A page's Markdown as it renders: a generated page's meta (title, template) filled in; a post with
        every block proved and its meta kept to the known keys and given its description."""
        title = self.site.page_title(src_uri)
        if title is not None:  # a page the build adds: its template writes it from values
            script = src_uri in self.site.script_pages
            # Escaped now: the search index takes the title before the page's context, and Material shows it as HTML.
            meta.update(title=Markup.escape(title), template=GENERATED_TEMPLATE,
                        description=self.site.page_description(src_uri, self.engine.series.baseline))
            if not script:  # search leaves the package's code out, so it never drowns the posts
                meta["search"] = {"exclude": True}
            return markdown
        parsed = self.parsed.get(src_uri)
        if parsed is None:  # a page another plugin added
            return markdown
        for key in set(meta) - set(frontmatter.KEYS):  # reported when read; never rendered
            del meta[key]
        if parsed.lines != markdown.split("\n"):  # another plugin changed the text: parse what we got, at the
            parsed = parse_post(parsed.post, markdown, parsed.first_line)  # file's lines (the front matter's kept)
            self.proved.pop(src_uri, None)
        if src_uri not in self.proved:  # its text changed, or the host skipped the proving phase
            self.proved[src_uri] = (parsed, self._prove(src_uri, parsed, href))
        parsed, proved = self.proved[src_uri]
        self.problems += proved.problems
        self.warnings += proved.warnings
        # For <meta> and the feeds, which render a post's raw Markdown (with plain Python-Markdown, after the guard)
        # where a page has no description: so every post has one, its verified first paragraph or else its title.
        # Unsealed, a page that did not change reads as last build's (first_paragraph keeps it).
        if not meta.get("description"):
            meta["description"] = (first_paragraph(guard.unseal(proved.markdown, self.engine.seal))
                                   or str(meta.get("title") or ""))
            # A post's is its excerpt, which the series model checks in the Markdown (and passes over a paragraph that
            # holds a block, whose Markdown is not what the description is made of): read as published, too.
            said = {(problem.post, problem.line) for problem in self.problems}
            self.problems += [problem for problem in description_problems(str(meta["description"]), parsed)
                              if (problem.post, problem.line) not in said]
        if not homepage:
            return proved.markdown
        self.category_index = page_url if overview.CATEGORIES in proved.markdown else None
        experiments = {script["path"]: posts_using(self.series, self.parsed, script["path"])
                       for script in self.site.script_pages.values()}
        return overview.fill(proved.markdown, self.engine.series, self.series, self.site.archive, experiments,
                             self._matrix_facts(experiments))

    def route_problems(self, route: str, fragments: list[tuple[str, str]]) -> list[Problem]:
        """A route to readers that a third party writes from the pages (a search index, a feed), read as the page
        guard reads a page: each of its `fragments` (the page's URL, its HTML there) that shows a card's face or a
        marker is a problem at the page's file. The third party read the page its own way (search reads HTML with
        Python's parser, which ends some comments where a browser does not)."""
        posts = {entry.url: self.parsed.get(entry.src_uri) for entry in self.series.posts}
        problems = []
        for url, fragment in fragments:
            parsed = posts.get(url.split("#", 1)[0])
            for shown, what in guard.route_problems(fragment):
                problems.append(Problem(*guard.showing(parsed, shown, (route, 1)),
                                        f"{route} {what} for the page {url or '/'}, outside any verified card",
                                        hint="a parser other than a browser's read the page otherwise: write its "
                                             "HTML plainly (close each comment with -->), or name the face in other "
                                             "words"))
        return problems

    def toc_problems(self, src_uri: str, titles: list[str]) -> list[Problem]:
        """A page's table of contents, read as the guard reads a page (guard.toc_problems)."""
        return guard.toc_problems(titles, self.parsed.get(src_uri), (f"docs/{src_uri}", 1))

    def page_content(self, src_uri: str, html: str, page_url: str, href) -> str:
        """A post's rendered HTML once the guard has read it: its problems in its place where it fails, else its
        cards' names linked to their definitions and the seal removed."""
        if src_uri not in self.proved:  # a page without blocks (the build's, the guide): written as a browser reads it
            return pagetree.written(pagetree.read(html))
        parsed, proved = self.proved[src_uri]
        seal, sources, baseline = self.engine.seal, self.site.sources, self.engine.series.baseline
        found = guard.check_page(html, parsed.post, parsed.lines, parsed.first_line, proved.cards, seal, proved.accounted)
        self.problems += found
        if found:  # serve shows the problems instead of the page; a build fails on them
            return f'<div class="proof-error"><pre>{escape(report(found))}</pre></div>'
        # After the guard, one tree of the page (the guard's parser's reading) takes every edit, and is written once.
        tree = pagetree.read(html)
        entry = self.series.post_at(src_uri)
        if entry and sources is not None:  # where the source pages say this post quotes their lines
            self.quoted += generated.quoted_ranges(entry, proved.quoted,
                                                   sourcepages.card_sections(tree, BlockKind.SOURCE), baseline, sources)
        if entry:  # and the script pages, the lines of theirs that its EXPERIMENT cards quote
            self.tried += [sourcepages.QuotedRange(script, excerpt.first, excerpt.last, entry.name, entry.url, *section)
                           for (script, excerpt), section in zip(proved.tried,
                                                                 sourcepages.card_sections(tree, BlockKind.EXPERIMENT))]
        render.copied_lines(tree, seal, [(BlockKind.SOURCE.css, excerpt) for _, excerpt in proved.quoted]
                            + [(BlockKind.EXPERIMENT.css, excerpt) for _, excerpt in proved.tried])
        if sources is not None:  # the links are the engine's, from the index
            sourcepages.link_post_cards(tree, seal, proved.quoted, sources, baseline, page_url, source_line(href))
            sourcepages.link_experiment_cards(tree, seal, proved.tried, sources, self.site.scripts, source_line(href))
        if entry is not None:  # the guard never sees a link the author could have written
            self._link_citations(tree, parsed, entry, href)
        html = pagetree.written(tree)
        self.rendered.append(published.Rendered(parsed.post, page_url, tuple(map(pagetree.card_words,
                                                                                pagetree.cards(tree)))))
        changed = guard.linked_problems(html, seal, proved.cards)  # the guard's structural checks on what is written
        if changed:
            found = [Problem(parsed.post, parsed.first_line, f"linking the page's citations and names changed what a "
                             f"browser reads: {'; '.join(changed)}", hint="this is the build's own fault: report it, "
                             "with the post")]
            self.problems += found
            return f'<div class="proof-error"><pre>{escape(report(found))}</pre></div>'
        return guard.unseal(html, seal)

    def _link_citations(self, page: pagetree.Tree, parsed, entry, href) -> None:
        """A post's citations (read from its rendered words) linked: to a source page's line, a script page's, or
        GitHub at the pin; each that fails is a problem, shown after it (as `serve` shows it)."""
        codes, fences = citations.read_words(page)
        found = self.engine.citations(parsed, codes, self.tree)
        problems = [(n, problem) for n, (_, _, problem) in enumerate(found) if problem]
        self.problems += [problem for _, problem in problems]
        if problems:
            citations.show_problems(codes, [(n, str(problem)) for n, problem in problems])
            return
        tree, own, sources, baseline = self.tree, own_scripts(parsed), self.site.sources, self.engine.series.baseline

        def address(target) -> str | None:
            fragment = f"#L{target.first}" + (f"-L{target.last}" if target.last != target.first else "") \
                if target.first else ""
            if target.script:
                return href(addresses.script_page_url(target.path)) + fragment if target.path in self.site.scripts else None
            if sources is not None and target.path in sources.files and target.path.endswith(".py"):
                return source_line(href)(target.path, None) + fragment
            return f"https://github.com/{baseline.repo}/blob/{baseline.commit}/{quote(target.path)}" + fragment

        mentions = citations.link_citations(
            codes, [verdict for _, verdict, _ in found], fences, lambda name: tree.name_verdict(name, own), address,
            lambda target: sourcepages.citation_tip(target, sources, tree, baseline))
        self.mentioned += [sourcepages.MentionedAt(m.target.path, m.target.first, entry.name, entry.url, *m.section)
                           for m in mentions if not m.target.script and m.target.first]

    def page_context(self, src_uri: str, meta: dict, href) -> dict:
        """What the theme's template of a page shows beyond MkDocs' own: a generated page's HTML (generated_page), or
        a post's header and navigation (post_page). The
        front matter that the theme writes into HTML and attributes unescaped (MkDocs' template environment does
        not autoescape) is escaped in `meta` here, once; the feed has read it already."""
        for key in ("title", "description"):
            if isinstance(meta.get(key), str):
                meta[key] = Markup.escape(meta[key])
        if isinstance(meta.get("categories"), list):
            meta["categories"] = [Markup.escape(str(category)) for category in meta["categories"]]
        generated_page = self.generated_page(src_uri, href)
        if generated_page is not None:
            return {"generated": generated_page}
        post_page = self.post_page(src_uri, href)
        return {"series": post_page} if post_page is not None else {}

    def post_page(self, src_uri: str, href) -> tuple[Markup, Markup] | None:
        """What a post shows above and below its words (its header and the series' navigation), as (HTML above,
        HTML below), from the engine's values: the same under every host (MkDocs' theme places it around the
        page's content; Zensical's adapter adds it to the content). None for a page that is no series post (or
        one whose front matter is a problem already reported)."""
        entry = self.series.post_at(src_uri)
        if entry is None:
            return None
        values = {"series": {**generated.post_header(self.series, entry, self.engine.series.baseline,
                                                     self.category_index, href), "date": entry.date}}
        return tuple(Markup(TEMPLATES.get_template(name).render(**values)) for name in POST_TEMPLATES)

    def _in_series_order(self, found: list) -> list:
        """What the posts quote or cite, post by post in the series' order, each post's in its page's order: the host
        renders the posts in its own order (MkDocs by file name), and the pages that list them show the series'."""
        order = {entry.url: n for n, entry in enumerate(self.series.posts)}
        return sorted(found, key=lambda at: order[at.url])

    def generated_page(self, src_uri: str, href) -> tuple[Markup, Markup] | None:
        """What a page the build adds shows around its Markdown (all of it: their Markdown is empty), as
        (HTML above, HTML below), from the engine's values: the same under every host, which wraps it in its
        theme. None for the author's pages. They render after the posts, so `quoted` is whole."""
        site, baseline, line = self.site, self.engine.series.baseline, source_line(href)
        quoted, tried, mentioned = map(self._in_series_order, (self.quoted, self.tried, self.mentioned))
        if site.sources is not None and (src_uri in site.source_pages or src_uri == addresses.SOURCE_MAP_SRC):
            path = site.source_pages.get(src_uri)
            if path is None:
                values = {"source": None, "source_map": sourcepages.map_values(site.sources, quoted, baseline, line)}
            else:
                values = {"source": sourcepages.page_values(path, site.sources, quoted, baseline, line, href,
                                                            self.engine.series.cache_dir, mentioned),
                          "source_map": None}
                self._rendered()
            return Markup(TEMPLATES.get_template(SOURCE_TEMPLATE).render(**values)), Markup()
        if src_uri in site.script_pages:
            script = site.script_pages[src_uri]
            runs = self.runs.get(script["path"], records.ScriptRuns())
            code = sourcepages.script_code(script["path"], site.scripts[script["path"]], site.sources, tried, line,
                                           href)
            values = {"script": {**script, "code": code, "download": href(script["path"]),
                                 "output": self.outputs.get(script["path"]),
                                 "posts": [(label, href(url)) for label, url in script["posts"]],
                                 "matrix": self._matrix_table(script["path"]),
                                 "runs": [(record, [(stamped, href(stamped.url)) for stamped in runs.stamped[anchor]])
                                          for anchor, record in runs.records.items()]}}
            return tuple(Markup(TEMPLATES.get_template(name).render(**values)) for name in SCRIPT_TEMPLATES)
        return None

    def _matrix_table(self, script: str) -> dict | None:
        """A script page's verdicts: each block, with each environment and what came out there; each
        difference's diff; `ran` false where the series has a matrix that this build did not run. None without
        a matrix."""
        if not self.engine.series.matrix.environments:
            return None
        verdicts = [v for v in self.verdicts if v.block.fields["File"] == script]
        environments = list(dict.fromkeys(v.environment for v in verdicts))
        blocks = {(v.block.post, v.block.line): v.block for v in verdicts}  # a Block holds a dict: not hashable
        said = {(v.block.post, v.block.line, v.environment): READER_SAYS[v.said] for v in verdicts}
        return {"ran": self.matrix is not None,
                "rows": [(self._block_name(block), [(env, said.get((*key, env), "")) for env in environments])
                         for key, block in blocks.items()],
                "differences": [(self._block_name(v.block), v.environment, _shown_outside_cards(
                    v.problem.detail or v.problem.message)) for v in verdicts if v.problem]}

    def _matrix_facts(self, scripts) -> overview.MatrixFacts | None:
        """What the overview says of the matrix, where the series has one: each environment with its published lock,
        and for each of the `scripts` how many environments gave what its posts record (each environment counted
        by the worst verdict of the script's blocks there)."""
        environments = self.engine.series.matrix.environments
        if not environments:
            return None
        held = {}
        for script in scripts:
            worst: dict[str, int] = {}  # environment -> the index in VERDICT_ORDER of its worst verdict
            for verdict in (v for v in self.verdicts if v.block.fields["File"] == script):
                worst[verdict.environment] = max(worst.get(verdict.environment, 0), VERDICT_ORDER.index(verdict.said))
            counts = [(said, list(worst.values()).count(n)) for n, said in enumerate(VERDICT_ORDER)]
            held[script] = ("本次构建未运行" if self.matrix is None else "—" if not worst else
                            f"{len(worst)} 个环境中一致" if counts[0][1] == len(worst) else
                            "；".join(f"{count} 个环境{READER_SAYS[said]}" for said, count in counts if count))
        return overview.MatrixFacts(tuple((e.name, addresses.matrix_lock_url(e.lock.name)) for e in environments),
                                    self.matrix is not None, held)

    def _block_name(self, block) -> str:
        """A block as a reader finds it: its post's title, its kind and its line in the post's file."""
        entry = next((entry for entry in self.series.posts if entry.post == block.post), None)
        title = entry.title if entry is not None and entry.title else block.post
        return f"{title} · {block.kind.name}（第 {block.line} 行）"

    def render_again(self, problems: list[Problem]) -> None:
        """Forget what rendering the pages recorded (a host that renders them twice, Zensical's adapter, whose first
        rendering wrote the source pages' quoted lines): the build's problems become `problems` again."""
        self.problems, self.warnings, self.rendered = list(problems), [], []
        self.quoted, self.tried, self.mentioned, self._rendering = [], [], [], (0, time.monotonic())

    def _rendered(self) -> None:
        """Say how far the source pages are, every PROGRESS_EVERY seconds: a first build highlights and links
        them all (some seconds); later ones take them from the cache, and say nothing."""
        done, said = self._rendering[0] + 1, self._rendering[1] if self._rendering[0] else time.monotonic()
        if time.monotonic() - said >= PROGRESS_EVERY:
            self.log(f"source pages: {done}/{len(self.site.source_pages)} highlighted and linked (then kept in the cache)")
            said = time.monotonic()
        self._rendering = (done, said)

    def check_nav_titles(self, titles: list[str], config_file: Path) -> None:
        """The theme prints navigation titles as HTML on every page (the posts' are their front matter's)."""
        self.problems += guard.check_titles(titles, config_file.name,
                                            lambda: config_file.read_text(encoding="utf-8").split("\n"))


# What a script page shows of a difference that would pass for a card's own: a run's error or output there is the
# script's text, which no check of a card's reaches (its page is no post, and it is no card).
WITHHELD = "（这段差异中有看似卡片标记或验证戳的文字，页面不显示它；请看构建日志）"


def _shown_outside_cards(text: str) -> str:
    """A difference as a script page may show it, outside any card: withheld where a line would pass for a card's."""
    return WITHHELD if passes_for_a_card(text.split("\n")) else text


def source_line(href) -> Callable[[str, int | None], str]:
    """`link(path, n)`: the address of line n of a source page (its top without a number) from the page whose
    links `href` makes."""
    return lambda path, number: href(addresses.source_page_url(path)) + (f"#L{number}" if number else "")


def description_problems(description: str, parsed) -> list[Problem]:
    """A page's description as <meta>, Open Graph and the feeds publish it (plain text, escaped) read as the page
    guard reads a page: a card's face or a marker there is a problem at the line that shows it."""
    problems = []
    for shown, what in guard.route_problems(escape(description)):
        problems.append(Problem(*guard.showing(parsed, shown, None), f"the page's description {what}: its first "
                                "paragraph, which <meta> and Open Graph publish as plain text, where it would pass for "
                                "a verified card", hint="say it in other words, give the page a `description:` in its "
                                                        "front matter, or begin it with another paragraph"))
    return problems
