"""The frames a run's nodes produced that their consumers have not all read yet.

Each output port's frame is kept until its last consumer took it, then dropped, so a long
pipeline holds only the frames still needed (Hamilton's `execute_subdag`, dask's
`release_data`); the outputs of nodes a caller asked to retain stay to the end. Not
thread-safe: the executor calls it under its lock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from runtime.lazy import pd
from runtime.plan import Source
from runtime.tables.spilled import SpilledRows


class OutputStore:
    """Frames by output port, each dropped once its last consumer took it."""

    def __init__(self, consumers: Mapping[Source, int], retain: set[str]):
        self._frames: dict[Source, pd.DataFrame] = {}
        self._unread = Counter(consumers)
        self._retain = retain

    def put(self, node_id: str, outputs: Mapping[str, pd.DataFrame]) -> None:
        """Keep a node's outputs that someone will read (or that are retained)."""
        for port, frame in outputs.items():
            if self._unread[(node_id, port)] > 0 or node_id in self._retain:
                self._frames[(node_id, port)] = frame

    def take(self, source: Source) -> pd.DataFrame:
        """One consumer's read of `source`; the last one removes it from the store."""
        self._unread[source] -= 1
        if self._unread[source] == 0 and source[0] not in self._retain:
            return self._frames.pop(source)
        return self._frames[source]

    def frames(self) -> dict[Source, pd.DataFrame]:
        """The frames still held: the retained ones, and any a stopped run left unread (not
        rows spilled to a file, which goes when the run ends: a retained node never spills)."""
        return {
            source: frame
            for source, frame in self._frames.items()
            if not isinstance(frame, SpilledRows)
        }
