"""Edits of mkdocs.yml as text, at the lines its YAML nodes name: every comment and every other setting
stays as the author wrote it (a YAML round trip would rewrite them)."""

from __future__ import annotations

import json

import yaml


def without_item(text: str, path: tuple[str, ...], key: str, value: str) -> tuple[str, int | None]:
    """The text without the item of the block list at `path` whose `key` is `value` (its own lines), and the
    line it was on; (text, None) if there is none, or the list is written [..] on one line. An emptied list is
    written `[]`."""
    mapping = _node_at(yaml.compose(text, Loader=yaml.SafeLoader), path[:-1])
    found = next(((k, v) for k, v in getattr(mapping, "value", []) if k.value == path[-1]), None)
    if found is None or not isinstance(found[1], yaml.SequenceNode) or found[1].flow_style:
        return text, None
    name, items = found
    for item in items.value:
        if isinstance(_node_at(item, (key,)), yaml.ScalarNode) and _node_at(item, (key,)).value == value:
            lines = text.split("\n")
            first, last = item.start_mark.line, item.end_mark.line  # a block item ends where the next token starts
            if len(items.value) == 1:
                lines[name.start_mark.line] = lines[name.start_mark.line].rstrip() + " []"
            return "\n".join(lines[:first] + lines[last:]), first + 1
    return text, None


def with_values(text: str, path: tuple[str, ...], values: dict[str, str | None]) -> str:
    """The text with the scalar settings under the mapping at `path` set (each on its own line, its value
    written as a JSON string, which YAML reads as the same string), or removed where the value is None."""
    mapping = _node_at(yaml.compose(text, Loader=yaml.SafeLoader), path)
    lines = text.split("\n")
    drop = set()
    for key, node in getattr(mapping, "value", []):
        if key.value in values and isinstance(node, yaml.ScalarNode) and node.start_mark.line == node.end_mark.line:
            row, new = node.start_mark.line, values[key.value]
            if new is None:  # the setting, and the comment right above it, which is about it
                drop.add(row)
                while row > 0 and lines[row - 1].strip().startswith("#"):
                    row -= 1
                    drop.add(row)
            else:
                line = lines[row]
                lines[row] = line[: node.start_mark.column] + json.dumps(new) + line[node.end_mark.column:]
    return "\n".join(line for row, line in enumerate(lines) if row not in drop)


def _node_at(node, path: tuple):
    for key in path:
        if not isinstance(node, yaml.MappingNode):
            return None
        node = next((value for k, value in node.value if k.value == key), None)
    return node
