"""Data tests on a node's output ports: the `expect` list of the pipeline document.

Each check names its kind in `check` (a discriminated union, so an unknown kind is a problem at
`expect.<i>.check`), the port it reads (`out` unless said) and a `severity`: `fail` fails the
node, `warn` only warns. What the checks mean when rows flow is runtime/execution/data_tests.py;
which columns they name is checked against the inferred schemas in runtime/checks/inference.py.

Belongs here: the checks' shape and the bounds a document may ask for. Does not belong here:
evaluating them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from runtime.io.regex import check_pattern

MAX_CHECKS = 100
"""Checks on one node: far beyond what a person writes, small enough to run in a moment."""
MAX_SET_VALUES = 1_000
MAX_PATTERN_LENGTH = 1_000
COLUMN_MAX_LENGTH = 300
PATH_MAX_LENGTH = 1_000

Column = Annotated[str, Field(min_length=1, max_length=COLUMN_MAX_LENGTH)]
CHECKED_COLUMN = {"format": "column", "x-port": "checked"}
"""A column of the checked port, for the editor's column picker (the form offers the columns
of the node's output as the view `checked`)."""
Scalar = str | int | float | bool | None
Bound = int | float | str | None
"""A range's end: a number, or a date or text compared as the column's type compares it."""


class _Check(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    port: Annotated[str, Field(min_length=1, max_length=100)] = Field("out", title="Port")
    severity: Literal["fail", "warn"] = Field(
        "fail", title="Severity", description="fail: the node fails; warn: the run only warns"
    )

    def columns_read(self) -> list[str]:
        """The columns of the checked port it reads."""
        column = getattr(self, "column", None)
        return [column] if column else []


class NotNull(_Check):
    """Every value of the column is set."""

    model_config = ConfigDict(title="Not null")

    check: Literal["not_null"] = Field(title="Check")
    column: Column = Field(title="Column", json_schema_extra=CHECKED_COLUMN)


class Unique(_Check):
    """No two rows share the values of these columns."""

    model_config = ConfigDict(title="Unique")

    check: Literal["unique"] = Field(title="Check")
    columns: list[Column] = Field(
        min_length=1,
        max_length=50,
        title="Columns",
        json_schema_extra=lambda schema: schema["items"].update(CHECKED_COLUMN),
    )

    def columns_read(self) -> list[str]:
        return list(self.columns)


class InSet(_Check):
    """Every value that is set is one of `values`."""

    model_config = ConfigDict(title="In a set")

    check: Literal["in_set"] = Field(title="Check")
    column: Column = Field(title="Column", json_schema_extra=CHECKED_COLUMN)
    values: list[Scalar] = Field(min_length=1, max_length=MAX_SET_VALUES, title="Values")


class InRange(_Check):
    """Every value that is set lies between `min` and `max`, both included."""

    model_config = ConfigDict(title="In a range")

    check: Literal["in_range"] = Field(title="Check")
    column: Column = Field(title="Column", json_schema_extra=CHECKED_COLUMN)
    min: Bound = Field(None, title="Minimum")
    max: Bound = Field(None, title="Maximum")

    @model_validator(mode="after")
    def _a_bound(self):
        if self.min is None and self.max is None:
            raise ValueError("give a minimum, a maximum or both")
        return self


class Matches(_Check):
    """Every value that is set matches `pattern` as a whole (RE2 syntax: linear time)."""

    model_config = ConfigDict(title="Matches a pattern")

    check: Literal["matches"] = Field(title="Check")
    column: Column = Field(title="Column", json_schema_extra=CHECKED_COLUMN)
    pattern: Annotated[str, Field(min_length=1, max_length=MAX_PATTERN_LENGTH)] = Field(
        title="Pattern"
    )

    @field_validator("pattern")
    @classmethod
    def _runs_in_linear_time(cls, pattern: str) -> str:
        return check_pattern(pattern)


class RowCount(_Check):
    """The port has between `min` and `max` rows, both included."""

    model_config = ConfigDict(title="Row count")

    check: Literal["row_count"] = Field(title="Check")
    min: Annotated[int | None, Field(ge=0)] = Field(None, title="Minimum")
    max: Annotated[int | None, Field(ge=0)] = Field(None, title="Maximum")

    @model_validator(mode="after")
    def _a_bound(self):
        if self.min is None and self.max is None:
            raise ValueError("give a minimum, a maximum or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("the minimum is above the maximum")
        return self


class References(_Check):
    """Every value that is set is found in `to_column` of the node `node` (upstream of this
    one), port `to_port`."""

    model_config = ConfigDict(title="Refers to another node")

    check: Literal["references"] = Field(title="Check")
    column: Column = Field(title="Column", json_schema_extra=CHECKED_COLUMN)
    node: Annotated[str, Field(min_length=1, max_length=100)] = Field(title="Node")
    to_port: Annotated[str, Field(min_length=1, max_length=100)] = Field("out", title="Its port")
    to_column: Column = Field(title="Its column")


class Fresh(_Check):
    """The latest date or time in the column is at most `max_age` `unit` old."""

    model_config = ConfigDict(title="Fresh")

    check: Literal["fresh"] = Field(title="Check")
    column: Column = Field(title="Column", json_schema_extra=CHECKED_COLUMN)
    max_age: Annotated[float, Field(gt=0, le=100_000)] = Field(title="Maximum age")
    unit: Literal["hours", "days"] = Field("days", title="Unit")


class Golden(_Check):
    """The port holds the same rows as a CSV file of the workspace folder (in any order unless
    `ordered`), compared as text."""

    model_config = ConfigDict(title="Same as a golden file")

    check: Literal["golden"] = Field(title="Check")
    path: Annotated[str, Field(min_length=1, max_length=PATH_MAX_LENGTH)] = Field(title="CSV file")
    ordered: bool = Field(False, title="Same order")


Check = Annotated[
    NotNull | Unique | InSet | InRange | Matches | RowCount | References | Fresh | Golden,
    Field(discriminator="check"),
]
CHECK_KINDS = ("not_null", "unique", "in_set", "in_range", "matches", "row_count", "references",
               "fresh", "golden")  # fmt: skip


class _Checks(BaseModel):
    expect: list[Check] = Field(default_factory=list, max_length=MAX_CHECKS, title="Checks")


def checks_json_schema() -> dict:
    """The JSON Schema of a node's `expect` list as an object's one field, which the editor's
    params form renders (the operator catalog carries it): each check's kind first, its port
    and severity last."""
    schema = _Checks.model_json_schema()
    for kind in schema["$defs"].values():
        fields = kind["properties"]
        last = {name: fields.pop(name) for name in ("severity", "port")}
        kind["properties"] = {"check": fields.pop("check"), **fields, **last}
    return schema
