"""The columns the planner sees: a node whose output_schema raises has none, said once."""

from __future__ import annotations

import logging

from runtime.io.paths import FileArea
from runtime.operators.contract import Operator
from runtime.operators.registry import Registry
from runtime.plan import build_plan
from runtime.plan.schemas import output_schemas
from tests.runtime.engine_operators import Source, StepParams, document


class BrokenSchema(Operator):
    """A plugin whose output_schema has a bug."""

    name = "broken_schema"
    kind = "process"
    title = "Broken schema"
    Params = StepParams

    def output_schema(self, ctx, inputs):
        raise KeyError("value")

    def run(self, ctx, inputs):
        return {"out": inputs["in"]}


def test_a_raising_output_schema_leaves_its_columns_unknown_and_logs_one_line(tmp_path, caplog):
    nodes = {"read": "test_source", "first": "broken_schema", "second": "broken_schema"}
    pipeline = document(nodes, ["read->first", "read->second"])
    plan = build_plan(pipeline, registry=Registry([Source, BrokenSchema]))
    with caplog.at_level(logging.DEBUG, logger="runtime.plan.schemas"):
        schemas = output_schemas(plan, FileArea.of(tmp_path))
        again = output_schemas(plan, FileArea.of(tmp_path))
    assert schemas["first"] is None and schemas["second"] is None and schemas["read"] is not None
    assert again == schemas
    assert [(record.levelname, record.getMessage()) for record in caplog.records] == [
        (
            "WARNING",
            "columns of node 'first' (broken_schema) unknown to the planner: output_schema "
            "raised KeyError: 'value' (logged once per operator and error class)",
        )
    ]
