"""Nothing of a matrix environment runs on the host (issue 50): a package's `.pth` file or `sitecustomize` module
runs whenever Python starts with its site-packages, so the environment is byte-compiled inside bubblewrap's sandbox,
asked what it holds by the machine's interpreter with -I -S, and run only in the sandbox. The packages come from a
local index of hand-made wheels (the tests' own, on the loopback), each carrying a payload that leaves a marker in
a folder of the host, which the sandbox does not show."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from archive_index import Index, serving
from codeproof.experiments import matrix as matrix_module
from codeproof.experiments.matrix import MatrixError, make, read_lock, uv_command
from codeproof.series.config import load_series, series_from_extra
from fixture_site import make_site
from test_matrix import BASELINE
from tracing import traced

NAME = "codeproof-fixture-pth"


def payload(markers: Path) -> str:
    """One line of Python that leaves a marker (its process's arguments) in `markers`, where that folder exists."""
    return (f"import os, sys; os.path.isdir({str(markers)!r}) and "
            f"open(os.path.join({str(markers)!r}, str(os.getpid())), 'w').write(' '.join(sys.argv))")


def wheel(folder: Path, name: str, files: dict[str, bytes], version: str = "1.0") -> Path:
    """A pure-Python wheel of `name` at `version` holding `files`, with the metadata and record an installer checks."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    files = {**files, f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    digest = {path: base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
              for path, data in files.items()}
    record = "".join(f"{path},sha256={digest[path]},{len(data)}\n" for path, data in files.items()) + f"{info}/RECORD,,\n"
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name_in, data in [*files.items(), (f"{info}/RECORD", record.encode())]:
            archive.writestr(name_in, data)
    return path


def lock_of(*wheels: Path) -> str:
    """A lock of these wheels, each pinned with its hash, as uv writes one."""
    return "".join(f"{path.name.split('-')[0].replace('_', '-')}=={path.name.split('-')[1]} \\\n"
                   f"    --hash=sha256:{hashlib.sha256(path.read_bytes()).hexdigest()}\n" for path in wheels)


def locked_of(lock: str) -> dict[str, str]:
    """What mkdocs.yml records of it (`locked`)."""
    pins = lock.split(" \\\n    --hash=sha256:")
    return {pins[i].rsplit("\n", 1)[-1]: matrix_module.hashes_digest([pins[i + 1][:64]]) for i in range(len(pins) - 1)}


def served(index: Index, *wheels: Path) -> None:
    for path in wheels:
        index.publish(path.name.split("-")[0].replace("_", "-"), path.name, path.read_bytes())


@pytest.fixture
def uv_env(monkeypatch, tmp_path):
    """uv asks the tests' local index, and keeps its cache in the test's folder."""
    assert uv_command(), "the matrix needs uv: run the tests through ./dev.sh test, which provides it"
    index = Index()
    with serving(index):
        monkeypatch.setenv("UV_DEFAULT_INDEX", index.url)
        monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
        monkeypatch.delenv("UV_INDEX_URL", raising=False)
        yield index


@pytest.mark.slow  # makes an environment and runs the fixture site's experiment in it
def test_an_environments_pth_and_sitecustomize_never_run_on_the_host_under_strace(tmp_path, uv_env):
    """Before, the .pth ran on the host three times: twice in uv's byte-compiling, once in the engine's version query
    (python -I still reads site-packages)."""
    markers = tmp_path / "markers"
    markers.mkdir()
    built = wheel(tmp_path / "wheels", NAME, {f"{NAME.replace('-', '_')}.pth": payload(markers).encode() + b"\n",
                                               "sitecustomize.py": payload(markers).encode() + b"\n"})
    # autograd at the baseline's version, as the engine asks of an environment before it runs a script there
    autograd = wheel(tmp_path / "wheels", "autograd", {"autograd/__init__.py": b""}, BASELINE["version"])
    served(uv_env, built, autograd)
    site = make_site(tmp_path / "site")
    lock = lock_of(built, autograd)
    (site.root / "env.lock").write_text(lock)
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text())
    config["extra"]["series"]["experiments"] = {"matrix": {"environments": [
        {"python": f"{sys.version_info[0]}.{sys.version_info[1]}",
         "packages": [f"{NAME}==1.0", f"autograd=={BASELINE['version']}"], "lock": "env.lock",
         "locked": locked_of(lock)}]}}
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "user-cache"), "TMPDIR": str(tmp_path)}
    done, started = traced([sys.executable, "-m", "codeproof", "check", "--matrix", "--config",
                            str(site.root / "mkdocs.yml")], site.root, env, tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "experiments/show.py: Python 3." in done.stdout and done.stdout.rstrip().endswith(": same"), done.stdout
    pythons = sorted((tmp_path / "user-cache").rglob("matrix/*/bin/python"))
    assert len(pythons) == 1 and str(pythons[0]) in started  # its runs started it, in the sandbox
    assert sorted(markers.iterdir()) == []
    packages = next(pythons[0].parents[1].glob("lib/python*/site-packages"))
    assert list(packages.rglob("*.pyc")), "the environment was not byte-compiled"
    assert [path for path in packages.rglob("*") if path.is_file() and path.stat().st_nlink > 1] == []  # uv's cache
    # The payloads are live: started on the host as before, the environment's Python runs them.
    subprocess.run([str(pythons[0]), "-I", "-c", "pass"], check=True, cwd=tmp_path)
    assert len(list(markers.iterdir())) == 1


def environment_of(root: Path, built: Path):
    root.mkdir(parents=True, exist_ok=True)
    lock = lock_of(built)
    (root / "env.lock").write_text(lock)
    series = series_from_extra({"name": "T", "baseline": BASELINE, "experiments": {"matrix": {"environments": [
        {"python": f"{sys.version_info[0]}.{sys.version_info[1]}", "packages": [f"{NAME}==1.0"], "lock": "env.lock",
         "locked": locked_of(lock)}]}}}, root / "mkdocs.yml")
    return series.matrix.environments[0]


@pytest.mark.slow  # makes an environment
@pytest.mark.kills("matrix_host")  # tests/mutations.py
def test_making_an_environment_and_asking_what_it_holds_run_nothing_of_it_on_the_host(tmp_path, uv_env):
    markers = tmp_path / "markers"
    markers.mkdir()
    built = wheel(tmp_path / "wheels", NAME, {f"{NAME.replace('-', '_')}.pth": payload(markers).encode() + b"\n",
                                               "sitecustomize.py": payload(markers).encode() + b"\n"})
    served(uv_env, built)
    interpreter = make(environment_of(tmp_path / "root", built), tmp_path / "cache")
    assert interpreter.versions == {"python": ".".join(map(str, sys.version_info[:3])), "numpy": "not installed",
                                    "autograd": "not installed"}
    make(environment_of(tmp_path / "root", built), tmp_path / "cache")  # made already: asked again
    assert sorted(markers.iterdir()) == []


@pytest.mark.slow  # makes an environment
def test_a_package_that_writes_over_the_environments_pyvenv_cfg_is_refused(tmp_path, uv_env):
    """Before, a wheel's data file replaced pyvenv.cfg without a word (include-system-site-packages = true)."""
    data = f"{NAME.replace('-', '_')}-1.0.data/data/pyvenv.cfg"
    built = wheel(tmp_path / "wheels", NAME, {data: b"home = /nowhere\ninclude-system-site-packages = true\n"})
    served(uv_env, built)
    environment = environment_of(tmp_path / "root", built)
    with pytest.raises(MatrixError) as raised:
        make(environment, tmp_path / "cache")
    assert str(raised.value) == (f"matrix environment {environment.name}: a package of its lock writes over the "
                                 "environment's own pyvenv.cfg or bin/python")
    assert list((tmp_path / "cache" / "matrix").iterdir()) == []


def test_without_bubblewrap_there_is_no_matrix_and_nothing_is_made(tmp_path, monkeypatch):
    built = wheel(tmp_path / "wheels", NAME, {"x.py": b""})
    environment = environment_of(tmp_path / "root", built)
    monkeypatch.setattr(matrix_module, "bwrap_works", lambda: False)
    with pytest.raises(MatrixError) as raised:
        make(environment, tmp_path / "cache")
    assert str(raised.value) == (f"matrix environment {environment.name}: it runs only in bubblewrap's sandbox, which "
                                 "is missing or cannot make namespaces here")
    assert raised.value.hint.startswith("install bubblewrap") and not (tmp_path / "cache").exists()


@pytest.mark.slow  # asks uv to resolve (from the tests' local index)
def test_lock_requirements_writes_each_lock_and_records_what_it_holds_which_the_lock_is_then_held_to(tmp_path, uv_env,
                                                                                                   capsys):
    from codeproof.__main__ import main

    built = wheel(tmp_path / "wheels", NAME, {"x.py": b""})
    served(uv_env, built)
    site = make_site(tmp_path / "site")
    config = site.root / "mkdocs.yml"
    data = yaml.safe_load(config.read_text())
    data["extra"]["series"]["experiments"] = {"matrix": {"environments": [
        {"python": "3.11", "packages": [f"{NAME}==1.0"], "lock": "matrix/env.lock"}]}}
    config.write_text(yaml.safe_dump(data, allow_unicode=True))
    (site.root / "matrix").mkdir()
    capsys.readouterr()  # what making the site printed
    assert main(["lock-matrix", "--config", str(config)]) == 0
    assert capsys.readouterr().out == (f"locked Python 3.11 + {NAME} 1.0 in matrix/env.lock: {NAME}==1.0 (recorded in "
                                       "mkdocs.yml)\n")
    lock = (site.root / "matrix" / "env.lock").read_text()
    assert yaml.safe_load(config.read_text())["extra"]["series"]["experiments"]["matrix"]["environments"][0][
        "locked"] == locked_of(lock[lock.index(NAME):])
    (environment,) = load_series(config).matrix.environments
    assert [pin.pin for pin in read_lock(environment).pins] == [f"{NAME}==1.0"]
