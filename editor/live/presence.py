"""Who else has a pipeline open, and what they saved: the messages of editing together.

Every socket of a pipeline's group says who it is when it joins (`presence.join`), each other
socket answers it directly (`presence.here`), a selection is told to all (`presence.select`),
and leaving too (`presence.leave`). A socket never shows its own user's presence to them (their
other tabs included). A save tells the group who saved which revision (`announce_save`), after
it commits, so an open editor loads it or says that a newer version exists.
"""

from __future__ import annotations

import re
import secrets

from django.db import transaction

from editor.live import relay
from runtime.document.spec import NODE_ID_MAX_LENGTH, NODE_ID_PATTERN

COLOURS = ("#d9480f", "#2b8a3e", "#1864ab", "#862e9c", "#c2255c", "#0b7285", "#5c940d", "#e67700")
"""Each person's colour on the others' screens (outlines and avatars), by user id."""
_NODE_ID = re.compile(NODE_ID_PATTERN)


def person(user, name: str) -> dict:
    """How one open editor is shown to the others: a fresh id per socket, their name, initials
    and colour."""
    return {
        "id": secrets.token_hex(8),
        "user": user.pk,
        "name": name,
        "initials": initials(name),
        "colour": COLOURS[user.pk % len(COLOURS)],
    }


def initials(name: str) -> str:
    """'Ada Lovelace' → 'AL', 'bob' → 'B'."""
    words = [word for word in name.replace(".", " ").replace("_", " ").split() if word]
    return "".join(word[0] for word in words[:2]).upper() or "?"


def selection_of(content: dict) -> str | None:
    """The node a `select` message names: None for none, or for anything but a node id (what
    a document's node ids may be; other editors' pages draw it)."""
    node = content.get("node")
    if isinstance(node, str) and len(node) <= NODE_ID_MAX_LENGTH and _NODE_ID.fullmatch(node):
        return node
    return None


def announce_save(pipeline_id: int, revision: int, user, name: str) -> None:
    """Tell the pipeline's open editors, once the save commits, that `name` saved `revision`."""
    message = {
        "type": "pipeline.saved",
        "revision": revision,
        "user": user.pk if user is not None else None,
        "username": user.get_username() if user is not None else None,
        "by": name,
    }
    transaction.on_commit(lambda: relay.send_to_group(relay.group_name(pipeline_id), message))
