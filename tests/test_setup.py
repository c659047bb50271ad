"""The set-up `./dev.sh` installs: its hashed locks pin what they were made from (`./dev.sh lock-requirements`)."""

from __future__ import annotations

import re

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT


def pin(line: str) -> tuple[str, str]:
    requirement = Requirement(line)
    return canonicalize_name(requirement.name), str(requirement.specifier)


def pins(path) -> dict[str, str]:
    """Name -> version specifier of each requirement in a pip requirements file, with the files it includes (`-r`)
    (comments, and a lock's `--hash` options on the lines that continue a requirement, aside)."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("-r "):
            found.update(pins(path.parent / line.split(maxsplit=1)[1]))
        elif line and not line[0].isspace() and line[0] != "#":
            found.update([pin(line.removesuffix("\\"))])
    return found


@pytest.mark.parametrize("name", ["requirements", "requirements-test"])
def test_each_lock_pins_exactly_what_its_requirements_pin(name):
    assert pins(ROOT / f"{name}.lock") == pins(ROOT / f"{name}.txt"), \
        f"run `./dev.sh lock-requirements` after changing {name}.txt, and commit {name}.lock"


def test_the_test_set_holds_the_sites_and_what_only_the_tests_need():
    """An author's build installs the site's set; `./dev.sh test` adds the rest (the browser driver among it)."""
    site, test = pins(ROOT / "requirements.lock"), pins(ROOT / "requirements-test.lock")
    assert site.items() < test.items()
    assert {"pytest", "playwright", "hypothesis"} <= test.keys() - site.keys()
    assert {"mkdocs", "autograd", "numpy"} <= site.keys()


def test_the_uv_lock_pins_the_uv_dev_sh_names():
    uv_pin = re.search(r'^uv_pin="(.+)"$', (ROOT / "dev.sh").read_text(encoding="utf-8"), flags=re.M)[1]
    assert pins(ROOT / "requirements-uv.lock") == dict([pin(uv_pin)])
