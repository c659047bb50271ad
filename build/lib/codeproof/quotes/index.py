"""A release's source archive, fetched from the package index's own listing of the project (PEP 691's JSON, or
PEP 503's HTML read by an HTML5 parser) and kept only once its SHA-256 is the one pinned, or, for a release
nothing pins (drift, rebase), the one the listing gives.

Nothing of the archive runs: no installer, build backend or metadata hook is started (pip download ran the
archive's build backend to read its metadata). The index is PyPI's, or the one CODEPROOF_INDEX_URL names (the
user's environment, never the repository's files): https, or http on this machine's loopback (the tests' server)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

INDEX_ENV = "CODEPROOF_INDEX_URL"
PYPI = "https://pypi.org/simple/"
ARCHIVE_CAP = 64 << 20  # bytes: a release archive of a pure-Python package is well under a megabyte
LISTING_CAP = 16 << 20  # bytes of a project's listing (PyPI's numpy, every release: about 3 MB)
ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"
LOOPBACK = ("localhost", "127.0.0.1", "::1")


class IndexUnavailable(Exception):
    """The archive cannot be had from the index: why, in one line."""


@dataclass(frozen=True)
class Listed:
    """A file of the project's listing: its name, where it is, and the SHA-256 the index gives (or None)."""

    filename: str
    url: str
    sha256: str | None


def index_url() -> str:
    """The index asked: CODEPROOF_INDEX_URL, else PyPI's; always ending in a slash."""
    url = os.environ.get(INDEX_ENV) or PYPI
    return url if url.endswith("/") else url + "/"


def project_name(name: str) -> str:
    """A project's name as the index lists it (PEP 503's normal form)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def fetch_release_archive(pin: str, archive: Path, sha256: str | None, timeout: float = 120) -> str:
    """The source archive of `pin` (name==version), from the index's listing, written to `archive` only once its
    bytes are proven: their SHA-256 is `sha256` when it is pinned, else the one the listing gives. Returns that
    SHA-256. IndexUnavailable saying why when it cannot be had; nothing is left behind then."""
    name, _, version = pin.partition("==")
    index = index_url()
    listing_url = urllib.parse.urljoin(index, project_name(name) + "/")
    listed = _listing(listing_url, timeout)
    wanted = [file for file in listed if _is_sdist_of(file.filename, name, version)]
    if not wanted:
        others = sorted(file.filename for file in listed if f"-{version}" in file.filename)
        raise IndexUnavailable(f"the index {index} lists no source archive of {pin}"
                               + (f" (only {', '.join(others[:4])})" if others else ""))
    file = wanted[0]
    if sha256 and file.sha256 and file.sha256 != sha256:
        raise IndexUnavailable(f"the index {index} lists {file.filename} with SHA-256 {file.sha256}; "
                               f"mkdocs.yml pins {sha256}")
    expected = sha256 or file.sha256
    if expected is None:
        raise IndexUnavailable(f"the index {index} gives no SHA-256 for {file.filename}, and nothing pins one")
    url = urllib.parse.urljoin(listing_url, file.url.split("#", 1)[0])
    _allowed(url, index)
    _, data = _get(url, timeout, ARCHIVE_CAP, "*/*")
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise IndexUnavailable(f"{url} gave bytes of SHA-256 {actual}, not the {expected} "
                               + ("mkdocs.yml pins" if sha256 else "the index lists"))
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=archive.parent, prefix=".fetching-", delete=False) as kept:
        kept.write(data)
    os.chmod(kept.name, 0o644)  # as any download: the cache is the user's, the archive no secret
    os.replace(kept.name, archive)  # whole or not at all: a build never reads half an archive
    return expected


def _is_sdist_of(filename: str, name: str, version: str) -> bool:
    """`filename` is the source archive of name==version (autograd-1.9.1.tar.gz; the name in any of its forms)."""
    if not filename.endswith(".tar.gz"):
        return False
    stem, _, listed_version = filename.removesuffix(".tar.gz").rpartition("-")
    return project_name(stem) == project_name(name) and listed_version == version


def _listing(url: str, timeout: float) -> list[Listed]:
    """The files the index lists for a project, from its JSON or its HTML page."""
    _allowed(url, index_url())
    kind, body = _get(url, timeout, LISTING_CAP, ACCEPT)
    if "json" in kind:
        try:
            files = json.loads(body)["files"]
            return [Listed(str(f["filename"]), str(f["url"]), (f.get("hashes") or {}).get("sha256")) for f in files]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise IndexUnavailable(f"the index's listing {url} is not the JSON of PEP 691") from None
    listed = []
    for anchor in LexborHTMLParser(body.decode("utf-8", "replace")).css("a[href]"):
        href = anchor.attributes.get("href") or ""
        found = re.search(r"#sha256=([0-9a-f]{64})\Z", href)
        listed.append(Listed(anchor.text(strip=True), href, found[1] if found else None))
    return listed


def _allowed(url: str, index: str) -> None:
    """Only https, or plain http to the index's own loopback address (a local server: the tests')."""
    parsed, home = urllib.parse.urlsplit(url), urllib.parse.urlsplit(index)
    local = parsed.scheme == home.scheme == "http" and parsed.netloc == home.netloc and parsed.hostname in LOOPBACK
    if parsed.scheme != "https" and not local:
        raise IndexUnavailable(f"the index {index} sends to {url}, which is neither https nor the index's own "
                               "loopback address")


def _get(url: str, timeout: float, cap: int, accept: str) -> tuple[str, bytes]:
    """The response's content type and its bytes, at most `cap` of them."""
    request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "codeproof"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = response.read(cap + 1)
            kind = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        raise IndexUnavailable(f"{url}: HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise IndexUnavailable(f"{url}: {getattr(error, 'reason', None) or error}") from None
    if len(data) > cap:
        raise IndexUnavailable(f"{url} is larger than {cap >> 20} MiB")
    return kind, data
