"""`GET /api/previews/line`: where the caller's next preview or check waits for a process.

A preview's request is held while it waits (`editor.runs.jobs`'s line) and cannot stream
its place, so the editor asks here meanwhile and shows "waiting for a process (2nd in line)".
"""

from __future__ import annotations

from ninja import Router, Schema
from pydantic import Field

from editor.api.schemas import answers
from editor.runs import jobs

router = Router()


class PreviewLine(Schema):
    place: int | None = Field(
        description="1 when the caller's next waiting job is served next; null when none waits. "
        "It is the line of the web process answering: behind a load balancer, each keeps its own."
    )


@router.get("/line", response=answers({200: PreviewLine}), summary="Place in the preview line")
def preview_line(request):
    """Where the caller's next preview, schema inference or check waits for a process."""
    return {"place": jobs.place_in_line(request.user)}
