"""What the engine hands a kind to check and render its blocks with (as pymdownx hands a Block its `md`): the
verifier, the runner and the renderer live above the kinds, so a kind reaches them only through these."""

from __future__ import annotations

from types import ModuleType
from typing import Callable, Protocol, TypeVar

from codeproof.common.structure import Block, Checked, Excerpt, FileRef, RunResult


class Proofs(Protocol):
    """The evidence a block is checked against; each gives the Checked problem where the evidence is lacking."""

    def ref_of(self, block: Block) -> FileRef:
        """The upstream file a block names, at its commit (the baseline's, unless it names its own)."""

    def quote_upstream(self, block: Block) -> Checked:
        """The block's quote, verified against the file it names at its commit."""

    def script_text(self, block: Block) -> str | Checked:
        """The text of the script the block's File names, as the site publishes and runs it."""

    def quote_script(self, block: Block, text: str) -> Checked:
        """The block's quote, verified against the script's text."""

    def run(self, block: Block) -> RunResult | Checked:
        """The run of the block's script (started before any page renders), or the problem that there is no such
        script or that its run failed."""

    def compare_output(self, block: Block, run: RunResult) -> Checked:
        """The block's recorded output against what the run printed, within its tolerance."""

    def draw_figure(self, block: Block, run: RunResult) -> Checked:
        """What the run drew for the block: the SVG it wrote, cleaned, or the graph it traced."""

    def printed(self, run: RunResult) -> str:
        """What the run printed, as an output is compared (trailing blanks dropped)."""


Found = TypeVar("Found")


def then(found: Found | Checked, step: Callable[[Found], Checked]) -> Checked:
    """The next step of a check on what a Proofs method found, or the problem that it found nothing."""
    return found if isinstance(found, Checked) else step(found)


class Page(Protocol):
    """The page a verified block is rendered into, and the renderer (codeproof.site.render) as `cards`."""

    seal: str  # what the engine renders carries it (see codeproof.site.guard)
    cards: ModuleType

    def ref_of(self, block: Block) -> FileRef:
        """As Proofs.ref_of."""

    def onsite(self, ref: FileRef, excerpt: Excerpt) -> str | None:
        """The quoted lines on the file's source page on this site, where it is published."""

    def script_page(self, script: str) -> str:
        """The script's page on this site, relative to the page."""

    def stamp(self, block: Block, run: RunResult) -> str:
        """What verified a block's run: the versions, the run time, the date, and where else it held."""

    def record(self, run: RunResult) -> str:
        """Where the record of the run is (its section of the script's page), relative to the page: the stamp's link."""

    def figure(self, checked: Checked) -> str:
        """A verified drawing as its card shows it."""
