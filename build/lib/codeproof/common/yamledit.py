"""Edits of mkdocs.yml as text, at the lines its YAML nodes name: every comment and every other setting
stays as the author wrote it (a YAML round trip would rewrite them), every line keeps its own line break.

Lines are counted as YAML counts them (a lone CR, NEL, LS and PS break a line too; CRLF is one break), so a
node's line is the line edited, whatever mixes of breaks the file holds."""

from __future__ import annotations

import json
import re

import yaml

BREAK_RE = re.compile("(\r\n|[\r\n\x85\u2028\u2029])")  # as PyYAML's reader counts lines


def _lines(text: str) -> list[list[str]]:
    """[content, its line break] of each line, as YAML numbers them (the last has no break, or "")."""
    parts = BREAK_RE.split(text)
    return [[parts[k], parts[k + 1] if k + 1 < len(parts) else ""] for k in range(0, len(parts), 2)]


def _joined(lines: list[list[str]]) -> str:
    return "".join(content + end for content, end in lines)


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
            lines = _lines(text)
            first = item.start_mark.line
            last = max(item.end_mark.line, first + 1)  # a block item ends where the next token starts
            while last - 1 > first and (not lines[last - 1][0].strip() or lines[last - 1][0].lstrip().startswith("#")):
                last -= 1  # blank lines and comments after it belong to what follows
            if len(items.value) == 1:  # the list is empty now: `key: []`, before any comment on its line
                row, line = name.start_mark.line, lines[name.start_mark.line][0]
                colon = line.index(":", name.end_mark.column)
                lines[row][0] = line[: colon + 1] + " []" + line[colon + 1 :]
            return _joined(lines[:first] + lines[last:]), first + 1
    return text, None


def with_values(text: str, path: tuple[str, ...], values: dict[str, str]) -> str:
    """The text with the settings under the block mapping at `path` set to these strings (written as JSON
    strings, which YAML reads as the same strings): a setting on one line is rewritten on it, a missing one is
    added after the mapping's last line. ValueError when that cannot be done in place (a flow mapping, a value
    on several lines, a tag such as !ENV); the result is read back and checked."""
    mapping = _node_at(yaml.compose(text, Loader=yaml.SafeLoader), path)
    if not isinstance(mapping, yaml.MappingNode) or mapping.flow_style:
        raise ValueError(f"{'.'.join(path)} is not a mapping written one setting per line")
    lines = _lines(text)
    given = {key.value: node for key, node in mapping.value}
    for key, new in values.items():
        node = given.get(key)
        if node is None:
            continue
        if not isinstance(node, yaml.ScalarNode) or node.start_mark.line != node.end_mark.line or not _plain(node):
            raise ValueError(f"{'.'.join(path)}.{key} is not a value on one line")
        row, line = node.start_mark.line, lines[node.start_mark.line][0]
        lines[row][0] = line[: node.start_mark.column] + json.dumps(new) + line[node.end_mark.column:]
    missing = [key for key in values if key not in given]
    if missing:
        indent = " " * mapping.value[0][0].start_mark.column
        last = max(node.end_mark.line - (node.end_mark.column == 0) for _, node in mapping.value)
        end = lines[last][1] or "\n"  # the new lines break as the mapping's last line does
        if not lines[last][1]:
            lines[last][1] = end
        lines[last + 1 : last + 1] = [[f"{indent}{key}: {json.dumps(values[key])}", end] for key in missing]
    result = _joined(lines)
    after = _node_at(yaml.compose(result, Loader=yaml.SafeLoader), path)
    read_back = {key.value: node.value for key, node in after.value if isinstance(node, yaml.ScalarNode)}
    if any(read_back.get(key) != value for key, value in values.items()):
        raise ValueError(f"{'.'.join(path)} could not be set in place")
    return result


def with_mapping(text: str, path: tuple, entries: dict[str, str]) -> str:
    """The text with the setting at `path` (keys and list indexes) set to a block mapping of these strings, one
    entry a line, in place of what it held (or added after its mapping's last line). ValueError when that cannot be
    done in place; the result is read back and checked."""
    parent = _node_at(yaml.compose(text, Loader=yaml.SafeLoader), path[:-1])
    if not isinstance(parent, yaml.MappingNode) or parent.flow_style or not parent.value:
        raise ValueError(f"{path[:-1]} is not a mapping written one setting per line")
    lines = _lines(text)
    indent = " " * parent.value[0][0].start_mark.column
    found = next(((key, node) for key, node in parent.value if key.value == path[-1]), None)
    if found is None:  # after the mapping's last line
        first = last = _end(parent)
    else:
        key, node = found
        first, last = key.start_mark.line, _end(node)
    end = lines[max(first - 1, 0)][1] or "\n"  # the new lines break as the line before them does
    if not lines[first - 1][1]:
        lines[first - 1][1] = end
    written = [[f"{indent}{path[-1]}:", end]] + [[f"{indent}  {key}: {json.dumps(value)}", end]
                                                 for key, value in entries.items()]
    lines[first:last] = written
    result = _joined(lines)
    after = _node_at(yaml.compose(result, Loader=yaml.SafeLoader), path)
    if not isinstance(after, yaml.MappingNode) or {k.value: v.value for k, v in after.value} != entries:
        raise ValueError(f"{path} could not be set in place")
    return result


def _end(node) -> int:
    """The line after a node's last character (a block collection ends where what follows it starts: at its last
    value's end)."""
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        return _end(last[1] if isinstance(last, tuple) else last)
    return node.end_mark.line + (node.end_mark.column != 0)


def _plain(node) -> bool:
    """A scalar YAML resolved itself (an int, a float, a plain string): no explicit tag such as !ENV."""
    return node.tag.startswith("tag:yaml.org,2002:")


def _node_at(node, path: tuple):
    """The node at `path`: keys of mappings and indexes of lists; None when there is none."""
    for key in path:
        if isinstance(key, int) and isinstance(node, yaml.SequenceNode):
            node = node.value[key] if 0 <= key < len(node.value) else None
        elif isinstance(node, yaml.MappingNode):
            node = next((value for k, value in node.value if k.value == key), None)
        else:
            return None
    return node
