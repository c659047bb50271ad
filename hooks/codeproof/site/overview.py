"""Text of the overview page that comes from configuration and the build, so each fact is written once.

The overview is docs/index.md, written by the author; its markers are replaced with Markdown rendered from
the templates in templates/overview/, where every value is escaped (the `cell` filter also keeps `|`, `[`
and `]` from splitting a table row or ending a link)."""

from __future__ import annotations

from dataclasses import dataclass

from codeproof.experiments import resources

from codeproof.site import addresses, records
from codeproof.series.config import MAX_NUMBER, Series
from codeproof.common.templates import TEMPLATES
from codeproof.series.model import category_anchors
from codeproof.series.model import Entry, SeriesModel

CATEGORIES = "<!-- series-categories -->"  # where a post's header links its categories, when the overview has it


@dataclass(frozen=True)
class MatrixFacts:
    """What the overview says of the series' matrix (extra.series.experiments.matrix): each environment (its name,
    as configured, and where its lock is published), whether this build ran it, and each script's verdicts in a
    few words (script -> words)."""

    environments: tuple[tuple[str, str], ...]
    ran: bool
    held: dict[str, str]


def markdown_of(template: str, **values) -> str:
    """The Markdown of one of the overview's templates."""
    return TEMPLATES.get_template(f"overview/{template}").render(**values).strip("\n")


def fill(markdown: str, series: Series, model: SeriesModel, archive: resources.Archive,
         experiments: dict[str, tuple[Entry, ...]], matrix: MatrixFacts | None = None) -> str:
    """Replace the overview's markers with the facts; `matrix` where the series has one. A post's src path is
    already a link from docs/index.md, which MkDocs validates."""
    pins = [pin.split("==") for pin in resources.experiment_requirements(series.root).split()]
    filled = {
        "<!-- series-baseline -->": markdown_of("baseline.md", baseline=series.baseline),
        "<!-- experiment-environment -->": markdown_of("environment.md", pins=pins, matrix=matrix),
        "<!-- experiment-archive -->": markdown_of("archive.md", archive=archive, url=resources.ARCHIVE_URL,
                                                   records=records.RECORDS_URL),
        "<!-- series-posts -->": markdown_of("posts.md", model=model),
        "<!-- series-experiments -->": markdown_of("experiments.md", page=addresses.script_page_src, matrix=matrix,
                                                   experiments=sorted(experiments.items(), key=lambda item: (
                                                       [post.number for post in item[1]] or [MAX_NUMBER + 1], item[0]))),
        CATEGORIES: markdown_of("categories.md", categories=model.categories(), anchors=category_anchors(model)),
    }
    for marker, text in filled.items():
        markdown = markdown.replace(marker, text)
    return markdown
