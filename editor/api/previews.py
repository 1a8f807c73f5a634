"""`GET /api/previews/line`: where the caller's next preview or check waits for a process.

A preview's request is held while it waits (`editor.runs.jobs`'s line) and cannot stream
its place, so the editor asks here meanwhile and shows "waiting for a process (2nd in line)".
"""

from __future__ import annotations

from ninja import Router

from editor.api.schemas.contract import answers
from editor.api.schemas.previews import PreviewLine
from editor.runs import jobs

router = Router()


@router.get("/line", response=answers({200: PreviewLine}), summary="Place in the preview line")
def preview_line(request):
    """Where the caller's next preview, schema inference or check waits for a process."""
    return {"place": jobs.place_in_line(request.user)}
