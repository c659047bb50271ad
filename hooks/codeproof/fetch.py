"""`python -m codeproof.fetch [--pip PYTHON] [mkdocs.yml]`: the pinned release archive into the cache, as a build
reads it.

dev.sh runs it beside an author's first build, once .venv is installed: the archive downloads while MkDocs starts,
rather than after (two of a first build's seconds), by the pip of the python3 that made .venv (byte-compiled,
where .venv's is not yet: 2.4 s, not 3.7). The build waits for a download under way (SdistProvider holds
a lock while it downloads) and reads the archive as always, proving it against its pin. What goes wrong here is
the build's to say: it tries again when it reads the archive.
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
    parser.add_argument("--pip", default=sys.executable, help="the Python whose pip downloads (default: this one)")
    parser.add_argument("config", nargs="?", default="mkdocs.yml", type=Path, help="the site's mkdocs.yml")
    args = parser.parse_args(argv)
    said = logging.StreamHandler()
    said.setFormatter(logging.Formatter("codeproof.fetch: %(message)s"))  # its "downloading" and "downloaded" lines
    log.addHandler(said)
    log.setLevel(logging.INFO)
    try:
        series = load_series(args.config)
        if series.baseline.sdist:
            provider = SdistProvider(series.baseline, series.cache_dir, pip_python=args.pip)
            provider.tree(series.baseline.repo, series.baseline.commit)
    except (CodeproofError, ProviderUnavailable, OSError) as error:
        print(f"codeproof.fetch: not fetched ({str(error).splitlines()[0]}); the build tries again", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
