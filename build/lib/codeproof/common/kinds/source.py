"""[REAL SOURCE]: a quote of the upstream repository's source at a pinned commit."""

from __future__ import annotations

from codeproof.common.kinds.base import Drifts, Format, Key, Kind
from codeproof.common.kinds.proofs import Page, Proofs
from codeproof.common.structure import Block, Checked


class Source(Kind):
    name, member, css, label, lang = "REAL SOURCE", "SOURCE", "source", "源码", "python"
    keys = (Key("File", True, Format.PATH), Key("Symbol", True), Key("Commit", format=Format.COMMIT),
            Key("Repo", format=Format.REPO), Key("Dedent", format=Format.YES_NO))
    script, runs, upstream, drifts = False, False, True, Drifts.QUOTE
    example = {"File": "autograd/core.py", "Symbol": "VJPNode.__init__"}

    def check(self, block: Block, proofs: Proofs) -> Checked:
        return proofs.quote_upstream(block)

    def render(self, checked: Checked, page: Page) -> str:
        block, excerpt = checked.block, checked.excerpt
        ref = page.ref_of(block)
        return page.cards.source_card(ref, block.fields["Symbol"], excerpt, page.seal, block.dedent,
                                      page.onsite(ref, excerpt))

    def add_to(self, proved, checked: Checked, proofs: Proofs) -> None:
        """The quoted lines, which the file's source page links back to."""
        proved.quoted.append((proofs.ref_of(checked.block), checked.excerpt))
