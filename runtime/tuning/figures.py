"""A profile summed up: each node's typical figures over the runs it keeps."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class NodeFigures:
    """A node's medians over its last `runs` measurements (of bytes: over those that have
    them; a node that ran inside a DuckDB segment made no frame to measure)."""

    node: str
    rows: int
    bytes: int
    seconds: float
    runs: int
    backend: str
    """Where it ran the last time it was measured."""
    sized: bool = True
    """Whether its bytes were measured at all (not for a node that only ran inside DuckDB)."""


def node_figures(profile: dict[str, Any]) -> dict[str, NodeFigures]:
    """Each measured node's figures, by node id."""
    found = {}
    for node_id, measurements in profile["nodes"].items():
        if not measurements:
            continue
        sizes = [one["bytes"] for one in measurements if one.get("bytes") is not None]
        found[node_id] = NodeFigures(
            node=node_id,
            rows=int(statistics.median(one["rows"] for one in measurements)),
            bytes=int(statistics.median(sizes)) if sizes else 0,
            seconds=float(statistics.median(one.get("seconds") or 0 for one in measurements)),
            runs=len(measurements),
            backend=str(measurements[-1].get("backend", "pandas")),
            sized=bool(sizes),
        )
    return found


def size_text(count: float) -> str:
    """Bytes as people read them: `1.9 GiB`, `48.0 MiB`, `312 bytes`."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError  # the loop always returns
