"""Tables that read on a phone: each body cell carries its column's header; code breaks only after / . ::"""

from __future__ import annotations

import markdown

from codeproof.tables import TableCells

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


def test_a_table_without_a_header_row_is_left_alone():
    html = markdown.markdown("<table><tr><td>x</td></tr></table>", extensions=["tables", TableCells()])
    assert html == "<table><tr><td>x</td></tr></table>"
