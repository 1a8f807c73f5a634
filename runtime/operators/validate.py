"""`validate`: split rows into those that pass every rule and those that fail one.

Rules are a list of small models told apart by their `rule` field (`not_null`, `range`,
`regex`, `allowed_values`, `unique`). Each rule finds the rows it fails as one vectorised
mask, and words its reason only for those rows. Nulls: `not_null` catches them, every other
rule skips them (a null is neither in nor out of range).
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from runtime.errors import ParamsError
from runtime.io.regex import check_pattern, full_matches
from runtime.lazy import np, pd
from runtime.operators.batches import in_batches
from runtime.operators.column_params import (
    NUMBERS,
    ColumnNames,
    InputColumn,
    Scalar,
    cast_value,
    column_of,
    exactly_one,
    frame_schema,
    require_type,
    written,
)
from runtime.operators.contract import Operator, OperatorParams, Port
from runtime.tables.schema import Column, Schema
from runtime.tables.spilled import SpilledRows

REASON = "_reason"
"""The column of `invalid` rows that says which rules they failed."""
SEPARATOR = "; "
LISTED_VALUES = 10
"""How many allowed values a reason lists before `…`."""


class _Rule(OperatorParams):
    """A rule: checked against the input's columns, then run over the rows.

    `field` is where the rule sits in params (`rules[2]`), for error messages.
    """

    row_local: ClassVar[bool] = True
    """Whether a row fails or passes whatever the other rows are: the rule then checks a
    spilled input batch by batch; one that is not reads its columns whole first."""

    def check(self, field: str, schema: Schema) -> None:
        """Raise `ParamsError` if the rule does not fit the columns of `schema`."""
        raise NotImplementedError

    def failed(self, frame: pd.DataFrame, schema: Schema, field: str) -> np.ndarray:
        """Where the rule fails: one numpy bool per row of `frame`."""
        raise NotImplementedError

    def reasons(self, rows: pd.DataFrame, schema: Schema, field: str) -> pd.Series:
        """Why each of `rows` fails, in words (what it says of passing rows is discarded)."""
        raise NotImplementedError


class NotNullRule(_Rule):
    """Fails rows where the column is null."""

    model_config = ConfigDict(title="Not null")

    rule: Literal["not_null"] = Field(title="Rule", description="not_null: a value is required.")
    column: InputColumn = Field(title="Column", description="The column that must have a value.")

    def check(self, field: str, schema: Schema) -> None:
        column_of(f"{field}.column", self.column, schema)

    def failed(self, frame: pd.DataFrame, schema: Schema, field: str) -> np.ndarray:
        return frame[self.column].isna().to_numpy()

    def reasons(self, rows: pd.DataFrame, schema: Schema, field: str) -> pd.Series:
        return pd.Series(f"{self.column}: is missing", index=rows.index, dtype="str")


class RangeRule(_Rule):
    """Fails rows whose value lies below `min` or above `max`."""

    model_config = ConfigDict(title="Range")

    rule: Literal["range"] = Field(title="Rule", description="range: between min and max.")
    column: InputColumn = Field(
        title="Column", description="A column of numbers, dates or datetimes."
    )
    min: int | float | str | None = Field(
        None, title="Minimum", description="The smallest allowed value (included)."
    )
    max: int | float | str | None = Field(
        None, title="Maximum", description="The largest allowed value (included)."
    )

    @model_validator(mode="after")
    def _a_bound(self):
        if self.min is None and self.max is None:
            raise ValueError("a range needs a min, a max or both")
        return self

    def check(self, field: str, schema: Schema) -> None:
        low, high = self.converted_bounds(field, schema)
        if low is not None and high is not None and low > high:
            raise ParamsError(f"{field}.max", f"{written(self.max)} is below the minimum")

    def failed(self, frame: pd.DataFrame, schema: Schema, field: str) -> np.ndarray:
        below, above = self._outside(frame, schema, field)
        return below | above

    def reasons(self, rows: pd.DataFrame, schema: Schema, field: str) -> pd.Series:
        _, above = self._outside(rows, schema, field)
        values = f"{self.column}: " + value_texts(rows[self.column])
        above_max = values + f" is above the maximum {shown_value(self.max)}"
        return above_max.where(above, values + f" is below the minimum {shown_value(self.min)}")

    def converted_bounds(self, field: str, schema: Schema) -> tuple[object, object]:
        column = column_of(f"{field}.column", self.column, schema)
        require_type(
            f"{field}.column",
            column,
            (*NUMBERS, "decimal", "date", "datetime"),
            "range needs numbers, dates or datetimes",
        )
        numbers = (*NUMBERS, "decimal")  # a decimal is compared with float bounds
        type_name = "float" if column.type in numbers else column.type  # 0.5 stays 0.5
        return tuple(
            None if value is None else cast_value(f"{field}.{end}", value, type_name, self.column)
            for end, value in (("min", self.min), ("max", self.max))
        )

    def _outside(
        self, frame: pd.DataFrame, schema: Schema, field: str
    ) -> tuple[np.ndarray, np.ndarray]:
        low, high = self.converted_bounds(field, schema)
        values = frame[self.column]
        below = where_true(values < low) if low is not None else np.zeros(len(frame), bool)
        above = where_true(values > high) if high is not None else np.zeros(len(frame), bool)
        return below, above


class RegexRule(_Rule):
    """Fails rows whose text does not match a pattern from start to end."""

    model_config = ConfigDict(title="Pattern")

    rule: Literal["regex"] = Field(title="Rule", description="regex: text matching a pattern.")
    column: InputColumn = Field(title="Column", description="A column of text.")
    pattern: str = Field(
        title="Pattern",
        description="A regular expression the whole value must match, e.g. [A-Z]{2}[0-9]{4} "
        "(add .* at either end to match a part), in RE2 syntax: no lookaround or backreferences.",
        min_length=1,
    )

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        return check_pattern(pattern)

    def check(self, field: str, schema: Schema) -> None:
        column = column_of(f"{field}.column", self.column, schema)
        require_type(f"{field}.column", column, ("string",), "regex needs text")

    def failed(self, frame: pd.DataFrame, schema: Schema, field: str) -> np.ndarray:
        try:
            return ~full_matches(frame[self.column], self.pattern)
        except ValueError as error:
            raise ParamsError(f"{field}.pattern", str(error)) from error

    def reasons(self, rows: pd.DataFrame, schema: Schema, field: str) -> pd.Series:
        return (
            f"{self.column}: " + value_texts(rows[self.column]) + f" does not match {self.pattern}"
        )


class AllowedValuesRule(_Rule):
    """Fails rows whose value is not in a list."""

    model_config = ConfigDict(title="Allowed values")

    rule: Literal["allowed_values"] = Field(
        title="Rule", description="allowed_values: one of a list."
    )
    column: InputColumn = Field(title="Column", description="The column to check.")
    values: list[Scalar] = Field(
        title="Values",
        description="The allowed values, converted to the column's type.",
        min_length=1,
    )

    def check(self, field: str, schema: Schema) -> None:
        self.converted_values(field, schema)

    def failed(self, frame: pd.DataFrame, schema: Schema, field: str) -> np.ndarray:
        values = frame[self.column]
        allowed = self.converted_values(field, schema)
        inside = values.isin(allowed).to_numpy(dtype=bool, na_value=False)
        return ~inside & values.notna().to_numpy()

    def reasons(self, rows: pd.DataFrame, schema: Schema, field: str) -> pd.Series:
        shown = [shown_value(value) for value in self.values[:LISTED_VALUES]]
        more = ", …" if len(self.values) > LISTED_VALUES else ""
        return (
            f"{self.column}: "
            + value_texts(rows[self.column])
            + f" is not one of {', '.join(shown)}{more}"
        )

    def converted_values(self, field: str, schema: Schema) -> list[object]:
        column = column_of(f"{field}.column", self.column, schema)
        return [
            cast_value(f"{field}.values", value, column.type, self.column) for value in self.values
        ]


class UniqueRule(_Rule):
    """Fails every row whose value (or combination of values) occurs on more than one row."""

    model_config = ConfigDict(title="Unique")
    row_local: ClassVar[bool] = False

    rule: Literal["unique"] = Field(title="Rule", description="unique: no repeated values.")
    column: InputColumn | None = Field(
        None, title="Column", description="The column whose values must be unique."
    )
    columns: ColumnNames | None = Field(
        None,
        title="Columns",
        description="Or several columns whose combination of values must be unique.",
        min_length=1,
    )

    @model_validator(mode="after")
    def _column_or_columns(self):
        exactly_one(("column", self.column), ("columns", self.columns))
        return self

    @property
    def names(self) -> list[str]:
        """The checked columns."""
        return [self.column] if self.column is not None else list(self.columns)

    def check(self, field: str, schema: Schema) -> None:
        where = f"{field}.column" if self.column is not None else f"{field}.columns"
        for name in self.names:
            column_of(where, name, schema)

    def failed(self, frame: pd.DataFrame, schema: Schema, field: str) -> np.ndarray:
        complete = frame[self.names].notna().all(axis=1).to_numpy()
        repeated = frame.duplicated(self.names, keep=False).to_numpy()
        return repeated & complete

    def reasons(self, rows: pd.DataFrame, schema: Schema, field: str) -> pd.Series:
        values = value_texts(rows[self.names[0]])
        for name in self.names[1:]:
            values = values + ", " + value_texts(rows[name])
        return f"{', '.join(self.names)}: " + values + " appears more than once"


Rule = Annotated[
    NotNullRule | RangeRule | RegexRule | AllowedValuesRule | UniqueRule,
    Field(discriminator="rule"),
]


class ValidateParams(OperatorParams):
    rules: list[Rule] = Field(
        title="Rules",
        description='Checks every row must pass, e.g. {"rule": "range", "column": "age", '
        '"min": 0, "max": 130}.',
        min_length=1,
    )


class Validate(Operator):
    name = "validate"
    summary = "{rules.rule}"
    kind = "process"
    title = "Validate rows"
    description = (
        "Check rows against rules: rows passing all of them go to `valid`, the others to "
        "`invalid` with a `_reason` column saying which rules they failed."
    )
    outputs = (
        Port("valid", description="Rows that pass every rule."),
        Port("invalid", description="Rows that fail a rule, with the reasons in `_reason`."),
    )
    Params = ValidateParams

    def reads_batches(self, params):
        return True  # `unique` reads its columns whole first (`whole_column_failures`)

    def output_schema(self, ctx, inputs):
        schema = inputs["in"]
        check_rules(ctx.params, schema)
        reason = Column(REASON, "string", False)
        return {"valid": schema, "invalid": Schema((*schema.columns, reason))}

    def run(self, ctx, inputs):
        rows = inputs["in"]
        if not isinstance(rows, SpilledRows):
            return checked(ctx.params, rows)
        # spilled for this node: each batch checked on its own (runtime/operators/batches.py)
        found = whole_column_failures(ctx.params, rows)
        return in_batches(ctx, rows, lambda frame: checked(ctx.params, frame, found))


def whole_column_failures(params: ValidateParams, rows: SpilledRows) -> dict[int, np.ndarray]:
    """Where each rule that is not row-local (`unique`) fails over every spilled row, by the
    rule's place in `rules`: read from its columns alone, before the batches are checked."""
    check_rules(params, frame_schema(rows.empty()))
    found = {}
    for index, rule in enumerate(params.rules):
        if not rule.row_local:
            columns = rows.columns(rule.names)
            found[index] = rule.failed(columns, frame_schema(columns), f"rules[{index}]")
    return found


def checked(
    params: ValidateParams, frame: pd.DataFrame, found: dict[int, np.ndarray] | None = None
) -> dict[str, pd.DataFrame]:
    """`frame`'s rows that pass every rule, and the others with why. `found`: where rules
    fail over every row (`whole_column_failures`), of which `frame` holds those its
    `RangeIndex` says."""
    schema = frame_schema(frame)
    check_rules(params, schema)
    found = found or {}
    fields = [f"rules[{index}]" for index in range(len(params.rules))]
    failures = [
        found[index][frame.index.start : frame.index.stop]
        if index in found
        else rule.failed(frame, schema, fields[index])
        for index, rule in enumerate(params.rules)
    ]
    invalid = np.logical_or.reduce(failures)
    rows = frame[invalid]
    text = pd.Series("", index=rows.index, dtype="str")
    for rule, field, failed in zip(params.rules, fields, failures, strict=True):
        hit = failed[invalid]
        if hit.any():
            text = text + (rule.reasons(rows, schema, field) + SEPARATOR).where(hit, "")
    reasons = text.str.slice(stop=-len(SEPARATOR))
    return {"valid": frame[~invalid], "invalid": rows.assign(**{REASON: reasons})}


def check_rules(params: ValidateParams, schema: Schema) -> None:
    """ParamsError unless every rule fits `schema` and the input has no `_reason` column."""
    if REASON in schema:
        raise ParamsError(
            "rules",
            f"the input already has a column named '{REASON}', which validate adds to invalid "
            "rows; rename or drop it first",
        )
    for index, rule in enumerate(params.rules):
        rule.check(f"rules[{index}]", schema)


def where_true(mask: pd.Series) -> np.ndarray:
    """A comparison's result as numpy bools, null (a skipped value) counting as false."""
    return mask.to_numpy(dtype=bool, na_value=False)


def value_texts(values: pd.Series) -> pd.Series:
    """The values as the texts a reason shows."""
    return values.astype("str")


def shown_value(value: object) -> str:
    """A params value in a reason: text as is, anything else as written in JSON."""
    return value if isinstance(value, str) else written(value)
