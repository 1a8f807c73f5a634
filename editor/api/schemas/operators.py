"""The OpenAPI contract of the operator catalog the palette and node forms are built from."""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import Field


class Port(Schema):
    name: str
    many: bool
    required: bool
    description: str


class OutputsFrom(Schema):
    """How a node's output ports follow its params: one per item of a list param."""

    param: str = Field(description="The list param whose items name the ports (`conditions`).")
    key: str = Field(description="The field of each item that is a port's name (`name`).")
    after: list[str] = Field(description="Ports every node has, after the items' (`otherwise`).")


class Operator(Schema):
    """A catalog entry: the palette and the node form are built from it."""

    name: str
    kind: str
    title: str
    description: str
    summary: str = Field(
        description='What a node does, for its card: a template of its params ("by {group_by}").'
    )
    keywords: list[str] = Field(
        description='Other words the palette search finds it by ("crosstab" for pivot).'
    )
    inputs: list[Port]
    outputs: list[Port] = Field(
        description="The output ports; with `outputs_from`: the ones every node has."
    )
    outputs_from: OutputsFrom | None = Field(
        description="Set when a node's outputs follow its params (route); null: `outputs` are all."
    )
    params_schema: dict[str, Any] = Field(description="The JSON Schema of the node's params.")


class Statuses(Schema):
    """Node and run statuses, and their named sets (`FINAL`, `FAILURES`, `ACTIVE`) by kind."""

    node: list[str]
    run: list[str]
    sets: dict[str, dict[str, list[str]]] = Field(
        description='By kind ("node", "run"), each set\'s statuses: {"node": {"FINAL": [...]}}.'
    )


class OperatorCatalog(Schema):
    items: list[Operator]
    count: int
    statuses: Statuses
    checks: dict[str, Any] = Field(
        description="The JSON Schema of a node's data tests (`{expect: [...]}`)"
    )
