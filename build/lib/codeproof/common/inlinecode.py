"""Code in a rendered page that words cite the source with: each inline <code> element (not a code block's, not a
link's text) and the text of `text` fences, as nodes of the page's tree (common.pagetree), read as a browser reads
the page, so that the links the build adds are edits of that tree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from selectolax.lexbor import LexborNode

from codeproof.common.pagetree import Tree, classes, top

TEXT_FENCE = "language-text"  # the class pymdownx.highlight gives a ```text fence (pygments_lang_class)
HIDDEN = ("a", "script", "style", "template")  # a link's text is no citation; the others show no text


@dataclass(frozen=True)
class InlineCode:
    """An inline code element, its text as shown, and its classes."""

    node: LexborNode
    text: str
    classes: tuple[str, ...]
    bare: bool  # its content is text alone (perhaps with <wbr>s, the line-break chances phone tables add, and
    # comments, which show nothing and are not written)
    section: tuple[str, str]  # (id, title) of the h2 or h3 it follows, ("", "") before any


@dataclass(frozen=True)
class FenceText:
    """A text node of a `text` fence."""

    node: LexborNode
    section: tuple[str, str]


def read_code(tree: Tree, skip: Callable[[str, dict], bool] = lambda tag, attributes: False
              ) -> tuple[list[InlineCode], list[FenceText]]:
    """The inline code and the `text` fences' text of a page, in order; elements for which `skip(tag, attributes)`
    holds are passed over with all they hold, as are links, code blocks other than a `text` fence's, and inline
    code's own content."""
    codes, fences, section = [], [], ("", "")
    pending = [(node, False) for node in reversed(top(tree))]  # (node, inside a `text` fence)
    while pending:
        node, fence = pending.pop()
        if node.is_text_node:
            if fence:
                fences.append(FenceText(node, section))
            continue
        if not node.is_element_node:
            continue
        tag, attributes = node.tag, node.attributes
        if tag in HIDDEN or skip(tag, attributes):
            continue
        if tag in ("h2", "h3"):  # a heading without an id is no section a link can lead to
            section = (attributes["id"], node.text().strip().rstrip("¶").strip()) if attributes.get("id") else ("", "")
        if tag == "div" and TEXT_FENCE in classes(node):
            fence = True
        elif tag == "pre" and not fence:
            continue
        elif tag == "code" and not fence:
            children = list(node.iter(include_text=True))
            bare = all(child.is_text_node or child.is_comment_node or child.tag == "wbr" for child in children)
            codes.append(InlineCode(node, node.text(), tuple(classes(node)), bare, section))
            continue
        pending += [(child, fence) for child in reversed(list(node.iter(include_text=True)))]
    return codes, fences

