"""A profile summed up: each node's typical figures over the runs it keeps."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
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
    compute_s: float | None = None
    """Seconds its operator took, without waiting for the store (None: not timed so)."""
    store_s: float | None = None
    """Seconds its result took to write to the result store (None: never timed, as when
    DuckDB wrote it or a run left it out)."""
    stored_bytes: int | None = None
    """The size of that Parquet file."""


def node_figures(profile: dict[str, Any], shapes: Mapping[str, str]) -> dict[str, NodeFigures]:
    """The figures of each node of `shapes` (node id → its shape) measured in that shape."""
    found = {}
    for node_id, shape in shapes.items():
        measurements = profile["nodes"].get(shape)
        if not measurements:
            continue
        sizes = [one["bytes"] for one in measurements if one.get("bytes") is not None]
        writes = [one for one in measurements if one.get("store_s") is not None]
        computed = [one["compute_s"] for one in measurements if one.get("compute_s") is not None]
        found[node_id] = NodeFigures(
            node=node_id,
            rows=int(statistics.median(one["rows"] for one in measurements)),
            bytes=int(statistics.median(sizes)) if sizes else 0,
            seconds=float(statistics.median(one.get("seconds") or 0 for one in measurements)),
            runs=len(measurements),
            backend=str(measurements[-1].get("backend", "pandas")),
            sized=bool(sizes),
            compute_s=float(statistics.median(computed)) if computed else None,
            store_s=float(statistics.median(one["store_s"] for one in writes)) if writes else None,
            stored_bytes=(
                int(statistics.median(one.get("stored_bytes") or 0 for one in writes))
                if writes
                else None
            ),
        )
    return found


def size_text(count: float) -> str:
    """Bytes as people read them: `1.9 GiB`, `48.0 MiB`, `312 bytes`."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError  # the loop always returns
