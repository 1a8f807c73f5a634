"""Why a piece of a pipeline stays on pandas instead of lowering to DuckDB."""

from __future__ import annotations


class NotLowerable(Exception):
    """DuckDB cannot give exactly pandas' result here; `reason` is a sentence `explain` prints."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
