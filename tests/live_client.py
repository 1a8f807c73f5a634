"""A live-view client that does what the browser does, for tests and benchmarks.

`LiveView` folds the messages of `/ws/pipelines/<id>/` into run states: a snapshot sets the
latest run's state as of its `seq`; an event frame applies the events newer than what the
view knows of their run and drops the others (after a reconnect, frames overlap the
snapshot); a frame whose `after_seq` is ahead of what the view knows means a frame was lost,
and `apply` answers True: ask for a fresh snapshot. `follow` runs that loop over any
transport (a Channels test communicator or a real websocket).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import websockets

from editor.runs.attempt_spans import with_event


def blank_node() -> dict:
    return {"status": "pending", "metrics": {}, "spans": []}


@dataclass
class RunState:
    """One run as a live view knows it."""

    seq: int = 0
    status: str = "queued"
    nodes: dict[str, dict] = field(default_factory=dict)

    def apply(self, event: dict) -> None:
        """Fold one event in (the same rules the run recorder uses for the rows)."""
        self.seq = event["seq"]
        kind = event["type"]
        if kind == "run_started":
            self.status = "running"
        elif kind == "run_finished":
            self.status = event["status"]
        elif kind == "node_status":
            node = self.nodes.setdefault(event["node"], blank_node())
            node["status"] = event["status"]
            node["spans"] = with_event(node["spans"], event)
            if "metrics" in event:
                node["metrics"] = event["metrics"]
        elif kind == "node_progress":
            node = self.nodes.setdefault(event["node"], blank_node())
            from editor.runs.recorder import SO_FAR  # here: the benchmarks run without Django

            so_far = {metric: event[key] for key, metric in SO_FAR.items() if key in event}
            node["metrics"] = {**node["metrics"], **so_far}


@dataclass
class LiveView:
    """Every run a client has heard of, with the events it applied and the ones it dropped."""

    runs: dict[int, RunState] = field(default_factory=dict)
    applied: list[dict] = field(default_factory=list)
    dropped: int = 0
    frames: list[dict] = field(default_factory=list)
    snapshots: list[dict] = field(default_factory=list)

    def apply(self, message: dict) -> bool:
        """Take one server message; True when a frame was missed and a snapshot is needed."""
        if message["type"] == "snapshot":
            self.snapshots.append(message)
            run = message["run"]
            if run is not None:
                nodes = {node: dict(state) for node, state in run["nodes"].items()}
                self.runs[run["id"]] = RunState(message["seq"], run["status"], nodes)
            return False
        if message["type"] != "events":
            return False  # heartbeat
        self.frames.append(message)
        events = message["events"]
        if not events:
            return False
        run = self.runs.setdefault(events[0]["run_id"], RunState())
        if message["after_seq"] > run.seq:
            return True
        for item in events:
            if item["seq"] <= run.seq:
                self.dropped += 1
            else:
                run.apply(item["event"])
                self.applied.append(item["event"])
        return False

    def finished(self, run_id: int) -> bool:
        """Whether the view has heard the run's `run_finished` (or a snapshot of its end)."""
        run = self.runs.get(run_id)
        return run is not None and run.status not in ("queued", "running")

    def count(self, run_id: int, status: str) -> int:
        """How many nodes of a run the view knows in `status`."""
        run = self.runs.get(run_id)
        return sum(node["status"] == status for node in run.nodes.values()) if run else 0

    def node_states(self, run_id: int) -> dict[str, dict]:
        """`{node: {status, metrics, spans}}` of one run, to compare with the API's answer."""
        return self.runs[run_id].nodes


async def follow(
    view: LiveView,
    receive: Callable[[], Awaitable[dict]],
    send: Callable[[dict], Awaitable[None]],
    until: Callable[[LiveView], bool],
    timeout: float = 20,
) -> LiveView:
    """Apply messages until `until(view)`; ask for a snapshot whenever a frame was missed."""
    async with asyncio.timeout(timeout):
        while not until(view):
            if view.apply(await receive()):
                await send({"type": "snapshot_request"})
    return view


def open_socket(server, pipeline_id: int, cookie: str):
    """A real websocket to a server's live view of a pipeline, as a signed-in browser opens it."""
    return websockets.connect(
        f"{server.ws_url}/ws/pipelines/{pipeline_id}/",
        origin=server.url,
        additional_headers={"Cookie": cookie},
        proxy=None,
    )


def websocket_transport(socket) -> tuple[Callable, Callable]:
    """`(receive, send)` over a `websockets` client connection."""

    async def receive() -> dict:
        return json.loads(await socket.recv())

    async def send(message: dict) -> None:
        await socket.send(json.dumps(message))

    return receive, send


def session_cookie(client) -> str:
    """The `Cookie` header of a signed-in Django test client's session (a real session row)."""
    return f"sessionid={client.cookies['sessionid'].value}"


def api_states(run_body: dict) -> dict[str, dict]:
    """`{node: {status, metrics, spans}}` from `GET /api/runs/{id}`."""
    return {
        node: {
            "status": state["status"],
            "metrics": state["metrics"],
            "spans": state["attempt_spans"],
        }
        for node, state in run_body["nodes"].items()
    }


def assert_complete_stream(view: LiveView, run_id: int) -> None:
    """Every event of the run, once each, in order: frames chain by `after_seq`."""
    events = [event for event in view.applied if event["run_id"] == run_id]
    seqs = [event["seq"] for event in events]
    assert seqs == sorted(set(seqs)) and seqs[0] == 1
    assert events[0]["type"] == "run_started" and events[-1]["type"] == "run_finished"
    frames = [frame for frame in view.frames if frame["events"][0]["run_id"] == run_id]
    assert [frame["after_seq"] for frame in frames] == [0] + [
        frame["events"][-1]["seq"] for frame in frames[:-1]
    ]
