"""Live notifications: recorded run events, relayed to everyone watching the pipeline.

The run recorder calls `broadcast` after each batch is committed, so a listener never hears
of a state the database lacks. One channel-layer message carries a batch (a frame);
progress events within a batch are merged (one per node is sent: the latest, with the rows or
share of an earlier one where it has none); status, log and finish events never are. Each
frame says which `seq` it follows (`after_seq`), so a client that missed a frame notices the
gap and asks for a fresh snapshot. A batch of more
than `MAX_FRAME_EVENTS` events (the start of a run of thousands of nodes) goes out as several
frames in a row, so no frame nears the websocket's message limit (1 MiB in daphne, which
fails the whole connection). The frame is encoded to JSON once, here: the message then
carries one string, which the in-memory layer does not deep-copy per watcher and no consumer
encodes again.

Threads cannot use `async_to_sync(group_send)` with the in-memory layer (the server's loop is
not woken), so batches are handed to the server's own event loop when this process serves
websockets; without one (a management command), they go through `async_to_sync`, which
reaches browsers only through a shared layer such as Redis.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from runtime import Event

log = logging.getLogger(__name__)
SEND_TIMEOUT_S = 5
MAX_FRAME_EVENTS = 500  # about 200 KiB of JSON

_server_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def group_name(pipeline_id: int) -> str:
    """The channel-layer group of one pipeline's watchers."""
    return f"pipeline.{pipeline_id}"


def user_group(user_id: int) -> str:
    """The channel-layer group of one user's live-view sockets (`editor.live.watcher_access`)."""
    return f"watcher.user.{user_id}"


def remember_server_loop() -> None:
    """Called from async code of the server: broadcasts from threads go to this loop."""
    global _server_loop
    with _loop_lock:
        _server_loop = asyncio.get_running_loop()


def frame_events(events: list[Event]) -> list[dict]:
    """The events worth sending: every one, except progress superseded within the batch.

    Tracebacks stay out: every watcher gets the same frame, and a traceback names the server's
    files (staff read it in the run's API answer and the admin)."""
    latest: dict[str, Event] = {}
    for event in events:
        if event["type"] == "node_progress":
            latest[event["node"]] = {**latest.get(event["node"], {}), **event}
    items = []
    for event in events:
        if event["type"] == "node_progress":
            if latest[event["node"]]["seq"] != event["seq"]:
                continue  # superseded within the batch
            event = latest[event["node"]]
        items.append(
            {"run_id": event["run_id"], "seq": event["seq"], "event": _without_traceback(event)}
        )
    return items


def _without_traceback(event: Event) -> Event:
    return {k: v for k, v in event.items() if k != "traceback"} if "traceback" in event else event


def broadcast(pipeline_id: int, after_seq: int, events: list[Event]) -> None:
    """Send a batch of a run's events to the pipeline's watchers, in frames (never raises)."""
    items = frame_events(events)
    for start in range(0, max(len(items), 1), MAX_FRAME_EVENTS):
        chunk = items[start : start + MAX_FRAME_EVENTS]
        _send_frame(pipeline_id, {"type": "events", "after_seq": after_seq, "events": chunk})
        after_seq = chunk[-1]["seq"] if chunk else after_seq


def _send_frame(pipeline_id: int, frame: dict) -> None:
    message = {"type": "run.events", "text": json.dumps(frame, separators=(",", ":"))}
    send_to_group(group_name(pipeline_id), message)


def send_to_group(group: str, message: dict) -> None:
    """Send a channel-layer message to a group from any thread (never raises)."""
    layer = get_channel_layer()
    if layer is None:
        return
    send = layer.group_send(group, message)
    try:
        loop = _server_loop
        if loop is not None and loop.is_running():
            asyncio.run_coroutine_threadsafe(send, loop).result(SEND_TIMEOUT_S)
        else:
            async_to_sync(_await)(send)
    except Exception:  # watchers recover from a lost frame with a snapshot; the run goes on
        log.warning("could not send to the group %s", group, exc_info=True)


async def _await(coroutine):
    return await coroutine
