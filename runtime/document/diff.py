"""What changed between two pipeline documents, as a person reviewing it would list it.

History uses it to tell whether a save changed anything and to summarise each revision; the
editor colours the canvas from it. Both documents are in their JSON form (`to_json_dict`).
Where things sit is layout, not content: a node, note or group that only moved (or a frame
that was only resized) is listed under `moved`, never as changed, and `changes_content`
ignores it, so that dragging a node about never makes a revision.
"""

from __future__ import annotations

from collections.abc import Iterable

NODE_FIELDS = ("operator", "label", "retries", "timeout_s", "expect")
NOTE_FIELDS = ("text",)
GROUP_FIELDS = ("label", "nodes")
LAYOUT_FIELDS = ("position", "width", "height")
PIPELINE_FIELDS = ("name", "description")
EDGE_KEYS = ("source", "source_port", "target", "target_port")
SUMMARY_NAMES = 3
"""A summary names at most this many items of a kind, then counts the rest."""


def diff_documents(before: dict, after: dict) -> dict:
    """Every difference from `before` to `after`: settings, nodes, edges, notes, groups."""
    return {
        "pipeline": _pipeline_changes(before, after),
        "nodes": _items_diff(before.get("nodes", []), after.get("nodes", []), _node_changes),
        "edges": _edges_diff(before.get("edges", []), after.get("edges", [])),
        "notes": _items_diff(
            before.get("notes", []), after.get("notes", []), _field_changes(NOTE_FIELDS)
        ),
        "groups": _items_diff(
            before.get("groups", []), after.get("groups", []), _field_changes(GROUP_FIELDS)
        ),
    }


def changes_content(diff: dict) -> bool:
    """Whether `diff` holds more than moves: what makes a save a new revision."""
    if diff["pipeline"] or diff["edges"]["added"] or diff["edges"]["removed"]:
        return True
    return any(diff[kind][part] for kind in ("nodes", "notes", "groups") for part in _ITEM_PARTS)


def summarise(diff: dict) -> str:
    """One line in words: "added sort_1; changed adults (params.condition); removed 2 edges"."""
    parts = []
    for kind, noun in (("nodes", ""), ("notes", "note "), ("groups", "group ")):
        items = diff[kind]
        if items["added"]:
            parts.append(f"added {noun}{_names(items['added'])}")
        if items["changed"]:
            parts.append(f"changed {noun}{_changed_names(items['changed'])}")
        if items["removed"]:
            parts.append(f"removed {noun}{_names(items['removed'])}")
    for verb in ("added", "removed"):
        count = len(diff["edges"][verb])
        if count:
            parts.append(f"{verb} {count} edge{'s' if count != 1 else ''}")
    if diff["pipeline"]:
        parts.append("changed " + ", ".join(change["field"] for change in diff["pipeline"]))
    if not parts and any(diff[kind]["moved"] for kind in ("nodes", "notes", "groups")):
        parts.append("moved things on the canvas")
    return "; ".join(parts) or "no changes"


_ITEM_PARTS = ("added", "removed", "changed")


def _change(field: str, before: object, after: object) -> dict:
    return {"field": field, "from": before, "to": after}


def _pipeline_changes(before: dict, after: dict) -> list[dict]:
    changes = [
        _change(field, before.get(field), after.get(field))
        for field in PIPELINE_FIELDS
        if before.get(field) != after.get(field)
    ]
    return changes + _mapping_changes("config", before.get("config", {}), after.get("config", {}))


def _mapping_changes(prefix: str, before: dict, after: dict) -> list[dict]:
    """One change per key of two mappings whose values differ (a missing key reads None)."""
    return [
        _change(f"{prefix}.{key}", before.get(key), after.get(key))
        for key in sorted({*before, *after})
        if before.get(key) != after.get(key)
    ]


def _node_changes(before: dict, after: dict) -> list[dict]:
    return _field_changes(NODE_FIELDS)(before, after) + _mapping_changes(
        "params", before.get("params", {}), after.get("params", {})
    )


def _field_changes(fields: Iterable[str]):
    fields = tuple(fields)

    def changes(before: dict, after: dict) -> list[dict]:
        return [
            _change(field, before.get(field), after.get(field))
            for field in fields
            if before.get(field) != after.get(field)
        ]

    return changes


def _items_diff(before: list[dict], after: list[dict], changes_of) -> dict:
    """Items matched by id: added, removed, changed (with their changes) and only moved."""
    old = {item["id"]: item for item in before}
    new = {item["id"]: item for item in after}
    diff = {"added": [], "removed": [], "changed": [], "moved": []}
    for item_id, item in new.items():
        if item_id not in old:
            diff["added"].append(item_id)
            continue
        changes = changes_of(old[item_id], item)
        if changes:
            diff["changed"].append({"id": item_id, "changes": changes})
        if any(old[item_id].get(field) != item.get(field) for field in LAYOUT_FIELDS):
            diff["moved"].append(item_id)
    diff["removed"] = [item_id for item_id in old if item_id not in new]
    for part in diff.values():
        part.sort(key=lambda entry: entry["id"] if isinstance(entry, dict) else entry)
    return diff


def _edges_diff(before: list[dict], after: list[dict]) -> dict:
    old = {_edge_key(edge) for edge in before}
    new = {_edge_key(edge) for edge in after}
    return {
        "added": [dict(zip(EDGE_KEYS, key, strict=True)) for key in sorted(new - old)],
        "removed": [dict(zip(EDGE_KEYS, key, strict=True)) for key in sorted(old - new)],
    }


def _edge_key(edge: dict) -> tuple[str, ...]:
    return tuple(str(edge.get(key)) for key in EDGE_KEYS)


def _names(ids: list[str]) -> str:
    shown = ", ".join(ids[:SUMMARY_NAMES])
    more = len(ids) - SUMMARY_NAMES
    return f"{shown} and {more} more" if more > 0 else shown


def _changed_names(changed: list[dict]) -> str:
    """Each changed item with the fields that changed, while they are few; else the names."""
    if len(changed) > SUMMARY_NAMES:
        return _names([entry["id"] for entry in changed])
    return ", ".join(f"{entry['id']} ({_fields(entry['changes'])})" for entry in changed)


def _fields(changes: list[dict]) -> str:
    return ", ".join(change["field"] for change in changes[:SUMMARY_NAMES])
