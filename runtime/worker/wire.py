"""The messages between a forked process and its supervisor: JSON objects over a socket.

JSON both ways, never pickle, so the supervisor (the web server) never runs what a forked
process sends it. Each message is one frame (`multiprocessing.connection` framing) holding an
object with a `kind`. The first message says what the process is for: a run (`start`) or a
job (`job`: a preview, schema inference, the check before a run, the plan view's plan).

- supervisor → run: `start` (a `RunOrder`), `cancel`, `commit` (`id`, `allowed`: the answer
  to a `may_commit`).
- run → supervisor: `events` (`events`, a batch in seq order), `may_commit` (`id`: may a node
  make its output visible now?), and one of `done` (`result`, after the `run_finished` event),
  `refused` (`error`: the run could not start, its document no longer builds a plan, say) or
  `crashed` (`traceback`: a bug in the engine).
- supervisor → job: `job` (a `JobOrder`), and nothing more.
- job → supervisor: one of `answer` (`answer`: the job's JSON form), `invalid` (`problems`:
  the document does not validate), `node_failed` (`node`, `message`: a node the job ran
  failed) or `crashed` (`traceback`).
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol

from runtime.budget import Budget
from runtime.checks.analysis import Analysis
from runtime.io.paths import FileArea
from runtime.io.sql.connection_specs import ConnectionSpec, as_spec
from runtime.plan import Plan
from runtime.plan.run_options import RunOptions


class MessageLink(Protocol):
    """Either end of a run's conversation with its supervisor: `Link` (a socket), or
    `runtime.worker.queue_link.QueueLink` (queues of a Dask cluster)."""

    def send(self, kind: str, **fields: Any) -> None:
        """Send one message; `OSError` when the other end is gone."""

    def receive(self, timeout: float | None = None) -> dict | None:
        """The next message, or None if none came within `timeout` seconds; `EOFError` once
        the other end is gone and everything it sent was read."""

    def close(self) -> None:
        """End the conversation: the other end's `receive` says EOFError."""


class Link:
    """One end of the socket between a run's process and its supervisor; `send` may be
    called from any thread, `receive` from one."""

    def __init__(self, fd: int):
        self._connection = Connection(fd)
        self._lock = threading.Lock()

    def send(self, kind: str, **fields: Any) -> None:
        """Send one message; `OSError` when the other end is gone."""
        # ASCII escapes, so that any str gets across, lone surrogates included (a file's
        # undecodable bytes in a message), and comes out equal.
        data = json.dumps({"kind": kind, **fields}, default=str)
        with self._lock:
            self._connection.send_bytes(data.encode("ascii"))

    def receive(self, timeout: float | None = None) -> dict | None:
        """The next message, or None if none came within `timeout` seconds; `EOFError` once
        the other end is gone and everything it sent was read."""
        if timeout is not None and not self._connection.poll(timeout):
            return None
        try:
            return json.loads(self._connection.recv_bytes())
        except OSError as error:  # a reset connection says the same as an orderly close
            raise EOFError(str(error)) from error

    def close(self) -> None:
        self._connection.close()


@dataclass(frozen=True)
class Order:
    """What a forked process is given for its work: the document, what it may read and use,
    and no more. Sent as one message, its fields as JSON."""

    document: dict
    parameters: dict
    area: FileArea
    connections: dict[str, ConnectionSpec]
    """Only the connections the document names (`named_connections`), passwords included."""
    budget: Budget
    sys_path: list[str]
    """Where the supervisor finds modules (and so operators): the process finds the same ones."""

    def to_message(self) -> dict:
        return _message_of(self)

    @classmethod
    def from_message(cls, fields: Mapping[str, Any]):
        return _order_of(cls, fields)


@dataclass(frozen=True, kw_only=True)
class RunOrder(Order):
    """What a run's process is given: everything its run needs."""

    run_id: int | str
    cluster: str = ""
    """The address of the Dask scheduler its partitioned segments run on (none: no cluster)."""
    run_options: RunOptions = field(default_factory=RunOptions)
    """Fresh, up to a node, from a node (`runtime.plan.run_options`); the store is `area.cache`."""
    positions: dict = field(default_factory=dict)
    """Where each incremental input starts, by node id (`runtime.io.incremental`)."""


@dataclass(frozen=True, kw_only=True)
class JobOrder(Order):
    """What a job's process is given: one job on the document."""

    job: str
    """What to do: `preview`, `schemas`, `run_problems`, `plan`, `compare`, `script` or
    `lineage` (`runtime.worker.jobs`)."""
    options: dict = field(default_factory=dict)
    """The job's own arguments: a preview's `node`, `limit` and `port`, a plan's `backend`,
    a comparison's two run records, `keys` and `node`, a script's `backend`."""


def _message_of(order: Order) -> dict:
    """The order's fields, those JSON cannot hold as they are encoded; the rest (the
    document above all: 0.16 s of `asdict` copying at 1,000 nodes) passed as they are."""
    return {
        each.name: _ENCODE.get(each.name, lambda value: value)(getattr(order, each.name))
        for each in dataclasses.fields(order)
    }


def _area_message(area: FileArea) -> dict:
    return {
        name: str(value) if isinstance(value, Path) else value
        for name, value in asdict(area).items()
    }


def _order_of(cls, fields: Mapping[str, Any]):
    """An order of class `cls` from its message (which has a `kind` too)."""
    return cls(**{
        name: _DECODE.get(name, lambda value: value)(fields[name])
        for name in (each.name for each in dataclasses.fields(cls))
    })  # fmt: skip


def _area_of(fields: Mapping[str, Any]) -> FileArea:
    area = dict(fields)
    for name in ("root", "shared", "scratch", "cache"):
        area[name] = None if area.get(name) is None else Path(area[name])
    return FileArea(**area)


_ENCODE = {
    "area": _area_message,
    "connections": lambda specs: {name: asdict(spec) for name, spec in specs.items()},
    "budget": asdict,
    "run_options": asdict,
}
"""How the fields of an order that JSON cannot hold as they are go into a message."""

_DECODE = {
    "area": _area_of,
    "connections": lambda specs: {name: ConnectionSpec(**spec) for name, spec in specs.items()},
    "budget": lambda budget: Budget(**budget),
    "run_options": lambda options: RunOptions(**options),
    "sys_path": list,
}
"""How the fields of an order that JSON cannot hold as they are come back from a message."""


def named_connections(
    plan: Plan | Analysis, connections: Mapping[str, ConnectionSpec | str]
) -> dict[str, ConnectionSpec]:
    """Of `connections`, those a node of `plan` names (its `connection` param, which every
    SQL operator names its database with); a run's process is given no other. A job's
    document may not build a plan (it is half-built): its `analyse`d params say the same."""
    if isinstance(plan, Analysis):
        params = list(plan.params.values())
    else:
        params = [node.params for node in plan.nodes.values()]
    names = {getattr(node_params, "connection", None) for node_params in params}
    return {name: as_spec(spec) for name, spec in connections.items() if name in names}
