"""Pydantic errors as problems: the field as the form titles it, in words, at the editor's path."""

from __future__ import annotations

import pytest

from runtime.checks.analysis import validate
from runtime.document.spec import load_document
from runtime.errors import PipelineValidationError


def params_problems(operator: str, params: dict) -> list:
    document = load_document(
        {"name": "t", "nodes": [{"id": "node", "operator": operator, "params": params}]}
    )
    return [problem for problem in validate(document) if problem.code == "invalid_params"]


def test_a_list_item_is_named_by_the_field_title_and_its_number_from_1():
    [problem] = params_problems(
        "aggregate", {"group_by": ["city", ""], "aggregations": [{"function": "size"}]}
    )
    assert problem.field == "params.group_by.1"
    assert problem.message == "Group by, item 2: must not be empty"
    assert problem.to_json() == {
        "code": "invalid_params",
        "node": "node",
        "field": "params.group_by.1",
        "field_title": "Group by, item 2",
        "message": "Group by, item 2: must not be empty",
    }
    assert str(problem) == "node: Group by, item 2: must not be empty"


WORDS = {
    "required": ("limit", {}, "Rows: required"),
    "whole number": ("limit", {"n": "many"}, "Rows: must be a whole number"),
    "at least": ("limit", {"n": -1}, "Rows: must be at least 0"),
    "at most": ("sample", {"fraction": 2}, "Fraction: must be at most 1"),
    "true or false": (
        "json_input",
        {"path": "a.json", "lines": "maybe"},
        "JSON Lines: must be true or false",
    ),
    "a list": ("drop_nulls", {"columns": "a"}, "Columns: must be a list"),
    "one of": (
        "join",
        {"left_on": "a", "right_on": "a", "how": "cross"},
        "Kind of join: must be one of 'inner', 'left', 'right', 'outer', 'semi' or 'anti'",
    ),
    "unknown field": (
        "limit",
        {"n": 1, "colour": "red"},
        "colour: unknown field; remove it or check its spelling",
    ),
    "in a nested object": (
        "aggregate",
        {"aggregations": [{"function": "total"}]},
        "Aggregations, item 1, Function: must be one of 'count'",
    ),
}


@pytest.mark.parametrize(("operator", "params", "message"), WORDS.values(), ids=WORDS)
def test_pydantic_errors_read_as_short_words_after_the_field_title(operator, params, message):
    messages = [problem.message for problem in params_problems(operator, params)]
    assert any(text.startswith(message) for text in messages), messages
    assert not any("Input should" in text or "String should" in text for text in messages)


def test_a_value_that_fits_no_branch_of_a_union_is_one_problem_at_its_field():
    [problem] = params_problems(
        "sql_input", {"connection": "db", "query": "SELECT :a", "params": {"a": [1, 2]}}
    )
    assert problem.field == "params.params.a"
    assert problem.message == (
        "Parameters, a: must be text, a whole number, a number or true or false"
    )


def test_a_tagged_union_keeps_its_tag_in_the_path_but_not_in_the_title():
    [problem] = params_problems("validate", {"rules": [{"rule": "regex", "column": "a"}]})
    assert problem.field == "params.rules.0.regex.pattern"
    assert problem.message == "Rules, item 1, Pattern: required"


def test_a_document_field_is_named_as_the_settings_dialog_shows_it():
    with pytest.raises(PipelineValidationError) as raised:
        load_document({"name": "t", "config": {"max_concurrency": 0, "retry_delay_s": "x"}})
    assert [(problem.field, problem.message) for problem in raised.value.problems] == [
        ("config.max_concurrency", "Settings, Concurrency: must be at least 1"),
        ("config.retry_delay_s", "Settings, Retry delay (s): must be a number"),
    ]


def test_a_problem_in_an_expression_keeps_its_place_through_json():
    from runtime.errors import Problem, TextPosition

    placed = Problem("Condition: unknown column", "keep", "params.condition", "schema",
                     "Condition", TextPosition(2, 9, 13))  # fmt: skip
    assert placed.to_json()["line"] == 2 and placed.to_json()["end_column"] == 13
    assert Problem.from_json(placed.to_json()) == placed
    plain = Problem("required", "keep", "params.condition")
    assert "line" not in plain.to_json()
    assert Problem.from_json(plain.to_json()) == plain


def test_a_params_error_in_an_expression_carries_its_place():
    [problem] = params_problems("filter", {"condition": "age >> 3"})
    assert problem.to_json()["line"] == 1
    assert (problem.position.column, problem.position.end_column) == (6, 7)
