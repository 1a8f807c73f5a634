"""Emitters of `sql_input` and `sql_output`: the runtime's own query and write functions over
a connection whose URL the script reads from an environment variable it names."""

from __future__ import annotations

import re

from runtime.compile import support
from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.operators.sql import reading, writing

PREFIX = "PIPEWRIGHT_CONN_"


def variable(connection: str) -> str:
    """The environment variable holding a connection's URL: `PIPEWRIGHT_CONN_<NAME>`."""
    return PREFIX + re.sub(r"[^A-Za-z0-9]", "_", connection).upper()


def _connected(node: NodeCode) -> str:
    name = node.fixed("connection")
    node.carry(support.database, support.ScriptContext)
    return f"with database({name!r}, {variable(name)!r}, root) as connection:"


@emits("sql_input")
def sql_input(node: NodeCode) -> None:
    node.carry(reading.query_frame)
    values = ", ".join(
        f"{key!r}: {node.value_at(f'params.{key}', node.raw.get('params', {}).get(key), value)}"
        for key, value in node.params.params.items()
    )
    columns = "" if node.columns is None else f", None, {literal(node.columns)}"
    node.line(_connected(node))
    node.line(
        f"    {node.outputs['out']} = query_frame(ScriptContext(), connection, "
        f"{node.fixed('query')!r}, {{{values}}}, None{columns})"
    )


@emits("sql_output")
def sql_output(node: NodeCode) -> None:
    node.carry(writing.write_frame)
    params = node.params
    context = (
        f"ScriptContext(table={params.table!r}, mode={params.mode!r}, keys={params.keys!r}, "
        f"chunk_size={params.chunk_size!r})"
    )
    node.line(_connected(node))
    node.line(f"    write_frame({context}, connection, {node.inputs['in']})")
    node.line(f'print("wrote", len({node.inputs["in"]}), "rows to table", {params.table!r})')
