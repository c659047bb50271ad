"""A package index on this machine's loopback, for the tests of fetching a release archive (codeproof.quotes.index):
a project's listing (PEP 691's JSON or PEP 503's HTML) and its files, each as the test lays them out."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Index:
    """What the server answers: `answers` (a path -> its content type and bytes, before anything else), `listings`
    (project -> its files as (filename, url, sha256 or None)), `files` (a path -> its bytes), and whether listings
    are HTML. `asked` records every path asked, in order."""

    url: str = ""
    answers: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    listings: dict[str, list[tuple[str, str, str | None]]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    html: bool = False
    asked: list[str] = field(default_factory=list)

    def publish(self, project: str, filename: str, data: bytes, listed_sha256: str | None = "") -> None:
        """`filename` with `data` under /files/, listed for `project` with the SHA-256 of `data` (or
        `listed_sha256`: another, or None for none)."""
        self.files[f"/files/{filename}"] = data
        sha256 = hashlib.sha256(data).hexdigest() if listed_sha256 == "" else listed_sha256
        self.listings.setdefault(project, []).append((filename, f"../../files/{filename}", sha256))


@contextmanager
def serving(index: Index):
    """The index served on 127.0.0.1 while the block runs; its `url` is the listings' root (…/simple/)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            index.asked.append(self.path)
            project = self.path.removeprefix("/simple/").strip("/")
            if self.path in index.answers:
                self._answer(*index.answers[self.path])
            elif self.path.startswith("/simple/") and project in index.listings:
                files = index.listings[project]
                if index.html:
                    links = "".join(f'<a href="{url}{"#sha256=" + sha if sha else ""}">{name}</a><br>'
                                    for name, url, sha in files)
                    self._answer("text/html", f"<!DOCTYPE html><html><body>{links}</body></html>".encode())
                else:
                    body = {"meta": {"api-version": "1.1"}, "name": project, "files": [
                        {"filename": name, "url": url, "hashes": {"sha256": sha} if sha else {}} for name, url, sha in files]}
                    self._answer("application/vnd.pypi.simple.v1+json", json.dumps(body).encode())
            elif self.path in index.files:
                self._answer("application/octet-stream", index.files[self.path])
            else:
                self.send_error(404)

        def do_HEAD(self):  # noqa: N802 (uv asks what a file is before it reads it)
            self.head_only = True
            self.do_GET()

        def _answer(self, kind: str, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not getattr(self, "head_only", False):
                self.wfile.write(body)

        def log_message(self, *args):  # quiet
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    index.url = f"http://127.0.0.1:{server.server_address[1]}/simple/"
    try:
        yield index
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
