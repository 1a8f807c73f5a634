"""Two runs side by side, node by node: what each did, and how their results differ.

Nodes are matched by id across the two runs' documents (the snapshots that ran); a node only
one run has is listed as added (only in `b`) or removed (only in `a`). For each node: its
status, rows in and out, duration and whether it was reused, in each run; the document
fields that changed between the runs; for each port with a stored result, its columns in each
run and the columns added, removed and changed in type; and, for output nodes when keys are
named, the rows added, removed and changed (runtime/results/comparison/rows.py).

What a run stored is found through its record: `metrics["results"] = {port: key}`, each key
looked up in the side's `stored` files (the caller asks the result store for them). A key
with no file (evicted, or the cache was off) is "not kept": the answer says so and never
guesses.
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from runtime.budget import Budget
from runtime.document.diff import diff_documents
from runtime.errors import ComparisonError
from runtime.operators.registry import Registry, default_registry
from runtime.results.comparison.columns import column_changes, stored_columns
from runtime.results.comparison.records import RunRecord
from runtime.results.comparison.rows import Side, compare_rows

NOT_KEPT = "data not kept"


def compare_runs(
    a: RunRecord,
    b: RunRecord,
    *,
    keys: Sequence[str] = (),
    node: str | None = None,
    spill_dir: Path,
    registry: Registry | None = None,
    budget: Budget | None = None,
) -> list[dict]:
    """Every node of either run, upstream first. With `keys`, the rows of output nodes are
    compared too: of `node` alone when given, else of every output node both runs have."""
    registry = registry or default_registry()
    nodes_a, nodes_b = _nodes(a.document), _nodes(b.document)
    diff = diff_documents(a.document, b.document)
    changed = {
        entry["id"]: [c["field"] for c in entry["changes"]] for entry in diff["nodes"]["changed"]
    }
    kinds = {
        node_id: _kind(registry, (nodes_b.get(node_id) or nodes_a[node_id]).get("operator"))
        for node_id in {*nodes_a, *nodes_b}
    }
    if node is not None:
        _check_rows_node(node, a, b, nodes_a, nodes_b, kinds)
        if not keys:
            raise ComparisonError("name the key columns to compare rows by", field="keys")
        compared = {node}
    else:
        both = [node_id for node_id in nodes_a if node_id in nodes_b]
        compared = {node_id for node_id in both if keys and kinds[node_id] == "output"}
    entries = []
    for node_id in _ordered(a.document, b.document):
        document_node = nodes_b.get(node_id) or nodes_a[node_id]
        entry = {
            "id": node_id,
            "label": document_node.get("label") or "",
            "operator": document_node.get("operator"),
            "kind": kinds[node_id],
            "presence": "both" if node_id in nodes_a and node_id in nodes_b
            else ("a" if node_id in nodes_a else "b"),
            "changes": changed.get(node_id, []),
            "a": _figures(a, node_id) if node_id in nodes_a else None,
            "b": _figures(b, node_id) if node_id in nodes_b else None,
        }  # fmt: skip
        entry["results"], files = _results(a, b, node_id)
        if node_id in compared:
            try:
                entry["rows"] = _rows(
                    node_id, entry["results"], files, a, b, keys, spill_dir, budget
                )
            except ComparisonError as error:
                raise ComparisonError(str(error), field=error.field, node=node_id) from error
        entries.append(entry)
    return entries


def _nodes(document: dict) -> dict[str, dict]:
    return {item["id"]: item for item in document.get("nodes", []) if "id" in item}


def _kind(registry: Registry, operator: str | None) -> str | None:
    found = registry.get(operator) if operator else None
    return found.kind if found is not None else None


def _ordered(*documents: dict) -> list[str]:
    """The nodes of both documents, each after those feeding it (id order when the two
    documents' edges together make a cycle)."""
    ids = sorted({item["id"] for document in documents for item in _nodes(document).values()})
    sorter = graphlib.TopologicalSorter({node_id: set() for node_id in ids})
    for document in documents:
        for edge in document.get("edges", []):
            if edge.get("source") in ids and edge.get("target") in ids:
                sorter.add(edge["target"], edge["source"])
    try:
        sorter.prepare()
    except graphlib.CycleError:
        return ids
    ordered = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready())
        ordered += ready
        sorter.done(*ready)
    return ordered


def _figures(run: RunRecord, node_id: str) -> dict:
    """What one node did in one run (all None when the run recorded nothing for it)."""
    record = run.nodes.get(node_id) or {}
    metrics = _mapping(record.get("metrics"))
    rows_in = [value for value in _mapping(metrics.get("rows_in")).values() if _number(value)]
    return {
        "status": record.get("status"),
        "rows_in": sum(rows_in) if rows_in else None,
        "rows_out": metrics.get("rows_out") if _number(metrics.get("rows_out")) else None,
        "duration_s": metrics.get("duration_s") if _number(metrics.get("duration_s")) else None,
        "cached": bool(metrics.get("cached")),
        "error": record.get("error") or "",
    }


def _mapping(value) -> Mapping:
    """`value` if it is a mapping, else an empty one (a record edited by hand, say)."""
    return value if isinstance(value, Mapping) else {}


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _results(a: RunRecord, b: RunRecord, node_id: str) -> tuple[list[dict], dict]:
    """Each port either run stored a result of: kept or not in each, its columns, and how they
    changed when both are kept; and the kept files by port and side (never in an answer)."""
    keys = {"a": a.results_of(node_id), "b": b.results_of(node_id)}
    entries, files = [], {}
    for port in dict.fromkeys([*keys["a"], *keys["b"]]):
        entry = {"port": port, "a": None, "b": None, "column_changes": None, "note": ""}
        columns, files[port] = {}, {}
        for side, run in (("a", a), ("b", b)):
            key = keys[side].get(port)
            if key is None:
                continue
            path = run.stored.get(key)
            columns[side] = _columns_at(path)
            entry[side] = {"kept": columns[side] is not None, "columns": None}
            if columns[side] is not None:
                files[port][side] = path
                entry[side]["columns"] = [{"name": c.name, "type": c.type} for c in columns[side]]
        if len(files[port]) == 2:
            entry["column_changes"] = column_changes(columns["a"], columns["b"])
        entry["note"] = _note(entry, a, b)
        entries.append(entry)
    return entries, files


def _columns_at(path: Path | None):
    if path is None:
        return None
    try:
        return stored_columns(path)
    except OSError:  # evicted since it was looked up, or not a whole file
        return None


def _note(entry: dict, a: RunRecord, b: RunRecord) -> str:
    """ "data not kept for run #3" when a side stored a result that is gone."""
    gone = [
        run.name for side, run in (("a", a), ("b", b)) if entry[side] and not entry[side]["kept"]
    ]
    return f"{NOT_KEPT} for {' and '.join(gone)}" if gone else ""


def _check_rows_node(node, a, b, nodes_a, nodes_b, kinds) -> None:
    for run, nodes in ((a, nodes_a), (b, nodes_b)):
        if node not in nodes:
            raise ComparisonError(f"node '{node}' is not in {run.name}", field="node")
    if kinds[node] != "output":
        raise ComparisonError(
            f"node '{node}' is not an output node: rows are compared at output nodes",
            field="node",
        )


def _rows(node_id: str, results: list[dict], files: dict, a, b, keys, spill_dir, budget) -> dict:
    """The rows added, removed and changed at an output node, or why they cannot be told."""
    entry = results[0] if results else None
    for side, run in (("a", a), ("b", b)):
        if entry is None or entry[side] is None:
            return {
                "status": "not_kept",
                "message": f"{NOT_KEPT}: {run.name} stored no result here",
            }
        if not entry[side]["kept"]:
            return {"status": "not_kept", "message": f"{NOT_KEPT} for {run.name}"}
    paths = files[entry["port"]]
    sides = [
        Side(f"the result of '{node_id}' in {run.name}", paths[side])
        for side, run in (("a", a), ("b", b))
    ]
    return compare_rows(*sides, keys, spill_dir=spill_dir, budget=budget)
