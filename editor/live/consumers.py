"""The live view's websocket: `/ws/pipelines/<id>/`.

It only connects, relays and answers snapshot requests. On connect it joins the pipeline's
group first and reads the snapshot second, so no event falls between the two (the client
drops what it has already seen by `seq`). Anyone who may not see the pipeline is closed
with code 4403, also later: when the user leaves the workspace, is deactivated or changes
password (it asks again when told, and at every heartbeat), or signs out of the session that
opened the socket (`editor.live.watcher_access`). While the database cannot be reached, a socket
that needs a snapshot is closed with 4503 (try again later; the browser reconnects). A client
that sends a frame over 4 KiB (4413) or more than about 20 a second (4429) is closed too,
before its message costs anything (`editor.live.inbound_limits`). What it fails to read is bounded
by `editor.live.backpressure`. It also tells who else has the pipeline open, what they select
and what they saved (`editor.live.presence`); the only message a client sends besides snapshot
requests is its selection.
"""

from __future__ import annotations

import asyncio

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from editor.database.outage import UNAVAILABLE
from editor.database.outage_responses import TRY_AGAIN_LATER
from editor.live import presence
from editor.live.inbound_limits import MAX_FRAME_BYTES, TOO_LARGE, TOO_MANY, TokenBucket, frame_size
from editor.live.relay import group_name, remember_server_loop, user_group
from editor.live.snapshots import latest_run_snapshot
from editor.live.watcher_access import may_still_watch, session_digest
from editor.pipelines.merging import display_name
from editor.workspaces.permissions import visible_pipelines
from runtime.document import json_text
from runtime.document.json_text import JsonTextError

FORBIDDEN = 4403
NOT_JSON = 4400
HEARTBEAT_S = 15


class PipelineConsumer(AsyncJsonWebsocketConsumer):
    refused = False
    me: dict | None = None
    selection: str | None = None

    async def connect(self):
        remember_server_loop()
        self.inbound = TokenBucket()
        await self.accept()
        self.pipeline_id = int(self.scope["url_route"]["kwargs"]["pipeline_id"])
        try:
            allowed = await self._may_watch()
        except UNAVAILABLE:
            await self._refuse(TRY_AGAIN_LATER)
            return
        if not allowed:
            await self.close(code=FORBIDDEN)
            return
        self.group = group_name(self.pipeline_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.user_group = user_group(self.scope["user"].pk)
        await self.channel_layer.group_add(self.user_group, self.channel_name)
        await self._send_snapshot()
        self.heartbeat = asyncio.create_task(self._beat())
        await self._tell_group("presence.join", reply_to=self.channel_name)

    async def disconnect(self, code):
        await self._stop()

    async def websocket_receive(self, message):
        """Every frame is checked against the limits before it is decoded."""
        if self.refused:
            return
        if frame_size(message) > MAX_FRAME_BYTES:
            await self._refuse(TOO_LARGE)
        elif not self.inbound.take():
            await self._refuse(TOO_MANY)
        else:
            await super().websocket_receive(message)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """A frame that is not JSON we accept (too deep, NaN, garbage) closes the socket."""
        try:
            content = json_text.loads(text_data if text_data is not None else bytes_data)
        except JsonTextError:
            await self._refuse(NOT_JSON)
            return
        await self.receive_json(content, **kwargs)

    async def receive_json(self, content, **kwargs):
        """The client asks for a snapshot when it noticed a gap in `seq`, and tells what it
        selected."""
        if not isinstance(content, dict):
            return
        if content.get("type") == "snapshot_request":
            await self._send_snapshot()
        elif content.get("type") == "select" and self.me is not None:
            self.selection = presence.selection_of(content)
            await self._tell_group("presence.select")

    async def presence_join(self, message):
        """Someone opened the pipeline: show them, and tell them who is here already."""
        if self._shows(message):
            await self.send_json({"type": "presence", **self._presence(message)})
            if self.me is not None:
                here = {"type": "presence.here", "who": self.me, "selection": self.selection}
                await self.channel_layer.send(message["reply_to"], here)

    async def presence_here(self, message):
        if self._shows(message):
            await self.send_json({"type": "presence", **self._presence(message)})

    async def presence_select(self, message):
        if self._shows(message):
            await self.send_json({"type": "presence", **self._presence(message)})

    async def presence_leave(self, message):
        if self._shows(message):
            await self.send_json({"type": "presence_left", "id": message["who"]["id"]})

    async def pipeline_saved(self, message):
        """Someone saved the pipeline: the editor loads it, or says a newer version exists."""
        if not self.refused:
            fields = {key: message[key] for key in ("revision", "user", "username", "by")}
            await self.send_json({"type": "saved", **fields})

    def _shows(self, message) -> bool:
        """Whether a presence message is someone else's, to show to this socket's user."""
        return not self.refused and message["who"]["user"] != self.scope["user"].pk

    @staticmethod
    def _presence(message) -> dict:
        return {"who": message["who"], "selection": message.get("selection")}

    async def _tell_group(self, kind: str, **extra) -> None:
        if self.me is not None and hasattr(self, "group"):
            message = {"type": kind, "who": self.me, "selection": self.selection, **extra}
            await self.channel_layer.group_send(self.group, message)

    async def run_events(self, message):
        """A frame of recorded events from a run of this pipeline, encoded once for everyone."""
        if not self.refused:
            await self.send(text_data=message["text"])

    async def access_changed(self, message):
        """The user's memberships or account changed: close if they may no longer watch."""
        if not self.refused and not await self._may_still_watch():
            await self._refuse(FORBIDDEN)

    async def session_ended(self, message):
        """A session of the user signed out: close if it is the one that opened this socket."""
        if not self.refused and message["session"] == session_digest(self._session_key()):
            await self._refuse(FORBIDDEN)

    async def _refuse(self, code: int) -> None:
        """Close a misbehaving client and stop everything this connection does."""
        self.refused = True
        await self._stop()
        await self.close(code=code)

    async def _stop(self) -> None:
        if hasattr(self, "heartbeat") and self.heartbeat is not asyncio.current_task():
            self.heartbeat.cancel()
        await self._tell_group("presence.leave")
        self.me = None
        for group in ("group", "user_group"):
            if hasattr(self, group):
                await self.channel_layer.group_discard(getattr(self, group), self.channel_name)
                delattr(self, group)

    async def _send_snapshot(self):
        try:
            seq, run = await database_sync_to_async(latest_run_snapshot)(self.pipeline_id)
        except UNAVAILABLE:  # the client reconnects with backoff, and gets one then
            await self._refuse(TRY_AGAIN_LATER)
            return
        await self.send_json({"type": "snapshot", "seq": seq, "run": run})

    async def _beat(self):
        while not self.refused:
            await asyncio.sleep(HEARTBEAT_S)
            if not await self._may_still_watch():
                await self._refuse(FORBIDDEN)
                return
            await self.send_json({"type": "heartbeat"})

    def _session_key(self) -> str | None:
        session = self.scope.get("session")
        return session.session_key if session is not None else None

    async def _may_still_watch(self) -> bool:
        try:
            return await database_sync_to_async(may_still_watch)(
                self._session_key(), self.scope["user"].pk, self.pipeline_id
            )
        except UNAVAILABLE:  # the database is away: nobody's access changes meanwhile
            return True

    @database_sync_to_async
    def _may_watch(self) -> bool:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            return False
        if not visible_pipelines(user).filter(pk=self.pipeline_id).exists():
            return False
        self.me = presence.person(user, display_name(user))
        return True
