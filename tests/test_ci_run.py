""".ci/run installs only what the machine lacks, each tool by the package that provides it there, so apt is never
asked for a package that conflicts with what is installed. apt itself decides, as on a real machine, against a
package index and a dpkg status made here (apt's simulation: nothing is installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

PLANNER = ROOT / ".ci" / "missing-packages"
INDEX = """\
Package: chromium
Version: 130.0-1
Architecture: amd64
Filename: ./chromium.deb
Size: 1
Description: the browser

Package: fonts-noto-cjk
Version: 1:20220127-1
Architecture: all
Filename: ./fonts-noto-cjk.deb
Size: 1
Description: CJK fonts

Package: bubblewrap
Version: 0.8.0-2
Architecture: amd64
Filename: ./bubblewrap.deb
Size: 1
Description: the sandbox

Package: strace
Version: 6.1-0.1
Architecture: amd64
Filename: ./strace.deb
Size: 1
Description: the system call tracer

Package: nodejs
Version: 18.20.4-1
Architecture: amd64
Filename: ./nodejs.deb
Size: 1
Description: Debian's Node.js, without npm

Package: npm
Version: 9.2.0-1
Architecture: all
Depends: nodejs
Filename: ./npm.deb
Size: 1
Description: Debian's npm
"""
# NodeSource's nodejs, as on many CI images: it bundles npm, so it provides and conflicts with Debian's npm.
NODESOURCE = """\
Package: nodejs
Status: install ok installed
Version: 20.20.2-1nodesource1
Architecture: amd64
Provides: npm
Conflicts: npm
Replaces: npm (<= 1.2.14)
Maintainer: NodeSource <x@example.com>
Description: Node.js from NodeSource, npm included
"""


@pytest.fixture
def machine(tmp_path):
    """A machine for apt: its own package index and dpkg status (empty until a test writes one), and a PATH
    holding only what the planner needs; returns (environment, status file, bin folder)."""
    repo, lists, cache, parts, bin_dir = (tmp_path / name for name in ("repo", "lists", "cache", "parts", "bin"))
    for folder in (repo, lists / "partial", cache / "archives" / "partial", parts, bin_dir):
        folder.mkdir(parents=True)
    (repo / "Packages").write_text(INDEX)
    status = tmp_path / "status"
    status.write_text("")
    (tmp_path / "sources.list").write_text(f"deb [trusted=yes] file:{repo} ./\n")
    config = tmp_path / "apt.conf"
    config.write_text("".join(f'{key} "{value}";\n' for key, value in {
        "Dir::State::status": status, "Dir::State::lists": lists, "Dir::Cache": cache,
        "Dir::Etc::sourcelist": tmp_path / "sources.list", "Dir::Etc::sourceparts": parts,
        "Dir::Etc::preferences": tmp_path / "preferences", "Dir::Etc::preferencesparts": parts,
        "Dir::Etc::trusted": tmp_path / "trusted.gpg", "Dir::Etc::trustedparts": parts,
        "APT::Sandbox::User": os.environ.get("USER") or subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip(),
        "Debug::NoLocking": "true",
    }.items()))
    for tool in ("bash", "apt-get", "dpkg"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    env = {"APT_CONFIG": str(config), "PATH": str(bin_dir), "LC_ALL": "C"}
    subprocess.run(["apt-get", "update", "-qq"], env={**env, "PATH": os.environ["PATH"]}, check=True)
    return env, status, bin_dir


def provide(bin_dir: Path, tool: str) -> None:
    (bin_dir / tool).write_text("#!/bin/sh\n")
    (bin_dir / tool).chmod(0o755)


def plan(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(PLANNER)], env=env, capture_output=True, text=True)


def simulate(env: dict, packages: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(["apt-get", "install", "-s", *packages], env={**env, "PATH": os.environ["PATH"]},
                          capture_output=True, text=True)


def test_with_nodesource_node_only_the_missing_browser_and_sandbox_are_asked_for_and_apt_accepts_them(machine):
    env, status, bin_dir = machine
    status.write_text(NODESOURCE)
    provide(bin_dir, "npm")
    # The fixture reproduces what failed: asking for every package at once is refused by apt.
    refused = simulate(env, ["chromium", "fonts-noto-cjk", "bubblewrap", "nodejs", "npm"])
    assert refused.returncode == 100 and "Conflicts: npm" in refused.stdout
    done = plan(env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "chromium fonts-noto-cjk bubblewrap strace\n", "")
    assert simulate(env, done.stdout.split()).returncode == 0


def test_on_plain_debian_npm_is_asked_for_and_brings_its_nodejs(machine):
    env, _, _ = machine
    done = plan(env)
    assert (done.returncode, done.stdout) == (0, "chromium fonts-noto-cjk bubblewrap npm strace\n")
    installs = [line.split()[1] for line in simulate(env, done.stdout.split()).stdout.splitlines() if line.startswith("Inst ")]
    assert sorted(installs) == ["bubblewrap", "chromium", "fonts-noto-cjk", "nodejs", "npm", "strace"]


def test_a_machine_with_every_tool_asks_for_nothing(machine):
    env, _, bin_dir = machine
    for tool in ("chromium", "bwrap", "npm", "strace"):
        provide(bin_dir, tool)
    done = plan(env)
    assert (done.returncode, done.stdout) == (0, "\n")


def test_a_tool_no_package_can_bring_fails_saying_so(machine):
    env, status, bin_dir = machine
    status.write_text(NODESOURCE.replace("nodejs", "nodejs-custom").replace("Provides: npm\n", ""))
    (Path(env["APT_CONFIG"]).parent / "repo" / "Packages").write_text(INDEX.split("Package: nodejs")[0])
    subprocess.run(["apt-get", "update", "-qq"], env={**env, "PATH": os.environ["PATH"]}, check=True)
    for tool in ("chromium", "bwrap", "strace"):
        provide(bin_dir, tool)
    done = plan(env)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("missing-packages: apt offers no package for 'npm' that fits this machine (tried: npm, nodejs); "
                           "install npm by hand, then run .ci/run again\n")
