"""What a host of the cards extension must refuse, each as a change of the fixture site and the problem it must
report (exactly, at its line): tests/test_cards.py runs them under plain Python-Markdown, tests/test_zensical.py
under Zensical."""

from __future__ import annotations

import json

from fixture_site import SCRIPT, Site


def tamper_quote(site: Site) -> None:
    site.edit("        self.value = value", "        self.value = value + 1")


def hand_made_card(site: Site) -> None:
    site.edit("The end.", '<div class="proof-card proof-card--output">✓ 输出已验证 · Python 3.11</div>\n\nThe end.')


def script_element(site: Site) -> None:
    site.edit("The end.", "<script>alert(1)</script>\n\nThe end.")


def change_output(site: Site) -> None:
    (site.root / SCRIPT).write_text((site.root / SCRIPT).read_text() + 'print("one line more")\n')


def unlock_file(site: Site) -> None:
    lock = site.root / "sources.lock.json"
    data = json.loads(lock.read_text(encoding="utf-8"))
    for commits in data.values():
        for files in commits.values():
            del files["pkg/mod.py"]
    lock.write_text(json.dumps(data), encoding="utf-8")


def break_front_matter(site: Site) -> None:
    site.edit("title:", "title: [unclosed\nx:")


# (name, the change, what the report says of it: at its file and line)
REFUSED = [
    ("tampered quote", tamper_quote, "docs/posts/p.md:9: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at "),
    ("hand-made card", hand_made_card, "docs/posts/p.md:40: the page holds a hand-written proof-card "
                                       "proof-card--output element: "),
    ("script element", script_element, "docs/posts/p.md:40: the page holds a <script> element: a post is Markdown, "
                                       "which never needs one\n  hint: remove it from the post: a post is Markdown, "
                                       "and only the build renders cards"),
    ("changed output", change_output, f"docs/posts/p.md:32: OUTPUT {SCRIPT}: output differs from the recorded output"),
    ("unlocked file", unlock_file, ":pkg/mod.py has no entry in the lock file sources.lock.json\n  hint: run "
                                   "`./dev.sh lock` (python -m codeproof lock) to record it, and commit the lock"),
    ("broken front matter", break_front_matter, "docs/posts/p.md:3: front matter is not YAML: "),
]
