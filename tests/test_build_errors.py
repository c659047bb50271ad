"""What the author and CI see when a post stops matching its evidence: a failed build that says where, what
and what to do, in full. Each test changes the fixture site's post and builds it in this process."""

from __future__ import annotations

import pytest
import yaml

from codeproof.common.usercache import repository_cache
from fixture_site import OUTPUT, POST, make_site, report


@pytest.fixture
def site(tmp_path):
    return make_site(tmp_path)


def test_one_changed_character_in_a_quote_fails_the_build_with_file_line_and_diff(site):
    site.edit("        self.value = value\n", "        self.value = valve\n")
    built, log = site.build()
    assert built is None
    assert report(log) == f"""\
1 problem:

docs/posts/p.md:9: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at {site.commit}: quote differs from source (first difference at docs/posts/p.md:15, line 10 of the file)
--- docs/posts/p.md (quote)
+++ pkg/mod.py@{site.commit} lines 9-11
@@ -1,3 +1,3 @@
     def __init__(self, value):
-        self.value = valve
+        self.value = value
         self.parents = []
  hint: run `./dev.sh update` to take lines 9-11 from the pinned file, or fix the quote by hand (a quote copied from GitHub's default branch may be another version than the pin ({site.commit}, 1.9.1))"""


def test_every_problem_of_a_build_is_reported_together(site):
    site.edit("        self.value = value\n", "        self.value = valve\n")
    site.edit('print("node value 3")\nprint("parents []")\n```\n\nWhat', 'print("node value 4")\nprint("parents []")\n```\n\nWhat')
    built, log = site.build()
    assert built is None
    assert report(log).startswith("2 problems:\n\ndocs/posts/p.md:9: REAL SOURCE pkg/mod.py")
    assert "\n\ndocs/posts/p.md:21: EXPERIMENT experiments/show.py: quote differs from source (first difference at " \
           "docs/posts/p.md:26, line 3 of the file)\n" in report(log)


def test_update_restores_a_drifted_quote_and_the_build_passes(site):
    site.edit("        self.value = value\n", "        self.value = valve\n")
    assert site.check("update")[0] == 0
    assert site.post.read_text(encoding="utf-8") == POST
    assert site.build()[0] is not None


def test_a_changed_recorded_output_fails_the_build_and_update_restores_it(site):
    site.edit(OUTPUT, OUTPUT.replace("3", "4"))
    built, log = site.build()
    assert built is None
    assert report(log) == """\
1 problem:

docs/posts/p.md:32: OUTPUT experiments/show.py: output differs from the recorded output (first difference at docs/posts/p.md:36)
--- recorded in the post
+++ printed by python -B experiments/show.py
@@ -1,2 +1,2 @@
-node value 4
+node value 3
 parents []
  hint: run `./dev.sh update` to record the new output, or fix the experiment"""
    assert site.check("update")[0] == 0
    assert site.post.read_text(encoding="utf-8") == POST


def test_a_quote_moved_outside_its_symbol_fails(site):
    site.edit("Symbol: Node.__init__", "Symbol: helper")
    code, err = site.check()
    assert code == 1
    assert report(err) == f"""\
1 problem:

docs/posts/p.md:9: REAL SOURCE pkg/mod.py (Symbol helper) at {site.commit}: quote is lines 9-11, outside the symbol (lines 4-5)
  hint: name the symbol these lines belong to, or quote lines inside the named symbol
"""


def test_a_commit_the_lock_does_not_name_fails_and_names_the_lock(site):
    site.edit("Symbol: Node.__init__\n", "Symbol: Node.__init__\nCommit: " + "1" * 40 + "\n")
    code, err = site.check()
    assert code == 1
    assert report(err) == """\
1 problem:

docs/posts/p.md:9: REAL SOURCE: fixture/upstream@1111111:pkg/mod.py has no entry in the lock file sources.lock.json
  hint: run `./dev.sh lock` (python -m codeproof lock) to record it, and commit the lock
"""


def blob_of(site) -> str:
    import json

    lock = json.loads((site.root / "sources.lock.json").read_text())
    (blob,) = lock["fixture/upstream"][site.upstream.commits[0]].values()
    return blob


def test_a_tampered_cache_file_fails_the_quote_of_that_file(site):
    assert site.check()[0] == 0  # fills the cache
    blob = blob_of(site)
    cached = repository_cache(site.root) / "blobs" / blob[:2] / blob
    cached.write_text(cached.read_text().replace("self.value = value", "self.value = None"))
    code, err = site.check()
    assert code == 1
    changed = f"the cached copy of fixture/upstream@{site.commit}:pkg/mod.py changed on disk: {cached} is not blob {blob}"
    hint = f"delete the folder {repository_cache(site.root) / 'blobs'} and build again to fetch and check every file afresh"
    # The quote fails on it, and so does the words' citation of `Node`, which that file defines.
    assert report(err) == f"""\
2 problems:

docs/posts/p.md:7: `Node` cites pkg/mod.py: {changed}
  hint: {hint}

docs/posts/p.md:9: REAL SOURCE: {changed}
  hint: {hint}
"""


def test_a_tampered_lock_entry_fails_and_is_named_as_the_lock_entry(site):
    blob = blob_of(site)
    lock = site.root / "sources.lock.json"
    lock.write_text(lock.read_text().replace(blob, "0" * 40))
    code, err = site.check()
    assert code == 1
    # The quote fails on it, and so does the package that the words' citations resolve in.
    assert report(err) == f"""\
2 problems:

docs/posts/p.md:9: REAL SOURCE: fixture/upstream@{site.commit}:pkg/mod.py is blob {blob} (from git), but the lock says {'0' * 40}
  hint: the lock entry is wrong: delete it from sources.lock.json and run `./dev.sh lock`

sources.lock.json:1: the package the posts quote: fixture/upstream@{site.commit}:pkg/mod.py is not the blob the lock records
  hint: the lock entry is wrong: delete it from sources.lock.json and run `./dev.sh lock`
"""


@pytest.mark.parametrize("header, message", [
    ("[REAL SOURCE]\nFile: pkg/nowhere.py\n", "docs/posts/p.md:42: REAL SOURCE: Symbol is missing or empty\n"
                                             "  hint: add a `Symbol: …` line to the header"),
    ("[OUTPUT]\nFile: experiments/absent.py\n", "docs/posts/p.md:42: experiments/absent.py does not exist\n"
                                                "  hint: create it, or fix the File line"),
])
def test_a_malformed_block_fails_the_build_with_its_line(site, header, message):
    site.edit("The end.\n", f"The end.\n\n{header}")
    built, log = site.build()
    assert built is None
    assert report(log) == f"1 problem:\n\n{message}"


def test_an_output_block_without_a_fence_is_filled_in_but_fails_a_strict_build(site):
    site.edit(f"\n```text\n{OUTPUT}\n```\n", "")
    built, log = site.build()
    assert built is None
    assert log.endswith(""": docs/posts/p.md:32: OUTPUT experiments/show.py: no output is recorded; the build inserted what it printed
node value 3
parents []
  hint: run `./dev.sh update` to record it in the post
Aborted with 1 warnings in strict mode!""")
    assert site.check("update")[0] == 0
    assert site.post.read_text(encoding="utf-8") == POST


def test_a_problem_keeps_its_post_line_when_another_plugin_edits_the_text(tmp_path):
    """A second hook that only appends a newline makes the hook parse the text it is given again: the lines it
    reports stay the post file's (front matter counted), as without that hook."""
    site = make_site(tmp_path)
    site.edit("        self.parents = []\n", "        self.parents = ()\n")
    _, alone = site.build()
    other = tmp_path / "another_hook.py"
    other.write_text("def on_page_markdown(markdown, **kwargs):\n    return markdown + '\\n'\n", encoding="utf-8")
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text())
    config["hooks"].insert(0, str(other))  # it runs first: the series hook gets its text
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    _, with_other = site.build()
    first = report(alone).splitlines()[2]
    assert first.startswith("docs/posts/p.md:9: REAL SOURCE pkg/mod.py (Symbol Node.__init__)")
    assert report(with_other).splitlines()[2] == first


def test_a_symbol_defined_in_another_file_of_the_package_names_that_file(tmp_path):
    """The walkthrough of round four: `Symbol: metadata` under numpy_vjps.py (it is numpy_wrapper.py's) got only
    "check the Symbol line against the file"."""
    from upstream import MODULE_V1

    site = make_site(tmp_path, versions=({"pkg/mod.py": MODULE_V1, "pkg/wrap.py": "import math\n\n\ndef metadata(x):\n"
                                                                                     "    return math.floor(x)\n"},))
    site.edit("Symbol: Node.__init__", "Symbol: metadata")
    code, err = site.check()
    line = site.post.read_text(encoding="utf-8").split("\n").index("Symbol: metadata") + 1
    assert code == 1
    assert (f"docs/posts/p.md:{line}: REAL SOURCE pkg/mod.py (Symbol metadata) at {site.upstream.commits[0][:7]}: "
            "symbol 'metadata' is not in the file\n"
            "  hint: metadata is defined in pkg/wrap.py (line 4): write `File: pkg/wrap.py`") in err, err


def test_a_failing_script_is_reported_once_with_every_block_it_breaks(site):
    """Issue 53: its whole traceback was said once per block of the script (an [OUTPUT] and a [FIGURE] of it)."""
    (site.root / "experiments" / "show.py").write_text('print("node value 3")\nprint("parents []")\n'
                                                       'raise SystemExit("the reason it failed")\n', encoding="utf-8")
    site.edit("The end.", f"And again:\n\n[OUTPUT]\nFile: experiments/show.py\n\n```text\n{OUTPUT}\n```\n\nThe end.")
    built, log = site.build()
    assert built is None
    lines = site.post.read_text(encoding="utf-8").split("\n")
    first, second = [n + 1 for n, line in enumerate(lines) if line == "[OUTPUT]"]
    assert report(log) == (
        f"1 problem:\n\ndocs/posts/p.md:{first}: experiments/show.py: exited with status 1\nthe reason it failed\n"
        f"  also at docs/posts/p.md:{second}\n  hint: run it by hand from the repository's root, `.venv/bin/python -B "
        "experiments/show.py`, and fix it")
