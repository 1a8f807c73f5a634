"""The OpenAPI contract of an incremental input's stored position."""

from __future__ import annotations

from ninja import Schema


class StoredPosition(Schema):
    node_id: str
    position: dict
    """As the runtime reported it: `{"column", "type", "value"}` or `{"files": {...}}`."""
    updated_at: str
    run_id: int | None
    run_number: int
