"""A small series site in a temp dir, built in-process: one post quoting the fixture upstream,
running one experiment. Tests change its post and build it, without the real posts."""

from __future__ import annotations

import contextlib
import io
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, BuildError

from codeproof.__main__ import main as codeproof
from conftest import ROOT
from upstream import FRONT_MATTER, NODE_INIT, Upstream, make_upstream

SCRIPT = "experiments/show.py"
SCRIPT_TEXT = 'import sys\n\nprint("node value 3")\nprint("parents []")\n'
OUTPUT = "node value 3\nparents []"
POST = f"""\
{FRONT_MATTER}
Some prose about `Node`.

{NODE_INIT}
The script:

[EXPERIMENT]
File: {SCRIPT}
Purpose: print a node.

```python
print("node value 3")
print("parents []")
```

What it prints:

[OUTPUT]
File: {SCRIPT}

```text
{OUTPUT}
```

The end.
"""


@dataclass
class Site:
    upstream: Upstream
    root: Path

    @property
    def post(self) -> Path:
        return self.root / "docs" / "posts" / "p.md"

    @property
    def commit(self) -> str:
        """The baseline commit, short, as messages name it."""
        return self.upstream.commits[0][:7]

    def edit(self, old: str, new: str) -> None:
        """Replace the one occurrence of `old` in the post."""
        text = self.post.read_text(encoding="utf-8")
        assert text.count(old) == 1, old
        self.post.write_text(text.replace(old, new), encoding="utf-8")

    def check(self, command: str = "check") -> tuple[int, str]:
        """`python -m codeproof <command>` in this process: (exit status, what it printed on stderr)."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = codeproof([command, "--config", str(self.root / "mkdocs.yml")])
        return code, err.getvalue()

    def build(self, command: str = "build") -> tuple[Path | None, str]:
        """Build with --strict in this process: (site folder, log) on success, (None, log) on failure.
        `command="serve"` builds as `mkdocs serve` does: problems are shown in the pages, not raised."""
        records: list[str] = []
        handler = logging.Handler()
        handler.emit = lambda record: records.append(record.getMessage())
        logging.getLogger("mkdocs").addHandler(handler)
        try:
            config = load_config(str(self.root / "mkdocs.yml"), strict=True, site_dir=str(self.root / "site"))
            config.plugins.on_startup(command=command, dirty=False)
            build(config)
            return self.root / "site", "\n".join(records)
        except (Abort, BuildError) as error:
            return None, "\n".join(records + [str(error)])
        finally:
            logging.getLogger("mkdocs").removeHandler(handler)


def report(log: str) -> str:
    """The report a failed build ends with ("N problems:" and each problem), from its log."""
    match = re.search(r"^\d+ problems?:$", log, flags=re.M)
    assert match, log
    return log[match.start():].split("\nAborted with ")[0]


# The real site's theme: Material, its overrides (the post header, the series navigation) and an overview
# with the generated posts table.
MATERIAL = {"name": "material", "language": "zh", "custom_dir": str(ROOT / "overrides"), "font": False,
            "features": ["navigation.footer"]}
OVERVIEW = "# Fixture series\n\nThe posts:\n\n<!-- series-posts -->\n"


def make_site(tmp_path: Path, material: bool = False, versions: tuple | None = None) -> Site:
    """The fixture site; `material` gives it the real site's theme, overrides and overview; `versions`, its
    upstream's commits (upstream.module_history), pkg/mod.py's two by default."""
    upstream = make_upstream(tmp_path, *([versions] if versions else []))
    root = upstream.site
    (root / "docs" / "index.md").write_text(OVERVIEW if material else "# Fixture series\n", encoding="utf-8")
    upstream.post.write_text(POST, encoding="utf-8")
    (root / "experiments").mkdir()
    (root / SCRIPT).write_text(SCRIPT_TEXT, encoding="utf-8")
    (root / "requirements.txt").write_text((ROOT / "requirements.txt").read_text(), encoding="utf-8")
    config = yaml.safe_load((root / "mkdocs.yml").read_text())
    config["extra"]["series"]["baseline"]["version"] = _installed_autograd()
    config.update({
        "hooks": [str(ROOT / "hooks" / "series.py")],
        "markdown_extensions": [
            "admonition", "attr_list", "md_in_html", "pymdownx.details", "pymdownx.superfences",
            {"pymdownx.highlight": {"pygments_lang_class": True, "linenums_style": "pymdownx-inline"}},
        ],
        "theme": MATERIAL if material else {"name": "mkdocs"},
    })
    if material:
        config["markdown_extensions"] += ["tables", {"toc": {"permalink": True}}]
        config["site_url"] = "https://example.org/series/"
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    assert codeproof(["lock", "--config", str(root / "mkdocs.yml")]) == 0
    return Site(upstream, root)


def _installed_autograd() -> str:
    from importlib import metadata

    return metadata.version("autograd")
