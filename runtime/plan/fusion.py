"""Fusion: chains of nodes that lower to relational algebra become segments run by DuckDB.

Every node is asked to lower (`Operator.lower`); those that can, and touch each other, form a
segment that one query runs, with Arrow frames at its edges. The rest run on pandas, the
reference semantics. `config.backend` (or `--backend`) decides: `pandas` lowers nothing,
`duckdb` lowers every node that can, and `auto` does so only when the pipeline reads enough
data for DuckDB to pay for itself, since pandas starts sooner on small files. Given figures
of past runs (`measured`, runtime/tuning/), `auto` judges each segment by what its nodes made
instead (runtime/tuning/choices.py), and a segment judged small runs on pandas.

A node that lowers may still read a file DuckDB cannot read as pandas does (a column of a type
the scan refuses). Given a `probe`, fusion checks each lowered node's reads while planning and
leaves only the refused node to pandas: the segment's boundary moves around it, and the plan's
`fallbacks` say which node, which column and why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

from runtime.errors import NotLowerable, PipewrightError
from runtime.expressions import ExpressionError
from runtime.io.incremental import is_incremental
from runtime.io.paths import FileArea
from runtime.operators.contract import InputRelations, InputSchemas
from runtime.operators.file_checks import input_bytes
from runtime.operators.lifecycle import has_lifecycle
from runtime.plan.model import Plan, PlannedNode, Segment
from runtime.plan.passes.projection import Columns, needed_columns
from runtime.plan.reuse.stored_result import StoredResult
from runtime.plan.schemas import OutputSchemas, input_schemas, output_schemas
from runtime.relational import Input, Relation, Scan
from runtime.tuning.choices import Choice, segment_backend
from runtime.tuning.figures import NodeFigures

MAX_SEGMENT_NODES = 64
"""Longer chains become several segments: one query stays small enough for DuckDB to plan
(and for the renderer, which recurses along a chain)."""
AUTO_MIN_BYTES = 32 * 2**20
"""Under `auto`, a pipeline reading less than this from files runs on pandas throughout."""
Probe = Callable[[Relation, FileArea], None]
"""Checks a lowered node's relation as the backend would run it, raising `NotLowerable` with
the reason (runtime/backends/duckdb_reads.py: its files' column types)."""


def fuse(
    plan: Plan,
    backend: str,
    *,
    data_root: FileArea,
    connections=None,
    keep: Iterable[str] = (),
    schemas: OutputSchemas | None = None,
    probe: Probe | None = None,
    measured: Mapping[str, NodeFigures] | None = None,
) -> Plan:
    """`plan` with its segments and a note per decision; `keep` nodes stay on pandas (a
    preview reads their frame). `schemas`: the nodes' output schemas when the caller has
    them (the passes keep every node's columns; pruning only drops columns nobody reads).
    `probe`: what checks, while planning, that the backend reads each lowered node's files
    as pandas does (None: the run finds it, and runs the whole segment on pandas).
    `measured`: past runs' figures by node, which decide each segment under `auto`."""
    tuning = backend == "auto" and measured is not None
    if backend == "pandas":
        return _noted(plan, "backend pandas: every node runs on pandas")
    read_by_node = {node_id: _bytes_read(node, data_root) for node_id, node in plan.nodes.items()}
    read = sum(read_by_node.values())
    if backend == "auto" and read < AUTO_MIN_BYTES:
        judged = segment_backend(plan.nodes, measured, read) if tuning else None
        if judged is None or judged[0] == "pandas":  # no node made much: plan no further
            small = f"backend auto: the inputs are small ({_size(read)}), pandas runs all"
            plan = _noted(plan, small)
            said = [Choice("every node on pandas", judged[1])] if judged else []
            return dataclasses.replace(plan, tuned=[*plan.tuned, *said])
    written = plan.nodes
    plan, needed = _pruned(plan, keep)
    outputs = output_schemas(plan, data_root, connections) if schemas is None else schemas
    needed = _known(needed, outputs)
    plan = _noted_reads(plan, needed)
    schemas = input_schemas(plan, outputs)
    planned = {node_id for segment in plan.segments for node_id in segment.nodes}
    refused = _refusals(plan, schemas, needed, set(keep), planned, probe, data_root)
    segment_of = _segments(plan, refused)
    segments, tuned, on_pandas = list(plan.segments), list(plan.tuned), set()
    for index, members in enumerate(_members(plan, segment_of), start=1):
        reason = "backend duckdb" if backend == "duckdb" else f"backend auto, reading {_size(read)}"
        files = sum(read_by_node.get(member, 0) for member in members)
        judged = segment_backend(members, measured, files) if tuning else None
        if judged is None and tuning and read < AUTO_MIN_BYTES:
            judged = "pandas", f"no past figures of its nodes; small inputs ({_size(read)})"
        if judged is not None:
            chosen, reason = judged
            tuned.append(Choice(f"segment:{index} ({', '.join(members)}) on {chosen}", reason))
            if chosen == "pandas":
                on_pandas.update(members)
                continue
            reason = f"tuned: {reason}"
        relations = _relations(plan, members, schemas, needed)
        segments.append(Segment(f"segment:{index}", "duckdb", members, reason, relations))
    fallbacks = {node_id: why for node_id, why in refused.items() if node_id not in planned}
    notes = [f"{node_id} runs on pandas: {why}" for node_id, why in fallbacks.items()]
    refused = {**refused, **dict.fromkeys(on_pandas, "tuned to pandas")}
    # Nodes left to pandas run their params as written: their messages name fields as the
    # document has them (pandas skips unread work by itself).
    nodes = {
        node_id: written[node_id] if node_id in refused else node
        for node_id, node in plan.nodes.items()
    }
    return dataclasses.replace(
        plan, nodes=nodes, segments=segments, notes=[*plan.notes, *notes], fallbacks=fallbacks,
        tuned=tuned,
    )  # fmt: skip


def _pruned(plan: Plan, keep: Iterable[str]) -> tuple[Plan, dict[str, Columns]]:
    """`plan` with each node's params less what nothing downstream reads (a transform's
    unread mappings), noted, and the columns read of each node; only nodes that lower run
    these params."""
    needed = needed_columns(plan, keep_all=keep)
    nodes, notes = {}, []
    for node_id, node in plan.nodes.items():
        params = node.operator.pruned(node.params, needed[node_id])
        if params is not node.params:
            notes.append(f"{node_id}: what nothing downstream reads is not computed")
        nodes[node_id] = dataclasses.replace(node, params=params)
    return dataclasses.replace(plan, nodes=nodes, notes=[*plan.notes, *notes]), needed


def _known(needed: dict[str, Columns], outputs: OutputSchemas) -> dict[str, Columns]:
    """`needed` less the columns a node's output does not have, where its columns are known
    (None where it needs them all): a join asks both its sides for every column it passes
    on, each side has only its own."""
    known = {}
    for node_id, columns in needed.items():
        schema = (outputs.get(node_id) or {}).get("out")
        if columns is not None and schema is not None:
            columns = None if columns >= set(schema.names) else columns & set(schema.names)
        known[node_id] = columns
    return known


def _noted_reads(plan: Plan, needed: dict[str, Columns]) -> Plan:
    """`plan` with a note naming the columns each input reads, where it reads fewer than all."""
    notes = [
        f"{node_id} reads only {', '.join(sorted(needed[node_id])) or 'no column'}"
        for node_id, node in plan.nodes.items()
        if node.operator.kind == "input" and needed[node_id] is not None
    ]
    return dataclasses.replace(plan, notes=[*plan.notes, *notes])


def _bytes_read(node: PlannedNode, area: FileArea) -> int:
    """What a node reads from files: its input files, or its stored results when reused."""
    if isinstance(node.operator, StoredResult):
        return node.operator.stored_bytes
    return input_bytes(node.operator, node.params, area)


def _noted(plan: Plan, note: str) -> Plan:
    return dataclasses.replace(plan, notes=[*plan.notes, note])


def _size(count: int) -> str:
    for unit in ("bytes", "KiB", "MiB"):
        if count < 1024 or unit == "MiB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError  # the loop always returns


def _lowered(
    node: PlannedNode, inputs: InputRelations, schemas: InputSchemas | None, wanted: Columns
) -> dict[str, Relation]:
    """The node's relations; an input's scans convert only the columns read downstream
    (`wanted`), so that a column of a type DuckDB reads otherwise keeps it on pandas only
    when something reads it."""
    if schemas is None:
        raise NotLowerable("its input columns are not known before the run")
    if is_incremental(node.params):
        raise NotLowerable("an incremental input filters and keeps its position on pandas")
    if has_lifecycle(node.operator):
        raise NotLowerable("an operator with open/close runs alone, not fused")
    try:
        lowered = node.operator.lower(node.params, inputs, schemas)
    except NotLowerable:
        raise
    except (PipewrightError, ExpressionError) as error:  # pandas says it, naming node and field
        raise NotLowerable(f"its settings do not fit its input ({error})") from error
    if node.operator.kind != "input" or wanted is None:
        return lowered
    return {
        port: dataclasses.replace(relation, read=tuple(sorted(wanted)))
        if isinstance(relation, Scan)
        else relation
        for port, relation in lowered.items()
    }


def _leaves(node: PlannedNode) -> InputRelations:
    """The node's inputs as frames entering from outside: enough to ask whether it lowers."""
    found = {port: [Input(source) for source in sources] for port, sources in node.inputs.items()}
    return node.operator.arranged(node.params, found)


def _refusals(
    plan: Plan,
    schemas: dict,
    needed: dict[str, Columns],
    keep: set[str],
    planned: set[str],
    probe: Probe | None,
    area,
) -> dict[str, str]:
    """The nodes that stay out of DuckDB's segments, with why: on pandas, or in a segment an
    earlier pass planned (`planned`). `probe` refuses a node whose files (in `area`) the
    backend would not read as pandas does."""
    refused = {}
    for node_id in plan.order:
        node = plan.nodes[node_id]
        if node_id in planned:
            refused[node_id] = "it runs partitioned"
            continue
        if node_id in keep:
            refused[node_id] = "its rows are shown as they are"
            continue
        try:
            lowered = _lowered(node, _leaves(node), schemas[node_id], needed[node_id])
            for relation in lowered.values() if probe is not None else ():
                probe(relation, area)
        except NotLowerable as error:
            refused[node_id] = str(error)
    return refused


def _segments(plan: Plan, refused: dict[str, str]) -> dict[str, int]:
    """Each lowered node's segment number. Touching lowered nodes share a segment, unless that
    would make it wait for a pandas node that waits for the segment (a cycle of tasks), or it
    reads a node with data tests (whose failure must stop it: a segment runs as one query)."""
    parent_of: dict[int, int] = {}  # union-find over segment numbers

    def find(number: int) -> int:
        while parent_of[number] != number:
            number = parent_of[number]
        return number

    segment_of: dict[str, int] = {}
    depends: dict[str, set[int]] = {}
    """For each node, the segments it reads from, directly or through other nodes."""
    outer: dict[int, set[int]] = {}
    """For each segment, the segments that its members' inputs from outside it depend on."""
    size: dict[int, int] = {}
    for node_id in plan.order:
        parents = plan.predecessors[node_id]
        depends[node_id] = set()
        for parent in parents:
            depends[node_id] |= depends[parent]
            if parent in segment_of:
                depends[node_id].add(segment_of[parent])
        if node_id in refused:
            continue
        joined = {
            find(segment_of[parent])
            for parent in parents
            if parent in segment_of and not plan.nodes[parent].checks
        }
        total = sum(size[segment] for segment in joined)
        for segment in sorted(joined, key=size.get, reverse=True):  # once: a union's parents
            if total < MAX_SEGMENT_NODES:  # may be many
                break
            joined.remove(segment)  # a full segment: start another
            total -= size[segment]
        while True:
            outside = [
                p for p in parents if p not in segment_of or find(segment_of[p]) not in joined
            ]
            blocked = {find(s) for p in outside for s in _reads(p, depends, segment_of)}
            blocked |= {find(s) for segment in joined for s in outer[segment]}
            if not joined & blocked:
                break
            joined -= blocked
        number = min(joined) if joined else len(parent_of)
        parent_of.setdefault(number, number)
        outer.setdefault(number, set())
        size[number] = size.get(number, 0) + 1
        for other in joined - {number}:
            parent_of[other] = number
            outer[number] |= outer.pop(other)
            size[number] += size.pop(other)
        outer[number] |= {s for p in outside for s in _reads(p, depends, segment_of)}
        segment_of[node_id] = number
    return {node_id: find(number) for node_id, number in segment_of.items()}


def _reads(node_id: str, depends: dict[str, set[int]], segment_of: dict[str, int]) -> set[int]:
    """The segments a node's output depends on, its own included."""
    own = {segment_of[node_id]} if node_id in segment_of else set()
    return depends[node_id] | own


def _members(plan: Plan, segment_of: dict[str, int]) -> list[tuple[str, ...]]:
    by_segment: dict[int, list[str]] = {}
    for node_id in plan.order:
        if node_id in segment_of:
            by_segment.setdefault(segment_of[node_id], []).append(node_id)
    return [tuple(members) for _, members in sorted(by_segment.items())]


def _relations(
    plan: Plan, members: tuple[str, ...], schemas: dict, needed: dict[str, Columns]
) -> dict[str, dict[str, Relation]]:
    """Each member's output relations, built over its segment neighbours' relations."""
    relations: dict[str, dict[str, Relation]] = {}
    for node_id in members:
        node = plan.nodes[node_id]
        found = {
            port: [
                relations[source][name] if source in relations else Input((source, name))
                for source, name in sources
            ]
            for port, sources in node.inputs.items()
        }
        arranged = node.operator.arranged(node.params, found)
        relations[node_id] = _lowered(node, arranged, schemas[node_id], needed[node_id])
    return relations
