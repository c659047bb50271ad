"""One schema mechanism checks mkdocs.yml's extra.series and a post's front matter: every mistake at once, each at
its key path, with a did-you-mean."""

from __future__ import annotations

from codeproof.common.schema import Finding, Invalid, ListOf, Section, Value, validate

SCHEMA = Section({
    "name": Value(str, "a name"),
    "size": Value(int, "a whole number", lambda n: n > 0, default=3),
    "inner": Section({"timeout": Value(float, "seconds", default=1.0)}),
    "items": ListOf(Section({"number": Value(int, "a number")})),
    "words": ListOf(Value(str, "a word")),
})


def check(data) -> tuple[dict, list[Finding]]:
    found: list[Finding] = []
    return validate(SCHEMA, data, ("top",), found), found


def test_defaults_fill_what_is_not_given_and_a_null_counts_as_not_given():
    values, found = check({"name": "x", "size": None})
    assert (values, found) == ({"name": "x", "size": 3, "inner": {"timeout": 1.0}, "items": [], "words": []}, [])


def test_every_mistake_is_found_at_once_each_at_its_key_path():
    _, found = check({"size": 0, "items": [{"number": 1}, {"number": "2"}], "words": ["a", 5], "inner": []})
    assert found == [
        Finding(("top", "name"), "is required"),
        Finding(("top", "size"), "0 is not a whole number"),
        Finding(("top", "inner"), "must be a mapping of settings, not list"),
        Finding(("top", "items", 1, "number"), "'2' is not a number"),
        Finding(("top", "words", 1), "5 is not a word"),
    ]


def test_an_unknown_key_names_the_closest_setting_here_or_one_level_down():
    _, found = check({"name": "x", "timout": 2.0, "nmae": "y", "zzz": 1})
    assert found == [
        Finding(("top", "nmae"), "is not a setting; did you mean name?"),
        Finding(("top", "timout"), "is not a setting; did you mean inner.timeout?"),
        Finding(("top", "zzz"), "is not a setting (the settings here are name, size, inner, items, words)"),
    ]


def test_a_bool_is_not_a_number_unless_the_setting_takes_bools():
    _, found = check({"name": "x", "size": True})
    assert found == [Finding(("top", "size"), "True is not a whole number")]


def test_a_test_says_why_itself_with_a_hint_and_a_section_words_its_unknown_keys():
    def even(n):
        if n % 2:
            raise Invalid(f"{n} is odd", "give an even number")
        return True

    section = Section({"n": Value(int, "a number", even, null=False, default=None)},
                      unknown=lambda key, value, close, names: Invalid(f"{key!r} is not a key", f"the keys are {names}"))
    found: list[Finding] = []
    validate(section, {"n": 3, "m": 1}, (), found)
    assert found == [Finding(("m",), "'m' is not a key", "the keys are ['n']"), Finding(("n",), "3 is odd", "give an even number")]


def test_a_key_yaml_reads_as_a_number_a_null_or_a_date_is_an_unknown_key_not_a_crash():
    import datetime

    _, found = check({"name": "x", 1: "a", None: "b", datetime.date(2026, 1, 1): "c"})
    assert [(path, message.split(" (")[0]) for path, message, _ in found] == [
        (("top", "1"), "is not a setting"), (("top", "2026-01-01"), "is not a setting"),
        (("top", "None"), "is not a setting; did you mean inner?")]


def test_a_setting_of_any_type_lets_its_own_test_speak_for_a_bool():
    def text(value):
        if not isinstance(value, str):
            raise Invalid(f"title must be text, not {type(value).__name__} {value!r}")
        return True

    found: list[Finding] = []
    validate(Section({"title": Value(object, "text", text, default=None)}), {"title": True}, (), found)
    assert found == [Finding(("title",), "title must be text, not bool True")]
