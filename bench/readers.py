"""What readers get, measured on the built site in headless Chromium (Debian's chromium, through Playwright).

For every page of the site, in both colour schemes, at 1280 and 375 px:
  - axe-core's violations (node_modules/axe-core, pinned in package.json), by rule and impact;
  - at 375 px, the share of each code block's and table's width that is hidden (scrolled out of view);
  - the longest task of the longest source page, opened at its last lines on a phone at 4x CPU slowdown
    (was 2.2 s before the lines were laid out near the screen only; the goal is under 800 ms).

Run from the repository root, after `npm ci` and `./dev.sh build`:
    .venv/bin/python bench/readers.py [--site site] [--json out.json]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from site_server import AXE, HIDDEN, axe_violations, pages, serve, site_prefix  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
WIDTHS = {"desktop": (1280, 900), "phone": (375, 812)}
SCHEMES = ("light", "dark")

LONG_TASKS = """() => new Promise(done => new PerformanceObserver(list => done(list.getEntries().map(e => e.duration)))
                                  .observe({type: 'longtask', buffered: true}))"""


def longest_task(browser, site: Path, base: str) -> tuple[str, float]:
    """The longest source page and its longest task (ms) on a slow phone, opened at its second-to-last line."""
    largest = max((site / "source").rglob("index.html"), key=lambda p: p.stat().st_size)
    lines = largest.read_text(encoding="utf-8").count(' data-n="')  # a line's span has its number
    context = browser.new_context(viewport={"width": 375, "height": 812})
    page = context.new_page()
    context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
    path = largest.parent.relative_to(site).as_posix()
    page.goto(f"{base}{path}/#L{lines - 2}", wait_until="load")
    page.wait_for_timeout(500)  # a benchmark: the tasks that follow the load count too
    longest = max(page.evaluate(LONG_TASKS), default=0)
    context.close()
    return path, longest


def audit(site: Path) -> dict:
    server, base = serve(site, site_prefix())
    results = {"violations": [], "hidden": {}}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for scheme in SCHEMES:
                for width_name, (width, height) in WIDTHS.items():
                    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
                    for path in pages(site):
                        page = context.new_page()
                        page.goto(base + path, wait_until="networkidle")
                        results["violations"] += [
                            {"page": path, "scheme": scheme, "width": width, "rule": v["rule"], "impact": v["impact"],
                             "nodes": len(v["nodes"])} for v in axe_violations(page)]
                        if width_name == "phone" and scheme == "light":
                            results["hidden"][path] = page.evaluate(HIDDEN)
                        page.close()
                    context.close()
            results["longest_task"] = longest_task(browser, site, base)
            browser.close()
    finally:
        server.shutdown()
    return results


def summary(results: dict) -> str:
    lines = ["axe-core violations (nodes, summed over pages x schemes x widths), by rule:"]
    by_rule = collections.Counter()
    impact = {}
    for v in results["violations"]:
        by_rule[v["rule"]] += v["nodes"]
        impact[v["rule"]] = v["impact"]
    for rule, n in by_rule.most_common():
        lines.append(f"  {impact[rule]:<9} {rule:<32} {n}")
    serious = sum(n for rule, n in by_rule.items() if impact[rule] in ("serious", "critical"))
    lines.append(f"  serious or critical: {serious} nodes")
    lines.append("hidden width at 375 px (code blocks / tables over 10% hidden, the worst):")
    for path, blocks in results["hidden"].items():
        if blocks:
            over = [share for _, share in blocks if share > 0.10]
            lines.append(f"  {path or '/':<40} {len(over)} of {len(blocks)} over 10%, worst {max(s for _, s in blocks):.0%}")
    path, longest = results["longest_task"]
    lines.append(f"longest task of the longest source page ({path}) at 375 px, 4x CPU slowdown: {longest:.0f} ms")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not AXE.is_file():
        sys.exit(f"{AXE} is missing: run ./dev.sh test, which installs axe-core there")
    results = audit(args.site)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
