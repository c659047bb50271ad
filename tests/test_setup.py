"""The set-up `./dev.sh` installs: its hashed locks pin what they were made from (`./dev.sh lock-requirements`)."""

from __future__ import annotations

import re

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT


def pin(line: str) -> tuple[str, str]:
    requirement = Requirement(line)
    return canonicalize_name(requirement.name), str(requirement.specifier)


def pins(path) -> dict[str, str]:
    """Name -> version specifier of each requirement in a pip requirements file (comments, and a lock's
    `--hash` options on the lines that continue a requirement, aside)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict(pin(line.removesuffix("\\")) for line in lines if line and not line[0].isspace() and line[0] != "#")


def test_the_lock_pins_exactly_what_requirements_txt_pins():
    assert pins(ROOT / "requirements.lock") == pins(ROOT / "requirements.txt"), \
        "run `./dev.sh lock-requirements` after changing requirements.txt, and commit requirements.lock"


def test_the_uv_lock_pins_the_uv_dev_sh_names():
    uv_pin = re.search(r'^uv_pin="(.+)"$', (ROOT / "dev.sh").read_text(encoding="utf-8"), flags=re.M)[1]
    assert pins(ROOT / "requirements-uv.lock") == dict([pin(uv_pin)])
