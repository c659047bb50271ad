"""Resolving a `Symbol:` to the lines of a Python file, with `ast`: defs, assignments, nested defs."""

from __future__ import annotations

import ast

import pytest

from codeproof.quotes import symbols
from codeproof.quotes.symbols import LargeSymbolIndex, Span, SymbolError, SymbolIndex, holds, parse_symbols
from upstream import MODULE_V1

SOURCE = '''\
import functools

primitive_vjps = {}
box_types: dict = {
    "array": list,
}
a, (b, *rest) = 1, (2, 3)
first = second = None
count = 0
count += 1


def primitive(f_raw):
    @functools.wraps(f_raw)
    def f_wrapped(*args):
        total = 0
        return f_raw(*args)
    return f_wrapped


class Box:
    type_mappings = {}
    limit: int = 3

    def __init__(self, value):
        self.value = value
'''


def spans(symbol: str, source: str = SOURCE) -> list[tuple[int, int]]:
    (spec,) = parse_symbols(symbol)
    return [(s.first, s.last) for s in SymbolIndex(source).spans(spec)]


def unknown(symbol: str) -> tuple[str, str]:
    with pytest.raises(SymbolError) as raised:
        spans(symbol)
    return str(raised.value), raised.value.hint


def test_a_module_level_assignment_is_its_statement():
    assert spans("primitive_vjps") == [(3, 3)]


def test_an_annotated_assignment_spans_all_its_lines():
    assert spans("box_types") == [(4, 6)]


def test_each_name_of_a_tuple_target_is_the_whole_statement():
    assert spans("a") == spans("b") == spans("rest") == [(7, 7)]


def test_each_name_of_a_chained_assignment_is_the_statement():
    assert spans("first") == spans("second") == [(8, 8)]


def test_a_name_assigned_and_augmented_stands_in_two_places():
    assert spans("count") == [(9, 9), (10, 10)]


def test_a_class_level_assignment_is_class_dot_name():
    assert spans("Box.type_mappings") == [(22, 22)]
    assert spans("Box.limit") == [(23, 23)]


def test_an_attribute_assigned_in_a_method_is_no_symbol():
    assert unknown("Box.value") == ("symbol 'Box.value' is not in the file", "check the Symbol line against the file")


def test_a_function_s_local_variable_is_no_symbol():
    assert unknown("primitive.total") == ("symbol 'primitive.total' is not in the file",
                                          "did you mean primitive, primitive.f_wrapped, primitive_vjps?")


def test_a_def_inside_a_def_is_outer_dot_inner_or_its_bare_name():
    assert spans("primitive.f_wrapped") == spans("f_wrapped") == [(14, 17)]


def test_a_decorated_def_starts_at_its_first_decorator():
    assert spans("f_wrapped")[0][0] == 14  # `@functools.wraps(f_raw)`, above `def f_wrapped` on line 15


def test_an_unknown_name_suggests_close_assignments_too():
    assert unknown("primitive_vjp") == ("symbol 'primitive_vjp' is not in the file",
                                        "did you mean primitive_vjps, primitive, primitive.f_wrapped?")
    assert unknown("Box.type_mapping")[1] == "did you mean Box.type_mappings?"


@pytest.mark.parametrize("first, last, held", [
    (9, 9, True), (10, 10, True),  # within one place
    (9, 10, False),  # across both places: neither holds it
])
def test_a_quote_of_a_name_in_two_places_lies_within_one_of_them(first, last, held):
    assert holds([[Span(9, 9), Span(10, 10)]], first, last) is held


def test_a_quote_of_two_symbols_runs_from_one_to_the_other():
    assert holds([[Span(3, 3)], [Span(4, 6)]], 3, 6)
    assert not holds([[Span(3, 3)], [Span(4, 6)]], 3, 3)  # it must touch each


TRICKY = '''\
"""Doc.
def not_a_def():
    pass
"""
import math

@decorator
@other(1,
2)
def decorated(x):
    return x


if math:
    value = 1
else:
    value = 2

try:
    import numpy
except ImportError:
    numpy = None
finally:
    done = True

text = """
class NotAClass:
    pass
"""
register(math.sin, lambda g: g)
register(math.cos,
         lambda g: -g)


class Box:
    limit = 3

    def unbox(self):
        def inner():
            return 1
        return inner()
'''


@pytest.mark.parametrize("source", [TRICKY, MODULE_V1], ids=["tricky", "fixture"])
def test_a_large_files_index_finds_what_the_whole_parse_finds(source):
    """LargeSymbolIndex parses runs of top-level statements, never the whole file: same answers for every name,
    nested def and module-level call, wherever the cuts fall (a docstring or string that holds code at column 0,
    decorators over several lines, else/except/finally at the top level)."""
    whole, runs = SymbolIndex(source), LargeSymbolIndex(source)
    assert len(runs.runs) > 3  # it did cut
    names = sorted(set().union(*(symbols._qualified_names(body) for body in whole._bodies()))) + ["inner", "nowhere"]
    calls = [f"{stmt.value.func.id}({ast.unparse(stmt.value.args[0])}, ...)" for stmt in whole.tree.body
             if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)]
    for text in names + calls:
        (spec,) = parse_symbols(text)
        assert _spans_or_error(whole, spec) == _spans_or_error(runs, spec), text


def _spans_or_error(index, spec):
    try:
        return index.spans(spec)
    except SymbolError as error:
        return str(error), error.hint


def test_a_large_file_that_does_not_parse_is_a_syntax_error_as_ast_says():
    with pytest.raises(SyntaxError):
        LargeSymbolIndex("def f(:\n    pass\n\nx = 1\n")


CALLS = "defvjp(add, lambda g: g)\ndefvjp(neg)\n"


def test_a_call_symbol_names_its_arguments_as_written_and_the_rest_as_an_ellipsis():
    assert spans("defvjp(add, ...)", CALLS) == [(1, 1)]
    assert spans("defvjp(neg)", CALLS) == [(2, 2)]


def test_a_call_symbol_without_an_ellipsis_names_no_call_of_more_arguments():
    """The guide writes the rest of the arguments as `...`: `defvjp(add)` was taken for `defvjp(add, ...)`."""
    with pytest.raises(SymbolError) as raised:
        spans("defvjp(add)", CALLS)
    assert (str(raised.value), raised.value.hint) == (
        "symbol 'defvjp(add)' is not in the file",
        "the file's call has more arguments: write `defvjp(add, ...)` (without `...`, a call names exactly the "
        "arguments written)")


def test_a_misspelt_call_symbol_offers_first_the_calls_that_begin_as_written():
    """The walkthrough of round four: `defvjp(anp.ad, ...)` was offered `defvjp(anp.pad, ...)` first, though the
    author meant `defvjp(anp.add, ...)`: both are one letter away."""
    text = "defvjp(anp.pad, f)\ndefvjp(anp.add, g)\ndefvjp(anp.tan, h)\n"
    with pytest.raises(SymbolError) as raised:
        spans("defvjp(anp.ad, ...)", text)
    assert raised.value.hint == "did you mean defvjp(anp.add, ...), defvjp(anp.pad, ...), defvjp(anp.tan, ...)?"
