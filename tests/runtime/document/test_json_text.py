"""Reading JSON from outside: deep nesting, NaN and text no database stores are refused."""

from __future__ import annotations

import json

import pytest

from runtime.document.json_text import MAX_DEPTH, JsonTextError, check, loads


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_nesting_up_to_the_limit_is_read():
    assert loads(nested(MAX_DEPTH)) == json.loads(nested(MAX_DEPTH))


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 100_000], ids=["65", "900", "100k"])
def test_deeper_nesting_is_refused_not_a_recursion_error(depth):
    with pytest.raises(JsonTextError, match=f"nested deeper than {MAX_DEPTH} levels"):
        loads(nested(depth))


def test_too_deep_names_where_it_went_too_deep():
    text = json.dumps({"nodes": [{"params": {"p": json.loads(nested(MAX_DEPTH))}}]})
    with pytest.raises(JsonTextError, match=r"\(at nodes\.0\.params\.p\.0\.0") as raised:
        loads(text)
    assert raised.value.field.startswith("nodes.0.params.p.0.0.0")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"x": NaN}', "NaN is not a JSON number"),
        ('{"x": Infinity}', "Infinity is not a JSON number"),
        ('{"x": -Infinity}', "-Infinity is not a JSON number"),
        ('{"x": 1e999}', "the number 1e999 is too large"),
        ('{"x": -1e999}', "the number -1e999 is too large"),
        ('{"x": ' + "9" * 5000 + "}", "Exceeds the limit"),
    ],
    ids=["nan", "infinity", "minus-infinity", "overflow", "minus-overflow", "5000-digits"],
)
def test_numbers_no_json_column_stores_are_refused(text, message):
    with pytest.raises(JsonTextError, match=f"^not valid JSON: {message}"):
        loads(text)


@pytest.mark.parametrize(
    "text",
    ['{"label": "a\\u0000b"}', '{"label": "\\ud800"}', '{"a\\u0000": 1}'],
    ids=["nul", "lone-surrogate", "nul-in-a-key"],
)
def test_text_no_database_stores_is_refused(text):
    with pytest.raises(JsonTextError, match="NUL character or a lone surrogate"):
        loads(text)


def test_a_surrogate_pair_is_ordinary_text():
    assert loads('{"label": "\\ud83d\\ude00"}') == {"label": "😀"}


def test_a_value_already_parsed_is_checked_the_same_way():
    with pytest.raises(JsonTextError, match=r"\(at nodes\.1\.label\)"):
        check({"nodes": [{"label": "ok"}, {"label": "\x00"}]})


def test_malformed_text_names_the_line_and_column():
    with pytest.raises(JsonTextError, match=r"^not valid JSON: Expecting value at line 2 column 7"):
        loads('{"a":\n  [1, ]}')
