"""Tables that read on a phone: each body cell carries its column's header; code breaks only after / . ::"""

from __future__ import annotations

import xml.etree.ElementTree as etree

import markdown
import pytest

from codeproof.site.tables import TableCells

pytestmark = pytest.mark.kills("tables")  # tests/mutations.py

TABLE = """\
| File / symbol | 谁调用 `x` | <b>raw</b> |
| --- | --- | --- |
| `numpy_wrapper.py :: wrap_namespace` | a | b |
| `a/b/c.py` | `..` | |
"""


def test_each_body_cell_carries_its_columns_header_and_code_breaks_only_after_separators():
    html = markdown.markdown(TABLE, extensions=["tables", TableCells()], output_format="html")
    assert html == """\
<table>
<thead>
<tr>
<th>File / symbol</th>
<th>谁调用 <code>x</code></th>
<th><b>raw</b></th>
</tr>
</thead>
<tbody>
<tr>
<td data-label="File / symbol"><code>numpy_wrapper.<wbr>py ::<wbr> wrap_namespace</code></td>
<td data-label="谁调用 x">a</td>
<td data-label="raw">b</td>
</tr>
<tr>
<td data-label="File / symbol"><code>a/<wbr>b/<wbr>c.<wbr>py</code></td>
<td data-label="谁调用 x"><code>..</code></td>
<td data-label="raw"></td>
</tr>
</tbody>
</table>"""


def test_a_column_with_an_empty_header_gives_its_cells_no_label():
    html = markdown.markdown("| | name |\n| --- | --- |\n| a | b |", extensions=["tables", TableCells()])
    assert "<td>a</td>" in html and '<td data-label="name">b</td>' in html


def test_a_table_without_a_header_row_is_left_alone():
    """Markdown's tables always have one; another extension's table (an element tree) may not."""
    table = etree.fromstring("<div><table><tbody><tr><td>x</td><td><code>a.b</code></td></tr></tbody></table></div>")
    md = markdown.Markdown(extensions=["tables", TableCells()])
    md.treeprocessors["codeproof-table-cells"].run(table)
    assert etree.tostring(table, encoding="unicode") == (
        "<div><table><tbody><tr><td>x</td><td><code>a.<wbr />b</code></td></tr></tbody></table></div>")
