"""What the build keeps between runs on this machine (experiment results, the cross-reference index, the
source pages' code) is signed with a per-machine secret kept outside the repository, so that a cache file
edited by hand, or brought from elsewhere, reads as absent and is made again. CI reads no cache at all.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from codeproof.common.filesystem import write_atomically
from codeproof.common.usercache import user_cache

KEY_BYTES = 32


def default_key_file() -> Path:
    """The secret's file: outside the repository, in the user's cache folder."""
    return user_cache() / "experiment-cache.key"


def machine_secret(key_file: Path) -> bytes:
    """The secret, made on first use (by one process, whichever comes first); OSError if it cannot be kept."""
    key_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
    except FileExistsError:
        pass
    key = key_file.read_bytes()
    if len(key) < KEY_BYTES:
        raise OSError(f"{key_file} holds {len(key)} bytes, not {KEY_BYTES}")
    return key


def mac(key: bytes, name: str, data: bytes) -> str:
    """The signature of `data` kept under `name` (a file's name: a signed file moved to another name fails)."""
    return hmac.new(key, name.encode("utf-8") + b"\0" + data, hashlib.sha256).hexdigest()


def signed_by(key: bytes, name: str, data: bytes, signature: str | bytes) -> bool:
    """Whether `signature` is the signature of `data` kept under `name` (compared in constant time)."""
    given = signature.encode("utf-8") if isinstance(signature, str) else signature
    return hmac.compare_digest(given, mac(key, name, data).encode("ascii"))


def read_signed(path: Path, key: bytes | None) -> bytes | None:
    """What a signed file holds, or None if it is absent, unreadable or not signed with `key`."""
    if key is None:
        return None
    try:
        signature, _, data = path.read_bytes().partition(b"\n")
    except OSError:
        return None
    return data if signed_by(key, path.name, data, signature) else None


def write_signed(path: Path, key: bytes | None, data: bytes) -> None:
    """Keep `data` at `path`, signed (written whole or not at all); nothing without a key."""
    if key is not None:
        write_atomically(path, mac(key, path.name, data).encode() + b"\n" + data)


def secret_or_none(key_file: Path | None = None) -> bytes | None:
    """The machine's secret, or None (no cache) when it cannot be kept."""
    try:
        return machine_secret(key_file or default_key_file())
    except OSError:
        return None
