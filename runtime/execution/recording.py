"""What the executor does with the result store: store each task's results as it finishes,
and say what every node's metrics record (`results`: `{port: key}`, `cached`).

Storing runs behind the run (`WriteBehind`), so a node's status and the nodes below it do
not wait for its files; the run ends once everything is stored (`finish`). A result that
cannot be stored (a column pandas holds as mixed objects, a full disk) is logged and left
out of the store: the run itself does not fail for it, and its metrics still name the key,
which then reads as a result evicted since.
"""

from __future__ import annotations

import shutil
import time
from functools import partial

from runtime.cache.write_behind import WriteBehind
from runtime.execution.results import frame_bytes
from runtime.io.paths import FileArea
from runtime.plan import Plan, PlannedNode
from runtime.plan.model import is_copy
from runtime.plan.reuse.reuse_pass import record_target, remember, written_by
from runtime.tables.spilled import SpilledRows

UNSTORABLE = (OSError, ValueError, TypeError, ArithmeticError, NotImplementedError, MemoryError)
"""What writing a frame to Parquet raises for data or disks it cannot handle (pyarrow's
errors derive from these: a column of mixed objects, a type Parquet lacks, a full disk)."""


class Recorder:
    """Stores a run's results in the plan's store."""

    def __init__(self, plan: Plan, files: FileArea):
        self.plan = plan
        self.cache = plan.cache
        self.files = files
        self.writes = WriteBehind()
        self._queued: set[str] = set()
        """The keys whose results were queued to be stored (this run's, stored or soon)."""
        self.timed: dict[str, dict] = {}
        """By node, for its profile: the seconds its operator took (`compute_s`, without
        waiting for the store), and the seconds and bytes its results took to store."""

    def kept(
        self,
        task: PlannedNode,
        outputs: dict,
        members: tuple[str, ...],
        logger,
        figures,
        compute_s: float | None = None,
    ) -> dict:
        """Store what a finished task produced; each member's metrics to add, by node.
        `figures(member)` gives a member's `rows_in` (by port) and `rows_out`, recorded with its
        key so that a run reusing it shows the same figures; `compute_s`: what the task's
        operator took."""
        keys, store = self.cache.keys, self.cache.store
        if members == (task.id,):
            outputs = {(task.id, port): frame for port, frame in outputs.items()}
            if compute_s is not None:
                self.timed.setdefault(task.id, {})["compute_s"] = round(compute_s, 6)
        extra: dict[str, dict] = {}
        for (node_id, port), frame in outputs.items():
            key = keys.ports.get((node_id, port))
            if key is None or is_copy(node_id) or node_id in self.cache.reading:
                continue
            if node_id in keys.volatile and (node_id, port) not in self.plan.stored:
                continue  # never reused: kept only where an output or a breaker reads it
            if node_id in self.cache.unkept:
                continue  # past runs recomputed it sooner than they stored it
            if key not in self._queued and not store.has(key):
                self._queued.add(key)
                store_it = partial(self._store, key, frame, (node_id, port), logger)
                self.writes.submit(store_it, frame_bytes(frame))
            extra.setdefault(node_id, {}).setdefault("results", {})[port] = key
            if node_id in keys.generations:  # its rows are good from now on, for a while
                self.writes.submit(partial(self._note_generation, *keys.generations[node_id]))
        for node_id, port in self.plan.stored:  # stored from inside a segment, by DuckDB
            key = keys.ports.get((node_id, port))
            if node_id in members and key is not None and store.has(key):
                extra.setdefault(node_id, {}).setdefault("results", {})[port] = key
        for member in members:
            node = self.plan.nodes[member]
            if member not in self.cache.reading and member in keys.nodes:
                self.writes.submit(partial(store.note, keys.nodes[member], **figures(member)))
            if member in self.cache.reading:
                found = self.cache.found
                ports = [port.name for port in node.ports.outputs]
                extra[member] = {"results": {port: found[(member, port)] for port in ports}}
            elif node.operator.kind == "output":
                self.writes.submit(
                    partial(record_target, store, keys.nodes[member], node, self.files)
                )
                extra[member] = {"results": written_by(node, self.cache, self._stored)}
        for node_id in extra.keys() & self.plan.reshaped.keys():
            del extra[node_id]["results"]  # not the node's rows: the Data tab recomputes them
        return extra

    def _store(self, key: str, frame, port, logger) -> None:
        started = time.perf_counter()
        try:
            if isinstance(frame, SpilledRows):  # the file as `put` would write the frame
                copy = partial(shutil.copyfile, frame.path)
                entry = self.cache.store.put_with(key, copy, **self.about(port))
            else:
                entry = self.cache.store.put(key, frame, **self.about(port))
            size = entry.stat().st_size
        except UNSTORABLE as error:
            why = getattr(error, "strerror", None) or type(error).__name__
            logger.warning(f"{port[0]}.{port[1]} was not stored in the result store: {why}")
            return
        timed = self.timed.setdefault(port[0], {})
        timed["store_s"] = round(timed.get("store_s", 0) + time.perf_counter() - started, 6)
        timed["stored_bytes"] = timed.get("stored_bytes", 0) + size

    def _stored(self, key: str) -> bool:
        return key in self._queued or self.cache.store.has(key)

    def _note_generation(self, lookup: str, generation) -> None:
        store = self.cache.store
        if store.record(lookup).get("generation") != generation:
            store.note(lookup, generation=generation, since=time.time())

    def about(self, port) -> dict:
        """What a port's record says besides when it was stored: its columns, when known."""
        columns = self.cache.columns.get(port)
        return {} if columns is None else {"columns": columns}

    def note_position(self, node: PlannedNode, position) -> None:
        """Keep an incremental input's new position beside its stored rows: a later run that
        reuses them reports it as its own."""
        self.writes.submit(partial(self._note_position, node, position))

    def _note_position(self, node: PlannedNode, position) -> None:
        for port in node.ports.outputs:
            key = self.cache.keys.ports.get((node.id, port.name))
            if key is not None and self.cache.store.has(key):
                self.cache.store.note(key, position=position)

    def remember(self, results: dict) -> None:
        """At the end of the run: the parts of the keys of the nodes that succeeded, for the
        next run's reasons (`explain`)."""
        self.writes.finish()
        succeeded = {node_id for node_id, result in results.items() if result.status == "succeeded"}
        remember(self.cache.store, self.plan.name, self.cache, succeeded)
