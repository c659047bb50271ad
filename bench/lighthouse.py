"""Lighthouse scores of the built site, served with gzip as GitHub Pages serves it, on phone and desktop.

Lighthouse is not a test dependency: install the pinned version once, anywhere, and point to it:
    npm i -E --prefix /tmp/lh lighthouse@12.2.3
    .venv/bin/python bench/lighthouse.py --lighthouse /tmp/lh/node_modules/.bin/lighthouse [--site site]
Prints, for the overview, each post, the largest source page, the package map and a script page, on a phone (Lighthouse's mobile preset with its
simulated throttling) and, with --desktop, on a desktop: performance, accessibility, best practices and SEO and the
total blocking time, each the median of --runs runs (3).
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from site_server import _Site, site_prefix  # noqa: E402

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
COMPRESSED = (".html", ".css", ".js", ".json", ".xml", ".svg", ".txt")


class _Gzipped(_Site):
    """The site as a static host sends it: text compressed when the browser accepts gzip."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix not in COMPRESSED or "gzip" not in self.headers.get("Accept-Encoding", "") or not path.is_file():
            return super().send_head()
        data = gzip.compress(path.read_bytes())
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return _Body(data)


class _Body:
    def __init__(self, data: bytes):
        self.data = data

    def read(self, *_):
        data, self.data = self.data, b""
        return data

    def close(self):
        pass


def scores(lighthouse: str, url: str, desktop: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        argv = [lighthouse, url, "--quiet", "--output=json", f"--output-path={out}", "--chrome-path=/usr/bin/chromium",
                "--chrome-flags=--headless=new --no-sandbox", f"--only-categories={','.join(CATEGORIES)}"]
        subprocess.run(argv + (["--preset=desktop"] if desktop else []), check=True, capture_output=True, timeout=300)
        report = json.loads(out.read_text(encoding="utf-8"))
    result = {c: round(100 * report["categories"][c]["score"]) for c in CATEGORIES}
    result["tbt_ms"] = round(report["audits"]["total-blocking-time"]["numericValue"])
    return result


def median(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lighthouse", required=True)
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--desktop", action="store_true", help="desktop too")
    parser.add_argument("--page", action="append", help="only these pages (site-relative, e.g. posts/x/)")
    args = parser.parse_args()
    prefix = site_prefix()
    handler = functools.partial(type("Site", (_Gzipped,), {"prefix": prefix}), directory=str(args.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}{prefix}"
    largest = max((args.site / "source").rglob("index.html"), key=lambda p: p.stat().st_size)
    script = min((args.site / "experiments").glob("*/index.html"))
    pages = args.page or ([""] + sorted(f"posts/{p.parent.name}/" for p in (args.site / "posts").glob("*/index.html"))
                          + [largest.parent.relative_to(args.site).as_posix() + "/", "source/",
                             script.parent.relative_to(args.site).as_posix() + "/"])
    columns = CATEGORIES + ("tbt_ms",)
    print(f"{'page':<44} {'form':<8} " + " ".join(f"{c:>15}" for c in columns), flush=True)
    try:
        for page in pages:
            for desktop in (False, True) if args.desktop else (False,):
                result = median([scores(args.lighthouse, base + page, desktop) for _ in range(args.runs)])
                print(f"{page or '/':<44} {'desktop' if desktop else 'phone':<8} "
                      + " ".join(f"{result[c]:>15g}" for c in columns), flush=True)
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
