"""`route`: send each row down the port of the condition it meets, or `otherwise`.

Its output ports follow its params (`Operator.outputs_from`): one per named condition, in
order, then `otherwise`. In `first` mode a row goes to the first condition it meets; in `all`
mode to every one; `otherwise` gets the rows that meet none. A null condition counts as false,
as in `filter`. Every port has the input's columns.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from runtime import relational
from runtime.document.spec import PORT_MAX_LENGTH
from runtime.errors import ParamsError
from runtime.expressions import ExpressionError, condition_array, infer_type, referenced_columns
from runtime.expressions.to_sql import to_sql_condition
from runtime.lazy import np
from runtime.operators.column_names import needed_with
from runtime.operators.column_params import InputExpression, first_repeated
from runtime.operators.contract import Operator, OperatorParams, OutputsFrom, Port
from runtime.tables.schema import a_type

OTHERWISE = "otherwise"
MAX_CONDITIONS = 100
"""Far more branches than a canvas shows; it bounds the work of `first` mode's negations."""
_PORT_NAME = re.compile(r"[^\W\d]\w*")


def _port_name(name: str) -> str:
    if not _PORT_NAME.fullmatch(name):
        raise ValueError(
            "must start with a letter or _ and have only letters, digits and _ (it names a port)"
        )
    if name == OTHERWISE:
        raise ValueError(f"'{OTHERWISE}' is the port of the rows that meet no condition")
    return name


PortName = Annotated[
    str, Field(min_length=1, max_length=PORT_MAX_LENGTH), AfterValidator(_port_name)
]


class Condition(OperatorParams):
    """One branch: its port's name and the rows that go there."""

    name: PortName = Field(title="Port", description="The output port's name, e.g. adults.")
    condition: InputExpression = Field(
        title="Condition",
        description="Rows where this is true go to the port, e.g. age >= 18.",
    )


def _unique(conditions: list[Condition]) -> list[Condition]:
    repeated = first_repeated(condition.name for condition in conditions)
    if repeated is not None:
        raise ValueError(f"two conditions are named '{repeated}'; give each its own name")
    return conditions


class RouteParams(OperatorParams):
    conditions: Annotated[list[Condition], AfterValidator(_unique)] = Field(
        title="Conditions",
        description="Named conditions in order; each name is an output port.",
        min_length=1,
        max_length=MAX_CONDITIONS,
    )
    mode: Literal["first", "all"] = Field(
        "first",
        title="Rows go to",
        description="first: the first condition a row meets; all: every condition it meets. "
        "Rows that meet none go to otherwise.",
    )


class Route(Operator):
    name = "route"
    summary = "{conditions.name}[ · {mode}]"
    kind = "process"
    title = "Route rows"
    description = (
        "Send each row to the port of the first condition it meets (or every one it meets), "
        "the rest to otherwise; a comparison with null is false."
    )
    Params = RouteParams
    outputs = (Port(OTHERWISE),)
    outputs_from = OutputsFrom("conditions", "name", (OTHERWISE,))
    partitionable = True

    def input_columns(self, params, output_columns):
        wanted: set[str] | None = set()
        for columns in output_columns.values():
            wanted = None if wanted is None or columns is None else wanted | columns
        referenced = set().union(*(referenced_columns(c.condition) for c in params.conditions))
        return {"in": needed_with(wanted, referenced)}

    def output_schema(self, ctx, inputs):
        schema = inputs["in"]
        for index, condition in enumerate(ctx.params.conditions):
            try:
                result_type, _ = infer_type(condition.condition, schema)
            except ExpressionError as error:
                raise ParamsError(_field(index), str(error), error.position) from error
            if result_type != "boolean":
                raise ParamsError(
                    _field(index), f"must be true or false, but it gives {a_type(result_type)}"
                )
        return {port.name: schema for port in self.ports(ctx.params).outputs}

    def run(self, ctx, inputs):
        frame = inputs["in"]
        params: RouteParams = ctx.params
        taken = np.zeros(len(frame), dtype=bool)
        outputs = {}
        for index, condition in enumerate(params.conditions):
            try:
                meets = condition_array(condition.condition, frame)
            except ExpressionError as error:
                raise ParamsError(_field(index), str(error), error.position) from error
            chosen = meets & ~taken if params.mode == "first" else meets
            outputs[condition.name] = _rows(frame, chosen)
            taken |= meets
        outputs[OTHERWISE] = _rows(frame, ~taken)
        return outputs

    def lower(self, params, inputs, schemas):
        texts = [condition.condition for condition in params.conditions]
        for text in texts:
            to_sql_condition(text, schemas["in"])  # NotLowerable if DuckDB differs
        source = inputs["in"]
        fields = tuple((text, _field(index)) for index, text in enumerate(texts))
        relations = {
            condition.name: relational.Filter(
                source,
                condition.condition,
                tuple(texts[:index]) if params.mode == "first" else (),
                fields,
            )
            for index, condition in enumerate(params.conditions)
        }
        relations[OTHERWISE] = relational.Filter(source, None, tuple(texts), fields)
        return relations


def _field(index: int) -> str:
    return f"conditions.{index}.condition"


def _rows(frame, chosen: np.ndarray):
    if chosen.all():
        return frame  # every row: the same frame, no copy
    return frame.take(np.flatnonzero(chosen))
