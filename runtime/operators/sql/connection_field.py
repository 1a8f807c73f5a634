"""The field both SQL operators name their database connection with."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

ConnectionName = Annotated[
    str,
    Field(
        title="Connection",
        description="Name of a database connection configured for the runtime.",
        min_length=1,
        json_schema_extra={"format": "connection"},  # the editor offers the workspace's
    ),
]
"""A connection's name, looked up in the run's connections (see `runtime.io.sql.connections`)."""
