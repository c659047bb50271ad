"""What the author and CI see when a post stops matching its evidence: a failed build that says where."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import mkdocs

SQUARE_POST = "docs/posts/custom-primitive.md"
NUMPY_POST = "docs/posts/numpy-primitive-vjp.md"


def edit(site, post, old, new):
    path = site / post
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(site, post, text):
    lines = (site / post).read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if text in line)
    return next(i for i in range(index, -1, -1) if lines[i].startswith("[")) + 1  # the block's header line


def codeproof(site, command):
    return subprocess.run([sys.executable, "-m", "codeproof", command], cwd=site, capture_output=True, text=True)


def test_one_changed_character_in_a_quote_fails_the_build_with_file_line_and_diff(site):
    edit(site, SQUARE_POST, "primitive_vjps[fun] = vjpmaker", "primitive_vjps[fun] = vjpmakr")
    line = line_of(site, SQUARE_POST, "vjpmakr")
    done = mkdocs(site, "build", "--strict")
    assert done.returncode != 0
    assert f"{SQUARE_POST}:{line}: REAL SOURCE autograd/core.py (Symbol defvjp_argnums) at 90dbeb8: quote differs" in done.stderr
    assert "-    primitive_vjps[fun] = vjpmakr" in done.stderr and "+    primitive_vjps[fun] = vjpmaker" in done.stderr
    assert "hint: run `./dev.sh update`" in done.stderr


def test_every_problem_of_a_build_is_reported_together(site):
    edit(site, SQUARE_POST, "self.parents = parents", "self.parents = parent")
    edit(site, NUMPY_POST, "defvjp(anp.log, lambda ans, x: lambda g: g / x)", "defvjp(anp.log, lambda ans, x: lambda g: g * x)")
    done = mkdocs(site, "build")
    assert done.returncode != 0
    assert "2 problems:" in done.stderr
    assert f"{SQUARE_POST}:{line_of(site, SQUARE_POST, 'self.parents = parent')}:" in done.stderr
    assert f"{NUMPY_POST}:{line_of(site, NUMPY_POST, 'g * x)')}:" in done.stderr


def test_update_restores_a_drifted_quote_and_the_build_passes(site):
    original = (site / SQUARE_POST).read_text(encoding="utf-8")
    edit(site, SQUARE_POST, '        raise Exception(f"Bad VJP', '        raise TypeError(f"Bad VJP')
    updated = codeproof(site, "update")
    assert updated.returncode == 0, updated.stderr
    assert "+        raise Exception" in updated.stdout
    assert (site / SQUARE_POST).read_text(encoding="utf-8") == original
    assert mkdocs(site, "build", "--strict").returncode == 0


def test_a_changed_recorded_output_fails_the_build_and_update_restores_it(site):
    original = (site / SQUARE_POST).read_text(encoding="utf-8")
    edit(site, SQUARE_POST, "after defvjp: grad(square)(3.0)=6.0", "after defvjp: grad(square)(3.0)=6.1")
    done = mkdocs(site, "build", "--strict")
    assert done.returncode != 0
    line = line_of(site, SQUARE_POST, "=6.1")
    assert f"{SQUARE_POST}:{line}: OUTPUT experiments/custom_primitive.py: output differs from the recorded output" in done.stderr
    assert "-after defvjp: grad(square)(3.0)=6.1" in done.stderr and "+after defvjp: grad(square)(3.0)=6.0" in done.stderr
    assert codeproof(site, "update").returncode == 0
    assert (site / SQUARE_POST).read_text(encoding="utf-8") == original


def test_an_experiment_quote_that_drifts_fails_the_build(site):
    edit(site, SQUARE_POST, "    derivative = grad(square)(3.0)\n", "    derivative = grad(square)(2.0)\n")
    done = mkdocs(site, "build")
    assert done.returncode != 0
    assert f"{SQUARE_POST}:{line_of(site, SQUARE_POST, '(2.0)')}: EXPERIMENT experiments/custom_primitive.py: quote differs" in done.stderr


def test_a_quote_moved_outside_its_symbol_fails(site):
    edit(site, SQUARE_POST, "Symbol: defvjp_argnums", "Symbol: translate_vjp")
    done = codeproof(site, "check")
    assert done.returncode == 1
    assert f"{SQUARE_POST}:{line_of(site, SQUARE_POST, 'Symbol: translate_vjp') }: REAL SOURCE" in done.stderr
    assert "outside the symbol" in done.stderr


def test_a_wrong_commit_fails_and_names_the_lock(site):
    edit(site, SQUARE_POST, "Symbol: defvjp_argnums\n", "Symbol: defvjp_argnums\nCommit: " + "1" * 40 + "\n")
    done = codeproof(site, "check")
    assert done.returncode == 1
    line = line_of(site, SQUARE_POST, "Commit: 1111")
    assert f"{SQUARE_POST}:{line}: REAL SOURCE: HIPS/autograd@1111111:autograd/core.py has no entry in the lock file" in done.stderr


CORE_BLOB = "2116589bafffe9d95444d349bc221d76c5a89807"  # autograd/core.py at the baseline


def test_a_tampered_cache_file_fails_every_quote_of_that_file(site):
    cached = site / ".cache" / "blobs" / CORE_BLOB[:2] / CORE_BLOB
    cached.write_text(cached.read_text().replace("primitive_vjps[fun] = vjpmaker", "primitive_vjps[fun] = None"))
    done = codeproof(site, "check")
    assert done.returncode == 1
    assert f"changed on disk: {cached} is not blob {CORE_BLOB}" in done.stderr
    assert f"hint: delete the folder {site / '.cache' / 'blobs'} and build again" in done.stderr
    assert done.stderr.count(f"{SQUARE_POST}:") == 3  # the three quotes of core.py


def test_a_tampered_lock_entry_fails_and_is_named_as_the_lock_entry(site):
    lock = site / "sources.lock.json"
    lock.write_text(lock.read_text().replace(CORE_BLOB, "0" * 40))
    done = codeproof(site, "check")
    assert done.returncode == 1
    assert f"is blob {CORE_BLOB} (from PyPI sdist), but the lock says {'0' * 40}" in done.stderr
    assert "hint: the lock entry is wrong" in done.stderr and "changed on disk" not in done.stderr


@pytest.mark.parametrize("header, message", [
    ("[REAL SOURCE]\nFile: autograd/nowhere.py\n", "Symbol is missing or empty"),
    ("[OUTPUT]\nFile: experiments/absent.py\n", "experiments/absent.py does not exist"),
])
def test_a_malformed_block_fails_the_build_with_its_line(site, header, message):
    edit(site, SQUARE_POST, "## 小结\n", f"## 小结\n\n{header}\n")
    done = mkdocs(site, "build")
    assert done.returncode != 0
    assert f"{SQUARE_POST}:{line_of(site, SQUARE_POST, header.splitlines()[1])}:" in done.stderr and message in done.stderr


def test_an_output_block_without_a_fence_is_filled_in_but_fails_a_strict_build(site):
    original = (site / SQUARE_POST).read_text(encoding="utf-8")
    recorded = original.split("[OUTPUT]\nFile: experiments/custom_primitive.py\n", 1)[1].split("## ", 1)[0]
    edit(site, SQUARE_POST, recorded, "\n")
    strict = mkdocs(site, "build", "--strict")
    assert strict.returncode != 0
    assert "OUTPUT experiments/custom_primitive.py: no output is recorded; the build inserted what it printed" in strict.stderr
    lenient = mkdocs(site, "build", "--site-dir", "built")
    assert lenient.returncode == 0
    assert "reverse-mode gradient check through order 2 passed" in (site / "built" / "posts" / "custom-primitive" / "index.html").read_text()
    assert codeproof(site, "update").returncode == 0
    assert (site / SQUARE_POST).read_text(encoding="utf-8") == original
