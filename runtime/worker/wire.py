"""The messages between a run's process and its supervisor: JSON objects over a socket.

JSON both ways, never pickle, so the supervisor (the web server) never runs what a run's
process sends it. Each message is one frame (`multiprocessing.connection` framing) holding an
object with a `kind`:

- supervisor → run: `start` (a `RunOrder`), `cancel`, `commit` (`id`, `allowed`: the answer
  to a `may_commit`).
- run → supervisor: `events` (`events`, a batch in seq order), `may_commit` (`id`: may a node
  make its output visible now?), and one of `done` (`result`, after the `run_finished` event),
  `refused` (`error`: the run could not start, its document no longer builds a plan, say) or
  `crashed` (`traceback`: a bug in the engine).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol

from runtime.backends.budget import Budget
from runtime.connection_specs import ConnectionSpec, as_spec
from runtime.paths import FileArea
from runtime.plan import Plan


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
class RunOrder:
    """What a run's process is given: everything its run needs, and no more."""

    run_id: int | str
    document: dict
    parameters: dict
    area: FileArea
    connections: dict[str, ConnectionSpec]
    """Only the connections the pipeline names (`named_connections`), passwords included."""
    budget: Budget
    sys_path: list[str]
    """Where the supervisor finds modules (and so operators): the run finds the same ones."""

    def to_message(self) -> dict:
        fields = asdict(self)
        fields["area"] = {
            name: str(value) if isinstance(value, Path) else value
            for name, value in fields["area"].items()
        }
        return fields

    @classmethod
    def from_message(cls, fields: Mapping[str, Any]) -> RunOrder:
        area = dict(fields["area"])
        for name in ("root", "shared", "scratch"):
            area[name] = None if area[name] is None else Path(area[name])
        return cls(
            run_id=fields["run_id"],
            document=fields["document"],
            parameters=fields["parameters"],
            area=FileArea(**area),
            connections={
                name: ConnectionSpec(**spec) for name, spec in fields["connections"].items()
            },
            budget=Budget(**fields["budget"]),
            sys_path=list(fields["sys_path"]),
        )


def named_connections(
    plan: Plan, connections: Mapping[str, ConnectionSpec | str]
) -> dict[str, ConnectionSpec]:
    """Of `connections`, those a node of `plan` names (its `connection` param, which every
    SQL operator names its database with); a run's process is given no other."""
    names = {getattr(node.params, "connection", None) for node in plan.nodes.values()}
    return {name: as_spec(spec) for name, spec in connections.items() if name in names}
