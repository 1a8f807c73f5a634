"""Checks of a document's notes and groups against the rest of it.

Notes and groups only arrange the canvas (the runtime never reads them), but a document
that contradicts itself is refused when it loads: a repeated note or group id, a group that
frames a node the pipeline does not have. Each problem names the item and the field by
their place in the document (`groups.0.nodes.1`), as the fields pydantic refuses are named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime.errors import Problem

if TYPE_CHECKING:
    from runtime.document.spec import Pipeline


def canvas_item_problems(pipeline: Pipeline) -> list[Problem]:
    """Every note or group that contradicts the document, in document order."""
    problems = [
        *_repeated_ids("notes", "note", [note.id for note in pipeline.notes]),
        *_repeated_ids("groups", "group", [group.id for group in pipeline.groups]),
    ]
    ids = {node.id for node in pipeline.nodes}
    for index, group in enumerate(pipeline.groups):
        seen: set[str] = set()
        for place, node_id in enumerate(group.nodes):
            if node_id not in ids:
                code = "unknown_group_node"
                fix = f"frames '{node_id}', which is no node of this pipeline; remove it"
            elif node_id in seen:
                code = "repeated_group_node"
                fix = f"frames '{node_id}' twice; keep it once"
            else:
                seen.add(node_id)
                continue
            problems.append(
                _item_problem(
                    f"groups.{index}.nodes.{place}",
                    f"Groups, item {index + 1}, Nodes, item {place + 1}",
                    f"group '{group.id}' {fix}",
                    code,
                )
            )
    return problems


def _repeated_ids(key: str, noun: str, ids: list[str]) -> list[Problem]:
    """A problem at every use of an id after its first."""
    seen: set[str] = set()
    problems = []
    for index, item_id in enumerate(ids):
        if item_id in seen:
            problems.append(
                _item_problem(
                    f"{key}.{index}.id",
                    f"{key.capitalize()}, item {index + 1}, Id",
                    f"another {noun} has the id '{item_id}'; give each {noun} its own id",
                    f"duplicate_{noun}",
                )
            )
        seen.add(item_id)
    return problems


def _item_problem(field: str, title: str, message: str, code: str) -> Problem:
    """A problem at a note's or group's field, its message led by the field's title."""
    return Problem(f"{title}: {message}", field=field, code=code, field_title=title)
