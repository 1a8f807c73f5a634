"""The OpenAPI contract of the caller's place in the preview line."""

from __future__ import annotations

from ninja import Schema
from pydantic import Field


class PreviewLine(Schema):
    place: int | None = Field(
        description="1 when the caller's next waiting job is served next; null when none waits. "
        "It is the line of the web process answering: behind a load balancer, each keeps its own."
    )
