"""The optimised plan in words: what runs where and why, what the passes changed."""

from __future__ import annotations

import dataclasses

from runtime.plan.model import Plan
from runtime.relational import SINK, Input, Relation


def explain(plan: Plan) -> str:
    """A readable account of `plan`, for `python -m runtime explain` and the editor."""
    lines = [f"Plan of '{plan.name}'"]
    in_segments = set()
    for segment in plan.segments:
        in_segments |= set(segment.nodes)
        lines.append(f"{segment.id} on {segment.backend} ({segment.reason}):")
        names = {
            id(relation): node_id if port in ("out", SINK) else f"{node_id}.{port}"
            for node_id, ports in segment.relations.items()
            for port, relation in ports.items()
        }
        if not segment.relations:  # a partitioned chain: its members run their own pandas
            lines.append(f"  {' → '.join(segment.nodes)}")
        for node_id in segment.nodes:
            for relation in segment.relations.get(node_id, {}).values():
                lines.append(f"  {names[id(relation)]} = {describe(relation, names)}")
    pandas = [node_id for node_id in plan.order if node_id not in in_segments]
    if pandas:
        lines.append(f"on pandas: {', '.join(pandas)}")
    for node_id, reason in plan.eliminated.items():
        lines.append(f"not run: {node_id} ({reason})")
    for alias, kept in plan.merged.items():
        lines.append(f"computed once: {alias} is {kept}")
    lines += [f"- {note}" for note in plan.notes]
    if plan.tuned:
        lines.append("tuning from past runs:")
        lines += [f"  {choice.text()}" for choice in plan.tuned]
    if plan.cache is not None:
        lines.append("result store:")
        lines += [f"  {node_id}: {why}" for node_id, why in reuse_reasons(plan).items()]
    return "\n".join(lines)


def reuse_reasons(plan: Plan) -> dict[str, str]:
    """Why each node runs or is reused, by node, parents first (empty without a store)."""
    if plan.cache is None:
        return {}
    return {node_id: plan.cache.why[node_id] for node_id in plan.cache.order}


def describe(relation: Relation, names: dict[int, str]) -> str:
    """One relation as `Kind(field=value, ..., input)`; an input that is another node's
    relation (in `names`, by identity) or a frame from outside is called by its node."""
    if isinstance(relation, Input):
        node_id, port = relation.source
        return f"frame of {node_id}" if port == "out" else f"frame of {node_id}.{port}"
    parts = []
    for item in dataclasses.fields(relation):
        if not item.repr:  # what messages name, not what the relation means
            continue
        value = getattr(relation, item.name)
        if isinstance(value, Relation):
            parts.append(_named(value, names))
        elif isinstance(value, tuple) and value and all(isinstance(v, Relation) for v in value):
            parts.append(", ".join(_named(child, names) for child in value))
        elif value not in (None, (), {}, ""):
            parts.append(f"{item.name}={value!r}")
    return f"{type(relation).__name__}({', '.join(parts)})"


def _named(relation: Relation, names: dict[int, str]) -> str:
    return names.get(id(relation)) or describe(relation, names)


def explain_json(plan: Plan) -> dict:
    """What `explain` says, as data: for the API and the editor's plan view."""
    in_segments = {node_id for segment in plan.segments for node_id in segment.nodes}
    return {
        "segments": [
            {
                "id": segment.id,
                "backend": segment.backend,
                "nodes": list(segment.nodes),
                "reason": segment.reason,
            }
            for segment in plan.segments
        ],
        "pandas": [node_id for node_id in plan.order if node_id not in in_segments],
        "fallbacks": dict(plan.fallbacks),
        "eliminated": dict(plan.eliminated),
        "merged": dict(plan.merged),
        "notes": list(plan.notes),
        "reuse": reuse_reasons(plan),
        "tuning": [{"choice": choice.what, "because": choice.because} for choice in plan.tuned],
        "text": explain(plan),
    }
