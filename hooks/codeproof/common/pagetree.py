"""A rendered page as one tree: read as a browser reads it, edited as a tree, written once.

What the build adds to a page after the guard has read it (a card's copy text, names and citations linked, a
citation's problem shown after it) is an edit of this tree, never a pattern over its HTML, so it lands where a
browser sees it. The page is read by Lexbor, the guard's parser (the WHATWG algorithm), as a fragment (as a browser
reads an element's innerHTML: nothing moves into a <head>), and written by Lexbor's serialiser without comments: a
form every HTML5 parser reads back as this tree, holding nothing a parser that is not one (the search plugin's
html.parser) could read otherwise.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

Tree = LexborHTMLParser


def read(html: str) -> Tree:
    return LexborHTMLParser(html, is_fragment=True)


def top(tree: Tree) -> list[LexborNode]:
    """The page's nodes that no element holds, in order (a fragment's root iterates over them)."""
    return list(tree.root.iter(include_text=True)) if tree.root is not None else []


def walk(tree: Tree):
    """Every node of the page (elements, text, comments), in document order."""
    return tree.root.traverse(include_text=True) if tree.root is not None else iter(())


def written(tree: Tree) -> str:
    """The page as published."""
    for comment in [node for node in walk(tree) if node.is_comment_node]:
        comment.decompose()
    # A CR the tree holds (written &#13;: the parser reads a raw one as LF) is written raw, and would be read back
    # as LF. Outside comments (gone) and raw text (where no character reference is read, so none is a CR), it is
    # written as the reference it came from.
    return (tree.html or "").replace("\r", "&#13;")


def nodes(html: str) -> list[LexborNode]:
    """The nodes of HTML the engine wrote (its text escaped), to put into a page's tree."""
    holder = LexborHTMLParser(f"<div>{html}</div>", is_fragment=True).css_first("div")
    return list(holder.iter(include_text=True))


def replace(node: LexborNode, html: str) -> None:
    """`node` replaced by the engine's `html`."""
    for new in nodes(html):
        node.insert_before(new)
    node.decompose()


def put_after(node: LexborNode, html: str) -> None:
    for new in reversed(nodes(html)):
        node.insert_after(new)


def classes(node: LexborNode) -> list[str]:
    return (node.attributes.get("class") or "").split()


def cards(tree: Tree | LexborHTMLParser) -> list[LexborNode]:
    """The page's cards (each `.proof-card` no other card holds), in order."""
    inner = {node.mem_id for node in tree.css(".proof-card .proof-card")}  # a card's parts, not cards
    return [node for node in tree.css(".proof-card") if node.mem_id not in inner]


def card_words(node: LexborNode) -> str:
    """What a card shows a reader, as words without white space: the same however a host lays its HTML out or
    rewrites its links."""
    return "".join(node.text().split())
