"""What a phone's load of a built page is made of, in Chromium with its CPU slowed four times (Lighthouse's mobile
factor): the elements the browser styled, summed over every style recalculation until a second after the load
(a recalculation of the whole page counts each of its elements), the time those recalculations took, and the main
thread's blocking time (each task's time over 50 ms). Medians of --runs fresh loads.

Lighthouse's score on this machine spreads over ten points for the same files; the count of elements styled does
not (a few hundred of some thousands), so a change to what the page's scripts make the browser do shows in it.

Run from the repository root:  .venv/bin/python bench/page_load.py --site SITE --page posts/x/ [--page ...] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from site_server import serve, site_prefix  # noqa: E402

PHONE = {"viewport": {"width": 412, "height": 823}, "device_scale_factor": 1.75, "is_mobile": True, "has_touch": True}


def load(browser, url: str) -> tuple[int, float, float]:
    """One fresh load of `url`: (elements styled, ms of style recalculation, ms of blocking time)."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    events, done = [], []
    cdp.on("Tracing.dataCollected", lambda message: events.extend(message["value"]))
    cdp.on("Tracing.tracingComplete", lambda _: done.append(True))
    cdp.send("Tracing.start", {"categories": "devtools.timeline,disabled-by-default-devtools.timeline",
                               "transferMode": "ReportEvents"})
    page.goto(url, wait_until="load")
    page.wait_for_timeout(1000)  # what the page's scripts do once it has loaded
    cdp.send("Tracing.end")
    while not done:
        page.wait_for_timeout(50)
    context.close()
    complete = [e for e in events if e.get("ph") == "X"]
    styled = [e for e in complete if e["name"] == "UpdateLayoutTree"]
    tasks = [e["dur"] / 1000 for e in complete if e["name"] == "RunTask"]
    return (sum(e.get("args", {}).get("elementCount", 0) for e in styled), sum(e["dur"] for e in styled) / 1000,
            sum(task - 50 for task in tasks if task > 50))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--page", action="append", required=True, help="site-relative, e.g. posts/x/")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    server, base = serve(args.site, site_prefix())
    print(f"{'page':<44} {'elements styled':>16} {'styling ms':>11} {'blocking ms':>12}")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
            for path in args.page:
                runs = [load(browser, base + path) for _ in range(args.runs)]
                styled, styling, blocking = (statistics.median(run[n] for run in runs) for n in range(3))
                print(f"{path:<44} {styled:>16g} {styling:>11.0f} {blocking:>12.0f}", flush=True)
            browser.close()
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
