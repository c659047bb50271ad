"""`python -m codeproof.fetch [mkdocs.yml]`: the pinned release archive into the cache, as a build reads it.

dev.sh runs it beside an author's first build, once .venv is installed: the archive downloads while MkDocs starts,
rather than after (two of a first build's seconds). The build waits for a download under way (SdistProvider holds
a lock while it downloads) and reads the archive as always, proving it against its pin. What goes wrong here is
the build's to say: it tries again when it reads the archive.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from codeproof.common.errors import CodeproofError
from codeproof.quotes.providers import ProviderUnavailable, SdistProvider, log
from codeproof.series.config import load_series


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    said = logging.StreamHandler()
    said.setFormatter(logging.Formatter("codeproof.fetch: %(message)s"))  # its "downloading" and "downloaded" lines
    log.addHandler(said)
    log.setLevel(logging.INFO)
    try:
        series = load_series(Path(argv[0] if argv else "mkdocs.yml"))
        if series.baseline.sdist:
            SdistProvider(series.baseline, series.cache_dir).tree(series.baseline.repo, series.baseline.commit)
    except (CodeproofError, ProviderUnavailable, OSError) as error:
        print(f"codeproof.fetch: not fetched ({str(error).splitlines()[0]}); the build tries again", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
