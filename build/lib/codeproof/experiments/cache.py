"""The signed cache of experiment runs: the last good run of each script, reused while nothing it read changed.

The last good run of each script (what it printed, the figures it wrote, the graphs it traced) is kept in
`<cache>/experiments/<sha256(format, script, versions, limits, budgets, graphs asked)>.json` and reused while the script
and every recorded input hash the same and Python, numpy and autograd are the same versions. A cache is a convenience, never evidence:
- A build with CI=true (or 1) in its environment (the publishing workflow, `.ci/run`) reads no entry
  and runs every experiment: that is the guarantee of what is published. CODEPROOF_NO_CACHE=1 does
  the same locally.
- Locally each entry carries an HMAC-SHA256 over its name and content, keyed by a per-machine secret
  kept outside the repository (~/.cache/codeproof/experiment-cache.key). An entry edited by hand,
  damaged, or copied from another machine fails the check, is discarded and its experiment runs
  again. Whoever can read that key can forge entries: the check guards against damage and edits in the
  working tree, not against the machine's owner; CI=true is what guarantees a publication.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from dataclasses import asdict
from pathlib import Path

from codeproof.series.config import in_ci
from codeproof.common.filesystem import write_atomically
from codeproof.common.signing import mac, machine_secret, signed_by
from codeproof.common.structure import Budgets, Limits, RunResult

log = logging.getLogger("mkdocs.codeproof.experiments")  # shown by MkDocs; info only, so --strict is unaffected

CACHE_FORMAT = 2  # of a cache entry's body: entries of another format are never read
NO_CACHE_ENV = "CODEPROOF_NO_CACHE"  # set to 1 to run every experiment again


def cache_readable() -> bool:
    """Whether this build may reuse cached runs: never with CI=true, nor with CODEPROOF_NO_CACHE=1."""
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0") and not in_ci()


def input_digest(files: dict[str, bytes], name: str) -> str | None:
    """SHA-256 of a file of the resources, or of the names in a folder ("experiments/sub/"); None if absent."""
    if not name.endswith("/"):
        return hashlib.sha256(files[name]).hexdigest() if name in files else None
    names = sorted({path[len(name):].split("/")[0] for path in files if path.startswith(name)})
    return hashlib.sha256("\n".join(names).encode("utf-8", "surrogateescape")).hexdigest()


class RunCache:
    """The entries of one toolchain (`versions`) under `limits`, in `folder`, signed with the key in `key_file`."""

    def __init__(self, folder: Path, key_file: Path, versions: dict[str, str], limits: Limits,
                 budgets: Budgets = Budgets()):
        self.folder = folder
        self.key_file = key_file
        self.versions = versions
        self.limits, self.budgets = limits, budgets
        self._key: bytes | None = None
        self._key_lock = threading.Lock()  # scripts finish on several threads; the key is made once

    def entry(self, script: str, calls: tuple[str, ...]) -> Path:
        """Where the last good run of `script`, tracing `calls`, is kept."""
        # A run that passed under other limits (or whose figures were read under other budgets) may not pass now.
        key = [CACHE_FORMAT, script, self.versions, asdict(self.limits), asdict(self.budgets), calls]
        name = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
        return self.folder / f"{name}.json"

    def load(self, entry: Path, script: str, files: dict[str, bytes]) -> RunResult | None:
        """The cached run, if its entry is intact and every input it recorded is unchanged."""
        key = self._secret()
        if key is None or not entry.is_file():
            return None
        try:
            stored = json.loads(entry.read_text(encoding="utf-8"))
            body = stored["entry"]
            if not isinstance(stored["mac"], str) or not signed_by(key, entry.name, _signed_text(body), stored["mac"]):
                raise ValueError("its checksum does not match its content")
            result = RunResult(**{**body, "cached": True})
        except (OSError, ValueError, KeyError, TypeError) as error:
            why = f"it has no {error} field" if isinstance(error, KeyError) else str(error)
            log.info(f"{script}: discarded the damaged cache entry {entry} ({why}); the experiment runs again. "
                     f"Delete the folder {self.folder} to clear the experiment cache")
            entry.unlink(missing_ok=True)
            return None
        if result.script != script or result.versions != self.versions or script not in result.inputs:
            return None
        if any(input_digest(files, name) != digest for name, digest in result.inputs.items()):
            return None  # an input changed: run again
        return result

    def store(self, entry: Path, result: RunResult) -> None:
        key = self._secret()
        if key is None:
            return
        body = asdict(result)
        try:
            data = json.dumps({"mac": mac(key, entry.name, _signed_text(body)), "entry": body}, ensure_ascii=False,
                              indent=1)
            write_atomically(entry, data.encode("utf-8"))
        except OSError as error:
            log.info(f"{result.script}: cannot write the experiment cache ({error}); "
                     f"delete the folder {self.folder} if it is damaged")

    def keep_only(self, used: set[str]) -> None:
        """Drop the entries whose names are not in `used` (a build's end: what it did not use is stale)."""
        if self.folder.is_dir():
            for entry in self.folder.glob("*.json"):
                if entry.name not in used:
                    entry.unlink(missing_ok=True)

    def _secret(self) -> bytes | None:
        """The per-machine HMAC key, made on first use; None (no caching) if it cannot be kept."""
        with self._key_lock:
            if self._key is None:
                try:
                    self._key = machine_secret(self.key_file)
                except OSError as error:
                    log.info(f"experiment cache off: cannot keep its key ({error}); "
                             f"delete the folder {self.key_file.parent} if it is damaged")
                    self._key = b""
            return self._key or None


def _signed_text(body: dict) -> bytes:
    """The bytes of a cache entry's body that its signature covers (keys sorted: the same body, the same bytes)."""
    return json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")
