"""`python -m codeproof.fetch [mkdocs.yml]`: the pinned release archive into the cache, as a build reads it.

dev.sh runs it beside an author's first build, once .venv is installed: the archive downloads while MkDocs starts,
rather than after. It is fetched from the package index's listing and kept only once its SHA-256 is the pinned
one (quotes/index.py); nothing of it runs. The build waits for a download under way (SdistProvider holds a lock
while it downloads) and reads the archive as always, proving it against its pin. What goes wrong here is the
build's to say: it tries again when it reads the archive.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from codeproof.common.errors import CodeproofError
from codeproof.quotes.providers import ProviderUnavailable, SdistProvider, log
from codeproof.series.config import load_series


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codeproof.fetch", description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default="mkdocs.yml", type=Path, help="the site's mkdocs.yml")
    args = parser.parse_args(argv)
    said = logging.StreamHandler()
    said.setFormatter(logging.Formatter("codeproof.fetch: %(message)s"))  # its "downloading" and "downloaded" lines
    log.addHandler(said)
    level = log.level
    log.setLevel(logging.INFO)
    try:
        series = load_series(args.config)
        if series.baseline.sdist:
            provider = SdistProvider(series.baseline, series.cache_dir)
            provider.tree(series.baseline.repo, series.baseline.commit)
    except (CodeproofError, ProviderUnavailable, OSError) as error:
        print(f"codeproof.fetch: not fetched ({str(error).splitlines()[0]}); the build tries again", file=sys.stderr)
        return 1
    finally:  # called in a process that goes on (the tests): its stream may close, its logger is the build's
        log.removeHandler(said)
        log.setLevel(level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
