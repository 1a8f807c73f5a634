"""Result keys: a hash of everything a node's output depends on.

A node's key covers its operator and the operator's `version`, its params as validated
(pipeline parameters substituted), a limit pushed down to it, an incremental input's starting
position, the columns of its output that
anything reads (projection pruning may compute only those), what it reads from outside the
pipeline (`Operator.cache_identity`: files' size, modification time and, for small files,
content; a query's connection fingerprint, text and bound values) and its inputs' keys. The
backend is not in it: pandas and DuckDB give the same result by contract. A port's key is
its node's key with the port's name.

A node whose result may differ between two runs over the same inputs (`Operator.reuse_for_s`
says None: a sample without a seed, a query that opted out of freshness, a plugin input that
cannot say what it reads) gets a key no other run shares, and so do its descendants: their
results are stored for viewing but never reused. Keys hold no secrets: they are hashes, and
what is hashed holds URLs without passwords.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import secrets
import time
from dataclasses import dataclass, field

from runtime.document.spec import Source
from runtime.errors import PipewrightError
from runtime.io.incremental import is_incremental
from runtime.io.paths import FileArea
from runtime.plan.model import Plan
from runtime.plan.passes.projection import needed_columns

FRESHNESS = "cache_for_s"
"""A param saying how long an input's result stays good (sql_input): not part of the key."""


@dataclass(frozen=True)
class Parts:
    """What a node's key is made of, each part hashed: to say which one changed."""

    operator: str
    params: str
    identity: str
    inputs: tuple[str, ...]
    columns: str


@dataclass
class Keys:
    """The keys of a plan's nodes and ports."""

    nodes: dict[str, str] = field(default_factory=dict)
    ports: dict[Source, str] = field(default_factory=dict)
    parts: dict[str, Parts] = field(default_factory=dict)
    volatile: dict[str, str] = field(default_factory=dict)
    """Nodes whose results are never reused, with why."""
    reuse_for_s: dict[str, float] = field(default_factory=dict)
    generations: dict[str, tuple[str, str]] = field(default_factory=dict)
    """For a node whose result stays good for a while (a query with `cache_for_s`): the
    lookup key under which its current generation is noted, and that generation. A new
    generation (its stored rows too old) gives it, and everything below it, new keys."""
    stale: dict[str, str] = field(default_factory=dict)
    """Nodes read again because their stored rows are too old, with why."""
    """How long each reusable node's stored result stays good (inf: as long as it is kept)."""


def plan_keys(plan: Plan, files: FileArea, connections, *, store=None) -> tuple[Keys, Keys]:
    """The keys of every node of `plan` (optimised, not yet fused) and of each output port, and
    its wide keys: as if every column of every node were read (the keys of a run that stopped
    at a node, whose results hold all their columns and so serve any narrower reader too).
    What a node reads and how it is set is looked at once for both."""
    connections = connections or {}
    own = {node_id: _Own.of(plan.nodes[node_id], files, connections) for node_id in plan.order}
    narrow = _keys(plan, own, needed_columns(plan), store)
    return narrow, _keys(plan, own, {}, store)


@dataclass(frozen=True, slots=True)
class _Own:
    """The parts of a node's key that do not depend on its inputs nor on the columns read."""

    operator: str
    params: str
    identity: str
    volatile: str | None
    reuse_for_s: float | None

    @classmethod
    def of(cls, node, files: FileArea, connections) -> _Own:
        operator = node.operator
        try:
            identity = operator.cache_identity(node.params, files, connections)
        except (PipewrightError, OSError):  # the node reports it when it runs
            identity = None
        reuse_for_s = operator.reuse_for_s(node.params) if identity is not None else None
        return cls(
            operator=_same_digest((operator.name, operator.version)),
            params=_digest(_params_part(node)),
            identity=_same_digest(identity) if identity in ((), None) else _digest(identity),
            volatile=_volatile_reason(operator, identity, reuse_for_s),
            reuse_for_s=reuse_for_s,
        )


def _keys(plan: Plan, own: dict[str, _Own], needed: dict, store) -> Keys:
    """The keys of `plan`'s nodes when each reads the columns `needed` says (absent: all)."""
    keys = Keys()
    for node_id in plan.order:
        node, mine = plan.nodes[node_id], own[node_id]
        inputs = tuple(
            f"{port}={keys.ports[source]}"
            for port, sources in sorted(node.inputs.items())
            for source in sources
        )
        columns = needed.get(node_id)
        parts = Parts(
            operator=mine.operator,
            params=mine.params,
            identity=mine.identity,
            inputs=inputs,
            columns=_same_digest(None if columns is None else tuple(sorted(columns))),
        )
        volatile = mine.volatile or next(
            (
                f"it reads {parent}, which is never reused"
                for parent in sorted(plan.predecessors[node_id])
                if parent in keys.volatile
            ),
            None,
        )
        salt = secrets.token_hex(16) if volatile else ""
        if not volatile and mine.reuse_for_s != math.inf and store is not None:
            salt = _generation(keys, node_id, _digest(_fields(parts)), mine.reuse_for_s, store)
        key = _digest([*_fields(parts), salt])
        keys.nodes[node_id] = key
        keys.parts[node_id] = parts
        if volatile:
            keys.volatile[node_id] = volatile
        else:
            keys.reuse_for_s[node_id] = mine.reuse_for_s
        for port in node.ports.outputs:
            keys.ports[(node_id, port.name)] = port_key(key, port.name)
    return keys


def _generation(keys: Keys, node_id: str, lookup: str, reuse_for_s: float, store) -> str:
    """The generation of a node's rows that is still good, or a new one."""
    noted = store.record(lookup)
    if noted.get("generation") and noted.get("since", 0) + reuse_for_s >= time.time():
        generation = noted["generation"]
    else:
        generation = secrets.token_hex(16)
        if noted.get("generation"):
            keys.stale[node_id] = f"its stored rows are older than {reuse_for_s:g} s"
    keys.generations[node_id] = (lookup, generation)
    return generation


def _params(params) -> dict:
    """The params that decide what a node computes: not how long its result stays good."""
    dump = params.model_dump(mode="json")
    dump.pop(FRESHNESS, None)
    return dump


def _params_part(node) -> list:
    """Params and pushed limit; for an incremental input, the position it starts from too."""
    part = [_params(node.params), node.row_limit]
    return [*part, node.position] if is_incremental(node.params) else part


def _fields(parts: Parts) -> list:
    return [parts.operator, parts.params, parts.identity, parts.inputs, parts.columns]


def port_key(node_key: str, port: str) -> str:
    """The key of one output port of a node whose key is `node_key`."""
    return _digest([node_key, port])


def _volatile_reason(operator, identity, reuse_for_s) -> str | None:
    if identity is None:
        return "what it reads cannot be told apart from one run to the next"
    if reuse_for_s is None:
        return operator.never_reused_because
    return None


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str)
"""One encoder for every digest: `json.dumps` with options builds a new one per call."""


def _digest(value) -> str:
    return hashlib.sha256(_ENCODER.encode(value).encode()).hexdigest()


@functools.lru_cache(maxsize=4096)
def _same_digest(value: tuple | None) -> str:
    """`_digest` of a value many nodes share (an operator, no identity, the same columns)."""
    return _digest(value)
