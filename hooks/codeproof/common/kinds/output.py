"""[OUTPUT]: what an experiment prints, verified by running it."""

from __future__ import annotations

from codeproof.common.kinds.base import Drifts, Format, Key, Kind
from codeproof.common.kinds.proofs import Page, Proofs, then
from codeproof.common.structure import Block, Checked


class Output(Kind):
    name, member, css, label, lang = "OUTPUT", "OUTPUT", "output", "输出", "text"
    keys = (Key("File", True, Format.SCRIPT), Key("Tolerance", format=Format.TOLERANCE))
    script, runs, drifts = True, True, Drifts.OUTPUT
    example = {"File": "experiments/custom_primitive.py", "Tolerance": "1e-7"}

    def check(self, block: Block, proofs: Proofs) -> Checked:
        return then(proofs.run(block), lambda run: proofs.compare_output(block, run))

    def render(self, checked: Checked, page: Page) -> str:
        block = checked.block
        return page.cards.output_console(block.fields["File"], checked.excerpt.text,
                                         page.stamp(block, checked.run), page.record(checked.run), page.seal)

    def add_to(self, proved, checked: Checked, proofs: Proofs) -> None:
        """What the script printed, which the page may show only to within a tolerance; unless the post records
        none yet (then the build inserted it, and warned)."""
        if checked.warning is None:
            proved.outputs[checked.block.fields["File"]] = proofs.printed(checked.run)
