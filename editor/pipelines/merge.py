"""Three-way merge of pipeline documents: two people's saves from the same base.

`base` is the document the saving editor started from, `theirs` what was saved meanwhile,
`mine` the save arriving now; all three in their JSON form (`to_json_dict`). Nodes, notes and
groups are matched by id and merged field by field, edges as a set, the pipeline's name,
description and settings (`config`, its parameters too) key by key. What only one side changed
is taken from that side; what both changed alike is taken once. What both changed differently
is a conflict, and so is a node one side removed while the other edited it or connected to it:
a merge never drops anybody's content silently. Where a thing sits is layout, not content
(`runtime.document.diff`): when both moved the same thing, mine wins.

A pure function of three dicts: no database, no Django; the API decides what a conflict answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.document.diff import EDGE_KEYS, LAYOUT_FIELDS

PIPELINE_FIELDS = ("name", "description")
ITEM_KINDS = ("nodes", "notes", "groups")
LOST_END = "removed by one side, connected by the other"
MISSING = object()
"""A key or item one document lacks (distinct from a value of None)."""


@dataclass
class Merge:
    """The merged `document`, the `conflicts` that stop it (each `{kind, id, label, reason}`),
    and the ids of the nodes whose merged state is theirs' change (`from_theirs`)."""

    document: dict
    conflicts: list[dict] = field(default_factory=list)
    from_theirs: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.conflicts


def merge_documents(base: dict, theirs: dict, mine: dict) -> Merge:
    """`mine` with what `theirs` changed since `base`, and the conflicts between them."""
    conflicts: list[dict] = []
    from_theirs: list[str] = []
    document = {key: value for key, value in mine.items() if key not in ("nodes", "edges")}
    for name in PIPELINE_FIELDS:
        value, clash = _three_way(base.get(name, MISSING), theirs.get(name), mine.get(name))
        document[name] = value
        if clash:
            conflicts.append(_pipeline_conflict(name))
    document["config"] = _merge_config(
        base.get("config", {}), theirs.get("config", {}), mine.get("config", {}), conflicts
    )
    for kind in ITEM_KINDS:
        sides = (base.get(kind, []), theirs.get(kind, []), mine.get(kind, []))
        taken = from_theirs if kind == "nodes" else []
        document[kind] = _merge_items(kind, *sides, conflicts, taken)
    document["edges"] = _merge_edges(base, theirs, mine, document["nodes"], conflicts)
    node_ids = {node["id"] for node in document["nodes"]}
    document["groups"] = [
        {**group, "nodes": [node for node in group.get("nodes", []) if node in node_ids]}
        for group in document["groups"]
    ]
    return Merge(document, _unique(conflicts), sorted(set(from_theirs)))


def _three_way(base, theirs, mine) -> tuple[object, bool]:
    """The merged value of one field, and whether both sides changed it differently."""
    if theirs in (mine, base):
        return mine, False
    if mine == base:
        return theirs, False
    return mine, True


def _merge_mapping(base: dict, theirs: dict, mine: dict) -> tuple[dict, list[str]]:
    """Two mappings merged key by key; the keys both sides changed differently."""
    merged, clashes = {}, []
    for key in [*mine, *(key for key in theirs if key not in mine), *base]:
        if key in merged or key in clashes:
            continue
        value, clash = _three_way(
            base.get(key, MISSING), theirs.get(key, MISSING), mine.get(key, MISSING)
        )
        if clash:
            clashes.append(key)
        if value is not MISSING:
            merged[key] = value
    return merged, clashes


def _merge_config(base: dict, theirs: dict, mine: dict, conflicts: list[dict]) -> dict:
    """Settings key by key, and the pipeline's parameters by name within them."""
    parameters, clashes = _merge_mapping(
        base.get("parameters", {}), theirs.get("parameters", {}), mine.get("parameters", {})
    )
    conflicts.extend(_pipeline_conflict(f"config.parameters.{key}") for key in clashes)
    strip = {"parameters"}
    config, clashes = _merge_mapping(
        *({k: v for k, v in side.items() if k not in strip} for side in (base, theirs, mine))
    )
    conflicts.extend(_pipeline_conflict(f"config.{key}") for key in clashes)
    return {**config, "parameters": parameters}


def _merge_items(
    kind: str,
    base: list[dict],
    theirs: list[dict],
    mine: list[dict],
    conflicts: list[dict],
    from_theirs: list[str],
) -> list[dict]:
    """Items matched by id, merged field by field (layout: mine wins a clash)."""
    old = {item["id"]: item for item in base}
    their_items = {item["id"]: item for item in theirs}
    my_items = {item["id"]: item for item in mine}
    order = [*my_items, *(item_id for item_id in their_items if item_id not in my_items)]
    merged = []
    for item_id in [*order, *(item_id for item_id in old if item_id not in order)]:
        b, t, m = (items.get(item_id, MISSING) for items in (old, their_items, my_items))
        if t in (m, b):
            value = m
        elif m == b:
            value = t
            from_theirs.append(item_id)
        elif t is MISSING:
            value = MISSING
            conflicts.append(_item_conflict(kind, m, "removed by them, changed by you"))
        elif m is MISSING:
            value = MISSING
            conflicts.append(_item_conflict(kind, t, "changed by them, removed by you"))
        else:
            value, clashes = _merge_fields(b, t, m)
            if any(key not in LAYOUT_FIELDS for key in clashes):
                conflicts.append(_item_conflict(kind, m, "changed on both sides"))
            if _changed_content(b, t):
                from_theirs.append(item_id)
        if value is not MISSING:
            merged.append(value)
    return merged


def _merge_fields(base, theirs: dict, mine: dict) -> tuple[dict, list[str]]:
    """One item merged field by field (an item both added starts from an empty base)."""
    return _merge_mapping({} if base is MISSING else base, theirs, mine)


def _changed_content(base, theirs: dict) -> bool:
    if base is MISSING:
        return True
    return any(
        base.get(key) != theirs.get(key) for key in {*base, *theirs} if key not in LAYOUT_FIELDS
    )


def _merge_edges(
    base: dict, theirs: dict, mine: dict, nodes: list[dict], conflicts: list[dict]
) -> list[dict]:
    """Edges as a set: each side's additions and removals both apply. An edge to a node the
    merge lost, or a second edge into an input port each side filled once, is a conflict."""
    old, their_edges, my_edges = (
        {_edge_key(edge): edge for edge in side.get("edges", [])} for side in (base, theirs, mine)
    )
    kept = [
        edge
        for key, edge in {**their_edges, **my_edges}.items()
        if (key in their_edges and key in my_edges) or key not in old
    ]
    node_ids = {node["id"]: node for node in nodes}
    labels = {node["id"]: node for side in (theirs, mine) for node in side.get("nodes", [])}
    edges = []
    for edge in kept:
        lost = [end for end in (edge["source"], edge["target"]) if end not in node_ids]
        if lost:
            conflicts.extend(
                _item_conflict("nodes", labels.get(end, {"id": end}), LOST_END) for end in lost
            )
            continue
        edges.append(edge)
    for target, port in _overfilled_inputs(edges, their_edges.values(), my_edges.values()):
        conflicts.append(_item_conflict("nodes", node_ids[target], f"both connected its {port}"))
    return edges


def _overfilled_inputs(edges, theirs, mine) -> list[tuple[str, str]]:
    """Input ports with several edges after the merge though neither side gave them several."""

    def counts(side) -> dict:
        found: dict = {}
        for edge in side:
            key = (edge["target"], edge.get("target_port", "in"))
            found[key] = found.get(key, 0) + 1
        return found

    merged, their_counts, my_counts = counts(edges), counts(theirs), counts(mine)
    return [
        key
        for key, count in merged.items()
        if count > 1 and their_counts.get(key, 0) <= 1 and my_counts.get(key, 0) <= 1
    ]


def _edge_key(edge: dict) -> tuple[str, ...]:
    defaults = {"source_port": "out", "target_port": "in"}
    return tuple(str(edge.get(key, defaults.get(key))) for key in EDGE_KEYS)


def _item_conflict(kind: str, item: dict, reason: str) -> dict:
    return {
        "kind": kind.rstrip("s"),
        "id": item["id"],
        "label": item.get("label") or item["id"],
        "reason": reason,
    }


def _pipeline_conflict(name: str) -> dict:
    return {"kind": "pipeline", "id": name, "label": name, "reason": "changed on both sides"}


def _unique(conflicts: list[dict]) -> list[dict]:
    seen, unique = set(), []
    for conflict in conflicts:
        key = (conflict["kind"], conflict["id"])
        if key not in seen:
            seen.add(key)
            unique.append(conflict)
    return unique
