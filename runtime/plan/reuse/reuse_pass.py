"""The reuse pass: before fusion, nodes whose results are stored stop running.

Each node gets its key (`keys.plan_keys`) and a decision with its reason, for `explain`: it
is *reused* when every output port's result is stored (an `overwrite` output: when its target
still holds exactly what it wrote), else it *runs*. Then, from the plan's last nodes upwards,
a node that runs needs its parents: a reused parent becomes a read of its stored results
(`stored.StoredResult`; in a DuckDB segment a Parquet scan), a parent that is not stored runs
too. Reused nodes nobody reads, and everything above them, leave the plan (`plan.reused`);
the run reports them succeeded, from the cache.

The pass also marks what the run must store beyond its tasks' boundaries (`plan.stored`): for
the input of every output node and of every pipeline breaker (aggregate, join, sort, dedupe),
restart points in the row-wise chain computing it (`restart_points`: after the chain's last
filter), so that editing any node from there down re-runs from the store and not from the
pipeline's files; and the node a run goes up to. A chain that reads an input directly (a
file's scan, millions of rows to write) is stored only once a run of the plan saw an edit in
it or in its reader (`edited_nodes`): a first run costs what a run without the store does.
Past runs' figures leave out results that took longer to store than to recompute from the
stored results above them (runtime/tuning/storing.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from runtime.cache.store import ResultStore
from runtime.errors import OperatorError, PipewrightError
from runtime.io.paths import FileArea
from runtime.operators.contract import OperatorParams
from runtime.operators.file_checks import input_bytes
from runtime.operators.file_identity import file_hash
from runtime.plan.model import Plan, PlannedNode
from runtime.plan.passes.editing import copied, rederived
from runtime.plan.reuse.keys import Keys, Parts, plan_keys
from runtime.plan.reuse.stored_result import StoredResult
from runtime.plan.run_options import RunOptions
from runtime.plan.schemas import OutputSchemas
from runtime.tuning.figures import NodeFigures
from runtime.tuning.storing import not_kept

REUSED = "reused from the cache"
PINNED = "pinned: its output is the pinned rows"
SMALL_INPUT = 2**20
"""Files up to this size (the size up to which their content is hashed) are cheap to store
again: the chains reading them are stored from the first run."""


@dataclass
class CacheRun:
    """What the executor needs to store a run's results and report reused nodes."""

    store: ResultStore
    keys: Keys
    why: dict[str, str] = field(default_factory=dict)
    """For each node of the document: why it runs, or why not."""
    reading: set[str] = field(default_factory=set)
    """Nodes replaced by reads of their stored results."""
    order: list[str] = field(default_factory=list)
    """The plan's nodes before the pass, parents first (reports list them all)."""
    wide: Keys | None = None
    """The keys the nodes would have if every column were read: a result stored so (a run
    up to a node) serves a reader of fewer columns too."""
    edited: set[str] = field(default_factory=set)
    """Nodes this run or an earlier run of the plan found edited (`edited_nodes`)."""
    large: set[str] = field(default_factory=set)
    """Input nodes that read more than `SMALL_INPUT` bytes, or a database: the chains reading
    them are stored only where the plan was edited."""
    found: dict = field(default_factory=dict)
    """For each port of a reused node: the key whose result stands for it (its own or its
    wide key)."""
    columns: dict = field(default_factory=dict)
    """Each port's columns where they are known before the run, recorded with its stored
    result (which may hold only those read downstream): what the Data tab says is missing."""
    unkept: set[str] = field(default_factory=set)
    """Nodes whose results this run does not store: past runs recomputed them sooner than
    they stored them (runtime/tuning/storing.py)."""
    left_out: set[str] = field(default_factory=set)
    """Nodes whose results earlier runs of the plan did not store, so (`remember`)."""


def plan_reuse(
    plan: Plan,
    store: ResultStore,
    options: RunOptions,
    *,
    files: FileArea,
    connections=None,
    schemas: OutputSchemas | None = None,
    measured: Mapping[str, NodeFigures] | None = None,
) -> Plan:
    """`plan` with reused nodes read from `store` or left out, and what to store marked;
    `schemas`: the nodes' output schemas before pruning (their columns go in the records);
    `measured`: past runs' figures, which leave out results cheaper to recompute than to
    store (`unkept`)."""
    keys, wide = plan_keys(plan, files, connections, store=store)
    below = _below(plan, options.from_node)
    cache = CacheRun(store, keys, order=list(plan.order), wide=wide)
    record = store.record(_plan_key(plan.name))
    cache.last = record.get("nodes", {})
    cache.left_out = set(record.get("unkept", []))
    cache.edited = edited_nodes(plan, keys, record)
    cache.large = {
        node_id
        for node_id in plan.order
        if plan.nodes[node_id].operator.kind == "input" and not _small(plan.nodes[node_id], files)
    }
    cache.columns = {
        (node_id, port): schema.names
        for node_id, ports in (schemas or {}).items()
        for port, schema in (ports or {}).items()
    }
    hits = {}
    for node_id in plan.order:
        hits[node_id], cache.why[node_id] = _decision(plan, node_id, cache, options, below, files)
    read = {parent for parents in plan.predecessors.values() for parent in parents}
    demand = {node_id: "whole" for node_id in plan.order if node_id not in read}
    # Data tests run on every run: on their node's result, and on the ports they refer to.
    demand.update(dict.fromkeys(plan.checked(), "read"))
    demand.update(dict.fromkeys((node_id for node_id, _ in plan.referenced()), "read"))
    states: dict[str, str] = {}
    for node_id in reversed(plan.order):
        wanted = demand.get(node_id)
        if wanted is None or (hits[node_id] and wanted == "whole"):
            states[node_id] = "covered"
        elif hits[node_id]:
            states[node_id] = "read"
        else:
            states[node_id] = "run"
            for parent in plan.predecessors[node_id]:
                demand[parent] = "read"
    result = copied(plan)
    for node_id, state in states.items():
        node = plan.nodes[node_id]
        ports = {
            port.name: cache.found.get((node_id, port.name), keys.ports[(node_id, port.name)])
            for port in node.ports.outputs
        }
        if state == "covered":
            del result.nodes[node_id]
            result.reused[node_id] = (  # a hit's ports were all found stored just now
                ports if hits[node_id] else {p: key for p, key in ports.items() if store.has(key)}
            )
            if node.operator.kind == "output":
                result.reused[node_id] = written_by(node, cache)
            if not hits[node_id]:
                cache.why[node_id] = f"{REUSED}: the results below it are stored"
        elif state == "read":
            locations = {port: store.path_of(key) for port, key in ports.items()}
            result.nodes[node_id] = read_instead(node, locations)
            cache.reading.add(node_id)
        else:
            result.stored |= _to_store(plan, node, states, cache)
    if measured:
        result = _unkept(result, cache, states, measured)
    result.cache = cache
    used = [node_id for node_id in plan.order if states[node_id] != "run"]
    if used:
        result.notes.append(f"{REUSED}: {', '.join(used)}")
    return rederived(result)


def _unkept(plan: Plan, cache: CacheRun, states: dict[str, str], measured) -> Plan:
    """`plan` storing none of the results that past runs recomputed sooner than they stored
    (each choice said in `plan.tuned`); a node a caller or a data test reads whole, an output,
    a pin and a result never reused keep what they had."""
    candidates = {
        node_id
        for node_id, state in states.items()
        if state == "run"
        and node_id not in plan.whole
        and node_id not in plan.pinned
        and node_id not in cache.keys.volatile
        and plan.nodes[node_id].operator.kind != "output"
    }
    skipped, kept = not_kept(
        cache.order, plan.predecessors, measured, candidates=candidates, edited=cache.edited
    )
    cache.unkept = set(skipped)
    return dataclasses.replace(
        plan,
        stored={port for port in plan.stored if port[0] not in skipped},
        tuned=[*plan.tuned, *skipped.values(), *kept],
    )


def up_to(plan: Plan, node_id: str) -> Plan:
    """`plan` cut down to `node_id` and its ancestors; the rest skipped, saying why."""
    keep = ancestors(plan, node_id) | {node_id}
    result = copied(plan)
    for other in plan.order:
        if other not in keep:
            del result.nodes[other]
            result.eliminated[other] = f"left out: the run goes up to {node_id}"
    result.stored |= {(node_id, port.name) for port in plan.nodes[node_id].ports.outputs}
    result.whole.add(node_id)
    return rederived(result)


def leave_out(plan: Plan, node_ids: list[str]) -> Plan:
    """`plan` without `node_ids` and everything below them, each skipped saying why: a run
    started despite those nodes' problems runs the rest."""
    result = copied(plan)
    for broken in node_ids:
        for other in sorted(_below(plan, broken)):
            if other in result.nodes:
                del result.nodes[other]
                result.eliminated[other] = (
                    "left out: it has problems"
                    if other in node_ids
                    else f"left out: it reads from {broken}, which has problems"
                )
    return rederived(result)


def _decision(plan, node_id, cache: CacheRun, options, below, files) -> tuple[bool, str]:
    node = plan.nodes[node_id]
    keys = cache.keys
    if node_id in plan.pinned:
        return False, PINNED
    if node_id in below:
        return False, f"the run starts from {options.from_node}"
    if node_id in keys.volatile:
        return False, f"never reused: {keys.volatile[node_id]}"
    if node_id in keys.stale:
        return False, keys.stale[node_id]
    if options.fresh:
        return False, "a fresh run ignores stored results"
    if node.operator.kind == "output":
        hit, why = _output_decision(node, keys.nodes[node_id], cache.store, files)
        return hit, why or _changed(plan, node_id, cache)
    ports = [(node_id, port.name) for port in node.ports.outputs]
    for found in (keys, cache.wide):
        if found is cache.wide and all(keys.ports[p] == found.ports[p] for p in ports):
            continue  # every column is read: the wide keys are the same
        if ports and all(cache.store.has(found.ports[port]) for port in ports):
            cache.found.update({port: found.ports[port] for port in ports})
            break
    else:
        return False, _changed(plan, node_id, cache)
    return True, REUSED


def _output_decision(node: PlannedNode, key: str, store: ResultStore, files):
    """An output is skipped only in mode overwrite, when its target holds what it wrote
    (why None: it never wrote with this key)."""
    mode = getattr(node.params, "mode", None)
    path = getattr(node.params, "path", None)
    if not isinstance(path, str):
        return False, "it writes to a database: it always runs"
    if mode != "overwrite":
        return False, f"it writes in mode {mode}: it always runs"
    wrote = store.record(key).get("target")
    if wrote is None:
        return False, None
    try:
        target = files.resolve(path, write=True)
        size = target.stat().st_size
    except (OSError, OperatorError):
        return False, "its target was removed"
    if size != wrote.get("size") or file_hash(target) != wrote.get("sha256"):
        return False, "its target changed since it was written"
    return True, f"{REUSED}: its target still holds what it wrote"


def written_by(
    node: PlannedNode, cache: CacheRun, stored: Callable[[str], bool] | None = None
) -> dict[str, str]:
    """The stored results an output node writes, by its input port (the Data tab shows them);
    `stored(key)`: whether a key is stored or on its way (default: `cache.store.has`)."""
    stored = stored or cache.store.has
    found = {}
    for port, sources in node.inputs.items():
        source = sources[0] if len(sources) == 1 else None
        key = cache.found.get(source) or cache.keys.ports.get(source)
        if key is not None and stored(key):
            found[port] = key
    return found


def record_target(store: ResultStore, key: str, node: PlannedNode, files: FileArea) -> None:
    """After an `overwrite` output node wrote its file: what the file holds, so that the next
    run can tell whether it still does."""
    if getattr(node.params, "mode", None) != "overwrite":
        return
    try:
        target = files.resolve(node.params.path, write=True)
        wrote = {"size": target.stat().st_size, "sha256": file_hash(target)}
    except (OSError, PipewrightError):
        return
    store.note(key, target=wrote)


def _changed(plan: Plan, node_id: str, cache: CacheRun) -> str:
    """Why a node's result is not stored, as far as the previous run of the plan tells."""
    last = cache.last.get(node_id)
    if last is None:
        return "no stored result: it has not run with the store yet"
    parts = cache.keys.parts[node_id]
    if last["key"] == cache.keys.nodes[node_id]:
        if node_id in cache.left_out:
            return "its result was not kept: past runs computed it sooner than they stored it"
        return "its stored result was removed (the store keeps a bounded size)"
    if last["operator"] != parts.operator:
        return "its operator changed version"
    if last["params"] != parts.params:
        return "its settings changed"
    if last["identity"] != parts.identity:
        return "what it reads changed (a file or the query's database)"
    if last["columns"] != parts.columns:
        return "the columns read from it changed"
    if last["inputs"] != list(parts.inputs):
        changed = sorted(
            parent
            for parent in plan.predecessors[node_id]
            if not cache.why.get(parent, "").startswith(REUSED)
        )
        return f"an input changed ({', '.join(changed)})" if changed else "an input changed"
    return "no stored result"


def remember(store: ResultStore, plan_name: str, cache: CacheRun, succeeded: set[str]) -> None:
    """Keep the parts of each succeeded node's key, for the next run's reasons; the nodes
    edited so far, for the next run's restart points; and the nodes whose results were left
    out (this run's, and earlier runs' that this run did not store), for the reasons too."""
    keys = cache.keys
    record = store.record(_plan_key(plan_name))
    parts = record.get("nodes", {})
    for node_id in succeeded & set(keys.parts):
        parts[node_id] = {"key": keys.nodes[node_id], **_jsonable(keys.parts[node_id])}
    unkept = (set(record.get("unkept", [])) - succeeded) | cache.unkept
    store.note(
        _plan_key(plan_name), nodes=parts, edited=sorted(cache.edited), unkept=sorted(unkept)
    )


def edited_nodes(plan: Plan, keys: Keys, record: dict) -> set[str]:
    """The nodes whose settings or operator version an earlier run of the plan saw change, and
    those this run finds changed against the last run (`record`: the plan's, in the store):
    where the plan is edited, which is where restart points are worth their write."""
    last = record.get("nodes", {})
    found = set(record.get("edited", []))
    for node_id in plan.order:
        parts = keys.parts.get(node_id)
        if parts is None:
            continue
        before = last.get(node_id)
        if before is not None and (before["operator"], before["params"]) != (
            parts.operator,
            parts.params,
        ):
            found.add(node_id)
    return found


def _plan_key(plan_name: str) -> str:
    return hashlib.sha256(json.dumps(["plan", plan_name]).encode()).hexdigest()


def _jsonable(parts: Parts) -> dict:
    return {**dataclasses.asdict(parts), "inputs": list(parts.inputs)}


def _to_store(plan: Plan, node: PlannedNode, states: dict[str, str], cache: CacheRun) -> set:
    """The ports a node that runs needs stored: for an output's or a breaker's input, its
    restart points (`restart_points`); none where that chain already starts from the store."""
    if node.operator.kind != "output" and not node.operator.breaks_pipeline:
        return set()
    found = set()
    for sources in node.inputs.values():
        for source in sources:
            if states.get(source[0]) == "run":
                found |= restart_points(plan, source, states, cache, node.id in cache.edited)
    return found


def restart_points(
    plan: Plan, source, states: dict[str, str], cache: CacheRun, reader_edited: bool
) -> set:
    """The ports to store so that an edit in the row-wise chain ending at `source`, or of the
    node reading it, re-runs from the store: the output of the chain's last node that drops
    rows (a filter), else of its first node. The nodes below it map rows one to one
    (transform, select, cast): they recompute cheaply from that one file, which holds no more
    rows than `source` itself, while storing each of their outputs would cost a write of as
    many rows each. Nothing when the chain already starts from a stored result (nothing large to
    store again); `source` itself for a chain of one node or of results never reused.

    A chain that reads a large input directly (`cache.large`) is stored only where the plan
    was edited (`cache.edited`): for an edited reader, as above; for an edited node of the
    chain, the nearest such point above it, the input's own output (its scan) when the edit
    is at the chain's top. A run of a plan never edited then writes nothing as large as its
    input's rows."""
    keys, edited = cache.keys, cache.edited
    chain = [source]
    above = None  # the port the chain's top reads
    while chain[-1][0] not in keys.volatile and _row_wise(plan.nodes[chain[-1][0]]):
        (parent,) = [item for items in plan.nodes[chain[-1][0]].inputs.values() for item in items]
        if states.get(parent[0]) == "read":
            return set()
        above = parent
        if states.get(parent[0]) != "run" or not _row_wise(plan.nodes[parent[0]]):
            break
        if plan.consumers[parent] != 1 or parent[0] in keys.volatile:
            break
        chain.append(parent)
        above = None
    if (above or chain[-1])[0] not in cache.large:
        return {_point(plan, chain)}
    found = {_point(plan, chain)} if reader_edited else set()
    for index, port in enumerate(chain):
        if port[0] not in edited:
            continue
        if index + 1 < len(chain):
            found.add(_point(plan, chain[index + 1 :]))
        elif above is not None and above[0] not in keys.volatile:
            found.add(above)
    return found


def _small(node: PlannedNode, files: FileArea) -> bool:
    """Whether an input reads files of at most `SMALL_INPUT` bytes (a database may be large)."""
    return 0 < input_bytes(node.operator, node.params, files) <= SMALL_INPUT


def _point(plan: Plan, chain: list) -> tuple:
    """A chain's restart point: its last node that drops rows, else its first node."""
    dropping = (port for port in chain if not plan.nodes[port[0]].operator.row_limit_safe)
    return next(dropping, chain[-1])


def _row_wise(node: PlannedNode) -> bool:
    """A node of one input and one output whose rows each come from one input row."""
    sources = [source for sources in node.inputs.values() for source in sources]
    return node.operator.partitionable and len(sources) == 1 and len(node.ports.outputs) == 1


def read_instead(
    node: PlannedNode, locations: dict[str, Path], reader: type[StoredResult] = StoredResult
) -> PlannedNode:
    """`node` as a read of its stored results, one Parquet file per port (`locations`);
    `reader`: the operator reading them (a pin's `PinnedRows`)."""
    return PlannedNode(
        id=node.id,
        label=node.label,
        operator=reader(node.operator, node.id, locations),
        params=OperatorParams(),
        inputs={},
        retries=0,
        timeout_s=None,
        checks=node.checks,
    )


def _below(plan: Plan, node_id: str | None) -> set[str]:
    if node_id is None:
        return set()
    node_id = plan.merged.get(node_id, node_id)
    found, stack = {node_id}, [node_id]
    children: dict[str, set[str]] = {}
    for child, parents in plan.predecessors.items():
        for parent in parents:
            children.setdefault(parent, set()).add(child)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def ancestors(plan: Plan, node_id: str) -> set[str]:
    """Every node `node_id` reads from, directly or through others."""
    found, stack = set(), [node_id]
    while stack:
        for parent in plan.predecessors[stack.pop()]:
            if parent not in found:
                found.add(parent)
                stack.append(parent)
    return found
