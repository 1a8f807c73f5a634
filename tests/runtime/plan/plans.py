"""Small plans for the pass tests: a compact document over CSV files, its plan and schemas."""

from __future__ import annotations

from pathlib import Path

from runtime.checks.inference import infer_schemas
from runtime.plan import Plan, build_plan
from tests.runtime.engine_operators import document

USERS = "id,name,age,country\n1,ada,36,FR\n2,bob,17,DE\n3,cyd,52,FR\n"
COUNTRIES = "country,label,age\nFR,France,1\nDE,Germany,2\n"


def plan_of(nodes: dict, edges: list[str], **config) -> Plan:
    """The plan of a document given as in `tests.runtime.engine_operators.document`."""
    return build_plan(document(nodes, edges, **config))


def with_schemas(folder: Path, nodes: dict, edges: list[str], **config) -> tuple[Plan, dict]:
    """The plan, and the schemas inference finds for it, with users.csv and countries.csv."""
    (folder / "users.csv").write_text(USERS)
    (folder / "countries.csv").write_text(COUNTRIES)
    pipeline = document(nodes, edges, **config)
    inferred = infer_schemas(pipeline, data_root=folder).nodes
    schemas = {node_id: found.outputs for node_id, found in inferred.items()}
    return build_plan(pipeline), schemas


def reads(plan: Plan, node_id: str) -> list[str]:
    """The nodes `node_id` reads, in port then edge order."""
    return [source for sources in plan.nodes[node_id].inputs.values() for source, _ in sources]


USERS_NODE = ("csv_input", {"path": "users.csv"})
COUNTRIES_NODE = ("csv_input", {"path": "countries.csv"})
WRITE = ("csv_output", {"path": "out.csv"})
