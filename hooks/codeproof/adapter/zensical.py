"""Zensical as a host of the cards: `python -m codeproof.adapter.zensical build|serve` (`./dev.sh zensical …`)
runs Zensical in this process, and does what the extension cannot (ARCHITECTURE.md, "The cards as an
extension"). A site whose mkdocs.yml does not load `codeproof.cards` (the MkDocs hook's) is staged (stage.py):
built from a staging folder whose configuration loads them.

- `build` renders every page anew (Zensical's page cache lies in the repository's folder, and a cached page was
  proved against what the scripts, the lock and the configuration were then); a problem stops it with every
  problem said once, as `file:line: what`, and no output folder left behind; then it reads the output folder:
  each page the extension rendered holds exactly the cards it proved, and nothing outside them (the theme's
  template, the page's meta, the search index) shows a card's face or a block marker.
- `serve` shows each problem on its page, and renders every page anew whenever what the proofs read changes.
  A site that loads the cards: Zensical's server watches docs/ and its configuration, and keeps a page it
  rendered until its text or the configuration's settings change: it serves `.codeproof-preview.yml`, which
  inherits mkdocs.yml and adds the digest of what the proofs read (`cards.inputs_digest`), rewritten whenever
  that changes. A staged site: the whole staged build again on every change (`_serve_staged`), served.

Zensical is imported here only: the core knows no generator.
"""

from __future__ import annotations

import argparse
import http.server
import importlib.metadata
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from html import escape
from pathlib import Path


from codeproof import cards
from codeproof.adapter import feeds, search, stage
from codeproof.common.errors import CodeproofError
from codeproof.common.filesystem import write_atomically
from codeproof.common.structure import Problem, report
from codeproof.common.usercache import output_folder_problem
from codeproof.series.blocks import read_post
from codeproof.series.config import SeriesConfigError, load_site, read_settings
from codeproof.site import addresses, guard, published
from codeproof.site.published import Rendered

CACHE = ".cache"  # Zensical's page cache, beside its configuration
PREVIEW = ".codeproof-preview.yml"  # serve's configuration, beside mkdocs.yml (Zensical's site must be below it)
PREVIEW_BUILDS = ".codeproof-preview-site"  # a staged preview's builds, beside mkdocs.yml (where Zensical writes)
WATCHED_EVERY = 0.25  # seconds between two readings of what the proofs read, under serve


class HostError(Exception):
    """The site cannot be built with Zensical as asked: the message, and what to do."""

    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.hint = hint


# The plugins whose output the check after the build reads: search (search.json), the tags' pages (HTML), the
# feeds. Any other writes routes to readers (llms.txt, redirects) that nothing here reads: refused until checked.
CHECKED_PLUGINS = ("search", "tags", "rss")


def site_settings(config_file: Path) -> Path:
    """The output folder of the site (its `site_dir`), once mkdocs.yml is known to load the cards, if it does, with
    the series' settings in the same file (else the adapter stages the site, its configuration loading them),
    every other extension there to load, and no plugin whose output goes unchecked. HostError otherwise (Zensical
    would prove against settings that serve does not watch, or publish what nothing checked, or stop with a
    traceback), or when a folder Zensical empties cannot safely be emptied."""
    try:
        config = read_settings(config_file)
    except SeriesConfigError as error:
        raise HostError(str(error).strip(), "fix the configuration") from None
    settings = _extensions(config)
    named = Path(str((settings.get("codeproof.cards") or {}).get("config_file", "mkdocs.yml")))
    if "codeproof.cards" in settings and (config_file.parent / named).resolve() != config_file.resolve():
        raise HostError(f"{config_file.name}: codeproof.cards reads the series' settings from {named}, not from "
                        f"{config_file.name}, which Zensical builds", f"give it `config_file: {config_file.name}`, "
                                                                      "and keep the series' settings there")
    missing = [name for name in settings if not _importable(name)]
    if missing:
        raise HostError(f"{config_file.name}: markdown_extensions names {', '.join(missing)}, which cannot be "
                        "imported", "install it, or remove it from markdown_extensions")
    plugins = [next(iter(item)) if isinstance(item, dict) else item for item in config.get("plugins") or []]
    unchecked = [str(name) for name in plugins if name not in CHECKED_PLUGINS]
    if unchecked:
        raise HostError(f"{config_file.name}: plugins {', '.join(unchecked)} write what the check after the build "
                        "does not read", f"remove them: with Zensical the site takes {', '.join(CHECKED_PLUGINS)} only")
    root = config_file.parent
    site_dir = root / str(config.get("site_dir") or "site")
    for folder in (site_dir, root / CACHE, root / PREVIEW, root / PREVIEW_BUILDS, root / stage.STAGE,
                   root / stage.CONFIG):
        unsafe = output_folder_problem(folder, root)
        if unsafe:
            raise HostError(*unsafe)
    return site_dir


def _extensions(config: dict) -> dict:
    """The Markdown extensions a configuration loads: {name: its options, or None}."""
    listed = [next(iter(item.items())) if isinstance(item, dict) and len(item) == 1 else (item, None)
              for item in config.get("markdown_extensions") or []]
    return {name: options for name, options in listed if isinstance(name, str)}


def loads_the_cards(config_file: Path) -> bool:
    """Whether the site's configuration loads the cards itself (else the adapter stages the site, with them)."""
    try:
        return "codeproof.cards" in _extensions(read_settings(config_file))
    except SeriesConfigError:
        return True  # site_settings says what is wrong with it


def _importable(name: str) -> bool:
    """Whether Python-Markdown can load an extension of this name: one its entry points name (`admonition`), or
    a module (`module:Class` too)."""
    if name in {entry.name for entry in importlib.metadata.entry_points(group="markdown.extensions")}:
        return True
    try:
        return importlib.util.find_spec(name.split(":", 1)[0]) is not None
    except (ImportError, ValueError):
        return False


def output_problems(site_dir: Path, rendered: list[Rendered], alike: tuple[str, ...] = ()) -> list[Problem]:
    """The check of the output folder every host's build makes (`site.published`; `alike`, the source pages'
    URLs), and what Zensical's plugins write: its search index, every entry outside its page's cards and code, and
    the feeds' items."""
    problems = published.output_problems(site_dir, rendered, alike)
    index = site_dir / search.ZENSICAL_INDEX
    entries = json.loads(index.read_text(encoding="utf-8")).get("items", []) if index.is_file() else []
    posts = {page.url: page.post for page in rendered}
    for location, run in search.entry_runs(entries, site_dir):  # its words outside the page's cards and code
        problems += [Problem(posts.get(location.split("#", 1)[0], search.ZENSICAL_INDEX), 1, f"the search index {what} for "
                             f"the page {location or '/'}, outside any verified card", hint="name it in other words")
                     for _, what in guard.route_problems(run)]
    for location, item in feeds.feed_items(site_dir):
        problems += [Problem(posts.get(location, "a feed"), 1, f"a feed {what} for the page {location or '/'}, "
                             "outside any verified card", hint="name it in other words")
                     for _, what in guard.route_problems(item)]
    return problems


def unreadable_pages(config_file: Path) -> list[Problem]:
    """What Zensical would publish unchecked or stop on before the extension sees a page, each at its file and
    line: a file of docs/ that is no Markdown page, image or font (copied as it is), a link or a special file
    (the guard's rule for MkDocs too); a page whose bytes are no UTF-8, or whose front matter is no YAML (Zensical
    reads front matter itself, and says only the page and a byte)."""
    site = load_site(config_file)
    docs_dir, root = site.docs_dir, site.series.root
    problems = guard.docs_problems(docs_dir, root)
    for path in sorted(docs_dir.rglob("*.md")):
        parsed, front = read_post(path, cards.shown(path, root))
        problems += (parsed.problems if parsed.unreadable else []) + front.problems
    return problems


def build(config_file: Path, strict: bool = False) -> int:
    """Build the site with Zensical from its staging folder (`stage`); 0 when every page was proved and the output
    folder passed, else 1 with the site's folder removed. Its own messages on stderr, never a traceback."""
    try:
        site_dir = site_settings(config_file)
    except HostError as error:
        print(f"error: {error}\n  hint: {error.hint}", file=sys.stderr)
        return 2
    os.environ.pop(cards.SHOW_PROBLEMS_ENV, None)  # a build fails on a problem, whoever set the preview's switch
    os.chdir(config_file.parent)  # where mkdocs.yml names the cards' configuration from
    cards.FAILURES.clear()
    try:
        unreadable = unreadable_pages(config_file)
        said = report(unreadable) if unreadable else _staged_build(config_file, site_dir, strict)
    except CodeproofError as error:  # the series' configuration, before any page
        said = error.shown()
    except Exception as error:  # Zensical wraps what an extension raised in its own error
        said = "\n".join(cards.FAILURES) or f"zensical: {error}"
    finally:
        cards.HOSTED.pop(config_file.resolve(), None)
    if said:
        shutil.rmtree(site_dir, ignore_errors=True)
        print(f"{said}\nerror: the site was not built, and {site_dir} was removed: nothing in it was verified",
              file=sys.stderr)
        return 1
    return 0


def _staged_build(config_file: Path, site_dir: Path, strict: bool, preview: bool = False) -> str:
    """The engine's build driven here (stage.stage_build), its pages rendered by Zensical from the staging folder
    twice: the first rendering tells the source pages which lines the posts quote, and in which sections (the
    headings' ids are the host's), and gives each post its description; the second builds the site from the
    staging folder written with them. Then the output folder is read. Every problem, as a report ("" for none).
    `preview`: into `site_dir` (serve's folder), each problem shown on its page (as MkDocs' serve shows it), and
    reported without removing the site."""
    import zensical

    site, build = stage.stage_build(config_file, lambda note: print(note, file=sys.stderr))
    planned = list(build.problems)  # the site's own (a generated page an author's file takes, the matrix's locks)
    hosting = cards.Hosting(build)
    cards.HOSTED[config_file.resolve()] = hosting
    staged = stage.write_config(config_file, build, site_dir if preview else None)
    try:
        for _ in range(2):
            stage.write_stage(site, build, hosting.meta)
            build.render_again(planned)
            zensical.build(str(staged), {"clean": True, "strict": strict})
    finally:
        build.engine.runner.finish()
    for warning in build.warnings:  # as the MkDocs build's log says them: a strict build stops on them
        print(f"warning: {warning}", file=sys.stderr)
    if not preview and (build.problems or (strict and build.warnings)):
        return report(build.problems + (build.warnings if strict else []))
    alike = tuple(map(addresses.source_page_url, build.site.source_pages.values()))
    problems = (build.problems if preview else []) + output_problems(site_dir, build.rendered, alike)
    # What the engine adds to what Zensical's plugins wrote, once they were read (as the MkDocs adapter does)
    search.complete_zensical_index(site_dir / search.ZENSICAL_INDEX, build.site.sources)
    feeds.complete_json_feeds(site_dir)
    return report(problems) if problems else ""


def serve(config_file: Path, address: str | None) -> int:
    """Zensical's preview server, with each problem shown on its page and every page rendered anew whenever what
    the proofs read changes (a staged site: `_serve_staged`). Zensical's server runs in a process of its own: it
    ends on a page whose front matter it cannot read (and cannot be started again in the same process), so while
    a page is so, this process serves that problem on every address instead, and starts Zensical's server again
    once the page is mended."""
    staged = not loads_the_cards(config_file)
    try:
        site_settings(config_file)
    except HostError as error:
        print(f"error: {error}\n  hint: {error.hint}", file=sys.stderr)
        return 2
    os.chdir(config_file.parent)  # where mkdocs.yml names the cards' configuration from
    if staged:
        return _serve_staged(config_file, address)
    shutil.rmtree(CACHE, ignore_errors=True)  # pages a server of another state left
    seen = write_preview(config_file)
    threading.Thread(target=_renew_on_change, args=(config_file, seen), daemon=True).start()
    host, _, port = (address or "localhost:8000").rpartition(":")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # ended as Ctrl-C ends it: Zensical's server with it
    server = None
    try:
        while True:
            unreadable = _unreadable_report(config_file)
            if unreadable:
                print(f"{unreadable}\nerror: Zensical cannot read it: each page shows this until it is mended",
                      file=sys.stderr)
                _serve_problem(host, int(port), config_file, unreadable)
            server = subprocess.Popen([sys.executable, "-P", "-c", ZENSICAL_SERVE, str(config_file.parent / PREVIEW),
                                       f"{host}:{port}"], env={**os.environ, cards.SHOW_PROBLEMS_ENV: "1"})
            ended = server.wait()
            if not _unreadable_report(config_file):  # it ended for another reason than a page it could not read
                return ended
    except KeyboardInterrupt:
        return 0
    finally:
        if server is not None and server.poll() is None:
            server.terminate()
            server.wait()


# Zensical's server, in a process of its own: what ends it is said in one line (the parent says the problem).
ZENSICAL_SERVE = ("import sys, zensical\n"
                  "try:\n"
                  "    zensical.serve(sys.argv[1], {'dev_addr': sys.argv[2], 'open': False, 'strict': False})\n"
                  "except KeyboardInterrupt:\n"
                  "    pass\n"
                  "except Exception as error:\n"
                  "    sys.exit(f'zensical: {error}')\n")


def _unreadable_report(config_file: Path) -> str:
    """What unreadable_pages finds, as a report ("" for nothing)."""
    try:
        problems = unreadable_pages(config_file)
    except CodeproofError as error:  # the configuration itself, edited meanwhile
        return error.shown()
    return report(problems) if problems else ""


def _serve_problem(host: str, port: int, config_file: Path, said: str) -> None:
    """Answer every request with the problem (escaped, in a page that reloads itself each second) until no page
    is unreadable, then free the address for Zensical's server."""
    page = (f'<!doctype html><html lang="en"><meta charset="utf-8"><meta http-equiv="refresh" content="1">'
            f'<title>codeproof: a page cannot be read</title><div class="proof-error"><pre>{escape(said)}</pre></div>'
            "</html>").encode()

    class ProblemPage(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            self.send_response(503)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):  # the problem is said once, above
            pass

    http.server.ThreadingHTTPServer.allow_reuse_address = True
    with http.server.ThreadingHTTPServer((host, port), ProblemPage) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        while _unreadable_report(config_file):
            time.sleep(WATCHED_EVERY)
        server.shutdown()


def _serve_staged(config_file: Path, address: str | None) -> int:
    """The preview of a site the adapter stages (its configuration does not load the cards: the MkDocs hook's
    site): the whole build (`_staged_build`, each problem shown on its page) into a folder of its own
    (PREVIEW_BUILDS, not to commit: a new one each build, the one served meanwhile kept whole), served; built
    again whenever docs/ or what the proofs read changes. Each page asks every second which build it is, and
    reloads when a newer one is served. While a build cannot be made (a page Zensical cannot read, the
    configuration), every address shows why instead of an older build."""
    host, _, port = (address or "localhost:8000").rpartition(":")
    builds = config_file.parent / PREVIEW_BUILDS
    if builds.exists() and not builds.is_dir():  # (a link is site_settings' to refuse)
        print(f"error: {builds} is a file, where serve keeps its builds\n  hint: delete it: serve makes the folder",
              file=sys.stderr)
        return 2
    served = _Preview(builds / "0")
    try:
        server = http.server.ThreadingHTTPServer((host, int(port)), served.handler())
    except (OSError, ValueError) as error:  # a port taken, or no port
        print(f"error: cannot serve at {host}:{port}: {getattr(error, 'strerror', None) or error}\n  hint: give "
              "another address with -a host:port", file=sys.stderr)
        return 2
    shutil.rmtree(builds, ignore_errors=True)  # what a server ended otherwise left
    builds.mkdir()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    seen = None
    try:
        while True:
            now = _preview_inputs(config_file)
            if now != seen:
                seen, folder = now, builds / str(served.build + 1)  # the build served meanwhile stays whole
                said, whole = _preview_build(config_file, folder)
                print(said or f"codeproof: built, every card proved: http://{host}:{port}/", file=sys.stderr)
                shutil.rmtree(served.show(folder, None if whole else said), ignore_errors=True)
            time.sleep(WATCHED_EVERY)
    except KeyboardInterrupt:
        return 0
    finally:
        server.shutdown()
        shutil.rmtree(builds, ignore_errors=True)


def _preview_inputs(config_file: Path) -> tuple:
    """What a staged preview is built from: what the proofs read (cards.inputs_digest), and each file of docs/
    by its name, size and time of change."""
    try:
        docs = load_site(config_file).docs_dir
    except CodeproofError:  # the configuration, being edited: built again once it reads
        return (cards.inputs_digest(config_file),)
    files = sorted((p.relative_to(docs).as_posix(), *_size_and_time(p)) for p in docs.rglob("*") if p.is_file())
    return cards.inputs_digest(config_file), tuple(files)


def _size_and_time(path: Path) -> tuple[int, int]:
    """A file's size and time of change, from one stat."""
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def _preview_build(config_file: Path, preview: Path) -> tuple[str, bool]:
    """One build of the staged preview into the new folder `preview`: every problem said ("" for none), and
    whether the build was made whole (its pages then show their problems; else nothing of it is served)."""
    preview.mkdir()
    cards.FAILURES.clear()
    try:
        unreadable = unreadable_pages(config_file)
        if unreadable:
            return report(unreadable), False
        return _staged_build(config_file, preview, False, preview=True), True
    except CodeproofError as error:
        return error.shown(), False
    except Exception as error:  # Zensical wraps what an extension raised in its own error
        return "\n".join(cards.FAILURES) or f"zensical: {error}", False
    finally:
        cards.HOSTED.pop(config_file.resolve(), None)


class _Preview:
    """What the staged preview serves: the folder of the newest build, each HTML page followed by a script that
    reloads it once a newer build is served; or, while no build could be made, that problem on every address."""

    VERSION = "/.codeproof-preview-build"  # the number of the build served, which each page asks for

    def __init__(self, folder: Path):
        self.folder, self.build, self.problem = folder, 0, None

    def show(self, folder: Path, problem: str | None) -> Path:
        """Serve a new build (or its problem); returns the folder served before."""
        before, self.folder, self.problem = self.folder, folder, problem
        self.build += 1
        return before

    def handler(self):
        preview = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(preview.folder), **kwargs)

            def do_GET(self):  # noqa: N802 (http.server's name)
                try:
                    self._answer()
                except (OSError, ValueError):  # a path no file can have (a NUL, a name too long): none is there
                    self.send_error(404)

            do_HEAD = do_GET  # noqa: N815 (http.server's name): the same answer, without its body (_send)

            def _answer(self):
                if self.path == preview.VERSION:
                    return self._send(200, "text/plain", str(preview.build).encode())
                if preview.problem is not None:
                    return self._send(503, "text/html; charset=utf-8", (
                        '<!doctype html><html lang="en"><meta charset="utf-8"><title>codeproof: the site cannot '
                        f'be built</title><div class="proof-error"><pre>{escape(preview.problem)}</pre></div>'
                        f"</html>{preview.reloader()}").encode())
                address = self.path.split("?", 1)[0].split("#", 1)[0]
                path = Path(self.translate_path(address))
                if path.is_dir() and not address.endswith("/"):  # as a static host: a page's links are relative
                    self.send_response(301)
                    self.send_header("Location", address + "/")
                    self.send_header("Content-Length", "0")
                    return self.end_headers()
                page = path / "index.html" if path.is_dir() else path
                if page.suffix == ".html" and page.is_file():
                    return self._send(200, "text/html; charset=utf-8", page.read_bytes() + preview.reloader().encode())
                return super().do_HEAD() if self.command == "HEAD" else super().do_GET()

            def _send(self, status: int, kind: str, body: bytes):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def log_message(self, *args):  # the builds are what the log says
                pass

        return Handler

    def reloader(self) -> str:
        """A script after the page (the HTML parser puts it in the body): the page asks each second which build
        is served, and reloads when it is another than its own."""
        return ("<script>setInterval(async () => { try { const built = await (await fetch("
                f"{json.dumps(self.VERSION)}, {{cache: 'no-store'}})).text(); "
                f"if (built !== {json.dumps(str(self.build))}) location.reload(); }} catch (error) {{}} }}, 1000);"
                "</script>")


def write_preview(config_file: Path) -> str:
    """serve's configuration: mkdocs.yml, inherited whole, and the digest of what the proofs read now (a setting
    that changes with it, so Zensical renders every page again). Returns the digest."""
    digest = cards.inputs_digest(config_file)
    write_atomically(config_file.parent / PREVIEW, f"# Written by `python -m codeproof.adapter.zensical serve` "
                     f"for Zensical's server: not to edit, not to commit.\nINHERIT: {config_file.name}\nextra:\n"
                     f"  codeproof_inputs: {digest}\n".encode())
    return digest


def _renew_on_change(config_file: Path, seen: str) -> None:
    """Under serve: when a script, what it imports, the lock or the configuration changes, every page Zensical
    keeps was proved against the old state: the preview's configuration says the new one."""
    while True:
        time.sleep(WATCHED_EVERY)
        if cards.inputs_digest(config_file) != seen:
            seen = write_preview(config_file)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codeproof.adapter.zensical",
                                     description="build or serve the site with Zensical, the cards proved")
    parser.add_argument("command", choices=("build", "serve"))
    parser.add_argument("-f", "--config-file", default="mkdocs.yml", type=Path)
    parser.add_argument("-s", "--strict", action="store_true", help="build: stop on Zensical's warnings too")
    parser.add_argument("-a", "--dev-addr", default=None, help="serve: the address (default: localhost:8000)")
    args = parser.parse_args(argv)
    config_file = args.config_file.resolve()
    if args.command == "build":
        return build(config_file, args.strict)
    return serve(config_file, args.dev_addr)


if __name__ == "__main__":
    sys.exit(main())
