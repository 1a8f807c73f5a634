"""`literal()` keeps hostile parameters one literal, and the package never evaluates
text as Python.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from runtime.expressions import filter_mask, literal, parse
from runtime.expressions.nodes import Binary, Column, Literal
from tests.runtime.expressions.conftest import fails, values

# --- literal(): the only way pipeline parameters reach an expression --------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Ann", "'Ann'"),
        ("it's", "'it\\'s'"),
        ("a\\b", "'a\\\\b'"),
        ("line\nbreak", "'line\\nbreak'"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (42, "42"),
        (-3, "(-3)"),
        (2.5, "2.5"),
        (-0.5, "(-0.5)"),
        (1e300, "1e+300"),
    ],
)
def test_literal_writes_parameters_as_expression_text(value, text):
    assert literal(value) == text
    assert parse(text) == Literal(value)


@pytest.mark.parametrize(
    "hostile",
    ["') or (1=1", "' or '1'='1", "\\' or 1=1 --", "x\\", "`age`", '"; drop', "${other}", "\x00"],
)
def test_hostile_string_parameters_stay_one_string_literal(people, hostile):
    text = f"name = {literal(hostile)}"
    assert parse(text) == Binary("=", Column("name"), Literal(hostile))
    assert list(filter_mask(text, people)) == [False] * 4


def test_negative_parameters_keep_their_sign_under_power(people):
    assert values(f"{literal(-3)} ** 2", people) == [9.0] * 4


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("nan"), "the parameter value nan cannot be used in an expression"),
        (float("inf"), "the parameter value inf cannot be used in an expression"),
        (2**63, "an integer parameter beyond 64 bits cannot be used in an expression"),
        ([1, 2], "a parameter of type list cannot be used in an expression"),
        ({"a": 1}, "a parameter of type dict cannot be used in an expression"),
    ],
)
def test_literal_rejects_values_with_no_literal_form(value, message):
    with fails(message):
        literal(value)


# --- safety ----------------------------------------------------------------------------------

PACKAGE = pathlib.Path(__file__).parents[3] / "runtime" / "expressions"


def test_the_package_never_evaluates_text_or_imports_django():
    forbidden = re.compile(
        r"(?<![\w.])(eval|exec|compile|__import__)\(|\.(eval|query)\(|import django|from django"
    )
    for path in PACKAGE.glob("*.py"):
        assert not forbidden.search(path.read_text()), path.name
