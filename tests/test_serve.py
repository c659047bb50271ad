"""The author's loop: a real `mkdocs serve` shows problems on the page and keeps serving."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

POST = "docs/posts/custom-primitive.md"
PAGE = "posts/custom-primitive/"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(site):
    port = free_port()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": f"http://127.0.0.1:{port}/"}
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=site, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        yield site, f"http://127.0.0.1:{port}/", server
    finally:
        server.terminate()
        server.wait(timeout=10)


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode("utf-8")


def wait_for(url: str, server, predicate, timeout: float = 60.0) -> str:
    """Poll the served page until predicate(html) holds; the server must stay up all along."""
    deadline = time.monotonic() + timeout
    html = ""
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stderr.read()
        try:
            html = fetch(url)
            if predicate(html):
                return html
        except OSError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"{url} never matched; last page had {len(html)} characters")


def test_a_broken_quote_shows_an_error_box_and_fixing_it_removes_the_box(served):
    site, base, server = served
    post = site / POST
    good = post.read_text(encoding="utf-8")
    post.write_text(good.replace("primitive_vjps[fun] = vjpmaker", "primitive_vjps[fun] = vjpmakr"), encoding="utf-8")
    html = wait_for(base + PAGE, server, lambda h: "proof-error" in h)
    assert "REAL SOURCE autograd/core.py (Symbol defvjp_argnums) at 90dbeb8: quote differs from source" in html
    assert html.count('class="proof-card proof-card--source"') == 2  # the other quotes still render
    time.sleep(1.1)  # a distinct mtime for the watcher
    post.write_text(good, encoding="utf-8")
    html = wait_for(base + PAGE, server, lambda h: "proof-error" not in h)
    assert html.count('class="proof-card proof-card--source"') == 3


def test_editing_an_experiment_reruns_it_and_a_mismatch_shows_on_the_page(served):
    site, base, server = served
    wait_for(base + PAGE, server, lambda h: "all checks passed" in h and "proof-error" not in h)
    script = site / "experiments" / "custom_primitive.py"
    script.write_text(script.read_text().replace('print("all checks passed")', 'print("all checks passed!")'))
    html = wait_for(base + PAGE, server, lambda h: "proof-error" in h)
    assert "OUTPUT experiments/custom_primitive.py: output differs from the recorded output" in html
    assert "+all checks passed!" in html
