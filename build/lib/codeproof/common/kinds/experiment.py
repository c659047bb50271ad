"""[EXPERIMENT]: a quote of a script under experiments/."""

from __future__ import annotations

from codeproof.common.kinds.base import Format, Key, Kind
from codeproof.common.kinds.proofs import Page, Proofs, then
from codeproof.common.structure import Block, Checked


class Experiment(Kind):
    name, member, css, label, lang = "EXPERIMENT", "EXPERIMENT", "experiment", "实验", "python"
    keys = (Key("File", True, Format.SCRIPT), Key("Purpose", True), Key("Dedent", format=Format.YES_NO))
    script, runs = True, False
    example = {"File": "experiments/custom_primitive.py", "Purpose": "将平方声明为 primitive。"}

    def check(self, block: Block, proofs: Proofs) -> Checked:
        return then(proofs.script_text(block), lambda text: proofs.quote_script(block, text))

    def render(self, checked: Checked, page: Page) -> str:
        block = checked.block
        return page.cards.experiment_card(block.fields["File"], page.script_page(block.fields["File"]),
                                          block.fields["Purpose"], checked.excerpt, page.seal, block.dedent)

    def add_to(self, proved, checked: Checked, proofs: Proofs) -> None:
        """The quoted lines, which the script's page links back to."""
        proved.tried.append((checked.block.fields["File"], checked.excerpt))
