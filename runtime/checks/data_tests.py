"""What is wrong with a document's data tests before anything runs.

Validation (`port_problems`) finds a check on a port its node does not have, and a
`references` check naming a node that is missing, or that is the node itself or below it (the
check waits for the port it refers to: that would be a cycle). Schema inference
(`column_problems`) finds a check naming a column its port, or the port it refers to, does
not have. Each problem names the node and the check's field (`expect.0.column`); an unknown
column is a `schema` problem, shown but not stopping a run (which fails that check, saying
so), as other columns found from a sample are.
"""

from __future__ import annotations

from collections.abc import Mapping

from runtime.document.spec import Pipeline
from runtime.errors import Problem
from runtime.tables.schema import Schema

CODE = "invalid_check"


def port_problems(
    pipeline: Pipeline,
    outputs: Mapping[str, list[str] | None],
    predecessors: Mapping[str, set[str]],
) -> list[Problem]:
    """The checks' ports and referred nodes that cannot be; `outputs`: each node's output
    port names (None: not known yet)."""
    problems = []
    children: dict[str, set[str]] = {}
    for child, parents in predecessors.items():
        for parent in parents:
            children.setdefault(parent, set()).add(child)
    for node in pipeline.nodes:
        refers = any(check.check == "references" for check in node.expect)
        below = _descendants(node.id, children) if refers else set()
        for index, check in enumerate(node.expect):
            field = f"expect.{index}"
            ports = outputs.get(node.id)
            if ports is not None and check.port not in ports:
                problems.append(_no_port(node.id, f"{field}.port", node.id, check.port, ports))
            if check.check != "references":
                continue
            if check.node not in outputs:
                message = f"checks refer to node '{check.node}', which the pipeline lacks"
                problems.append(Problem(message, node=node.id, field=f"{field}.node", code=CODE))
            elif check.node == node.id or check.node in below:
                message = (
                    f"a references check cannot refer to '{check.node}', which runs after it; "
                    "refer to a node above it or beside it"
                )
                problems.append(Problem(message, node=node.id, field=f"{field}.node", code=CODE))
            elif outputs[check.node] is not None and check.to_port not in outputs[check.node]:
                problems.append(
                    _no_port(
                        node.id, f"{field}.to_port", check.node, check.to_port, outputs[check.node]
                    )
                )
    return problems


def column_problems(
    node_id: str, checks, schemas: Mapping[str, Mapping[str, Schema]]
) -> list[Problem]:
    """The checks of `node_id` that name a column its port lacks (as far as the ports' schemas
    are known: `schemas` by node, then port)."""
    problems = []
    for index, check in enumerate(checks):
        own = schemas.get(node_id, {}).get(check.port)
        named = [("columns", name) for name in getattr(check, "columns", ())] or [
            ("column", name) for name in check.columns_read()
        ]
        for position, (key, name) in enumerate(named):
            field = f"expect.{index}.{key}" + (f".{position}" if key == "columns" else "")
            if own is not None and own.get(name) is None:
                problems.append(_no_column(node_id, field, node_id, check.port, name, own))
        if check.check == "references":
            other = schemas.get(check.node, {}).get(check.to_port)
            if other is not None and other.get(check.to_column) is None:
                field = f"expect.{index}.to_column"
                where = (check.node, check.to_port, check.to_column)
                problems.append(_no_column(node_id, field, *where, other))
    return problems


def _no_port(node_id: str, field: str, owner: str, port: str, ports: list[str]) -> Problem:
    message = f"node '{owner}' has no output port '{port}'; it has {', '.join(ports) or 'none'}"
    return Problem(message, node=node_id, field=field, code=CODE)


def _no_column(
    node_id: str, field: str, owner: str, port: str, name: str, schema: Schema
) -> Problem:
    known = ", ".join(schema.names) or "none"
    message = f"checks name column '{name}', which {owner}.{port} lacks; it has {known}"
    return Problem(message, node=node_id, field=field, code="schema")


def _descendants(node_id: str, children: Mapping[str, set[str]]) -> set[str]:
    found, stack = set(), [node_id]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found
